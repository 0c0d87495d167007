/**
 * How the run page (run-page.ts) folds a run's events (`GET /runs/:id/events`, the contract's
 * `RunEvent`s and live `model_delta`s) into its story: one entry per thing a person reads — the
 * request, each model turn (its live text while it streams), each tool call execution with its
 * result or `ToolError` chain and hint, each planner decision (a back-off's end time), each
 * question and review and what a person answered, hand-overs, the finish — and the time the run
 * spent per kind of step (model, tools, waiting on a person, backing off).
 *
 * Browser JavaScript as source text, pure (no DOM, no clock: `now` is passed in), so the page
 * needs no build step and `run-story-script.test.ts` runs the same text in Node. Served by
 * servers/http only (Node-only import).
 */

/** The step kinds the time bar shows, in its order. `other` is the run's own planning between steps. */
export const TIME_KINDS = ['model', 'tools', 'person', 'backoff', 'other'] as const;

export const RUN_STORY_SCRIPT = String.raw`
/* Where an event leaves the run until the next one: what the time until then is spent on. */
var MODE_OF_ACTION = {
  model: "model", repair: "model", final: "model", message: "model",
  run_tools: "tools", reconcile: "tools", back_off: "backoff",
  clarify: "person", review: "person", budget: "person", finish: "other"
};

function newStory() {
  return {
    entries: [], changed: [], changedKeys: {}, byKey: {}, generation: 0, runs: {}, started: {}, tokens: { input: 0, output: 0 },
    startedAt: null, finishedAt: null, mode: "other", modeSince: null, lastOffset: null,
    spent: { model: 0, tools: 0, person: 0, backoff: 0, other: 0 }
  };
}

function put(story, key, fields) {
  var entry = story.byKey[key];
  // index: where the entry sits in the story, which the page's paging counts by.
  if (!entry) { entry = { key: key, index: story.entries.length, version: 0 }; story.byKey[key] = entry; story.entries.push(entry); }
  Object.keys(fields).forEach(function (k) { entry[k] = fields[k]; });
  entry.version++;
  // What changed since the page last drew: a long run's page draws only these.
  if (!story.changedKeys[key]) { story.changedKeys[key] = true; story.changed.push(entry); }
  return entry;
}

/* Time from the last event to this one goes to the mode the last one left; then this event sets the mode. */
function advanceClock(story, at, mode) {
  if (typeof at !== "number") return;
  if (story.modeSince !== null && story.finishedAt === null) story.spent[story.mode] += Math.max(0, at - story.modeSince);
  if (story.modeSince === null || at >= story.modeSince) story.modeSince = at;
  if (mode) story.mode = mode;
}

/* The key of a tool call's latest execution; a call run again (after a back-off) is a new entry. */
function toolKey(story, id, again) {
  var base = "tool:" + story.generation + ":" + id;
  var n = story.runs[base] || 0;
  if (n === 0 || again) story.runs[base] = ++n;
  return base + "#" + n;
}

function addEvent(story, e) {
  if (!e || typeof e.type !== "string") return story;
  // An event told again (a stream resumed from an earlier offset) is told once.
  if (typeof e.offset === "number") {
    if (story.lastOffset !== null && e.offset <= story.lastOffset) return story;
    story.lastOffset = e.offset;
  }
  var gen = story.generation;
  switch (e.type) {
    case "run_started":
      if (story.startedAt === null) story.startedAt = e.at;
      advanceClock(story, e.at, "other");
      put(story, "request:" + gen, { kind: "request", at: e.at, agent: e.agent, text: e.prompt });
      break;
    case "model_delta":
    case "model_reset": {
      advanceClock(story, e.at, "model");
      var key = "model:" + gen + ":" + e.call;
      var live = story.byKey[key];
      if (live && live.done) break;
      if (live && e.attempt < live.attempt) break;
      var text = live && live.attempt === e.attempt && e.type === "model_delta" ? live.text : "";
      put(story, key, { kind: "model", at: live ? live.at : e.at, turn: e.turn, live: true, attempt: e.attempt, activity: e.call, text: text + (e.type === "model_delta" && e.text ? e.text : "") });
      break;
    }
    case "model_turn": {
      advanceClock(story, e.at, "other");
      var usage = e.usage || {};
      story.tokens.input += usage.inputTokens || 0;
      story.tokens.output += usage.outputTokens || 0;
      var mkey = "model:" + gen + ":" + (e.call || "turn-" + e.turn + "@" + e.offset);
      var before = story.byKey[mkey];
      put(story, mkey, { kind: "model", at: before ? before.at : e.at, turn: e.turn + 1, live: false, done: true, activity: e.call || null, text: e.text || "", toolCalls: e.toolCalls || [], usage: e.usage || null, error: e.error || null });
      break;
    }
    case "tool_start": {
      advanceClock(story, e.at, "tools");
      // The activity the workflow names it (workflows/take-step.ts): tool:<call id>:<name>:<nth of this run>.
      var stem = "tool:" + e.toolCallId + ":" + e.name;
      var nth = story.started[gen + "|" + stem] = (story.started[gen + "|" + stem] || 0) + 1;
      put(story, toolKey(story, e.toolCallId, true), { kind: "tool", at: e.at, turn: e.turn, id: e.toolCallId, name: e.name, args: e.args, status: "running", activity: stem + ":" + nth });
      break;
    }
    case "tool_end": {
      advanceClock(story, e.at, null);
      var r = e.result || {};
      var tkey = toolKey(story, e.toolCallId, false);
      var open = story.byKey[tkey];
      // Ended already and not a reconcile's second word: another execution (e.g. refused at the boundary, never started).
      if (open && open.status !== "running" && !r.reconciled) { tkey = toolKey(story, e.toolCallId, true); open = undefined; }
      put(story, tkey, {
        kind: "tool", at: open ? open.at : e.at, endedAt: e.at, turn: e.turn, id: e.toolCallId, name: e.name,
        args: open ? open.args : e.args === undefined ? null : e.args, refused: !open && e.args !== undefined,
        status: typeof r.status === "string" ? r.status : "ok", result: r.result, error: r.error || null,
        hint: r.retryHint || null, partialResult: r.partialResult, validator: r.validator, feedback: r.feedback,
        telemetry: r.telemetry || null, runLink: r.runLink || null, reconciled: !!r.reconciled, activity: open ? open.activity : null
      });
      break;
    }
    case "decision": {
      advanceClock(story, e.at, MODE_OF_ACTION[e.action] || "other");
      var wait = e.action === "back_off" ? /retry in (\d+) ms/.exec(e.detail || "") : null;
      put(story, "decision:" + gen + ":" + e.seq, { kind: "decision", at: e.at, turn: e.turn, action: e.action, detail: e.detail, until: wait ? e.at + Number(wait[1]) : null });
      break;
    }
    case "question":
      advanceClock(story, e.at, "person");
      put(story, "question:" + gen + ":" + e.clarification.id, { kind: "question", at: e.at, turn: e.turn, id: e.clarification.id, question: e.clarification.question, tool: e.clarification.tool || null, missingFields: e.clarification.missingFields || [], child: e.child || null });
      break;
    case "review":
      advanceClock(story, e.at, "person");
      (e.reviews || []).forEach(function (rv) {
        put(story, "review:" + gen + ":" + rv.toolCallId, { kind: "review", at: e.at, turn: e.turn, id: rv.toolCallId, name: rv.name, args: rv.args, argsHash: rv.argsHash, allowed: rv.allowed || null, description: rv.description || null, child: e.child || null });
      });
      break;
    case "human": {
      advanceClock(story, e.at, "other");
      var target = e.kind === "answer" ? story.byKey["question:" + gen + ":" + e.id] : e.kind === "review" ? story.byKey["review:" + gen + ":" + e.id] : null;
      if (target) put(story, target.key, { decided: e.detail === undefined ? null : e.detail, decidedAt: e.at });
      put(story, "human:" + gen + ":" + e.offset, { kind: "person", at: e.at, turn: e.turn, what: e.kind, id: e.id, detail: e.detail });
      break;
    }
    case "hand_over":
      advanceClock(story, e.at, null);
      story.generation = e.generation;
      put(story, "hand_over:" + e.generation, { kind: "hand_over", at: e.at, turn: e.turn, generation: e.generation, upgradeTo: e.upgradeTo });
      break;
    case "agent_changed":
      put(story, "agent_changed:" + e.to + ":" + e.at, { kind: "agent_changed", at: e.at, turn: e.turn, from: e.from, to: e.to, buildId: e.buildId });
      break;
    case "finish":
      advanceClock(story, e.at, "other");
      story.finishedAt = e.at;
      put(story, "finish:" + gen, { kind: "finish", at: e.at, turn: e.turn, answer: e.answer, reason: e.reason, toolCalls: e.toolCalls });
      break;
    default:
      break;
  }
  return story;
}

/* Where the drawn part of a story of total entries begins: the newest size of them, unless a
   person asked for earlier ones (pinned), when what they have stays and new entries add to it. */
function windowStart(total, from, pinned, size) {
  return pinned ? from : Math.max(from, total - size);
}

/* Where the page before the one drawn from begins ("Show earlier"). */
function earlierStart(from, size) {
  return Math.max(0, from - size);
}

/* A model's reasoning apart from what it said: think blocks (shared/model/think-block.ts), anywhere,
   any case, closed or running to the end of a cut text. */
function splitThinking(text) {
  var block = /<think>[\s\S]*?(?:<\/think>|$)/gi;
  var thoughts = (text.match(block) || []).map(function (b) { return b.replace(/^<think>/i, "").replace(/<\/think>$/i, "").trim(); }).filter(Boolean);
  return { reasoning: thoughts.join("\n"), text: text.replace(block, "").trim() };
}

/* A step's link into the Temporal UI (base: its workflows URL of the namespace, or null). The
   events carry no history event id nor Temporal run id, so it is the run's history (the UI opens the
   latest run of the chain), named with the step's activity id to find there when the events give it. */
function historyLink(base, workflowId, entry) {
  if (!base) return null;
  var activity = entry.activity || null;
  return {
    href: base + encodeURIComponent(workflowId),
    text: activity ? "Temporal UI · " + activity : "Temporal UI",
    title: "The run's history in the Temporal UI" + (activity ? "; this step is activity " + activity : "")
  };
}

/* The entries changed since the last call, in story order (new ones last): what to draw. */
function takeChanged(story) {
  var out = story.changed;
  story.changed = [];
  story.changedKeys = {};
  return out;
}

/* Time per step kind so far: a run still going counts its current step up to now. */
function timeSpent(story, now) {
  var out = {};
  Object.keys(story.spent).forEach(function (k) { out[k] = story.spent[k]; });
  if (story.finishedAt === null && story.modeSince !== null && typeof now === "number") out[story.mode] += Math.max(0, now - story.modeSince);
  return out;
}

/* A duration as people say it: 850 ms, 12.3 s, 4 min 05 s, 2 h 03 min. */
function formatDuration(ms) {
  if (ms < 1000) return Math.round(ms) + " ms";
  if (ms < 60000) return (Math.round(ms / 100) / 10) + " s";
  var s = Math.round(ms / 1000);
  if (s < 3600) return Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
  var m = Math.round(s / 60);
  return Math.floor(m / 60) + " h " + String(m % 60).padStart(2, "0") + " min";
}

/* A value as text: a preview the run cut says so. */
function valueText(value) {
  if (value === undefined) return "";
  if (value && typeof value === "object" && typeof value.preview === "string" && typeof value.chars === "number" && Object.keys(value).length === 2)
    return value.preview + " … (" + value.chars + " characters, cut)";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/* A ToolError's links, outermost first. */
function errorLinks(error) {
  var links = [];
  for (var link = error; link && links.length < 16; link = link.cause) links.push(link);
  return links;
}
`;
