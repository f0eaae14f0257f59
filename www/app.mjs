// The demo page: wires the panels to the package's browser build. Every number shown comes from
// the package (selectTier, compact / compactWithTier, recordTierEvent; token counts of a pasted
// or partly restored context from a `none` run, which counts and changes nothing); the page only
// reads input, renders, restores from the archive and sums the trace lines. The package's own
// `restore` checks the result against the input, and `recall` answers ids from every run's archive.
import { TIER_COST_WEIGHT, compact, compactWithTier, estimateTokens, init, recall, recallToolDefinition, recordTierEvent, restore, selectTier } from "tiered-compaction";
import { buildModel, entryStates, equalsInput, restoreAll, restoreEntry, shownContext } from "./archive-model.mjs";
import { formatUsd, ledgerFromLines } from "./ledger.mjs";
import { runLoop } from "./loop.mjs";
import { DEFAULT_THRESHOLDS, DEFAULT_TIER_POLICY, RECALL_WORDS, describeTail, describeTier, explainTier } from "./rules.mjs";
import { STUB_MODES, createStubSummariser } from "./stub.mjs";
import { readTranscript } from "./transcript.mjs";
import { el, renderOriginal, renderOutput, renderPlain, shortId } from "./views.mjs";

const SAMPLES = [
  { file: "openai-chat.json", label: "OpenAI Chat Completions (messages)" },
  { file: "anthropic-messages.json", label: "Anthropic Messages (request body)" },
  { file: "ai-sdk-messages.json", label: "Vercel AI SDK (ModelMessage[])" },
  { file: "openai-responses.json", label: "OpenAI Responses API (request body)" },
  { file: "gemini-contents.json", label: "Gemini (request body)" },
  { file: "flat-text.txt", label: "Flat text (```tool_result, [age:N])" },
];

const $ = (id) => document.getElementById(id);
const number = (value) => value.toLocaleString("en-US");

const state = {
  /** The context read from the transcript panel: { messages } or { text }, or null. */
  source: null,
  sourceSeq: 0,
  running: false,
  runs: 0,
  /** The last run: its context, result and archive model. */
  last: null,
  trace: [],
  /** Every run's archive, oldest first, as a host would store them (what `recall` searches). */
  archives: [],
};

// ---------------------------------------------------------------------------------------------
// 1. Transcript

function showSourceError(message, location = null) {
  const box = $("source-error");
  box.hidden = message === null;
  box.replaceChildren(message ?? "");
  if (location) box.append(" ", el("button", { class: "link", onclick: () => selectAt(location) }, "show me"));
}

/** Selects the character at 1-based `line`, `column` of the textarea. */
function selectAt({ line, column }) {
  const lines = $("source").value.split("\n");
  const index = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + column - 1;
  const textarea = $("source");
  textarea.focus();
  textarea.setSelectionRange(index, Math.min(index + 1, textarea.value.length));
  // Scroll the line into view (the textarea does not always do it for a programmatic selection).
  const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 16;
  textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
}

/** Reads the textarea, then validates it with a dry `none` run (format, token count, field errors). */
async function readSource() {
  const seq = ++state.sourceSeq;
  const info = $("source-info");
  info.dataset.state = "checking";
  const read = readTranscript($("source").value, $("read-as").value);
  if (!read.ok) {
    state.source = null;
    showSourceError(read.message, read.line === undefined ? null : { line: read.line, column: read.column });
    info.textContent = "";
    info.dataset.state = "error";
    updateButtons();
    return;
  }
  const context = read.kind === "text" ? { text: read.text } : { messages: read.messages, format: $("format").value };
  try {
    const dry = await compactWithTier("none", { sessionId: "validate", pressure: { turnCount: 1, contextPctUsed: 0, idleSeconds: 0, sessionComplete: false }, ...context });
    if (seq !== state.sourceSeq) return;
    state.source = context;
    showSourceError(null);
    info.textContent = `${dry.format} · ${read.note} · ${number(dry.beforeTokens)} tokens`;
    info.dataset.state = "ok";
    if (state.last === null) showPlain(context, dry.beforeTokens);
  } catch (error) {
    if (seq !== state.sourceSeq) return;
    state.source = null;
    showSourceError(`${error.name}: ${error.message}`);
    info.textContent = read.note;
    info.dataset.state = "error";
  }
  updateButtons();
}

