/**
 * The run page: one static HTML file, no build step, served by the handler at
 * `GET /runs/:id/page`. It tells one run's story from its state (`GET /runs/:id`) and its event
 * stream (`GET /runs/:id/events`: a finished run's from history, a live run's as it goes, resumed
 * with `Last-Event-ID` after a dropped connection): the request, each model turn (its text as it
 * streams, tokens), each tool call (arguments, result or ToolError chain and hint, attempt and
 * duration), each planner decision with its reason (a back-off until when), questions and reviews
 * and what people decided, and the end (outcome code, answer); a bar of the time spent per kind
 * of step. What the run waits on now can be answered from the page, as on the inbox page. A long
 * story is paged: the newest entries drawn, earlier ones a page at a time ("Show earlier"). Each
 * model turn and tool call links the run's history in the Temporal UI (with `temporalUiUrl`),
 * naming its activity; a model's reasoning (think blocks) is folded.
 *
 * Its data requests are the JSON routes' own, so they pass the same `authorize` (another tenant's
 * run reads as not found); the bearer token is the inbox page's (sessionStorage), sent in headers —
 * which is why the stream is read with `fetch`, not `EventSource`. Everything a run says is put
 * in the page as text, never as HTML. Node-only (served by servers/http).
 */
import { RUN_FORMS_SCRIPT } from './run-forms-script.js';
import { PAGE_DOM_SCRIPT } from './page-dom-script.js';
import { RUN_STORY_SCRIPT, TIME_KINDS } from './run-story-script.js';

/** What the page is told by the server: where the Temporal UI is, for a link to the run. */
export interface RunPageConfig {
  readonly temporalUiUrl?: string;
  readonly namespace: string;
}

/** Response headers of the page: no framing, scripts only its own inline one. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/** The page, with `config` in it as JSON (`<` escaped, so no value can close the script). */
export function runPage(config: RunPageConfig): string {
  const temporalBase = config.temporalUiUrl
    ? `${config.temporalUiUrl.replace(/\/$/, '')}/namespaces/${encodeURIComponent(config.namespace)}/workflows/`
    : null;
  const json = JSON.stringify({ temporalBase }).replace(/</g, '\\u003c');
  return (
    RUN_PAGE_HEAD +
    `<script>\n"use strict";\nvar CONFIG = ${json};\n${RUN_STORY_SCRIPT}\n${RUN_FORMS_SCRIPT}\n${RUN_PAGE_SCRIPT}</script>\n</body>\n</html>\n`
  );
}

