// The per-tier ledger, summed from the JSONL trace lines themselves (what an auditor tailing the
// file would compute), not from the results the page still holds in memory.

export const TIERS = ["none", "micro", "time_based", "auto", "session_memory"];

/** A ledger row of zeros. */
function emptyRow(tier) {
  return { tier, events: 0, tokensSaved: 0, costEstimate: 0, degraded: 0, summariserInputTokens: 0, summariserOutputTokens: 0, summariserCostUsd: 0 };
}

/**
 * Sums trace lines (strings from `recordTierEvent`) per tier, plus a total row.
 * @param {string[]} lines
 * @returns {{ rows: ReturnType<typeof emptyRow>[], total: ReturnType<typeof emptyRow> }}
 */
export function ledgerFromLines(lines) {
  const rows = new Map(TIERS.map((tier) => [tier, emptyRow(tier)]));
  for (const line of lines) {
    const event = JSON.parse(line);
    const tier = event.compaction_tier;
    if (!rows.has(tier)) rows.set(tier, emptyRow(tier));
    const row = rows.get(tier);
    row.events += 1;
    row.tokensSaved += event.tokens ?? 0;
    row.costEstimate += event.compaction_cost_estimate ?? 0;
    row.degraded += event.compaction_degraded === true ? 1 : 0;
    row.summariserInputTokens += event.compaction_summariser_input_tokens ?? 0;
    row.summariserOutputTokens += event.compaction_summariser_output_tokens ?? 0;
    row.summariserCostUsd += event.compaction_summariser_cost_usd ?? 0;
  }
  const total = emptyRow("total");
  for (const row of rows.values()) {
    for (const key of Object.keys(total)) if (key !== "tier") total[key] += row[key];
  }
  return { rows: [...rows.values()], total };
}

/** USD with enough digits for sub-cent amounts: 0.0000294 → "$0.0000294", 0.0113 → "$0.011295". */
export function formatUsd(amount) {
  if (amount === 0) return "$0";
  const digits = Math.max(2, Math.min(12, 4 - Math.floor(Math.log10(Math.abs(amount)))));
  return `$${amount.toFixed(digits).replace(/(\.\d*?[1-9])0+$/, "$1").replace(/\.0+$/, "")}`;
}