function showPlain(context, tokens) {
  $("original-view").replaceChildren(renderPlain(context));
  $("original-tokens").textContent = `${number(tokens)} tokens`;
  $("output-view").replaceChildren(el("p", { class: "muted" }, "Run Compact to see the compacted context here."));
  $("shown-tokens").textContent = "";
}

async function loadSample(file) {
  $("source-info").dataset.state = "loading";
  const response = await fetch(`samples/${file}`);
  if (!response.ok) throw new Error(`samples/${file}: HTTP ${response.status}`);
  $("source").value = await response.text();
  $("read-as").value = "auto";
  $("format").value = "auto";
  clearRun();
  await readSource();
}

// ---------------------------------------------------------------------------------------------
// 2. Pressure → tier

function readThresholds() {
  return {
    autoContextPct: $("policy-auto").valueAsNumber,
    idleSeconds: $("policy-idle").valueAsNumber,
    microMinTurn: $("policy-micro-turn").valueAsNumber,
    microMinContextPct: $("policy-micro-pct").valueAsNumber,
  };
}

/** The tiers' policy fields (auto's target, the tail, the age of a stale step, the tools never compacted). */
function readTierPolicy() {
  return {
    autoTargetPct: $("policy-auto-target").valueAsNumber,
    keepRecentSteps: $("policy-keep-steps").valueAsNumber,
    maxBlockAgeSteps: $("policy-max-age").valueAsNumber,
    excludeTools: $("policy-exclude").value.split(",").map((name) => name.trim()).filter(Boolean),
    // One call on a pasted transcript: the page stubs every step at once unless a batch size is typed.
    cache: { batchTokens: Number.isFinite($("policy-batch").valueAsNumber) ? $("policy-batch").valueAsNumber : DEFAULT_TIER_POLICY.cache.batchTokens },
  };
}

/** Everything the page passes as `policy` (selectTier's thresholds and the tiers' fields). */
function readPolicy() {
  return { ...readThresholds(), ...readTierPolicy() };
}

/** The pressure as typed (an empty field reads as NaN, which selectTier rejects by name). */
function readPressure() {
  return {
    turnCount: $("turn").valueAsNumber,
    contextPctUsed: $("pct").valueAsNumber / 100,
    idleSeconds: $("idle").valueAsNumber,
    sessionComplete: $("complete").checked,
    // Only when typed: without cache facts the library has no cache model.
    ...($("cached").value === "" ? {} : { cachedTokens: $("cached").valueAsNumber }),
  };
}

function updateTier() {
  const pressure = readPressure();
  const thresholds = readThresholds();
  const policy = readPolicy();
  let tier;
  try {
    tier = selectTier(pressure, policy);
  } catch (error) {
    $("tier").textContent = "invalid";
    $("tier").dataset.tier = "invalid";
    $("tier-weight").textContent = "";
    $("tier-why").textContent = "";
    $("rules").replaceChildren();
    $("pressure-error").hidden = false;
    $("pressure-error").textContent = `${error.name}: ${error.message}`;
    updateButtons();
    return;
  }
  $("pressure-error").hidden = true;
  $("tier").textContent = tier;
  $("tier").dataset.tier = tier;
  $("tier-weight").textContent = `cost weight ${TIER_COST_WEIGHT[tier]}`;
  const { rules, fired, words } = explainTier(pressure, thresholds);
  const agrees = fired.tier === tier;
  $("tier-why").textContent = agrees ? words : `selectTier chose ${tier}, but the page's reading of the rules says ${words}: the thresholds above and the library disagree.`;
  $("tier-why").dataset.agrees = String(agrees);
  $("rules").replaceChildren(
    ...rules.map((rule) =>
      el(
        "li",
        { class: rule === fired ? "fired" : rule.holds ? "holds" : "fails", dataset: { tier: rule.tier } },
        el("span", { class: "tier-badge small", dataset: { tier: rule.tier } }, rule.tier),
        " ",
        el("span", { class: "check" }, rule.holds ? "✓" : "✗"),
        " ",
        rule.condition,
        el("span", { class: "does" }, `${rule.tier} ${describeTier(rule.tier, policy)}`),
      ),
    ),
  );
  $("tail-rule").textContent = describeTail(policy);
  updateButtons();
}

