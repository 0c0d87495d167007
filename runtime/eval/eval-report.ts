/**
 * An evaluation's report, written for people and for CI: a terminal summary, JUnit XML (one test
 * case per evaluated case, the gates as a suite of their own), and one self-contained HTML page
 * with each case's decision diff and charts of the score, cost and latency deltas. The JSON is
 * the EvalReport itself. Node-only (pure string building; the CLI writes the files).
 */

/** How the HTML report is written. */
export interface HtmlReportOptions {
  /**
   * Where `createCairnHttpHandler` (`cairn serve`) is mounted, its `basePath` included (e.g.
   * `https://ops.example.com/api/cairn`): each case's baseline and candidate runs link to their run
   * pages, `<runPagesUrl>/runs/<workflowId>/page`. An http(s) URL. Default: no links.
   */
  readonly runPagesUrl?: string;
}
import type { CaseReport, EvalReport, LaneReport } from './eval-results.js';

const pct = (value: number | null) => (value === null ? 'n/a' : `${Math.round(value * 1000) / 10}%`);
const usd = (value: number) => `$${value.toFixed(value < 1 ? 4 : 2)}`;

/** A case's score on a lane: the share of its scorers that passed, or 1/0 for pass/fail without scorers. */
function laneScore(lane: LaneReport | undefined): number {
  if (!lane) return 0;
  if (lane.scores.length === 0) return lane.pass ? 1 : 0;
  return lane.scores.reduce((sum, score) => sum + score.score, 0) / lane.scores.length;
}

