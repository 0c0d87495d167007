/**
 * Scores a lane's answer with an evaluation's scorers (shared/eval/define-eval.ts): exact,
 * contains, a JSON schema, a function of yours, or a judge model. A scorer that throws scores 0
 * with its error as the reason; it never stops the evaluation. Node-only (a judge calls a model).
 */
import type { ModelClient } from '../../activities/model/model-client.js';
import type { Score, ScoreInput, Scorer } from '../../shared/eval/define-eval.js';

export interface ScoreResult {
  readonly name: string;
  readonly score: number;
  readonly pass: boolean;
  readonly reason?: string;
}

export async function scoreAll(
  scorers: readonly Scorer[],
  input: ScoreInput,
  resolveModel: (spec: string) => ModelClient,
): Promise<ScoreResult[]> {
  return Promise.all(
    scorers.map(async (scorer) => {
      let score: Score;
      try {
        score = normalised(await scoreOne(scorer, input, resolveModel));
      } catch (error) {
        score = { score: 0, reason: `the scorer failed: ${(error as Error).message}` };
      }
      return { name: scorer.name, ...score, pass: score.score >= (scorer.pass ?? 1) };
    }),
  );
}

function normalised(value: number | boolean | Score): Score {
  if (typeof value === 'boolean') return { score: value ? 1 : 0 };
  if (typeof value === 'number') return { score: clamp(value) };
  return { ...value, score: clamp(value.score) };
}

function clamp(score: number): number {
  return Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
}

async function scoreOne(
  scorer: Scorer,
  input: ScoreInput,
  resolveModel: (spec: string) => ModelClient,
): Promise<number | boolean | Score> {
  const answer = input.answer ?? '';
  switch (scorer.kind) {
    case 'exact':
      if (input.expected === null)
        return { score: 0, reason: 'nothing to compare with: no recorded or expected answer' };
      return answer.trim() === input.expected.trim()
        ? 1
        : { score: 0, reason: `expected ${JSON.stringify(input.expected)}` };
    case 'contains':
      return answer.toLowerCase().includes(scorer.text.toLowerCase());
    case 'schema': {
      let json: unknown;
      try {
        json = JSON.parse(answer);
      } catch {
        return { score: 0, reason: 'the answer is not JSON' };
      }
      const checked = scorer.schema.safeParse(json);
      return checked.success ? 1 : { score: 0, reason: checked.error.issues[0]?.message ?? 'does not fit the schema' };
    }
    case 'function':
      return scorer.fn(input);
    case 'judge':
      return judged(resolveModel(scorer.model), scorer.rubric, input);
  }
}

/** Asks the judge; its reply's first PASS or FAIL decides, and the rest is the reason. */
async function judged(model: ModelClient, rubric: string, input: ScoreInput): Promise<Score> {
  const outcome = await model.generate({
    messages: [
      {
        role: 'system',
        content:
          "You grade an AI agent's answer against a rubric. Reply with PASS or FAIL on the first line, then one sentence saying why.",
      },
      {
        role: 'user',
        content: `Rubric: ${rubric}\n\nThe user asked: ${input.prompt}\n\n${input.expected === null ? '' : `A reference answer: ${input.expected}\n\n`}The agent answered: ${input.answer ?? '(no answer)'}`,
      },
    ],
    tools: [],
    toolChoice: 'none',
  });
  if (outcome.status !== 'ok') return { score: 0, reason: `the judge failed: ${outcome.error.message}` };
  const text = outcome.response?.text ?? '';
  const verdict = /\b(PASS|FAIL)\b/i.exec(text)?.[1]?.toUpperCase();
  if (!verdict) return { score: 0, reason: `the judge said neither PASS nor FAIL: ${text.slice(0, 200)}` };
  return { score: verdict === 'PASS' ? 1 : 0, reason: text.replace(/\s+/g, ' ').trim().slice(0, 300) };
}