// ---------------------------------------------------------------------------------------------
// 3. Summariser stub and its call log

function logCall(request, answer) {
  const started = performance.now();
  const seconds = () => `${((performance.now() - started) / 1000).toFixed(2)} s`;
  const status = el("span", { class: "call-status pending" }, "pending…");
  const item = el(
    "li",
    { dataset: { state: "pending" } },
    el("span", { class: "tier-badge small", dataset: { tier: request.tier } }, request.tier),
    ` ${number(request.transcript.length)} chars → target ${number(request.targetTokens)} tokens, ${request.mustKeep.length} mustKeep · `,
    status,
  );
  const list = $("calls");
  list.prepend(item);
  while (list.children.length > 8) list.lastElementChild.remove();
  const settle = (cls, text) => {
    if (item.dataset.state !== "pending") return;
    clearInterval(timer);
    item.dataset.state = cls;
    status.className = `call-status ${cls}`;
    status.textContent = text;
  };
  const timer = setInterval(() => {
    status.textContent = `pending… ${seconds()}`;
  }, 100);
  request.signal.addEventListener("abort", () => settle("aborted", `aborted by the library after ${seconds()}: ${request.signal.reason?.message ?? request.signal.reason}`), { once: true });
  answer.then(
    (value) => {
      const text = typeof value === "string" ? value : value.summary;
      settle("resolved", `resolved in ${seconds()} with ${number(text.length)} chars`);
    },
    (error) => settle("rejected", `rejected after ${seconds()}: ${error?.message ?? error}`),
  );
}

function summariser() {
  const mode = $("stub-mode").value;
  if (mode === "off") return undefined;
  return createStubSummariser({ mode, delayMs: Math.max(0, $("stub-delay").valueAsNumber || 0), onCall: logCall });
}

// ---------------------------------------------------------------------------------------------
// 4–6. Compact, result, comparison, archive

function updateButtons() {
  const pressureOk = $("tier").dataset.tier !== "invalid";
  $("compact").disabled = state.running || state.source === null || !pressureOk;
  // Flat text has no model calls to replay.
  $("run-loop").disabled = state.running || state.source?.messages === undefined;
}

function clearRun() {
  state.last = null;
  $("archive").replaceChildren();
  $("restore-all").disabled = true;
  $("restore-status").textContent = "";
  $("output-json").textContent = "";
}

