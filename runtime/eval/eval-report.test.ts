/**
 * The HTML report's links to the run pages: with `runPagesUrl`, each case's baseline and candidate
 * lane runs link to `<base>/runs/<workflowId>/page` as the HTTP handler serves them (its mount path
 * kept, the id one encoded path segment), everything escaped; without it, no links; a base that is
 * not http(s) is refused.
 */
import { describe, expect, it } from 'vitest';
import type { DecisionTrace } from '../../shared/eval/decision-trace.js';
import { htmlReport } from './eval-report.js';
import type { CaseReport, EvalReport, LaneReport, LaneSummary } from './eval-results.js';

const trace: DecisionTrace = {
  calls: [],
  turns: 1,
  repairs: 0,
  backOffs: 0,
  disabledTools: [],
  clarifications: 0,
  reviews: 0,
  budgets: 0,
  outcome: 'answered',
  answer: 'Done.',
  usage: { inputTokens: 10, outputTokens: 2, costUsd: 0.001 },
  durationMs: 40,
};
const lane = (workflowId: string): LaneReport => ({
  workflowId,
  trace,
  scores: [],
  pass: true,
  failures: [],
  newAsks: [],
  served: { recorded: 1, nearest: 0, live: 0, refused: 0 },
  mismatches: [],
  misfits: [],
  reused: false,
});
const changed: CaseReport = {
  id: 'case-1',
  source: 'evals/cases/a.json',
  prompt: 'Refund <b>A-9</b>',
  baseline: lane('cairn-eval-baseline-abc'),
  // An id with characters a path and HTML both give meaning to.
  candidate: lane('cairn-eval-candidate-x/1?"<i>&'),
  changes: [{ kind: 'arguments_changed', tool: 'issue_refund', before: 20, after: 70, text: 'amount: 20 → 70' }],
  pass: false,
};
const errored: CaseReport = {
  id: 'case-2',
  source: 'evals/cases/b.json',
  prompt: 'Hello',
  error: { code: 'unreadable', message: 'no such file' } as CaseReport['error'],
  pass: false,
};
const totals: LaneSummary = { passed: 1, passRate: 1, costUsd: 0.001, tokens: 12, durationMs: 40, peopleAsked: 0 };
const report: EvalReport = {
  agent: 'support',
  candidate: 'new model',
  tools: 'strict',
  startedAt: '2026-12-08T10:00:00.000Z',
  durationMs: 1000,
  cases: [changed, errored],
  summary: {
    cases: 2,
    errors: 1,
    evaluated: 1,
    baseline: totals,
    candidate: totals,
    harnessAgreement: 1,
    changedCases: 1,
    newHumanAsks: 0,
  },
  gates: [],
  passed: false,
};

const hrefs = (html: string) => [...html.matchAll(/<a [^>]*href="([^"]*)"/g)].map((m) => m[1]);

describe('htmlReport links to the run pages', () => {
  it("links each case's baseline and candidate runs to their pages under the handler's mount path", () => {
    const html = htmlReport(report, { runPagesUrl: 'https://ops.example.com/api/cairn/' });
    const baseline = 'https://ops.example.com/api/cairn/runs/cairn-eval-baseline-abc/page';
    const candidate = `https://ops.example.com/api/cairn/runs/${encodeURIComponent('cairn-eval-candidate-x/1?"<i>&')}/page`;
    // The runs line and the diff's column headings: two links to each run, none for the case that errored.
    expect(hrefs(html).map((h) => h!.replaceAll('&amp;', '&'))).toEqual([baseline, candidate, baseline, candidate]);
    expect(html).toContain(`<a class="run-page" data-lane="candidate" href="${candidate.replaceAll('&', '&amp;')}"`);
    // The id as text is escaped; nothing of it becomes markup.
    expect(html).toContain('<code>cairn-eval-candidate-x/1?&quot;&lt;i&gt;&amp;</code>');
    expect(html).not.toContain('<i>');
    expect(html).toContain('Refund &lt;b&gt;A-9&lt;/b&gt;');
  });

  it('keeps the base path and drops a query or fragment of the base', () => {
    const html = htmlReport(report, { runPagesUrl: 'http://localhost:8787?x=1#top' });
    expect(hrefs(html)[0]).toBe('http://localhost:8787/runs/cairn-eval-baseline-abc/page');
  });

  it('has no links without runPagesUrl, and refuses a base that is not http(s)', () => {
    const html = htmlReport(report);
    expect(hrefs(html)).toEqual([]);
    expect(html).toContain('<th>baseline</th><th>candidate</th>');
    expect(() => htmlReport(report, { runPagesUrl: 'javascript:alert(1)//' })).toThrow(/http\(s\) URL/);
    expect(() => htmlReport(report, { runPagesUrl: 'ops.example.com' })).toThrow(/http\(s\) URL/);
  });
});
