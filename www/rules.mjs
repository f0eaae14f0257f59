// The policy's rules in words (docs/design.md, "The tiers"), evaluated from the same thresholds the page passes to
// `selectTier` as its `policy` option. The tier shown is always what `selectTier` returned; these
// words explain it, and the page flags any disagreement instead of hiding it.

/** The seed's thresholds, spelled as `PolicyConfig` fields. */
export const DEFAULT_THRESHOLDS = Object.freeze({
  autoContextPct: 0.7,
  idleSeconds: 300,
  microMinTurn: 2,
  microMinContextPct: 0,
});

const percent = (fraction) => `${+(fraction * 100).toFixed(2)} %`;

/**
 * Every rule, first match wins, with whether it holds for `pressure`.
 * @returns {{ tier: string, condition: string, holds: boolean }[]}
 */
export function evaluateRules(pressure, thresholds = DEFAULT_THRESHOLDS) {
  const live = !pressure.sessionComplete;
  const { turnCount, contextPctUsed, idleSeconds } = pressure;
  return [
    {
      tier: "session_memory",
      condition: "the session is complete",
      holds: pressure.sessionComplete === true,
    },
    {
      tier: "auto",
      condition: `live session and context used ${percent(contextPctUsed)} ≥ ${percent(thresholds.autoContextPct)}`,
      holds: live && contextPctUsed >= thresholds.autoContextPct,
    },
    {
      tier: "time_based",
      condition: `live session and idle ${idleSeconds} s ≥ ${thresholds.idleSeconds} s`,
      holds: live && idleSeconds >= thresholds.idleSeconds,
    },
    {
      tier: "micro",
      condition: `turn ${turnCount} ≥ ${thresholds.microMinTurn} and context used ${percent(contextPctUsed)} > ${percent(thresholds.microMinContextPct)}`,
      holds: turnCount >= thresholds.microMinTurn && contextPctUsed > thresholds.microMinContextPct,
    },
    { tier: "none", condition: "no other rule holds", holds: true },
  ];
}

/** The first rule that holds, in words: "auto, because live session and context used 72 % ≥ 70 %". */
export function explainTier(pressure, thresholds = DEFAULT_THRESHOLDS) {
  const rules = evaluateRules(pressure, thresholds);
  const fired = rules.find((rule) => rule.holds);
  return { rules, fired, words: `${fired.tier}, because ${fired.condition}` };
}

// ---------------------------------------------------------------------------------------------
// What each tier does (docs/design.md, "The tiers"), in words, from the same policy the page passes to
// `compact`. Agents run in steps: each assistant message starts one, the tool results that
// answer its calls belong to it. The protected tail is the newest `keepRecentSteps` steps plus
// the newest message with user words.

/**
 * The defaults of the policy fields the tiers' words name (PolicyConfig spellings). One
 * difference from the library: the page shows one call on a pasted transcript, so micro stubs
 * every step at once (`cache.batchTokens` 0), where the library's default (5000) waits for a batch
 * worth a cache rewrite in a loop of calls.
 */
export const DEFAULT_TIER_POLICY = Object.freeze({
  autoTargetPct: 0.5,
  keepRecentSteps: 3,
  maxBlockAgeSteps: 5,
  microBodyThresholdChars: 240,
  microKeepHeadChars: 80,
  excludeTools: Object.freeze([]),
  cache: Object.freeze({ batchTokens: 0 }),
});

const steps = (count) => `${count} step${count === 1 ? "" : "s"}`;
const excluded = (policy) => (policy.excludeTools.length > 0 ? ` Results of ${policy.excludeTools.join(", ")} (excludeTools) stay whole.` : "");

/** Steps and the protected tail, in words. */
export function describeTail(policy = DEFAULT_TIER_POLICY) {
  const { keepRecentSteps } = { ...DEFAULT_TIER_POLICY, ...policy };
  return (
    "Agents run in steps: each assistant message starts one, and the tool results that answer its calls belong to it. " +
    `The protected tail is the newest ${steps(keepRecentSteps)} (keepRecentSteps) plus the newest message with user words; ` +
    "micro and time_based never touch it, nor the system prompt, the task or anything the user wrote. " +
    "Flat text has no steps: the seed's fences and [age:N] tags decide there."
  );
}

/** What `tier` does, in words (structured messages first, then flat text where it differs). */
export function describeTier(tier, policy = DEFAULT_TIER_POLICY) {
  const p = { ...DEFAULT_TIER_POLICY, ...policy };
  switch (tier) {
    case "session_memory":
      return "folds the session into one [session summary] (the summariser's, or a structural digest) that carries the task and every user directive verbatim; the system prompt stays.";
    case "auto":
      return (
        `works the context down to ${percent(p.autoTargetPct)} of the window (autoTargetPct, by contextPctUsed × after / before), cheapest first, and stops once there: ` +
        "micro's stubs outside the tail, media stripped, thinking outside the tail archived, then the oldest tool runs, then older conversation (plain chats and flat text too), " +
        "replaced by the summariser's summary or a structural digest that carries the user's directives verbatim. " +
        "Already at or under the target, only the model-free reductions, no summariser. Never deferred for the prompt cache: the window is at risk. The system prompt, the task and the tail stay." +
        excluded(p)
      );
    case "time_based":
      return (
        `prunes the steps more than ${steps(p.maxBlockAgeSteps)} old (maxBlockAgeSteps): their tool results become [stale block pruned: TOOL, N chars; recall: ID] with the lines that matter and the paths, their thinking goes to the archive. ` +
        `Flat text: blocks tagged [age:N] with N > ${p.maxBlockAgeSteps} become [stale block pruned].` +
        excluded(p) +
        CACHE_WORDS
      );
    case "micro":
      return (
        `stubs each tool result over ${p.microBodyThresholdChars} characters outside the tail: its first ${p.microKeepHeadChars} characters, the lines that matter (errors, failures, tracebacks), the last line, the paths and URLs, then [tool result body pruned: N chars; recall: ID]; a stub is at most half its body. ` +
        "Flat text: the same inside ```tool_result fences, without a recall id." +
        excluded(p) +
        CACHE_WORDS
      );
    default:
      return "changes nothing: the context comes back as it was, at no cost. " + REPAIR_WORDS;
  }
}

/** What every tier does first, in words. */
export const REPAIR_WORDS =
  "In every tier, input a provider would reject is repaired first, by moving what breaks its rules into the archive (kind repair, named in warnings): an orphan tool result, a call left unanswered before a later message, a duplicate Anthropic tool_use id; two Anthropic messages of one role in a row are merged.";

/** The cache model, in words (micro and time_based). */
const CACHE_WORDS =
  " With a warm prompt cache (cachedTokens given, idle under cache.ttlSeconds) it edits only where the tokens saved over the expected remaining steps are worth more than rewriting the cached prefix.";

/** The recall loop, in words. */
export const RECALL_WORDS =
  "Every stub names its archive entry (recall: ID). Offer the model the tool recallToolDefinition(format) describes; when it calls recall_archived with an id, answer with recall(archives, id).content from the archives you stored.";