async function runCompact() {
  if (state.source === null) return;
  const context = {
    sessionId: $("session-id").value,
    pressure: readPressure(),
    costPer1kTokens: $("cost-per-1k").valueAsNumber,
    ...structuredClone(state.source),
  };
  if (context.format === "auto") delete context.format;
  const options = { policy: readPolicy(), timeoutMs: $("timeout").valueAsNumber };
  const summarise = summariser();
  if (summarise) options.summarise = summarise;
  const forced = $("force-tier").value;
  state.running = true;
  updateButtons();
  $("run-error").hidden = true;
  setRunState("running", forced ? `compactWithTier("${forced}")…` : "compact()…");
  try {
    const result = forced ? await compactWithTier(forced, context, options) : await compact(context, options);
    const line = recordTierEvent(result, { trace_id: `demo-${context.sessionId}`, turn_number: context.pressure.turnCount });
    state.trace.push(line);
    state.last = { context, result, model: buildModel(context, result) };
    state.archives.push(result.archive);
    state.runs += 1;
    showResult(result);
    showComparison();
    showTrace();
    showRestoreCheck();
    showRecall();
    setRunState("done", `done: ${result.tier}${result.degraded ? " (degraded)" : ""}`);
  } catch (error) {
    $("run-error").hidden = false;
    $("run-error").textContent = `${error.name}: ${error.message}`;
    setRunState("error", "failed");
  } finally {
    state.running = false;
    $("result-panel").dataset.run = String(state.runs);
    updateButtons();
  }
}

// ---------------------------------------------------------------------------------------------
// 8. Run the loop

/** Tokens of one message as the page counts them for the bill: the built-in estimator on its JSON. */
const messageTokens = (message) => estimateTokens(JSON.stringify(message), { tokenEstimator: "heuristic" });

async function runLoopView() {
  if (state.source === null || state.source.messages === undefined) return;
  const policy = readPolicy();
  policy.cache = { ...(policy.cache ?? {}), batchTokens: $("loop-batch").valueAsNumber };
  state.running = true;
  updateButtons();
  $("loop-error").hidden = true;
  $("loop-status").dataset.state = "running";
  $("loop-status").textContent = "running…";
  try {
    const { rows, total } = await runLoop({
      messages: structuredClone(state.source.messages),
      format: state.source.format,
      sessionId: $("session-id").value,
      policy,
      windowTokens: $("loop-window").valueAsNumber,
      compact,
      tokensOf: messageTokens,
    });
    const pct = (share) => `${(share * 100).toFixed(1)} %`;
    $("loop-rows").replaceChildren(
      ...rows.map((row) =>
        el("tr", { "data-tier": row.tier, "data-rewrote": String(row.rewrote), title: row.reason }, [
          el("td", { class: "call" }, String(row.call)),
          el("td", {}, [el("span", { class: "tier-badge", "data-tier": row.tier }, row.tier)]),
          el("td", { class: "sent" }, number(row.sentTokens)),
          el("td", {}, pct(row.sentTokens / Math.max(1, row.rawTokens))),
          el("td", { class: "repeated" }, row.rewrote ? `${row.repeated} (rewrote the rest)` : String(row.repeated)),
          el("td", { class: "bill", "data-value": String(row.bill) }, number(Math.round(row.bill))),
          el("td", { class: "raw-bill", "data-value": String(row.rawBill) }, number(Math.round(row.rawBill))),
        ]),
      ),
    );
    $("loop-total").hidden = false;
    $("loop-total").dataset.share = String(total.share);
    $("loop-total").textContent = `${total.calls} calls: the loop bills ${pct(total.share)} of sending everything (${number(Math.round(total.bill))} vs ${number(Math.round(total.rawBill))} input-token units), with ${total.rewrites} prefix rewrite(s).`;
    $("loop-status").dataset.state = "done";
    $("loop-status").textContent = "done";
  } catch (error) {
    $("loop-error").hidden = false;
    $("loop-error").textContent = `${error.name}: ${error.message}`;
    $("loop-status").dataset.state = "error";
    $("loop-status").textContent = "failed";
  } finally {
    state.running = false;
    updateButtons();
  }
}

function setRunState(name, text) {
  $("run-state").dataset.state = name;
  $("run-state").textContent = text;
}

