/**
 * The run page's forms (run-page.ts): what the run waits on now — its question, its held calls,
 * its budget request — answered from the page as on the inbox page (inbox-page.ts; the same
 * requests, words and checks, without the inbox's per-field schema form: an answer here is text).
 * Browser JavaScript as source text; it uses the page's `el`, `headers`, `runUrl` and `loadState`.
 * Served by servers/http only (Node-only import).
 */
import { REVIEW_DECISIONS } from '../../shared/human-input/review-decision.js';

export const RUN_FORMS_SCRIPT = String.raw`
var ALL_DECISIONS = ${JSON.stringify(REVIEW_DECISIONS)};

function notify(text) {
  var box = document.getElementById("notices");
  box.insertBefore(el("div", { class: "notice", text: text }), box.firstChild);
  while (box.childNodes.length > 3) box.removeChild(box.lastChild);
}

function post(path, body, errorEl, buttons, done) {
  errorEl.textContent = "";
  buttons.forEach(function (b) { b.disabled = true; });
  return fetch(runUrl + path, { method: "POST", headers: headers(true), body: JSON.stringify(body) })
    .then(function (r) { return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; }); })
    .then(function (res) {
      if (res.status >= 400) {
        errorEl.textContent = res.body.error && res.body.error.code ? res.body.error.code + ": " + res.body.error.message : "HTTP " + res.status;
        buttons.forEach(function (b) { b.disabled = false; });
      } else { notify(done); loadState(); }
    })
    .catch(function (e) { errorEl.textContent = String(e); buttons.forEach(function (b) { b.disabled = false; }); });
}

function questionCard(q) {
  var errorEl = el("div", { class: "error", role: "alert" });
  var answer = el("textarea", { name: "answer", "aria-label": "Answer" });
  var send = el("button", { class: "primary", text: "Answer" });
  send.addEventListener("click", function () {
    if (!answer.value.trim()) { errorEl.textContent = "Write the answer first."; return; }
    post("/answer", { answer: answer.value, questionId: q.id }, errorEl, [send], "Answered " + q.id + ": the run goes on.");
  });
  return el("div", { class: "card pending question" }, [el("div", { class: "kind", text: "The run asks" }), el("div", { class: "text", text: q.question }),
    q.missingFields && q.missingFields.length ? el("div", { class: "muted", text: "It needs: " + q.missingFields.join(", ") }) : null, answer, el("div", { class: "row" }, [send]), errorEl]);
}

function reviewCard(r) {
  var allowed = r.allowed || ALL_DECISIONS;
  var errorEl = el("div", { class: "error", role: "alert" });
  var args = el("textarea", { name: "args", "aria-label": "Arguments" });
  args.value = JSON.stringify(r.args, null, 2);
  args.setAttribute("rows", String(args.value.split("\n").length + 1));
  if (allowed.indexOf("edit") < 0) args.setAttribute("readonly", "readonly");
  var note = el("input", { type: "text", name: "note", "aria-label": "Note", placeholder: allowed.indexOf("respond") >= 0 ? "Response content, or a reason to reject" : "Reason to reject (optional)" });
  var buttons = [];
  var words = { accept: "Accepted", edit: "Edited and accepted", respond: "Responded to", reject: "Rejected" };
  function decide(decision) { post("/reviews/" + encodeURIComponent(r.toolCallId), { argsHash: r.argsHash, decision: decision }, errorEl, buttons, words[decision.type] + " the call to " + r.name + " (" + r.toolCallId + ")."); }
  var changed = function () { try { return JSON.stringify(JSON.parse(args.value)) !== JSON.stringify(r.args); } catch (e) { return true; } };
  if (allowed.indexOf("accept") >= 0) buttons.push(el("button", { class: "primary", text: "Accept", onclick: function () { if (changed()) { errorEl.textContent = "The arguments were changed: use Edit, or undo the change."; return; } decide({ type: "accept" }); } }));
  if (allowed.indexOf("edit") >= 0) buttons.push(el("button", { text: "Edit", onclick: function () {
    var value;
    try { value = JSON.parse(args.value); } catch (e) { errorEl.textContent = "The arguments are not valid JSON: " + e.message; return; }
    decide({ type: "edit", args: value });
  } }));
  if (allowed.indexOf("respond") >= 0) buttons.push(el("button", { text: "Respond", onclick: function () { if (!note.value.trim()) { errorEl.textContent = "Write the response first."; return; } decide({ type: "respond", content: note.value }); } }));
  if (allowed.indexOf("reject") >= 0) buttons.push(el("button", { class: "danger", text: "Reject", onclick: function () { decide(note.value.trim() ? { type: "reject", reason: note.value } : { type: "reject" }); } }));
  return el("div", { class: "card pending review" }, [el("div", { class: "kind", text: "Review the call" }),
    el("div", { class: "head" }, [el("span", { class: "name", text: r.name }), el("span", { class: "muted", text: r.toolCallId })]),
    r.description ? el("div", { class: "muted", text: r.description }) : null,
    // A workspace write or patch: what it would change in the run's files (docs/workspaces.md).
    r.change ? el("label", { text: "Would change" }) : null, r.change ? el("pre", { class: "change", text: r.change }) : null,
    el("label", { text: "Arguments" + (allowed.indexOf("edit") >= 0 ? " (edit, then Edit)" : "") }), args,
    el("label", { text: "Allowed: " + allowed.join(", ") }), note, el("div", { class: "row" }, buttons), errorEl]);
}

function budgetCard(b) {
  var q = b.pending;
  var errorEl = el("div", { class: "error", role: "alert" });
  var tokens = el("input", { type: "number", name: "tokens", min: "1", step: "1", "aria-label": "Add tokens" });
  var cost = el("input", { type: "number", name: "costUsd", min: "0", step: "any", "aria-label": "Add cost" });
  var buttons = [];
  buttons.push(el("button", { class: "primary", text: "Extend", onclick: function () {
    var d = { type: "extend" };
    if (tokens.value.trim() !== "") d.tokens = Number(tokens.value);
    if (cost.value.trim() !== "") d.costUsd = Number(cost.value);
    if (d.tokens === undefined && d.costUsd === undefined) { errorEl.textContent = "Add tokens or cost first."; return; }
    post("/budget", { requestId: q.id, decision: d }, errorEl, buttons, "Extended the budget: the run goes on.");
  } }));
  buttons.push(el("button", { class: "danger", text: "Stop", onclick: function () { post("/budget", { requestId: q.id, decision: { type: "stop" } }, errorEl, buttons, "Stopped the run at its budget."); } }));
  var spent = q.limit === "tokens" ? q.usedTokens + " of " + q.maxTokens + " tokens" : q.usedCostUsd + " of " + q.maxCostUsd + " (cost)";
  return el("div", { class: "card pending budget" }, [el("div", { class: "kind", text: "Budget used up" }), el("div", { class: "text", text: spent }),
    el("label", { text: "Add tokens" }), tokens, el("label", { text: "Add cost" }), cost, el("div", { class: "row" }, buttons), errorEl]);
}

`;