/** The terminal summary: a line a case that changed or failed, then the totals and the gates. */
export function summaryText(report: EvalReport): string {
  const lines: string[] = [];
  for (const item of report.cases) {
    if (item.error) {
      lines.push(`ERROR ${item.id}: ${item.error.code}: ${item.error.message}`);
      continue;
    }
    const changes = item.changes ?? [];
    const failures = item.candidate?.failures ?? [];
    const misfits = item.candidate?.misfits ?? [];
    if (item.pass && changes.length === 0 && misfits.length === 0 && item.harnessAgrees !== false) continue;
    lines.push(`${item.pass ? 'changed' : 'FAIL'} ${item.id} (${JSON.stringify(item.prompt.slice(0, 60))})`);
    for (const change of changes) lines.push(`  - ${change.text}`);
    for (const failure of failures) lines.push(`  ! ${failure}`);
    for (const misfit of misfits) lines.push(`  ~ recorded ${misfit} (the candidate's schema refuses it)`);
    if (item.harnessAgrees === false)
      lines.push(
        `  ? the baseline lane did not reproduce the recording: ${(item.drift ?? []).map((d) => d.text).join('; ')}`,
      );
  }
  const { summary } = report;
  lines.push(
    '',
    `Evaluated ${summary.evaluated} of ${summary.cases} case(s) of agent "${report.agent}" against "${report.candidate}" (tools: ${report.tools})` +
      `${summary.errors ? `; ${summary.errors} could not be evaluated` : ''}.`,
    `  pass rate   baseline ${pct(summary.baseline.passRate)}   candidate ${pct(summary.candidate.passRate)}`,
    `  cost        baseline ${usd(summary.baseline.costUsd)}   candidate ${usd(summary.candidate.costUsd)}   tokens ${summary.baseline.tokens} → ${summary.candidate.tokens}`,
    `  people      asked ${summary.baseline.peopleAsked} → ${summary.candidate.peopleAsked}; ${summary.newHumanAsks} case(s) would ask someone new`,
    `  decisions   ${summary.changedCases} case(s) changed; the baseline lane reproduced ${pct(summary.harnessAgreement)} of the recordings`,
  );
  for (const gate of report.gates)
    lines.push(`  gate ${gate.gate} ${gate.crossed ? 'CROSSED' : 'ok'} (limit ${gate.limit}, actual ${gate.actual})`);
  lines.push(report.passed ? 'cairn eval: passed.' : 'cairn eval: FAILED.');
  return `${lines.join('\n')}\n`;
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&${{ '<': 'lt', '>': 'gt', '&': 'amp', '"': 'quot', "'": 'apos' }[c]};`);
}

/** JUnit XML: suite `cases` (a test per case: failed, errored, or passed with its changes as output) and suite `gates`. */
export function junitXml(report: EvalReport): string {
  const cases = report.cases.map((item) => {
    const name = xml(item.id);
    const time = ((item.candidate?.trace.durationMs ?? 0) / 1000).toFixed(3);
    if (item.error)
      return `    <testcase classname="cairn-eval.${xml(report.agent)}" name="${name}" time="0"><error type="${item.error.code}" message="${xml(item.error.message)}"/></testcase>`;
    const changes = (item.changes ?? []).map((change) => change.text).join('\n');
    const body = item.pass
      ? ''
      : `<failure type="case_failed" message="${xml((item.candidate?.failures ?? []).join('; ') || 'failed')}">${xml(changes)}</failure>`;
    const out = changes ? `<system-out>${xml(changes)}</system-out>` : '';
    return `    <testcase classname="cairn-eval.${xml(report.agent)}" name="${name}" time="${time}">${body}${out}</testcase>`;
  });
  const gates = report.gates.map(
    (gate) =>
      `    <testcase classname="cairn-eval.gates" name="${gate.gate}">${gate.crossed ? `<failure type="gate_crossed" message="${xml(`limit ${gate.limit}, actual ${gate.actual}`)}"/>` : ''}</testcase>`,
  );
  const failures = report.cases.filter((item) => !item.error && !item.pass).length;
  const errors = report.cases.filter((item) => item.error).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="cairn eval ${xml(report.candidate)}" tests="${report.cases.length + report.gates.length}" failures="${failures + report.gates.filter((g) => g.crossed).length}" errors="${errors}">`,
    `  <testsuite name="cases" tests="${report.cases.length}" failures="${failures}" errors="${errors}" timestamp="${report.startedAt}">`,
    ...cases,
    '  </testsuite>',
    `  <testsuite name="gates" tests="${report.gates.length}" failures="${report.gates.filter((g) => g.crossed).length}" errors="0">`,
    ...gates,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** A horizontal bar chart (SVG) of one delta per case, centred on zero; worse is red. */
function deltaChart(
  title: string,
  rows: readonly { label: string; value: number; shown: string }[],
  higherIsBetter: boolean,
): string {
  const width = 640;
  const rowHeight = 18;
  const labelWidth = 200;
  const mid = labelWidth + (width - labelWidth) / 2;
  const max = Math.max(1e-9, ...rows.map((row) => Math.abs(row.value)));
  const half = (width - labelWidth) / 2 - 60;
  const bars = rows.map((row, i) => {
    const y = 24 + i * rowHeight;
    const length = (Math.abs(row.value) / max) * half;
    const x = row.value >= 0 ? mid : mid - length;
    const worse = higherIsBetter ? row.value < 0 : row.value > 0;
    const fill = row.value === 0 ? '#999' : worse ? '#c0392b' : '#27ae60';
    return (
      `<text x="4" y="${y + 12}" font-size="11">${xml(row.label.slice(0, 30))}</text>` +
      `<rect x="${x.toFixed(1)}" y="${y + 2}" width="${Math.max(1, length).toFixed(1)}" height="${rowHeight - 6}" fill="${fill}"/>` +
      `<text x="${(row.value >= 0 ? mid + length + 4 : mid + 4).toFixed(1)}" y="${y + 12}" font-size="11">${xml(row.shown)}</text>`
    );
  });
  const height = 32 + rows.length * rowHeight;
  return (
    `<figure><figcaption>${xml(title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${xml(title)}">` +
    `<line x1="${mid}" y1="20" x2="${mid}" y2="${height - 4}" stroke="#333"/>${bars.join('')}</svg></figure>`
  );
}

/** `runPagesUrl` as the base of the links, checked: a link must not run script (`javascript:`). */
function runPagesBase(runPagesUrl: string | undefined): string | undefined {
  if (runPagesUrl === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(runPagesUrl);
  } catch {
    throw new TypeError(`runPagesUrl must be an http(s) URL, not "${runPagesUrl}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`runPagesUrl must be an http(s) URL, not "${runPagesUrl}".`);
  // The handler's routes follow its mount path: a query or fragment of the base has no place in them.
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** A lane run's page as the HTTP handler serves it (`GET <base>/runs/:id/page`), as an attribute value. */
function runPageHref(base: string, workflowId: string): string {
  return xml(`${base}/runs/${encodeURIComponent(workflowId)}/page`);
}

/** The lane's name, linked to its run's page when there is a base and a run. */
function laneHeading(lane: 'baseline' | 'candidate', report: LaneReport | undefined, base: string | undefined): string {
  if (!base || !report) return lane;
  return `<a class="run-page" data-lane="${lane}" href="${runPageHref(base, report.workflowId)}" title="${xml(report.workflowId)}">${lane}</a>`;
}

function caseSection(item: CaseReport, base: string | undefined): string {
  const status = item.error ? 'error' : item.pass ? 'pass' : 'fail';
  const rows: string[] = [];
  if (item.error) rows.push(`<p class="error">${xml(item.error.code)}: ${xml(item.error.message)}</p>`);
  if (base && (item.baseline || item.candidate))
    rows.push(
      `<p class="runs">Run pages: ${[
        item.baseline &&
          `${laneHeading('baseline', item.baseline, base)} <code>${xml(item.baseline.workflowId)}</code>`,
        item.candidate &&
          `${laneHeading('candidate', item.candidate, base)} <code>${xml(item.candidate.workflowId)}</code>`,
      ]
        .filter(Boolean)
        .join(' · ')}</p>`,
    );
  const changes = item.changes ?? [];
  if (changes.length > 0)
    rows.push(
      `<table><tr><th>decision</th><th>${laneHeading('baseline', item.baseline, base)}</th><th>${laneHeading('candidate', item.candidate, base)}</th></tr>${changes
        .map(
          (change) =>
            `<tr><td>${xml(change.text)}</td><td><code>${xml(JSON.stringify(change.before))}</code></td><td><code>${xml(JSON.stringify(change.after))}</code></td></tr>`,
        )
        .join('')}</table>`,
    );
  else if (!item.error) rows.push('<p>Same decisions as the baseline.</p>');
  for (const failure of item.candidate?.failures ?? []) rows.push(`<p class="failure">${xml(failure)}</p>`);
  for (const misfit of item.candidate?.misfits ?? [])
    rows.push(`<p class="failure">Recorded ${xml(misfit)} (the candidate's schema refuses it)</p>`);
  for (const score of item.candidate?.scores ?? [])
    rows.push(`<p>${xml(score.name)}: ${score.score}${score.reason ? ` (${xml(score.reason)})` : ''}</p>`);
  if (item.harnessAgrees === false)
    rows.push(
      `<p class="failure">The baseline lane did not reproduce the recording: ${xml((item.drift ?? []).map((d) => d.text).join('; '))}</p>`,
    );
  return `<section class="${status}"><h3>${status.toUpperCase()} ${xml(item.id)}</h3><p class="prompt">${xml(item.prompt)}</p>${rows.join('')}</section>`;
}

/**
 * One HTML page, no scripts or external files: the summary, the gates, three delta charts and every
 * case's diff; with `runPagesUrl`, each case's two lane runs linked to their run pages.
 */
export function htmlReport(report: EvalReport, options: HtmlReportOptions = {}): string {
  const base = runPagesBase(options.runPagesUrl);
  const evaluated = report.cases.filter((item) => !item.error && item.baseline && item.candidate);
  const { summary } = report;
  const charts = [
    deltaChart(
      'Score (candidate − baseline)',
      evaluated.map((item) => {
        const value = laneScore(item.candidate) - laneScore(item.baseline);
        return { label: item.prompt, value, shown: value.toFixed(2) };
      }),
      true,
    ),
    deltaChart(
      'Cost (candidate − baseline, USD)',
      evaluated.map((item) => {
        const value = item.candidate!.trace.usage.costUsd - item.baseline!.trace.usage.costUsd;
        return { label: item.prompt, value, shown: value.toFixed(4) };
      }),
      false,
    ),
    deltaChart(
      'Latency (candidate − recording, ms)',
      evaluated.map((item) => {
        const value = item.candidate!.trace.durationMs - (item.recorded?.durationMs ?? item.baseline!.trace.durationMs);
        return { label: item.prompt, value, shown: `${Math.round(value)} ms` };
      }),
      false,
    ),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cairn eval: ${xml(report.agent)} vs ${xml(report.candidate)}</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;max-width:72em}
section{border-left:4px solid #999;padding:.2em 1em;margin:1em 0}
section.pass{border-color:#27ae60}section.fail{border-color:#c0392b}section.error{border-color:#e67e22}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
code{font-size:12px}.failure,.error{color:#c0392b}.prompt{color:#555}figure{margin:1em 0}
</style></head><body>
<h1>cairn eval: ${xml(report.agent)} — ${xml(report.candidate)}</h1>
<p id="verdict">${report.passed ? 'Passed' : 'FAILED'}: ${summary.evaluated} of ${summary.cases} case(s) evaluated (tools: ${report.tools}), ${summary.changedCases} changed, ${summary.newHumanAsks} would ask someone new; the baseline lane reproduced ${pct(summary.harnessAgreement)} of the recordings. Started ${xml(report.startedAt)}, took ${(report.durationMs / 1000).toFixed(1)} s.</p>
<table><tr><th></th><th>baseline</th><th>candidate</th></tr>
<tr><td>pass rate</td><td>${pct(summary.baseline.passRate)}</td><td>${pct(summary.candidate.passRate)}</td></tr>
<tr><td>cost</td><td>${usd(summary.baseline.costUsd)}</td><td>${usd(summary.candidate.costUsd)}</td></tr>
<tr><td>tokens</td><td>${summary.baseline.tokens}</td><td>${summary.candidate.tokens}</td></tr>
<tr><td>people asked</td><td>${summary.baseline.peopleAsked}</td><td>${summary.candidate.peopleAsked}</td></tr></table>
<h2>Gates</h2><ul>${report.gates.map((gate) => `<li class="${gate.crossed ? 'failure' : ''}">${gate.gate}: ${gate.crossed ? 'CROSSED' : 'ok'} (limit ${gate.limit}, actual ${gate.actual})</li>`).join('')}</ul>
<h2>Deltas</h2>${charts.join('\n')}
<h2>Cases</h2>${report.cases.map((item) => caseSection(item, base)).join('\n')}
</body></html>
`;
}