function showResult(result) {
  const fraction = result.beforeTokens === 0 ? 1 : result.afterTokens / result.beforeTokens;
  $("bar-after").style.width = `${(fraction * 100).toFixed(2)}%`;
  $("before").textContent = number(result.beforeTokens);
  $("after").textContent = number(result.afterTokens);
  $("saved").textContent = number(result.tokensSaved);
  $("saved-pct").textContent = `${((1 - fraction) * 100).toFixed(1)} %`;
  for (const id of ["before", "after", "saved"]) $(id).dataset.value = String(result[{ before: "beforeTokens", after: "afterTokens", saved: "tokensSaved" }[id]]);
  $("result-tier").textContent = result.tier;
  $("result-tier").dataset.tier = result.tier;
  $("result-format").textContent = result.format;
  $("cost-display").textContent = formatUsd(result.costEstimate);
  $("cost").textContent = String(result.costEstimate);
  $("reason").textContent = result.reason;
  $("degraded").textContent = result.degraded ? "true: the summariser failed, the structural digest was used" : "no";
  $("degraded").dataset.degraded = String(result.degraded === true);
  $("warnings").replaceChildren(...(result.warnings ?? []).map((warning) => el("li", {}, warning)));
  if (!result.warnings?.length) $("warnings").append(el("li", { class: "muted" }, "none"));
  $("usage").textContent = result.summariserUsage
    ? `${number(result.summariserUsage.inputTokens)} in / ${number(result.summariserUsage.outputTokens)} out${result.summariserUsage.costUsd !== undefined ? ` · ${formatUsd(result.summariserUsage.costUsd)}` : ""}`
    : "–";
  $("cache").textContent = result.cache ? cacheWords(result) : "–";
  $("cache").dataset.cache = result.cache ? JSON.stringify(result.cache) : "";
  $("correlation").textContent = result.correlationId;
  $("archive-count").textContent = `${result.archive.length} item(s)`;
  $("summary-box").hidden = result.summary === undefined;
  $("summary").textContent = result.summary ?? "";
  $("original-tokens").textContent = `${number(result.beforeTokens)} tokens`;
}

async function showComparison() {
  const { model, result, context } = state.last;
  const keep = state.last.shownOnce ? [$("original-view").scrollTop, $("output-view").scrollTop] : null;
  $("original-view").replaceChildren(renderOriginal(model));
  $("output-view").replaceChildren(renderOutput(model));
  if (keep) [$("original-view").scrollTop, $("output-view").scrollTop] = keep;
  else {
    // A new result: scroll both views to the first change.
    scrollToFirstMark($("original-view"));
    scrollToFirstMark($("output-view"));
    state.last.shownOnce = true;
  }
  const shown = shownContext(model);
  $("output-json").textContent = typeof shown === "string" ? shown : JSON.stringify(shown, null, 2);
  showArchive();
  // Tokens of what is shown, counted by the library (a `none` run changes nothing).
  const shownContextInput = typeof shown === "string" ? { text: shown } : { messages: shown, format: result.format };
  try {
    const counted = await compactWithTier("none", { sessionId: "count", pressure: context.pressure, ...shownContextInput });
    if (state.last?.model === model) {
      $("shown-tokens").textContent = `${number(counted.beforeTokens)} tokens`;
      $("shown-tokens").dataset.tokens = String(counted.beforeTokens);
    }
  } catch (error) {
    $("shown-tokens").textContent = `(not counted: ${error.message})`;
  }
}

function scrollToFirstMark(view) {
  const first = view.querySelector(".mark, .in-removed, .replaced-card, .gone-marker, .restored-group");
  if (first) scrollViewTo(view, first);
  else view.scrollTop = 0;
}

/** Scrolls `view` (and the card's own scroll box, if any) so that `target` is near the top. */
function scrollViewTo(view, target) {
  const box = target.closest("pre.json");
  if (box && box !== target) box.scrollTop = Math.max(0, target.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop - 20);
  view.scrollTop = Math.max(0, target.getBoundingClientRect().top - view.getBoundingClientRect().top + view.scrollTop - 40);
}

