// The policy's rules in words (SPEC §3), evaluated from the same thresholds the page passes to
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
