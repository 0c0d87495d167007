/**
 * The runs page: one static HTML file, no build step, served by the handler at `GET /runs.html`.
 * It lists the caller's tenant's runs (`GET /runs`, read from visibility: no Query per run), open
 * runs first then the latest ended, each with its request, agent, status and phase, outcome code,
 * since when it waits or when it ended, turns, tokens and cost, linked to its run page; filtered
 * by agent, phase, status, outcome, user and start time (the filters stay in the page's address,
 * so a filtered list can be shared); paged with the listing's cursor; bar charts of the runs by
 * status, the open ones by phase, and the runs started per time bucket by status (the filters'
 * time range, or the last 12 hours by the hour: runs-over-time.ts). Keyboard-usable (a form and links), readable at a phone's
 * width. The bearer token is the inbox page's (sessionStorage); everything a run says is put in
 * the page as text, never as HTML. Node-only (served by servers/http).
 */
import { PAGE_DOM_SCRIPT } from './page-dom-script.js';
import { RUN_OUTCOMES, RUN_PHASES } from './run-listing.js';

const STATUS_NAMES = ['running', 'completed', 'failed', 'canceled', 'terminated', 'timed_out'];

const options = (values: readonly string[]) =>
  [
    '<option value="">any</option>',
    ...values.map((v) => `<option value="${v}">${v.replaceAll('_', ' ')}</option>`),
  ].join('');