function describeContent(content) {
  if (typeof content === "string") return `${number(Array.from(content).length)} chars`;
  if (Array.isArray(content)) return `${content.length} message(s), ${number(JSON.stringify(content).length)} chars of JSON`;
  return `${number(JSON.stringify(content).length)} chars of JSON`;
}

function showArchive() {
  const { model, result } = state.last;
  const states = entryStates(model);
  const rows = result.archive.map((entry) => {
    const entryState = states.get(entry.id);
    const action =
      entryState === "restored"
        ? el("span", { class: "restored-note" }, "restored ✓")
        : el("button", { class: "restore", disabled: entryState !== "restorable" || model.problems.length > 0, title: entryState === "hidden" ? "inside a removed range: restore that first" : "put the archived content back into the shown output", onclick: () => restoreOne(entry.id) }, "Restore");
    const replacement = entry.replacement === "" ? el("span", { class: "muted" }, "(removed outright)") : entry.replacement.length > 90 ? `${entry.replacement.slice(0, 90)}…` : entry.replacement;
    return el(
      "tr",
      {
        dataset: { entry: entry.id, state: entryState },
        onmouseenter: () => focusEntry(entry.id, true),
        onmouseleave: () => focusEntry(entry.id, false),
      },
      el("td", {}, el("button", { class: "link reveal", title: "show it in both views", onclick: () => revealEntry(entry.id) }, el("code", {}, shortId(entry)), el("span", { class: "muted small" }, entry.id.slice(shortId(entry).length)))),
      el("td", {}, entry.kind),
      el("td", {}, el("code", {}, entry.location)),
      el("td", { class: "replacement" }, replacement),
      el("td", {}, describeContent(entry.content)),
      el("td", {}, action),
    );
  });
  $("archive").replaceChildren(...rows);
  if (rows.length === 0) $("archive").append(el("tr", {}, el("td", { colspan: 6, class: "muted" }, "Nothing removed.")));
  const equal = equalsInput(model);
  $("restore-all").disabled = [...states.values()].every((value) => value === "restored") || model.problems.length > 0;
  $("restore-status").dataset.equal = String(equal);
  $("restore-status").textContent = model.problems.length > 0
    ? `Restoring is off: ${model.problems.join("; ")}`
    : equal
      ? result.archive.length === 0 ? "The output is the input." : "The shown output equals the original input again: nothing was lost."
      : `${[...states.values()].filter((value) => value === "restored").length} of ${result.archive.length} restored`;
}

/** Scrolls both views to archive entry `id` (its removed part and what stands there now). */
function revealEntry(id) {
  for (const view of [$("original-view"), $("output-view")]) {
    const target = view.querySelector(`[data-entry="${CSS.escape(id)}"]`);
    if (target) scrollViewTo(view, target);
  }
}

function focusEntry(id, on) {
  for (const node of document.querySelectorAll(`[data-entry="${CSS.escape(id)}"]`)) node.classList.toggle("focus", on);
}

function restoreOne(id) {
  if (state.last && restoreEntry(state.last.model, id)) showComparison();
}

/** The package's own check: `restore(result)` is the input of the run. */
function showRestoreCheck() {
  const { context, result } = state.last;
  const box = $("restore-check");
  try {
    const restored = restore(result);
    const input = context.text ?? context.messages;
    const equal = typeof restored === "string" ? restored === input : JSON.stringify(restored) === JSON.stringify(input);
    box.dataset.equal = String(equal);
    box.textContent = equal
      ? "restore(result) gives the input back exactly."
      : "restore(result) does not give the input back: please report this.";
  } catch (error) {
    box.dataset.equal = "false";
    box.textContent = `restore(result) failed: ${error.name}: ${error.message}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Recall: the tool a model calls for a pruned body, answered from the stored archives

/** The tool definition for the last run's format (flat text has none: its error says why). */
function showRecall() {
  const { result } = state.last;
  $("recall-format").textContent = result.format;
  try {
    $("recall-tool").textContent = JSON.stringify(recallToolDefinition(result.format), null, 2);
  } catch (error) {
    $("recall-tool").textContent = `${error.name}: ${error.message}. Flat text's archive entries are found by location.`;
  }
  // The first id a stub in the output names (flat text names none: the first entry's id).
  const shown = result.text ?? JSON.stringify(result.messages);
  const named = /recall: (a[0-9a-f]{12})/.exec(shown)?.[1] ?? result.archive[0]?.id ?? "";
  $("recall-id").value = named;
  $("recall").disabled = state.archives.length === 0;
  $("recall-answer").hidden = true;
  $("recall-status").textContent = `${state.archives.length} archive(s) stored, ${state.archives.reduce((sum, archive) => sum + archive.length, 0)} entries`;
  $("recall-status").dataset.found = "";
}

