// Claude Code session JSONL -> Anthropic Messages, for the command line (bin/tiered-compaction.mjs).
// The rules (the same as the project's benchmark converter, bench/sessions.mjs, kept small here so
// that the package depends on nothing outside it):
//   - the lines of type "user" and "assistant" that carry a `message`, in file order; the main
//     thread (isSidechain false), or every line when all are sidechain lines (a sub-agent's file);
//     other lines (summaries, snapshots) and the `toolUseResult` copies are skipped;
//   - content blocks as Claude Code wrote them (Anthropic's own); empty text blocks are dropped;
//   - same-role neighbours are merged into one message (Claude Code writes one line per block),
//     a user message's tool_result blocks first, so that each answers the calls just before it;
//   - a trailing unanswered tool call (the session ended while a tool ran) is dropped.
// There is no system prompt in the file.

/**
 * @param {string} text the JSONL
 * @returns {{ messages: Array<{ role: "user" | "assistant", content: string | object[] }>, notes: string[] }}
 */
export function fromClaudeCode(text) {
  const notes = [];
  const entries = [];
  let broken = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      broken += 1;
    }
  }
  if (broken > 0) notes.push(`${broken} line${broken === 1 ? "" : "s"} that are not JSON skipped`);
  const conversation = entries.filter(
    (entry) => (entry?.type === "user" || entry?.type === "assistant") && entry.message && (entry.message.role === "user" || entry.message.role === "assistant"),
  );
  const sidechainOnly = conversation.length > 0 && conversation.every((entry) => entry.isSidechain === true);
  const thread = sidechainOnly ? conversation : conversation.filter((entry) => entry.isSidechain !== true);
  notes.push(
    sidechainOnly
      ? `a sub-agent's file: all ${thread.length} lines`
      : `main thread: ${thread.length} of ${conversation.length} message lines${conversation.length > thread.length ? ` (${conversation.length - thread.length} sidechain lines left out)` : ""}`,
  );

  const messages = [];
  for (const entry of thread) {
    const { role } = entry.message;
    const blocks = (typeof entry.message.content === "string" ? [{ type: "text", text: entry.message.content }] : Array.isArray(entry.message.content) ? entry.message.content : []).filter(
      (block) => block && typeof block === "object" && !(block.type === "text" && (typeof block.text !== "string" || block.text.trim() === "")),
    );
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: [...blocks] });
  }
  for (const message of messages) {
    if (message.role === "user") {
      // Tool results first: they answer the assistant message just before.
      message.content = [...message.content.filter((block) => block.type === "tool_result"), ...message.content.filter((block) => block.type !== "tool_result")];
    }
  }
  // A trailing unanswered call: the last assistant message's tool_use blocks with no result after them.
  const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
  if (lastAssistant !== -1) {
    const answered = new Set(
      messages
        .slice(lastAssistant + 1)
        .flatMap((message) => message.content)
        .filter((block) => block.type === "tool_result")
        .map((block) => block.tool_use_id),
    );
    const message = messages[lastAssistant];
    const dropped = message.content.filter((block) => block.type === "tool_use" && !answered.has(block.id));
    if (dropped.length > 0) {
      message.content = message.content.filter((block) => !dropped.includes(block));
      if (message.content.length === 0) messages.splice(lastAssistant, 1);
      notes.push(`the trailing unanswered call${dropped.length === 1 ? "" : "s"} ${dropped.map((block) => block.name).join(", ")} dropped`);
    }
  }
  // A user message of one text block is a string, as Anthropic's examples write it.
  for (const message of messages) {
    if (message.role === "user" && message.content.length === 1 && message.content[0].type === "text" && Object.keys(message.content[0]).length === 2) {
      message.content = message.content[0].text;
    }
  }
  return { messages, notes };
}

/** Whether `text` looks like a Claude Code session: JSON lines with `type` user/assistant and a `message`. */
export function isClaudeCodeJsonl(text) {
  for (const line of text.split("\n", 50)) {
    if (line.trim() === "") continue;
    try {
      const entry = JSON.parse(line);
      if ((entry?.type === "user" || entry?.type === "assistant") && entry.message && typeof entry.message === "object") return true;
    } catch {
      return false;
    }
  }
  return false;
}