const RUN_PAGE_HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn run</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d2433; background: #f5f6f8; }
  body { margin: 0 auto; max-width: 900px; padding: 16px; }
  h1 { font-size: 20px; margin: 0 0 4px; overflow-wrap: anywhere; }
  h2 { font-size: 15px; margin: 18px 0 8px; }
  .sub, .meta { color: #5b6475; font-size: 13px; display: flex; gap: 10px; flex-wrap: wrap; margin: 0 0 8px; }
  .card { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 12px; margin-bottom: 10px; }
  ol#timeline { list-style: none; padding: 0; margin: 0; }
  ol#timeline > li { background: #fff; border: 1px solid #dde1e8; border-left: 4px solid #9aa3b2; border-radius: 6px; padding: 8px 10px; margin-bottom: 8px; }
  /* A long story lays out only what is on screen (a 1,000-turn run: seconds of layout otherwise). */
  ol#timeline.long > li { content-visibility: auto; contain-intrinsic-block-size: auto 90px; }
  li.model { border-left-color: #1f6feb !important; }
  li.tool { border-left-color: #2f855a !important; }
  li.tool.failed { border-left-color: #c93c37 !important; }
  li.decision { border-left-color: #6b21a8 !important; background: #faf7ff !important; }
  li.question, li.review, li.person, li.request { border-left-color: #b7791f !important; }
  li.finish { border-left-color: #1d2433 !important; }
  .head { display: flex; gap: 8px; flex-wrap: wrap; align-items: baseline; font-size: 13px; }
  .kind { font-weight: 600; text-transform: uppercase; font-size: 11px; letter-spacing: .05em; color: #5b6475; }
  .name { font-weight: 600; font-family: ui-monospace, monospace; }
  .code { font-family: ui-monospace, monospace; background: #fde8e8; color: #9b1c1c; padding: 0 4px; border-radius: 3px; }
  .ok { color: #2f855a; } .muted { color: #5b6475; font-size: 12px; }
  .text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; font-size: 14px; }
  pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f7f8fa; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-size: 12px; max-height: 24em; overflow: auto; }
  .chain { margin: 4px 0 4px 0; padding-left: 18px; font-size: 13px; }
  .hint { font-size: 13px; background: #fffbea; border-radius: 4px; padding: 4px 8px; margin: 4px 0; overflow-wrap: anywhere; }
  details > summary { cursor: pointer; font-size: 12px; color: #5b6475; }
  details.reasoning > .text { color: #5b6475; font-style: italic; }
  a.ui { font-size: 12px; }
  #earlier { margin-bottom: 8px; }
  .bar { display: flex; height: 14px; border-radius: 4px; overflow: hidden; background: #e8ebf0; }
  .bar span { display: block; height: 100%; min-width: 0; }
  .k-model { background: #1f6feb; } .k-tools { background: #2f855a; } .k-person { background: #b7791f; } .k-backoff { background: #c93c37; } .k-other { background: #9aa3b2; }
  .legend { display: flex; flex-wrap: wrap; gap: 12px; font-size: 12px; margin-top: 6px; }
  .legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
  .pending { border-color: #b7791f; background: #fffaf0; }
  textarea, input[type=text], input[type=password], input[type=number] { width: 100%; box-sizing: border-box; font: 13px ui-monospace, monospace; padding: 6px; border: 1px solid #c7ccd6; border-radius: 4px; }
  .row { display: flex; gap: 8px; margin-top: 8px; flex-wrap: wrap; align-items: center; }
  button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 4px; border: 1px solid #9aa3b2; background: #fff; cursor: pointer; }
  button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
  button.danger { border-color: #c93c37; color: #c93c37; }
  :focus-visible { outline: 2px solid #1f6feb; outline-offset: 2px; }
  .error { color: #c93c37; font-size: 13px; margin-top: 6px; white-space: pre-wrap; }
  .notice { background: #e6f4ea; border: 1px solid #b7dfc3; color: #1e6b34; border-radius: 6px; padding: 8px 12px; margin-bottom: 10px; font-size: 14px; }
  label { font-size: 12px; color: #5b6475; display: block; margin-top: 6px; }
  a { color: #1f6feb; }
  #auth, #missing { display: none; }
</style>
</head>
<body>
<nav class="sub"><a href="../../">Inbox</a><a href="../../runs.html">Runs</a></nav>
<h1 id="title">Run</h1>
<div class="meta" id="meta"></div>
<p class="sub"><span id="status" role="status" aria-live="polite">Loading…</span></p>
<div id="auth" class="card">
  <label for="token">This server asks for a token (Authorization: Bearer …)</label>
  <div class="row"><input id="token" type="password" autocomplete="off"><button id="save-token" class="primary">Use token</button></div>
</div>
<div id="missing" class="card error" role="alert"></div>
<div id="notices" role="status" aria-live="polite"></div>
<section id="waiting" aria-label="What the run waits on"></section>
<section class="card" aria-label="Time per kind of step"><div class="bar" id="bar" role="img"></div><div class="legend" id="legend"></div></section>
<h2>Story</h2>
<button id="earlier" type="button" hidden aria-controls="timeline"></button>
<ol id="timeline"></ol>
`;

/** The page's own code: the DOM side of the story (run-story-script.ts is the pure side). */
const RUN_PAGE_SCRIPT = String.raw`
var TOKEN_KEY = "cairn-inbox-token";
var KINDS = ${JSON.stringify(TIME_KINDS)};
var KIND_WORDS = { model: "model", tools: "tools", person: "waiting on a person", backoff: "backing off", other: "planning" };
var runUrl = location.pathname.replace(/\/page\/?$/, "");
var runId = decodeURIComponent(runUrl.slice(runUrl.lastIndexOf("/") + 1));
var base = runUrl.slice(0, runUrl.lastIndexOf("/runs/"));
var story = newStory();
var nodes = new Map();
/* Paged: the newest PAGE entries are drawn, older ones a page at a time ("Show earlier"). */
var PAGE = 100;
var shownFrom = 0, pinned = false;
var timeline = document.getElementById("timeline");
var statusEl = document.getElementById("status");
var state = null, runStatus = null, lastEventId = null, streamDone = false, missing = false;
/* A stream that drops is opened again after this long, doubling up to 30 s while it keeps failing. */
var retryMs = 1000;

${PAGE_DOM_SCRIPT}

function time(at) { return typeof at === "number" ? new Date(at).toLocaleTimeString() : ""; }
function pre(value) { return el("pre", { text: valueText(value) }); }
function pageOf(workflowId) { return base + "/runs/" + encodeURIComponent(workflowId) + "/page"; }

function needAuth(show) { document.getElementById("auth").style.display = show ? "block" : "none"; }
function notFound(message) {
  missing = true;
  var box = document.getElementById("missing");
  box.style.display = "block";
  box.textContent = message;
  statusEl.textContent = "Not found.";
}

/* ---------- the story ---------- */

function head(kind, entry, rest) {
  return el("div", { class: "head" }, [el("span", { class: "kind", text: kind })].concat(rest, [el("span", { class: "muted", text: time(entry.at) })]));
}

function uiLink(e) {
  var link = historyLink(CONFIG.temporalBase, runId, e);
  return link ? el("a", { class: "ui", href: link.href, target: "_blank", rel: "noopener", title: link.title, text: link.text }) : null;
}

function toolBody(e) {
  var parts = [];
  var failed = e.status === "error" || e.status === "validator_failed";
  var status = e.status === "running" ? el("span", { class: "muted", text: "running…" })
    : e.status === "ok" ? el("span", { class: "ok", text: "ok" })
    : el("span", { class: "code", text: e.status === "error" && e.error ? e.error.code : e.status });
  var t = e.telemetry;
  var facts = [e.id, t && t.attempt ? "attempt " + t.attempt : "", t && t.durationMs ? formatDuration(t.durationMs) : "", e.refused ? "refused before it ran" : "", e.reconciled ? "reconciled" : ""].filter(Boolean).join(" · ");
  parts.push(head("tool", e, [el("span", { class: "name", text: e.name }), status, el("span", { class: "muted", text: facts }), uiLink(e)]));
  if (e.args !== null && e.args !== undefined) parts.push(el("details", { open: "" }, [el("summary", { text: "Arguments" }), pre(e.args)]));
  if (e.status === "error" && e.error) {
    parts.push(el("ol", { class: "chain", "aria-label": "Error and its causes" }, errorLinks(e.error).map(function (link, i) {
      return el("li", {}, [el("span", { class: "code", text: link.code }), " " + (link.kind ? "(" + link.kind + ") " : "") + (i > 0 ? "caused by: " : ""), link.name ? el("span", { class: "name", text: link.name + ": " }) : null, link.message]);
    })));
    var h = e.hint;
    if (h) {
      var said = [h.message, h.clarifyingQuestion ? "ask: " + h.clarifyingQuestion : "", h.missingFields && h.missingFields.length ? "missing: " + h.missingFields.join(", ") : "", typeof h.retryAfterMs === "number" ? "retry after " + formatDuration(h.retryAfterMs) : "", h.restrictToTool ? "repair restricted to " + h.tool : ""].filter(Boolean);
      parts.push(el("div", { class: "hint" }, [el("strong", { text: "Hint (" + h.reason + "): " }), said.join(" · ")]));
      if (h.issues && h.issues.length) parts.push(el("ul", { class: "chain" }, h.issues.map(function (i) { return el("li", { text: (i.path || "(input)") + ": " + i.message }); })));
    }
    if (e.partialResult !== undefined) parts.push(el("details", {}, [el("summary", { text: "Partial result" }), pre(e.partialResult)]));
  } else if (e.status === "validator_failed") {
    parts.push(el("div", { class: "hint" }, [el("strong", { text: "Validator " + e.validator + ": " }), e.feedback || ""]));
  } else if (e.status === "ok") {
    parts.push(el("details", { open: "" }, [el("summary", { text: "Result" }), pre(e.result)]));
  }
  if (e.runLink) parts.push(el("div", { class: "muted" }, ["Child run: ", el("a", { href: pageOf(e.runLink.workflowId), text: e.runLink.workflowId })]));
  return { parts: parts, failed: failed };
}

function decidedText(d) {
  if (!d || typeof d !== "object") return typeof d === "string" ? d : JSON.stringify(d);
  if (typeof d.preview === "string") return valueText(d);
  if (d.type === "accept") return "accepted";
  if (d.type === "edit") return "edited, run with " + JSON.stringify(d.args);
  if (d.type === "respond") return "responded instead: " + valueText(d.content);
  if (d.type === "reject") return "rejected" + (d.reason ? ": " + d.reason : "");
  return JSON.stringify(d);
}

function entryNode(e) {
  var li = el("li", { class: e.kind, "data-key": e.key });
  var parts = [];
  switch (e.kind) {
    case "request":
      parts = [head("request", e, [el("span", { class: "muted", text: "to " + e.agent })]), el("div", { class: "text", text: e.text })];
      break;
    case "model": {
      var u = e.usage;
      var tokens = u ? (u.inputTokens || 0) + " in · " + (u.outputTokens || 0) + " out" + (typeof u.costUsd === "number" ? " · cost " + u.costUsd : "") : "";
      parts = [head("model turn " + e.turn, e, [e.live ? el("span", { class: "muted", text: "answering…" }) : null, el("span", { class: "muted", text: tokens }), e.toolCalls && e.toolCalls.length ? el("span", { class: "muted", text: "calls " + e.toolCalls.join(", ") }) : null, uiLink(e)])];
      if (e.error) parts.push(el("div", {}, [el("span", { class: "code", text: e.error.code }), " " + e.error.message]));
      var said = splitThinking(e.text || "");
      // Reasoning folded: what the model said to the person is the turn; how it got there is one click away.
      if (said.reasoning) parts.push(el("details", { class: "reasoning" }, [el("summary", { text: "Reasoning" }), el("div", { class: "text", text: said.reasoning })]));
      if (said.text) parts.push(el("div", { class: "text", text: said.text }));
      break;
    }
    case "tool": {
      var t = toolBody(e);
      parts = t.parts;
      if (t.failed) li.classList.add("failed");
      break;
    }
    case "decision":
      parts = [head("decision", e, [el("span", { class: "name", text: e.action.replace(/_/g, " ") }), e.until ? el("span", { class: "muted", text: "for " + formatDuration(e.until - e.at) + ", until " + time(e.until) }) : null]), el("div", { class: "text", text: e.detail })];
      break;
    case "question":
      parts = [head("question", e, [el("span", { class: "muted", text: e.id + (e.child ? " · child " + e.child.agent : "") })]), el("div", { class: "text", text: e.question }), e.decided !== undefined ? el("div", { class: "muted", text: "answered: " + valueText(e.decided) }) : null];
      break;
    case "review":
      parts = [head("review", e, [el("span", { class: "name", text: e.name }), el("span", { class: "muted", text: e.id + (e.child ? " · child " + e.child.agent : "") })]), e.description ? el("div", { class: "muted", text: e.description }) : null, pre(e.args), e.decided !== undefined ? el("div", { class: "text" }, [el("strong", { text: "Decision: " }), decidedText(e.decided)]) : null];
      break;
    case "person": {
      var said = e.what === "message" || e.what === "answer" || e.what === "budget" ? valueText(e.detail) : e.what === "review" ? decidedText(e.detail) : "";
      parts = [head("person", e, [el("span", { class: "name", text: e.what }), e.id ? el("span", { class: "muted", text: e.id }) : null]), said ? el("div", { class: "text", text: said }) : null];
      break;
    }
    case "hand_over":
      parts = [head("continued as new", e, [el("span", { class: "muted", text: "generation " + e.generation + (e.upgradeTo ? ", moving to build " + e.upgradeTo : "") })])];
      break;
    case "agent_changed":
      parts = [head("agent changed", e, [el("span", { class: "muted", text: "version " + e.from + " → " + e.to + (e.buildId ? " on build " + e.buildId : "") })])];
      break;
    case "finish":
      parts = [head("end", e, [el("span", { class: "muted", text: e.toolCalls + " tool calls" })]), e.reason ? el("div", { class: "muted", text: e.reason }) : null, el("div", { class: "text", text: e.answer || "(no answer)" })];
      break;
  }
  parts.forEach(function (p) { if (p) li.appendChild(p); });
  return li;
}

/* Only entries that changed are drawn again, so a long run's page does not redraw its past; and
   only the newest page of them (entries from shownFrom on): the rest waits behind "Show earlier". */
function renderStory() {
  var changed = takeChanged(story);
  var from = windowStart(story.entries.length, shownFrom, pinned, PAGE);
  for (var i = shownFrom; i < from; i++) {
    var gone = nodes.get(story.entries[i].key);
    if (gone) { gone.remove(); nodes.delete(story.entries[i].key); }
  }
  shownFrom = from;
  changed.forEach(function (e) {
    if (e.index < shownFrom) return; // drawn as it is then, if a person asks for it
    var had = nodes.get(e.key);
    var node = entryNode(e);
    if (had) had.replaceWith(node); else timeline.appendChild(node);
    nodes.set(e.key, node);
  });
  if (nodes.size > 200) timeline.classList.add("long");
  renderEarlier();
  renderBar();
}

var earlier = document.getElementById("earlier");
function renderEarlier() {
  earlier.hidden = shownFrom === 0;
  earlier.textContent = "Show earlier (" + Math.min(PAGE, shownFrom) + " of " + shownFrom + " more)";
}

/* The page before the first one drawn, put above it; what is drawn then stays (pinned). */
function showEarlier() {
  pinned = true;
  var from = earlierStart(shownFrom, PAGE);
  var older = document.createDocumentFragment();
  story.entries.slice(from, shownFrom).forEach(function (e) {
    var node = entryNode(e);
    nodes.set(e.key, node);
    older.appendChild(node);
  });
  var first = older.firstChild;
  timeline.insertBefore(older, timeline.firstChild);
  shownFrom = from;
  if (nodes.size > 200) timeline.classList.add("long");
  renderEarlier();
  // Nothing earlier left: the button goes, so focus moves to the first entry rather than to the page.
  if (shownFrom === 0 && first) { first.setAttribute("tabindex", "-1"); first.focus(); }
}
earlier.addEventListener("click", showEarlier);

/* At most one drawing per frame however many events a chunk of the stream brings. */
var drawing = null;
function drawSoon() { if (drawing === null) drawing = setTimeout(function () { drawing = null; renderStory(); }, 16); }

function renderBar() {
  var spent = timeSpent(story, story.finishedAt === null && !streamDone ? Date.now() : null);
  var total = KINDS.reduce(function (s, k) { return s + spent[k]; }, 0);
  var bar = document.getElementById("bar");
  var legend = document.getElementById("legend");
  bar.textContent = ""; legend.textContent = "";
  var words = [];
  KINDS.forEach(function (k) {
    if (!spent[k]) return;
    var span = el("span", { class: "k-" + k, title: KIND_WORDS[k] + ": " + formatDuration(spent[k]) });
    span.style.width = (100 * spent[k] / total) + "%";
    bar.appendChild(span);
    legend.appendChild(el("span", {}, [el("i", { class: "k-" + k }), KIND_WORDS[k] + " " + formatDuration(spent[k])]));
    words.push(KIND_WORDS[k] + " " + formatDuration(spent[k]));
  });
  bar.setAttribute("aria-label", words.length ? "Time: " + words.join(", ") : "No time recorded yet");
  if (story.tokens.input || story.tokens.output) legend.appendChild(el("span", { class: "muted", text: "tokens " + story.tokens.input + " in · " + story.tokens.output + " out" }));
}

/* ---------- the run's state, and what it waits on ---------- */

function renderMeta() {
  document.getElementById("title").textContent = "Run " + runId;
  var s = state || {};
  var meta = document.getElementById("meta");
  meta.textContent = "";
  var outcome = s.outcome ? (s.outcome.status === "answered" ? "answered" : "ended: " + s.outcome.code) : null;
  var budget = s.budget && s.budget.usage ? "tokens " + (s.budget.usage.inputTokens + s.budget.usage.outputTokens) + (s.budget.usage.costUsd ? " · cost " + s.budget.usage.costUsd : "") : null;
  [s.agent ? "agent " + s.agent : null, runStatus, s.phase ? "phase " + s.phase : null, typeof s.turn === "number" ? "turn " + s.turn : null, budget].forEach(function (t) { if (t) meta.appendChild(el("span", { text: t })); });
  if (outcome) meta.appendChild(el("span", { class: s.outcome.status === "answered" ? "ok" : "code", id: "outcome", text: outcome }));
  if (s.failure) meta.appendChild(el("span", { class: "code", text: s.failure.type + ": " + s.failure.message }));
  if (CONFIG.temporalBase) meta.appendChild(el("a", { href: CONFIG.temporalBase + encodeURIComponent(runId), target: "_blank", rel: "noopener", text: "Temporal UI" }));
}

var waitingCards = new Map();
function renderWaiting() {
  var s = state || {};
  var want = [];
  if (s.clarification) want.push({ key: "q|" + s.clarification.id, build: function () { return questionCard(s.clarification); } });
  (s.reviews || []).forEach(function (r) { want.push({ key: "r|" + r.toolCallId + "|" + r.argsHash, build: function () { return reviewCard(r); } }); });
  if (s.budget && s.budget.pending) { var b = s.budget; want.push({ key: "b|" + b.pending.id, build: function () { return budgetCard(b); } }); }
  var box = document.getElementById("waiting");
  var keep = new Set(want.map(function (w) { return w.key; }));
  waitingCards.forEach(function (node, key) { if (!keep.has(key)) { node.remove(); waitingCards.delete(key); } });
  want.forEach(function (w) { if (!waitingCards.has(w.key)) { var node = w.build(); waitingCards.set(w.key, node); box.appendChild(node); } });
}

/* ---------- reading ---------- */

var stateTimer = null;
function stateSoon() { clearTimeout(stateTimer); stateTimer = setTimeout(loadState, 250); }

function loadState() {
  return fetch(runUrl, { headers: headers(false), cache: "no-store" })
    .then(function (r) {
      if (r.status === 401 || r.status === 403) { needAuth(true); statusEl.textContent = "A token is needed."; return; }
      needAuth(false);
      return r.json().then(function (j) {
        if (r.status === 404) { notFound(j.error ? j.error.message : "No such run."); return; }
        if (j.error) { statusEl.textContent = j.error.code + ": " + j.error.message; return; }
        state = j.state; runStatus = j.status;
        renderMeta(); renderWaiting(); sayStatus();
      });
    })
    .catch(function (e) { statusEl.textContent = "Cannot reach the server: " + e.message; });
}

function sayStatus() {
  if (missing) return;
  statusEl.textContent = streamDone ? "The run has ended." : (state && state.phase && state.phase.indexOf("awaiting") === 0 ? "Waiting on a person." : "Live: following the run.");
}

/* Server-Sent Events read with fetch (headers carry the token); a dropped stream resumes after the last id. */
var streaming = false;
function stream() {
  if (streaming || streamDone || missing) return;
  streaming = true;
  var h = headers(false);
  if (lastEventId !== null) h["last-event-id"] = lastEventId;
  fetch(runUrl + "/events", { headers: h, cache: "no-store" }).then(function (r) {
    if (r.status === 204) { streaming = false; streamDone = true; sayStatus(); renderBar(); return; }
    if (r.status === 401 || r.status === 403) { streaming = false; needAuth(true); return; }
    if (r.status === 404) { streaming = false; return r.json().then(function (j) { notFound(j.error ? j.error.message : "No such run."); }); }
    if (!r.ok || !r.body) throw new Error("HTTP " + r.status);
    var reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
    var buffer = "";
    function frame(block) {
      var f = {};
      block.split("\n").forEach(function (line) {
        if (!line || line[0] === ":") return;
        var at = line.indexOf(":");
        var key = at < 0 ? line : line.slice(0, at);
        var value = at < 0 ? "" : line.slice(at + 1).replace(/^ /, "");
        f[key] = f[key] !== undefined ? f[key] + "\n" + value : value;
      });
      if (f.event === "end") { streamDone = true; return; }
      if (f.event === "error") { var j = JSON.parse(f.data || "{}"); if (j.error && j.error.code === "unknown_run") notFound(j.error.message); else statusEl.textContent = "Stream: " + (j.error ? j.error.code + ": " + j.error.message : "error"); return; }
      if (f.data === undefined) return;
      if (f.id !== undefined) { lastEventId = f.id; retryMs = 1000; }
      var event = JSON.parse(f.data);
      addEvent(story, event);
      if (event.type !== "model_delta" && event.type !== "tool_start") stateSoon();
    }
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return;
        buffer += chunk.value;
        // One cut of the buffer per chunk: cutting it per frame copies a long history's megabyte once per event.
        var start = 0, end;
        while ((end = buffer.indexOf("\n\n", start)) >= 0) { frame(buffer.slice(start, end)); start = end + 2; }
        buffer = buffer.slice(start);
        drawSoon();
        return pump();
      });
    }
    return pump().then(function () { streaming = false; renderStory(); if (streamDone) { sayStatus(); loadState(); } else reconnect(); });
  }).catch(function (e) { streaming = false; statusEl.textContent = "Reconnecting: " + e.message; reconnect(); });
}

function reconnect() {
  setTimeout(stream, retryMs);
  retryMs = Math.min(retryMs * 2, 30000);
}

/* While the run goes, its current step's time grows. */
setInterval(function () { if (!streamDone && story.finishedAt === null) renderBar(); }, 1000);

document.getElementById("save-token").addEventListener("click", function () {
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  needAuth(false);
  loadState().then(stream);
});
renderMeta();
loadState().then(stream);
`;