/** Answers a recall_archived call for the typed id, as a host would. */
function answerRecall() {
  const id = $("recall-id").value.trim();
  const entry = recall(state.archives, id);
  const answer = $("recall-answer");
  if (entry === undefined) {
    $("recall-status").dataset.found = "false";
    $("recall-status").textContent = `no archived entry has the id ${JSON.stringify(id)}`;
    answer.hidden = true;
    return;
  }
  $("recall-status").dataset.found = "true";
  $("recall-status").textContent = `${entry.id} · ${entry.kind} · ${entry.location}`;
  answer.hidden = false;
  answer.textContent = typeof entry.content === "string" ? entry.content : JSON.stringify(entry.content, null, 2);
}

// ---------------------------------------------------------------------------------------------
// 7. Trace and ledger

function showTrace() {
  $("trace").replaceChildren(...state.trace.map((line) => el("div", { class: "trace-line" }, line)));
  $("trace").scrollTop = $("trace").scrollHeight;
  $("trace-count").textContent = `${state.trace.length} line${state.trace.length === 1 ? "" : "s"}`;
  $("download").disabled = state.trace.length === 0;
  $("clear-trace").disabled = state.trace.length === 0;
  const { rows, total } = ledgerFromLines(state.trace);
  const cells = (row) => [
    el("td", { class: "events" }, String(row.events)),
    el("td", { class: "tokens" }, number(row.tokensSaved)),
    el("td", { class: "cost", dataset: { value: String(row.costEstimate) } }, formatUsd(row.costEstimate)),
    el("td", { class: "degraded" }, String(row.degraded)),
    el("td", {}, `${number(row.summariserInputTokens)} / ${number(row.summariserOutputTokens)}`),
    el("td", { class: "spend", dataset: { value: String(row.summariserCostUsd) } }, formatUsd(row.summariserCostUsd)),
  ];
  $("ledger").replaceChildren(
    ...rows.map((row) => el("tr", { dataset: { tier: row.tier }, class: row.events === 0 ? "empty" : "" }, el("td", {}, el("span", { class: "tier-badge small", dataset: { tier: row.tier } }, row.tier)), ...cells(row))),
    el("tr", { class: "total", dataset: { tier: "total" } }, el("td", {}, "total"), ...cells(total)),
  );
}

