/**
 * The inbox page: one static HTML file, no build step, served by the handler at `/`. It lists
 * every run waiting on a person (GET inbox, polled 2 s after the last answer came — one request
 * at a time, never piling up on a slow server — so it follows runs that start waiting or are
 * decided elsewhere), who has waited longest first. Each card shows what a person needs to judge: the request that
 * started the run, the latest exchange, what is asked and why, and since when the run waits;
 * forms answer a question and accept, edit (checked against the tool's JSON Schema before
 * sending), respond to or reject a held tool call, whose arguments are shown whole, or extend a
 * run's used-up budget by tokens and/or cost or stop it (what was spent and the limits shown); an
 * act is confirmed on the page. A link to the run in the Temporal UI only when the handler was given
 * where one serves (`temporalUiUrl`). Requests are JSON with a bearer token kept in
 * sessionStorage: no cookies, so cross-site forms cannot act (CSRF-safe). Data is put in the page
 * as text, never as HTML. Node-only (served by servers/http).
 */
import { REVIEW_DECISIONS, type ReviewDecisionType } from '../../shared/human-input/review-decision.js';
import { PAGE_DOM_SCRIPT } from './page-dom-script.js';

/** What the page says a decision did; a new decision type needs its words here, and its control below. */
const DECIDED: Record<ReviewDecisionType, string> = {
  accept: 'Accepted',
  edit: 'Edited and accepted',
  respond: 'Responded to',
  reject: 'Rejected',
};

