/**
 * How a person runs this CLI again, for the commands it suggests: `npx cairn` when Cairn is
 * installed in a project (its bin is not on PATH), `cairn` from a checkout. Node-only.
 */
import { INSTALLED } from '../runtime/package-root.js';

export const CAIRN = INSTALLED ? 'npx cairn' : 'cairn';

/**
 * The same, as a command that works where this copy runs: `npx cairn` installed; in a checkout,
 * whose `cairn` is not on PATH, `npm run cairn --` (run in the checkout: npm runs scripts there).
 */
export const CAIRN_HERE = INSTALLED ? 'npx cairn' : 'npm run cairn --';