export const RUNS_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn runs</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d2433; background: #f5f6f8; }
  body { margin: 0 auto; max-width: 1000px; padding: 16px; }
  h1 { font-size: 22px; margin: 0 0 4px; }
  .sub { color: #5b6475; margin: 0 0 12px; font-size: 14px; display: flex; gap: 12px; flex-wrap: wrap; }
  .card { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 12px; margin-bottom: 12px; }
  form#filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(140px, 1fr)); gap: 8px 10px; align-items: end; }
  label { font-size: 12px; color: #5b6475; display: block; }
  input, select { width: 100%; box-sizing: border-box; font: 13px system-ui, sans-serif; padding: 5px 6px; border: 1px solid #c7ccd6; border-radius: 4px; background: #fff; }
  button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 4px; border: 1px solid #9aa3b2; background: #fff; cursor: pointer; }
  button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
  button:disabled { opacity: .5; cursor: default; }
  :focus-visible { outline: 2px solid #1f6feb; outline-offset: 2px; }
  .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px; }
  .chart h2 { font-size: 13px; margin: 0 0 6px; color: #5b6475; font-weight: 600; }
  .chart .line { display: grid; grid-template-columns: 9em 1fr 3.5em; gap: 6px; align-items: center; font-size: 12px; margin: 3px 0; }
  .chart .track { background: #eef0f4; border-radius: 3px; height: 12px; overflow: hidden; }
  .chart .fill { height: 100%; background: #1f6feb; }
  .fill.failed, .fill.terminated, .fill.timed_out { background: #c93c37; }
  .fill.completed { background: #2f855a; } .fill.canceled { background: #9aa3b2; }
  .fill.awaiting_clarification, .fill.awaiting_review, .fill.awaiting_budget { background: #b7791f; }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  /* Runs over time: a column a bucket, its runs stacked by status, as tall as its count. */
  .chart.over-time { grid-column: 1 / -1; min-width: 0; }
  .over-time .bars, .over-time .ticks { display: flex; gap: 3px; }
  .over-time .ticks { overflow: hidden; }
  .over-time .bars { align-items: flex-end; height: 110px; border-bottom: 1px solid #c7ccd6; }
  .over-time .bar { flex: 1 1 0; min-width: 0; display: flex; flex-direction: column-reverse; border-radius: 2px 2px 0 0; overflow: hidden; }
  .over-time .bar .fill { height: auto; min-height: 0; }
  .over-time .fill.terminated { background: #7f1d1d; } .over-time .fill.timed_out { background: #e07a5f; }
  .over-time .ticks span { flex: 1 1 0; min-width: 0; font-size: 10px; color: #5b6475; white-space: nowrap; overflow: visible; }
  .over-time .legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; margin-top: 6px; }
  .over-time .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
  table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid #dde1e8; border-radius: 8px; font-size: 13px; }
  th, td { text-align: left; padding: 7px 8px; border-bottom: 1px solid #eef0f4; vertical-align: top; }
  th { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; color: #5b6475; font-weight: 600; }
  td.request a { color: #1f6feb; font-weight: 500; overflow-wrap: anywhere; }
  td .id { display: block; color: #5b6475; font: 11px ui-monospace, monospace; overflow-wrap: anywhere; }
  .badge { display: inline-block; font-size: 11px; padding: 1px 6px; border-radius: 4px; background: #eef0f4; white-space: nowrap; }
  .badge.awaiting_clarification, .badge.awaiting_review, .badge.awaiting_budget { background: #fff0dc; color: #8a4b00; }
  .badge.answered { background: #e6f4ea; color: #1e6b34; }
  .badge.bad { background: #fde8e8; color: #9b1c1c; }
  .muted { color: #5b6475; font-size: 12px; }
  .pager { display: flex; gap: 8px; align-items: center; margin: 12px 0; flex-wrap: wrap; }
  .empty { color: #5b6475; padding: 30px 0; text-align: center; }
  .error { color: #c93c37; font-size: 13px; white-space: pre-wrap; }
  a { color: #1f6feb; }
  #auth { display: none; }
  /* At a phone's width each run is a small card: the table's rows stack, each cell labelled. */
  @media (max-width: 640px) {
    table, thead, tbody, tr, td { display: block; border: 0; }
    thead { position: absolute; left: -9999px; }
    tr { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; margin-bottom: 8px; padding: 6px 4px; }
    td { padding: 3px 8px; border: 0; }
    td[data-label]:not(.request)::before { content: attr(data-label) ": "; color: #5b6475; font-size: 12px; }
    table { border: 0; background: none; }
  }
</style>
</head>
<body>
<nav class="sub"><a href="./">Inbox</a><span aria-current="page">Runs</span></nav>
<h1>Cairn runs</h1>
<p class="sub"><span id="status" role="status" aria-live="polite">Loading…</span></p>
<div id="auth" class="card">
  <label for="token">This server asks for a token (Authorization: Bearer …)</label>
  <div class="pager"><input id="token" type="password" autocomplete="off"><button id="save-token" class="primary">Use token</button></div>
</div>
<div id="warning" class="card error" hidden></div>
<form id="filters" class="card" aria-label="Filter runs">
  <div><label for="f-agent">Agent</label><input id="f-agent" name="agent" autocomplete="off"></div>
  <div><label for="f-phase">Phase</label><select id="f-phase" name="phase">${options(RUN_PHASES)}</select></div>
  <div><label for="f-status">Status</label><select id="f-status" name="status">${options(STATUS_NAMES)}</select></div>
  <div><label for="f-outcome">Outcome</label><select id="f-outcome" name="outcome">${options(RUN_OUTCOMES)}</select></div>
  <div><label for="f-user">User</label><input id="f-user" name="user" autocomplete="off"></div>
  <div><label for="f-from">Started from</label><input id="f-from" name="from" type="datetime-local"></div>
  <div><label for="f-to">Started until</label><input id="f-to" name="to" type="datetime-local"></div>
  <div><button class="primary" type="submit">Filter</button> <button type="reset" id="clear">Clear</button></div>
</form>
<section class="card charts" id="charts" aria-label="Runs by status, phase and start time"></section>
<div id="error" class="error" role="alert"></div>
<table id="runs">
  <thead><tr><th scope="col">Request</th><th scope="col">Agent</th><th scope="col">Phase</th><th scope="col">Outcome</th><th scope="col">Waiting since / ended</th><th scope="col" class="num">Turns</th><th scope="col" class="num">Tokens in / out</th><th scope="col" class="num">Cost</th></tr></thead>
  <tbody id="rows"></tbody>
</table>
<div class="pager"><button id="prev" type="button" disabled>Previous page</button><button id="next" type="button" disabled>Next page</button><span id="page" class="muted"></span></div>
<script>
"use strict";
var TOKEN_KEY = "cairn-inbox-token";
var FILTERS = ["agent", "phase", "status", "outcome", "user", "from", "to"];
var STATUS_NAMES = ${JSON.stringify(STATUS_NAMES)};
${PAGE_DOM_SCRIPT}
var form = document.getElementById("filters");
var rowsEl = document.getElementById("rows");
var statusEl = document.getElementById("status");
var errorEl = document.getElementById("error");
var params = new URLSearchParams(location.search);
/* The cursors of the pages before this one: Previous goes back to the one before. */
var cursors = [];
var cursor = params.get("cursor") || null;
var nextCursor = null;

FILTERS.forEach(function (k) {
  var v = params.get(k);
  if (!v) return;
  // A time in the address is ISO (UTC); the field shows it in local time.
  if (k === "from" || k === "to") { var d = new Date(v); if (!isNaN(d)) v = new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16); }
  form.elements[k].value = v;
});

function filterParams() {
  var p = new URLSearchParams();
  FILTERS.forEach(function (k) {
    var v = form.elements[k].value.trim();
    if (!v) return;
    if (k === "from" || k === "to") v = new Date(v).toISOString();
    p.set(k, v);
  });
  return p;
}

function when(iso) {
  if (!iso) return "";
  var ms = Date.now() - Date.parse(iso);
  var ago = ms < 60000 ? Math.max(0, Math.round(ms / 1000)) + " s" : ms < 3600000 ? Math.round(ms / 60000) + " min" : ms < 86400000 ? Math.round(ms / 3600000) + " h" : Math.round(ms / 86400000) + " d";
  return ago + " ago";
}

function cost(c) { return c === undefined ? "" : c === 0 ? "0" : c < 0.01 ? c.toFixed(4) : c.toFixed(2); }
function tokens(r) { return r.tokensIn === undefined ? "" : r.tokensIn.toLocaleString() + " / " + r.tokensOut.toLocaleString(); }
var BAD = { failed: 1, terminated: 1, timed_out: 1 };

function row(r) {
  var link = el("a", { href: "runs/" + encodeURIComponent(r.runId) + "/page", text: r.request || r.runId });
  var phase = r.status === "running" ? (r.phase || "running") : r.status;
  var outcome = r.outcome ? el("span", { class: "badge " + (r.outcome === "answered" ? "answered" : r.outcome === "cancelled" ? "" : "bad"), text: r.outcome.replace(/_/g, " ") }) : el("span", { class: "muted", text: r.status === "running" ? "—" : "" });
  var at = r.waitingSince ? "waiting since " : r.endedAt ? "ended " : "started ";
  var time = r.waitingSince || r.endedAt || r.startedAt;
  return el("tr", { "data-run": r.runId }, [
    el("td", { class: "request", "data-label": "Request" }, [link, el("span", { class: "id", text: r.runId + (r.parentRunId ? " · child of " + r.parentRunId : "") + (r.user ? " · " + r.user : "") })]),
    el("td", { "data-label": "Agent", text: r.agent || "" }),
    el("td", { "data-label": "Phase" }, [el("span", { class: "badge " + phase + (BAD[phase] ? " bad" : ""), text: phase.replace(/_/g, " ") })]),
    el("td", { "data-label": "Outcome" }, [outcome]),
    el("td", { "data-label": "When", title: time, text: at + when(time) }),
    el("td", { class: "num", "data-label": "Turns", text: r.turns === undefined ? "" : String(r.turns) }),
    el("td", { class: "num", "data-label": "Tokens", text: tokens(r) }),
    el("td", { class: "num", "data-label": "Cost", text: cost(r.cost) }),
  ]);
}

function chart(title, counts) {
  var keys = Object.keys(counts);
  var max = keys.reduce(function (m, k) { return Math.max(m, counts[k]); }, 0);
  var lines = keys.map(function (k) {
    var fill = el("div", { class: "fill " + k });
    fill.style.width = (max ? (100 * counts[k]) / max : 0) + "%";
    return el("div", { class: "line", role: "listitem", "aria-label": k.replace(/_/g, " ") + ": " + counts[k] }, [
      el("span", { text: k.replace(/_/g, " ") }), el("div", { class: "track" }, [fill]), el("span", { class: "num", text: String(counts[k]) }),
    ]);
  });
  return el("div", { class: "chart" }, [el("h2", { text: title }), el("div", { role: "list" }, lines.length ? lines : [el("div", { class: "muted", text: "none" })])]);
}

function span(ms) {
  return ms >= 86400000 ? ms / 86400000 + " d" : ms >= 3600000 ? ms / 3600000 + " h" : ms / 60000 + " min";
}

/* Runs started per bucket, stacked by status: bars as tall as their count, each bucket read out as a list item. */
function overTimeChart(t) {
  /* A date for buckets of days, a time for a window within a day, both between. */
  var day = t.bucketMs >= 86400000;
  var long = !day && Date.parse(t.to) - Date.parse(t.from) > 86400000;
  var label = function (iso) {
    var d = new Date(iso);
    var date = d.toLocaleDateString([], { month: "short", day: "numeric" });
    var time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    return day ? date : long ? date + " " + time : time;
  };
  var whole = function (iso) { var d = new Date(iso); return d.toLocaleDateString([], { month: "short", day: "numeric" }) + " " + d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }); };
  var totals = t.buckets.map(function (b) { return Object.keys(b.byStatus).reduce(function (n, k) { return n + b.byStatus[k]; }, 0); });
  var max = totals.reduce(function (m, n) { return Math.max(m, n); }, 0);
  var sums = {};
  /* Every few buckets a time under the axis: six at most, so they fit a phone's width. */
  var every = Math.max(1, Math.ceil(t.buckets.length / (long ? 4 : 6)));
  var bars = t.buckets.map(function (b, i) {
    var parts = STATUS_NAMES.filter(function (k) { return b.byStatus[k]; });
    Object.keys(b.byStatus).forEach(function (k) { if (parts.indexOf(k) < 0) parts.push(k); sums[k] = (sums[k] || 0) + b.byStatus[k]; });
    var said = label(b.from) + " to " + (i === t.buckets.length - 1 ? "now" : label(b.to)) + ": " + (parts.length ? parts.map(function (k) { return b.byStatus[k] + " " + k.replace(/_/g, " "); }).join(", ") : "none");
    var bar = el("div", { class: "bar", role: "listitem", "aria-label": said, title: said }, parts.map(function (k) {
      var seg = el("div", { class: "fill " + k });
      seg.style.flex = b.byStatus[k] + " 1 0";
      return seg;
    }));
    bar.style.height = (max ? (100 * totals[i]) / max : 0) + "%";
    return bar;
  });
  var ticks = t.buckets.map(function (b, i) { return el("span", { "aria-hidden": "true", text: i % every === 0 ? label(b.from) : "" }); });
  var legend = Object.keys(sums).map(function (k) { return el("span", {}, [el("i", { class: "fill " + k }), k.replace(/_/g, " ") + " " + sums[k]]); });
  return el("div", { class: "chart over-time", id: "over-time" }, [
    el("h2", { text: "Runs started per " + span(t.bucketMs) + ", " + (form.elements.from.value || form.elements.to.value ? whole(t.from) + " to " + whole(t.to) : "the last " + span(Date.parse(t.to) - Date.parse(t.from))) }),
    t.buckets.length ? el("div", { class: "bars", role: "list" }, bars) : el("div", { class: "muted", text: "no time to chart" }),
    el("div", { class: "ticks" }, ticks),
    el("div", { class: "legend" }, legend.length ? legend : [el("span", { class: "muted", text: "no runs started then" })]),
  ]);
}

function render(body) {
  while (rowsEl.firstChild) rowsEl.removeChild(rowsEl.firstChild);
  body.items.forEach(function (r) { rowsEl.appendChild(row(r)); });
  if (body.items.length === 0) rowsEl.appendChild(el("tr", {}, [el("td", { colspan: "8", class: "empty", text: "No runs match." })]));
  nextCursor = body.nextCursor || null;
  document.getElementById("next").disabled = !nextCursor;
  document.getElementById("prev").disabled = cursors.length === 0;
  document.getElementById("page").textContent = "Page " + (cursors.length + 1);
  statusEl.textContent = body.items.length + " runs on this page · updated " + new Date().toLocaleTimeString();
}

function renderCharts(counts) {
  var charts = document.getElementById("charts");
  while (charts.firstChild) charts.removeChild(charts.firstChild);
  charts.appendChild(chart("Runs by status", counts.byStatus));
  charts.appendChild(chart("Open runs by phase", counts.byPhase));
  if (counts.overTime) charts.appendChild(overTimeChart(counts.overTime));
}

/* The charts' counts (up to 19 visibility calls) come in a request of their own: the rows never wait for them. */
function loadCharts() {
  var p = filterParams();
  p.set("limit", "1");
  p.set("counts", "1");
  return fetch("runs?" + p, { headers: headers(false) })
    .then(function (r) { return r.ok ? r.json() : null; })
    .then(function (j) { if (j && j.counts) renderCharts(j.counts); })
    .catch(function () {});
}

function load(withCounts) {
  if (withCounts) loadCharts();
  var p = filterParams();
  p.set("limit", params.get("limit") || "25");
  if (cursor) p.set("cursor", cursor);
  var shown = filterParams();
  if (params.get("limit")) shown.set("limit", params.get("limit"));
  history.replaceState(null, "", location.pathname + (shown.toString() ? "?" + shown : ""));
  errorEl.textContent = "";
  statusEl.textContent = "Loading…";
  return fetch("runs?" + p, { headers: headers(false) })
    .then(function (r) {
      if (r.status === 401 || r.status === 403) { document.getElementById("auth").style.display = "block"; statusEl.textContent = "A token is needed."; return; }
      document.getElementById("auth").style.display = "none";
      return r.json().then(function (j) {
        var warn = document.getElementById("warning"); warn.hidden = !j.warning; warn.textContent = j.warning || "";
        if (j.items) render(j); else { errorEl.textContent = j.error ? j.error.code + ": " + j.error.message : "Unexpected answer"; statusEl.textContent = ""; }
      });
    })
    .catch(function (e) { statusEl.textContent = "Cannot reach the server: " + e.message; });
}

form.addEventListener("submit", function (e) { e.preventDefault(); cursors = []; cursor = null; load(true); });
form.addEventListener("reset", function () { setTimeout(function () { cursors = []; cursor = null; load(true); }); });
document.getElementById("next").addEventListener("click", function () { if (!nextCursor) return; cursors.push(cursor); cursor = nextCursor; load(false).then(function () { document.getElementById("rows").querySelector("a") && document.getElementById("rows").querySelector("a").focus(); }); });
document.getElementById("prev").addEventListener("click", function () { if (!cursors.length) return; cursor = cursors.pop(); load(false); });
document.getElementById("save-token").addEventListener("click", function () {
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  load(true);
});
load(true);
</script>
</body>
</html>
`;
