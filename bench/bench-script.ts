/**
 * The scripted model's part in every bench: `turns` model turns that each call `fetch_record`
 * `callsPerTurn` times (distinct ids), then a text answer. The same script drives agentRun and
 * the baselines, so they make the same calls. Worker side.
 */
import { scriptStep, type Script } from '../testing/script-steps.js';
import { fetchRecord, recordId } from './bench-agent.js';

export function toolTurnsScript(turns: number, callsPerTurn = 1): Script {
  const turn = (t: number) =>
    scriptStep.calls(
      Array.from({ length: callsPerTurn }, (_, i) => ({
        name: fetchRecord.name,
        arguments: { id: recordId(t, i + 1) },
      })),
    );
  return [...Array.from({ length: turns }, (_, t) => turn(t + 1)), scriptStep.text('Done: every record fetched.')];
}