export const INBOX_PAGE = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn inbox</title>
<style>
  :root { font-family: system-ui, sans-serif; color: #1d2433; background: #f5f6f8; }
  body { margin: 0 auto; max-width: 860px; padding: 24px; }
  h1 { font-size: 22px; margin: 0 0 4px; }
  .sub { color: #5b6475; margin: 0 0 20px; font-size: 14px; }
  .card { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 16px; margin-bottom: 14px; }
  .meta { font-size: 12px; color: #5b6475; display: flex; gap: 12px; flex-wrap: wrap; margin-bottom: 8px; }
  .kind { font-weight: 600; text-transform: uppercase; font-size: 11px; letter-spacing: .05em; padding: 2px 6px; border-radius: 4px; }
  .question .kind { background: #e4efff; color: #1f4fa0; }
  .review .kind { background: #fff0dc; color: #8a4b00; }
  .budget .kind { background: #f3e8ff; color: #6b21a8; }
  .prompt { font-size: 16px; margin: 6px 0 10px; }
  .desc { font-size: 13px; color: #8a4b00; margin: 4px 0 8px; }
  pre.change { white-space: pre; overflow: auto; max-height: 24em; background: #f7f8fa; border-radius: 4px; padding: 6px 8px; margin: 4px 0; font-size: 12px; }
  textarea, input[type=text], input[type=password] { width: 100%; box-sizing: border-box; font: 13px ui-monospace, monospace; padding: 6px; border: 1px solid #c7ccd6; border-radius: 4px; }
  textarea { min-height: 70px; field-sizing: content; resize: vertical; }
  .convo { font-size: 13px; background: #f7f8fa; border-radius: 6px; padding: 8px 10px; margin: 4px 0 8px; }
  .convo div { margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  .convo .who { font-weight: 600; color: #5b6475; margin-right: 6px; }
  .notice { background: #e6f4ea; border: 1px solid #b7dfc3; color: #1e6b34; border-radius: 6px; padding: 8px 12px; margin-bottom: 10px; font-size: 14px; }
  .row { display: flex; gap: 8px; margin-top: 8px; flex-wrap: wrap; align-items: center; }
  button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 4px; border: 1px solid #9aa3b2; background: #fff; cursor: pointer; }
  button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
  button.danger { border-color: #c93c37; color: #c93c37; }
  .error { color: #c93c37; font-size: 13px; margin-top: 6px; white-space: pre-wrap; }
  .empty { color: #5b6475; padding: 40px 0; text-align: center; }
  label { font-size: 12px; color: #5b6475; display: block; margin-top: 6px; }
  a { color: #1f6feb; }
  #auth { display: none; }
</style>
</head>
<body>
<nav class="sub"><a href="runs.html">All runs</a></nav>
<h1>Cairn inbox</h1>
<p class="sub">Every run waiting on a person, who has waited longest first. <span id="status">Loading…</span></p>
<div id="auth" class="card">
  <label for="token">This server asks for a token (Authorization: Bearer …)</label>
  <div class="row"><input id="token" type="password" autocomplete="off"><button id="save-token" class="primary">Use token</button></div>
</div>
<div id="warning" class="card error" hidden></div>
<div id="notices" role="status" aria-live="polite"></div>
<div id="items"></div>
<script>
"use strict";
var TOKEN_KEY = "cairn-inbox-token";
var cards = new Map();
var itemsEl = document.getElementById("items");
var statusEl = document.getElementById("status");

${PAGE_DOM_SCRIPT}

/* A small JSON Schema check (type, required, properties, additionalProperties, enum, const, bounds, pattern): the run checks again. */
function check(schema, value, path) {
  if (!schema || typeof schema !== "object") return [];
  var at = path || "arguments";
  var errors = [];
  if (schema.anyOf) return schema.anyOf.some(function (s) { return check(s, value, at).length === 0; }) ? [] : [at + " matches none of the allowed shapes"];
  var type = schema.type;
  var kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (type) {
    var types = Array.isArray(type) ? type : [type];
    var ok = types.some(function (t) { return t === kind || (t === "integer" && kind === "number" && Number.isInteger(value)); });
    if (!ok) return [at + " must be " + types.join(" or ")];
  }
  if (schema.enum && !schema.enum.some(function (e) { return JSON.stringify(e) === JSON.stringify(value); })) errors.push(at + " must be one of " + schema.enum.map(function (e) { return JSON.stringify(e); }).join(", "));
  if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value)) errors.push(at + " must be " + JSON.stringify(schema.const));
  if (kind === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) errors.push(at + " must be at least " + schema.minimum);
    if (typeof schema.exclusiveMinimum === "number" && value <= schema.exclusiveMinimum) errors.push(at + " must be more than " + schema.exclusiveMinimum);
    if (typeof schema.maximum === "number" && value > schema.maximum) errors.push(at + " must be at most " + schema.maximum);
    if (typeof schema.exclusiveMaximum === "number" && value >= schema.exclusiveMaximum) errors.push(at + " must be less than " + schema.exclusiveMaximum);
  }
  if (kind === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength) errors.push(at + " must have at least " + schema.minLength + " characters");
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength) errors.push(at + " must have at most " + schema.maxLength + " characters");
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) errors.push(at + " must match " + schema.pattern);
  }
  if (kind === "object") {
    (schema.required || []).forEach(function (k) { if (!(k in value)) errors.push(at + "." + k + " is required"); });
    var props = schema.properties || {};
    Object.keys(value).forEach(function (k) {
      if (props[k]) errors = errors.concat(check(props[k], value[k], at + "." + k));
      else if (schema.additionalProperties === false) errors.push(at + "." + k + " is not allowed");
    });
  }
  if (kind === "array" && schema.items) value.forEach(function (v, i) { errors = errors.concat(check(schema.items, v, at + "[" + i + "]")); });
  return errors;
}

function notify(text) {
  var box = document.getElementById("notices");
  box.insertBefore(el("div", { class: "notice", text: text }), box.firstChild);
  while (box.childNodes.length > 5) box.removeChild(box.lastChild);
}

function post(path, body, errorEl, buttons, done) {
  errorEl.textContent = "";
  buttons.forEach(function (b) { b.disabled = true; });
  return fetch(path, { method: "POST", headers: headers(true), body: JSON.stringify(body) })
    .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; }); })
    .then(function (res) {
      if (res.status >= 400) {
        errorEl.textContent = (res.body.error && res.body.error.code ? res.body.error.code + ": " + res.body.error.message : "HTTP " + res.status);
        buttons.forEach(function (b) { b.disabled = false; });
      } else { if (done) notify(done); refresh(); }
    })
    .catch(function (e) { errorEl.textContent = String(e); buttons.forEach(function (b) { b.disabled = false; }); });
}

function runPath(item) { return "runs/" + encodeURIComponent(item.runId); }

function questionCard(item, w) {
  var errorEl = el("div", { class: "error", role: "alert" });
  var inputs = [];
  var fields = w.missingFields && w.missingFields.length ? w.missingFields : null;
  var form = [];
  var fieldsSchema = w.schema && w.schema.properties && w.schema.properties.answer && w.schema.properties.answer.anyOf ? w.schema.properties.answer.anyOf[1] : null;
  var fieldSchema = function (f) { return (fieldsSchema && fieldsSchema.properties && fieldsSchema.properties[f]) || {}; };
  if (fields) fields.forEach(function (f) {
    var fs = fieldSchema(f);
    var hint = [fs.description, fs.enum ? "one of: " + fs.enum.join(", ") : null, fs.examples ? "e.g. " + JSON.stringify(fs.examples[0]) : null].filter(Boolean).join(" · ");
    var i = el("input", { type: "text", name: f, "aria-label": f, placeholder: hint });
    inputs.push(i);
    form.push(el("label", { text: f + (hint ? " — " + hint : "") }), i);
  });
  else { var t = el("textarea", { name: "answer", "aria-label": "Answer" }); inputs.push(t); form.push(t); }
  var send = el("button", { class: "primary", text: "Answer" });
  send.addEventListener("click", function () {
    var answer;
    if (fields) {
      answer = {};
      inputs.forEach(function (i) {
        var want = fieldSchema(i.name).type;
        var n = Number(i.value);
        answer[i.name] = (want === "number" || want === "integer") && i.value.trim() !== "" && !isNaN(n) ? n : want === "boolean" && (i.value === "true" || i.value === "false") ? i.value === "true" : i.value;
      });
    } else answer = inputs[0].value;
    if ((fields ? inputs.some(function (i) { return !i.value.trim(); }) : !answer.trim())) { errorEl.textContent = "Fill in the answer first."; return; }
    var problems = fields && fieldsSchema ? check(fieldsSchema, answer, "answer") : [];
    if (problems.length) { errorEl.textContent = problems.join("\n"); return; }
    post(runPath(item) + "/answer", { answer: answer, questionId: w.questionId }, errorEl, [send], "Answered " + JSON.stringify(w.question.slice(0, 80)) + " on " + item.runId + ": the run goes on.");
  });
  return [el("div", { class: "prompt", text: w.question })].concat(form, [el("div", { class: "row" }, [send]), errorEl]);
}

function reviewCard(item, w) {
  var r = w.review;
  var allowed = r.allowed || ${JSON.stringify(REVIEW_DECISIONS)};
  var errorEl = el("div", { class: "error", role: "alert" });
  var args = el("textarea", { name: "args", "aria-label": "Arguments" });
  args.value = JSON.stringify(r.args, null, 2);
  // The whole arguments, never cut off: as many rows as they have lines.
  args.setAttribute("rows", String(args.value.split("\n").length + 1));
  if (allowed.indexOf("edit") < 0) args.setAttribute("readonly", "readonly");
  var note = el("input", { type: "text", name: "note", placeholder: allowed.indexOf("respond") >= 0 ? "Response content, or a reason to reject" : "Reason to reject (optional)", "aria-label": "Note" });
  var buttons = [];
  var url = runPath(item) + "/reviews/" + encodeURIComponent(r.toolCallId);
  var verbs = ${JSON.stringify(DECIDED)};
  function decide(decision) { post(url, { argsHash: r.argsHash, decision: decision }, errorEl, buttons, verbs[decision.type] + " the call to " + r.name + " (" + r.toolCallId + ") on " + item.runId + "."); }
  var changed = function () { try { return JSON.stringify(JSON.parse(args.value)) !== JSON.stringify(r.args); } catch (e) { return true; } };
  if (allowed.indexOf("accept") >= 0) buttons.push(el("button", { class: "primary", text: "Accept", onclick: function () { if (changed()) { errorEl.textContent = "The arguments were changed: use Edit, or undo the change."; return; } decide({ type: "accept" }); } }));
  if (allowed.indexOf("edit") >= 0) buttons.push(el("button", { text: "Edit", onclick: function () {
    var value;
    try { value = JSON.parse(args.value); } catch (e) { errorEl.textContent = "The arguments are not valid JSON: " + e.message; return; }
    var problems = check(w.schema, value);
    if (problems.length) { errorEl.textContent = problems.join("\n"); return; }
    decide({ type: "edit", args: value });
  } }));
  if (allowed.indexOf("respond") >= 0) buttons.push(el("button", { text: "Respond", onclick: function () { if (!note.value.trim()) { errorEl.textContent = "Write the response first."; return; } decide({ type: "respond", content: note.value }); } }));
  if (allowed.indexOf("reject") >= 0) buttons.push(el("button", { class: "danger", text: "Reject", onclick: function () { decide(note.value.trim() ? { type: "reject", reason: note.value } : { type: "reject" }); } }));
  return [
    el("div", { class: "prompt", text: "Call " + r.name + " (" + r.toolCallId + ")" }),
    r.description ? el("div", { class: "desc", text: r.description }) : null,
    // A workspace write or patch: what it would change in the run's files (docs/workspaces.md).
    r.change ? el("label", { text: "Would change" }) : null, r.change ? el("pre", { class: "change", text: r.change }) : null,
    el("label", { text: "Arguments" + (allowed.indexOf("edit") >= 0 ? " (edit, then Edit)" : "") }), args,
    el("label", { text: "Allowed: " + allowed.join(", ") }), note,
    el("div", { class: "row" }, buttons), errorEl,
  ];
}

function budgetCard(item, w) {
  var q = w.request, u = w.usage || {};
  var errorEl = el("div", { class: "error", role: "alert" });
  var tw = q.tenantWindow;
  var spent = tw ? "tenant " + tw.tenant + (tw.window === "day" ? " daily" : " monthly") + " budget, " + tw.used + " of " + tw.max + (tw.limit === "tokens" ? " tokens" : " (cost)") + " in " + tw.id + " UTC"
    : q.limit === "tokens" ? q.usedTokens + " of " + q.maxTokens + " tokens" : q.usedCostUsd + " of " + q.maxCostUsd + " (cost)";
  var tokens = el("input", { type: "number", name: "tokens", min: "1", step: "1", "aria-label": "Add tokens", placeholder: q.limit === "tokens" ? "required" : "optional" });
  var cost = el("input", { type: "number", name: "costUsd", min: "0", step: "any", "aria-label": "Add cost", placeholder: q.limit === "cost" ? "required" : "optional" });
  var reason = el("input", { type: "text", name: "reason", placeholder: "Reason to stop (optional)", "aria-label": "Reason" });
  var buttons = [];
  var url = runPath(item) + "/budget";
  buttons.push(el("button", { class: "primary", text: "Extend", onclick: function () {
    var d = { type: "extend" };
    if (tokens.value.trim() !== "") d.tokens = Number(tokens.value);
    if (cost.value.trim() !== "") d.costUsd = Number(cost.value);
    var must = q.limit === "tokens" ? "tokens" : "costUsd";
    if (d[must] === undefined) { errorEl.textContent = "The " + (q.limit === "tokens" ? "token" : "cost") + " budget is used up: add " + (q.limit === "tokens" ? "tokens" : "cost") + "."; return; }
    post(url, { requestId: q.id, decision: d }, errorEl, buttons, "Extended the budget of " + item.runId + ": the run goes on.");
  } }));
  buttons.push(el("button", { class: "danger", text: "Stop", onclick: function () {
    post(url, { requestId: q.id, decision: reason.value.trim() ? { type: "stop", reason: reason.value } : { type: "stop" } }, errorEl, buttons, "Stopped " + item.runId + " at its budget.");
  } }));
  return [
    el("div", { class: "prompt", text: "Budget used up: " + spent }),
    el("div", { class: "desc", text: "Spent so far: " + ((u.inputTokens || 0) + (u.outputTokens || 0)) + " tokens (" + (u.inputTokens || 0) + " in, " + (u.outputTokens || 0) + " out), cost " + (u.costUsd || 0) + "; limits " + (q.maxTokens === null ? "none" : q.maxTokens) + " tokens, " + (q.maxCostUsd === null ? "none" : q.maxCostUsd) + " cost" + (w.extended && (w.extended.tokens || w.extended.costUsd) ? "; extended so far by " + w.extended.tokens + " tokens, " + w.extended.costUsd + " cost" : "") + "." }),
    el("label", { text: "Add tokens" }), tokens,
    el("label", { text: "Add cost" }), cost,
    reason,
    el("div", { class: "row" }, buttons), errorEl,
  ];
}

function conversation(item) {
  var lines = [];
  if (item.request) lines.push(el("div", {}, [el("span", { class: "who", text: "Request" }), document.createTextNode(item.request)]));
  (item.exchange || []).forEach(function (m) {
    if (m.role === "user" && m.text === item.request) return;
    lines.push(el("div", {}, [el("span", { class: "who", text: m.role === "user" ? "Person" : "Agent" }), document.createTextNode(m.text)]));
  });
  return lines.length ? el("div", { class: "convo" }, lines) : null;
}

function card(item, w) {
  var since = new Date(item.waitingSince || item.startedAt);
  var meta = el("div", { class: "meta" }, [
    el("span", { class: "kind", text: w.kind === "question" ? "question" : w.kind === "budget" ? "budget" : "review" }),
    el("span", { text: item.agent, title: item.agentVersion ? "agent version " + item.agentVersion : "" }),
    el("span", { text: item.runId }),
    el("span", { class: "since", title: since.toISOString(), text: "waiting since " + since.toLocaleString() }),
    el("a", { href: runPath(item) + "/page", text: "Run page" }),
    item.temporalUrl ? el("a", { href: item.temporalUrl, target: "_blank", rel: "noopener", text: "Temporal UI" }) : null,
  ]);
  var body = w.kind === "question" ? questionCard(item, w) : w.kind === "budget" ? budgetCard(item, w) : reviewCard(item, w);
  return el("div", { class: "card " + w.kind, "data-id": item.runId + "|" + w.id }, [meta, conversation(item)].concat(body));
}

function render(items) {
  var seen = new Set();
  var order = [];
  items.forEach(function (item) { item.waiting.forEach(function (w) {
    var key = item.runId + "|" + w.id;
    seen.add(key);
    if (!cards.has(key)) cards.set(key, card(item, w));
    order.push(cards.get(key));
  }); });
  cards.forEach(function (node, key) { if (!seen.has(key)) { node.remove(); cards.delete(key); } });
  // Only a card out of place is moved: moving a node blurs the field a person is typing in (every
  // poll did, and keystrokes between a poll and a click went nowhere).
  var at = itemsEl.firstChild;
  order.forEach(function (node) { if (node === at) at = at.nextSibling; else itemsEl.insertBefore(node, at); });
  var empty = document.getElementById("empty");
  if (order.length === 0 && !empty) itemsEl.appendChild(el("div", { id: "empty", class: "empty", text: "Nobody is waiting on a person." }));
  if (order.length > 0 && empty) empty.remove();
  statusEl.textContent = order.length + " waiting · updated " + new Date().toLocaleTimeString();
}

/*
 * One inbox request at a time: a refresh asked for while one is under way runs once after it,
 * and the next poll is 2 s after the last answer. Polls that overlap on a slow server would pile
 * up (each a list and a Query per run), hold the browser's few connections, and keep an answer
 * or a decision waiting behind them; an older answer arriving late would show cards decided since.
 * While the tab is hidden the next poll is 30 s away; showing the tab again refreshes at once.
 */
var inFlight = null;
var again = false;
var timer = null;
function refresh() {
  if (inFlight) { again = true; return inFlight; }
  clearTimeout(timer);
  inFlight = load().then(function () {
    inFlight = null;
    if (again) { again = false; return refresh(); }
    timer = setTimeout(refresh, document.hidden ? 30000 : 2000);
  });
  return inFlight;
}
document.addEventListener("visibilitychange", function () { if (!document.hidden) refresh(); });

function load() {
  // A poll the server never answers (a dropped connection, an overloaded server) is given up after
  // 20 s, so the page tries again rather than stopping for good.
  var aborter = new AbortController();
  var giveUp = setTimeout(function () { aborter.abort(new Error("no answer in 20 s")); }, 20000);
  return fetch("inbox?limit=500", { headers: headers(false), signal: aborter.signal })
    .then(function (r) {
      if (r.status === 401 || r.status === 403) { document.getElementById("auth").style.display = "block"; statusEl.textContent = "A token is needed."; return; }
      document.getElementById("auth").style.display = "none";
      return r.json().then(function (j) { var warn = document.getElementById("warning"); warn.hidden = !j.warning; warn.textContent = j.warning || ""; if (j.items) { render(j.items); if (j.total > j.items.length) statusEl.textContent = "Showing the " + j.items.length + " who waited longest of " + j.total + "."; } else statusEl.textContent = j.error ? j.error.message : "Unexpected answer"; });
    })
    .catch(function (e) { statusEl.textContent = "Cannot reach the server: " + e.message; })
    .finally(function () { clearTimeout(giveUp); });
}

document.getElementById("save-token").addEventListener("click", function () {
  sessionStorage.setItem(TOKEN_KEY, document.getElementById("token").value.trim());
  refresh();
});
refresh();
</script>
</body>
</html>
`;