function downloadTrace() {
  const blob = new Blob([`${state.trace.join("\n")}\n`], { type: "application/x-ndjson" });
  const url = URL.createObjectURL(blob);
  const link = el("a", { href: url, download: "tiered-compaction-trace.jsonl" });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---------------------------------------------------------------------------------------------
// Start

function debounce(fn, ms) {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

async function main() {
  $("sample").replaceChildren(...SAMPLES.map(({ file, label }) => el("option", { value: file }, label)), el("option", { value: "", disabled: true }, "(pasted or loaded)"));
  $("stub-mode").replaceChildren(el("option", { value: "off" }, "off: no summariser (structural digest)"), ...Object.entries(STUB_MODES).map(([value, label]) => el("option", { value }, label)));
  $("stub-mode").value = "resolve";
  for (const [id, key] of [["policy-auto", "autoContextPct"], ["policy-idle", "idleSeconds"], ["policy-micro-turn", "microMinTurn"], ["policy-micro-pct", "microMinContextPct"]]) {
    $(id).value = String(DEFAULT_THRESHOLDS[key]);
  }
  for (const [id, key] of [["policy-auto-target", "autoTargetPct"], ["policy-keep-steps", "keepRecentSteps"], ["policy-max-age", "maxBlockAgeSteps"]]) {
    $(id).value = String(DEFAULT_TIER_POLICY[key]);
  }
  $("policy-exclude").value = DEFAULT_TIER_POLICY.excludeTools.join(", ");
  $("policy-batch").value = String(DEFAULT_TIER_POLICY.cache.batchTokens);
  $("recall-words").textContent = RECALL_WORDS;

  await init();
  $("status").dataset.ready = "true";
  $("status").textContent = "Package loaded (browser build, WebAssembly).";

  const sourceChanged = debounce(() => {
    $("sample").value = "";
    clearRun();
    readSource();
  }, 200);
  $("source").addEventListener("input", sourceChanged);
  $("read-as").addEventListener("change", () => readSource());
  $("format").addEventListener("change", () => readSource());
  $("sample").addEventListener("change", () => {
    if ($("sample").value) loadSample($("sample").value).catch(showLoadError);
  });
  $("file").addEventListener("change", async () => {
    const file = $("file").files?.[0];
    if (!file) return;
    $("source").value = await file.text();
    $("sample").value = "";
    $("file").value = "";
    clearRun();
    await readSource();
  });

  $("pct-range").addEventListener("input", () => {
    $("pct").value = $("pct-range").value;
    updateTier();
  });
  $("pct").addEventListener("input", () => {
    if (!Number.isNaN($("pct").valueAsNumber)) $("pct-range").value = String($("pct").valueAsNumber);
    updateTier();
  });
  for (const id of ["turn", "idle", "complete", "policy-auto", "policy-idle", "policy-micro-turn", "policy-micro-pct", "policy-auto-target", "policy-keep-steps", "policy-max-age", "policy-batch", "policy-exclude"]) {
    $(id).addEventListener("input", updateTier);
    $(id).addEventListener("change", updateTier);
  }
  $("compact").addEventListener("click", runCompact);
  $("run-loop").addEventListener("click", runLoopView);
  $("restore-all").addEventListener("click", () => {
    if (state.last && restoreAll(state.last.model) > 0) showComparison();
  });
  $("download").addEventListener("click", downloadTrace);
  $("recall").addEventListener("click", answerRecall);
  $("recall-id").addEventListener("keydown", (event) => {
    if (event.key === "Enter") answerRecall();
  });
  $("clear-trace").addEventListener("click", () => {
    state.trace = [];
    showTrace();
  });

  updateTier();
  showTrace();
  $("sample").value = SAMPLES[0].file;
  await loadSample(SAMPLES[0].file);
}

function showLoadError(error) {
  showSourceError(`Could not load the sample: ${error.message}`);
}

main().catch((error) => {
  $("status").dataset.ready = "error";
  $("status").textContent = `Could not start: ${error.message}`;
  $("status").classList.add("error");
});

/** The cache report in words: its state, the two figures the decision weighed, and the decision. */
function cacheWords({ cache, reason }) {
  const state = cache.warm ? "warm" : "cold (every edit is free of a rewrite)";
  const deferred = /cache warm: deferred/.test(reason) ? " · edits deferred: not worth the rewrite" : "";
  return `${state} · invalidated ${number(cache.invalidatedTokens)} cached tokens · rewrite ${formatUsd(cache.rewriteCostUsd)} vs expected savings ${formatUsd(cache.expectedSavingsUsd)}${deferred}`;
}
