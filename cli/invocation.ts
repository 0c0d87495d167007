/**
 * How a person runs this CLI again, for the commands it suggests: `npx cairn` when Cairn is
 * installed in a project (its bin is not on PATH), `cairn` from a checkout. Node-only.
 */
import { INSTALLED } from '../runtime/package-root.js';

export const CAIRN = INSTALLED ? 'npx cairn' : 'cairn';
