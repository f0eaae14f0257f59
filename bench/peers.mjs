// How the bench calls the peers, shared by run.mjs and cold-child.mjs.

/** trimMessages needs a token counter: chars / 4 per message. */
export const lcTokens = (messages) =>
  messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : JSON.stringify(m.content).length) / 4, 0);

/** trimMessages' options: keep the last messages within `budget` tokens (the bench gives half the conversation). */
export const trimOptions = (budget) => ({ maxTokens: budget, strategy: "last", tokenCounter: lcTokens, includeSystem: true, startOn: "human" });

/** pruneMessages' setting: tool calls and results before the last two messages go. */
export const PRUNE_TOOL_CALLS = "before-last-2-messages";
