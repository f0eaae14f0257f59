// Writes the demo page's sample transcripts (www/samples/*), one per context shape the library
// reads: OpenAI Chat Completions, an Anthropic Messages request body, Vercel AI SDK messages, an
// OpenAI Responses API request body, a Gemini request body, and the seed's flat text. All six
// tell the same invented session (an agent fixing a CSV importer)
// and are generated, deterministically, so they can be regenerated and checked:
//   node www/samples/generate.mjs           rewrite the files
//   node www/samples/generate.mjs --check   exit 1 when a file differs from what would be written
// Each sample has what the tiers act on: long tool results (micro), more than five turns
// (time_based), tool runs and inline media (auto), a finished session (session_memory), and the
// user's own directives, which the tiers must keep.
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** xorshift32: a tiny deterministic generator, so every run writes the same bytes. */
function generator(seed) {
  let state = seed >>> 0 || 1;
  return {
    next() {
      state ^= state << 13;
      state >>>= 0;
      state ^= state >>> 17;
      state ^= state << 5;
      state >>>= 0;
      return state / 4294967296;
    },
    pick(items) {
      return items[Math.floor(this.next() * items.length)];
    },
    int(low, high) {
      return low + Math.floor(this.next() * (high - low + 1));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// A real (small) PNG, built by hand: a 16x16 gradient, zlib with stored (uncompressed) blocks so
// the bytes do not depend on a zlib version.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function uint32(value) {
  return [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
}

function chunk(type, data) {
  const typed = [...Buffer.from(type, "ascii"), ...data];
  return [...uint32(data.length), ...typed, ...uint32(crc32(typed))];
}

function zlibStored(data) {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  // One final stored block (data is well under 65535 bytes).
  const length = data.length;
  return [0x78, 0x01, 0x01, length & 0xff, length >>> 8, ~length & 0xff, (~length >>> 8) & 0xff, ...data, ...uint32(((b << 16) | a) >>> 0)];
}

function gradientPng(size, tint) {
  const raw = [];
  for (let y = 0; y < size; y += 1) {
    raw.push(0); // filter: none
    for (let x = 0; x < size; x += 1) raw.push((x * 255) / (size - 1) | 0, (y * 255) / (size - 1) | 0, tint);
  }
  const header = [...uint32(size), ...uint32(size), 8, 2, 0, 0, 0]; // 8-bit RGB
  const bytes = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...chunk("IHDR", header), ...chunk("IDAT", zlibStored(raw)), ...chunk("IEND", [])];
  return Buffer.from(bytes).toString("base64");
}

// ---------------------------------------------------------------------------------------------
// The session: turns of a user message, tool steps and the agent's answer.

const SYSTEM = "You are a careful coding agent working in the `ledgerly` repository. Use the tools, keep answers short, never push to main.";

const TURNS = [
  {
    user: "The nightly CSV import drops rows that have European dates. Find out why and fix it. Keep the public import_csv() signature unchanged.",
    steps: ["tests", "search", "read"],
    answer: "parse_date() assumes month-first, so 13/04/2025 fails and the row is skipped silently.",
  },
  {
    user: "Dates like 03/04/2025 must stay day-first for EU accounts; US accounts keep month-first.",
    steps: ["read", "edit"],
    answer: "parse_date() now takes the account's locale; EU accounts parse day-first.",
  },
  {
    user: "Do not touch anything under migrations/.",
    steps: ["tests"],
    answer: "Understood, migrations/ is untouched. Two importer tests still fail.",
  },
  {
    user: "Run the importer tests again with -x and show me the first failure.",
    steps: ["tests", "read"],
    answer: "The first failure was a fixture with a US account marked as EU; fixed the fixture.",
    screenshot: true,
  },
  {
    user: "Check whether the exporter has the same bug.",
    steps: ["search", "read"],
    answer: "The exporter formats with strftime and the account locale, so it is fine.",
  },
  {
    user: "Add a test with a leap-day row (29/02/2024) for an EU account.",
    steps: ["edit", "tests"],
    answer: "Added test_import_eu_leap_day; it passes.",
  },
  {
    user: "Run the whole suite.",
    steps: ["tests", "tests"],
    answer: "All 214 tests pass.",
  },
  {
    user: "Thanks. Write a two-line changelog entry.",
    steps: ["tail"],
    answer: "Fixed: CSV import no longer drops rows with day-first dates for EU accounts.\nAdded: a leap-day import test.",
  },
];

const FILES = ["ledgerly/importer/csv.py", "ledgerly/importer/dates.py", "ledgerly/exporter/csv.py", "ledgerly/accounts.py", "tests/test_import.py", "tests/fixtures/eu_bank.csv"];
const TEST_NAMES = ["test_import_basic", "test_import_eu_dates", "test_import_us_dates", "test_import_empty_file", "test_import_bom", "test_import_quoted_commas", "test_export_roundtrip", "test_accounts_locale", "test_import_negative_amounts", "test_import_large_file"];
const CODE = [
  "def parse_date(value, locale):",
  "    day_first = locale.startswith(\"en_GB\") or locale in EU_LOCALES",
  "    return datetime.strptime(value, \"%d/%m/%Y\" if day_first else \"%m/%d/%Y\").date()",
  "for row in reader:",
  "    try:",
  "        rows.append(Row(date=parse_date(row[\"date\"], account.locale), amount=Decimal(row[\"amount\"])))",
  "    except ValueError:",
  "        continue  # the silent skip: this is where rows disappeared",
  "def import_csv(path, account):",
  "    with open(path, newline=\"\", encoding=\"utf-8-sig\") as handle:",
  "        reader = csv.DictReader(handle)",
  "EU_LOCALES = {\"de_DE\", \"fr_FR\", \"es_ES\", \"it_IT\", \"nl_NL\"}",
];

function toolStep(random, kind, index, turnIndex) {
  const id = `call_${turnIndex}${index}${random.int(100, 999)}`;
  if (kind === "tests") {
    const lines = [];
    const count = random.int(14, 26);
    for (let i = 0; i < count; i += 1) {
      const file = random.pick(["tests/test_import.py", "tests/test_export.py", "tests/test_accounts.py"]);
      const failed = turnIndex < 3 && random.next() < 0.2;
      lines.push(`${file}::${random.pick(TEST_NAMES)} ${failed ? "FAILED" : "PASSED"} [${String(Math.round(((i + 1) * 100) / count)).padStart(3)}%]`);
      if (failed) lines.push(`E   ValueError: time data '${random.int(13, 28)}/0${random.int(1, 9)}/2025' does not match format '%m/%d/%Y'`);
    }
    lines.push(`==== ${count - 2} passed, ${turnIndex < 3 ? 2 : 0} failed in ${random.int(2, 9)}.${random.int(10, 99)}s ====`);
    return { id, tool: "run_tests", args: { path: "tests", flags: turnIndex === 3 ? "-x" : "-q" }, output: lines.join("\n") };
  }
  if (kind === "search") {
    const lines = [];
    for (let i = random.int(10, 18); i > 0; i -= 1) lines.push(`${random.pick(FILES)}:${random.int(1, 240)}:    ${random.pick(CODE).trim()}`);
    return { id, tool: "search", args: { pattern: "parse_date|strptime", path: "ledgerly" }, output: lines.join("\n") };
  }
  if (kind === "read") {
    const file = random.pick(FILES.slice(0, 4));
    const start = random.int(1, 120);
    const lines = [];
    for (let i = 0; i < random.int(18, 34); i += 1) lines.push(`${String(start + i).padStart(4)}  ${random.pick(CODE)}`);
    return { id, tool: "read_file", args: { path: file }, output: lines.join("\n") };
  }
  if (kind === "edit") {
    const file = random.pick(FILES.slice(0, 2).concat("tests/test_import.py"));
    const lines = [`--- a/${file}`, `+++ b/${file}`, `@@ -${random.int(10, 90)},7 +${random.int(10, 90)},9 @@`];
    for (let i = 0; i < random.int(6, 10); i += 1) lines.push(`${random.pick([" ", "+", "-"])}${random.pick(CODE)}`);
    return { id, tool: "edit_file", args: { path: file }, output: lines.join("\n") };
  }
  // A short last step: small enough that micro leaves it alone anyway.
  return { id, tool: "read_file", args: { path: "CHANGELOG.md" }, output: "## Unreleased\n\n- (nothing yet)" };
}

/** The session as plain data every format is rendered from. */
export function session() {
  const random = generator(20250403);
  return TURNS.map((turn, turnIndex) => ({
    ...turn,
    steps: turn.steps.map((kind, index) => toolStep(random, kind, index, turnIndex)),
  }));
}

const SCREENSHOT = gradientPng(16, 96);
const RECEIPT = gradientPng(12, 200);

// ---------------------------------------------------------------------------------------------
// The formats.

export function openaiChat() {
  const messages = [{ role: "system", content: SYSTEM }];
  for (const turn of session()) {
    messages.push(
      turn.screenshot
        ? { role: "user", content: [{ type: "text", text: turn.user }, { type: "image_url", image_url: { url: `data:image/png;base64,${SCREENSHOT}`, detail: "low" } }] }
        : { role: "user", content: turn.user },
    );
    turn.steps.forEach((step, index) => {
      messages.push({
        role: "assistant",
        content: index === 0 ? `I'll use ${step.tool}.` : null,
        tool_calls: [{ id: step.id, type: "function", function: { name: step.tool, arguments: JSON.stringify(step.args) } }],
      });
      messages.push({ role: "tool", tool_call_id: step.id, content: step.output });
    });
    messages.push({ role: "assistant", content: turn.answer });
  }
  return messages;
}

/** An Anthropic Messages request body: the system prompt sits outside `messages`. */
export function anthropicBody() {
  const messages = [];
  for (const [turnIndex, turn] of session().entries()) {
    const userContent = [{ type: "text", text: turn.user }];
    if (turn.screenshot) userContent.push({ type: "image", source: { type: "base64", media_type: "image/png", data: SCREENSHOT } });
    messages.push({ role: "user", content: userContent });
    for (const [index, step] of turn.steps.entries()) {
      const assistant = [];
      if (index === 0 && turnIndex % 2 === 0) {
        assistant.push({ type: "thinking", thinking: `The user wants: ${turn.user.slice(0, 60)}… ${step.tool} first.`, signature: `sig-${step.id}` });
      }
      assistant.push({ type: "text", text: `Running ${step.tool}.` }, { type: "tool_use", id: `toolu_${step.id}`, name: step.tool, input: step.args });
      messages.push({ role: "assistant", content: assistant });
      const result = { type: "tool_result", tool_use_id: `toolu_${step.id}`, content: step.output };
      if (index === turn.steps.length - 1) result.cache_control = { type: "ephemeral" };
      messages.push({ role: "user", content: [result] });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: turn.answer }] });
  }
  return { model: "claude-sonnet-4-5", max_tokens: 4096, system: SYSTEM, messages };
}

export function aiSdkMessages() {
  const messages = [{ role: "system", content: SYSTEM }];
  for (const [turnIndex, turn] of session().entries()) {
    const userContent = [{ type: "text", text: turn.user }];
    if (turn.screenshot) userContent.push({ type: "image", image: RECEIPT, mediaType: "image/png" });
    const user = { role: "user", content: userContent };
    if (turnIndex === 0) user.providerOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };
    messages.push(user);
    for (const step of turn.steps) {
      messages.push({
        role: "assistant",
        content: [
          ...(turnIndex % 3 === 0 ? [{ type: "reasoning", text: `Checking with ${step.tool}.` }] : []),
          { type: "tool-call", toolCallId: step.id, toolName: step.tool, input: step.args },
        ],
      });
      messages.push({
        role: "tool",
        content: [{ type: "tool-result", toolCallId: step.id, toolName: step.tool, output: { type: "text", value: step.output } }],
      });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: turn.answer }] });
  }
  return messages;
}

/**
 * An OpenAI Responses API request body, as Codex sends one without stored state: the system
 * prompt is `instructions`, outside `input`; each step an encrypted reasoning item (opaque) before
 * the model's `function_call`, then its `function_call_output`.
 */
export function responsesBody() {
  const input = [];
  for (const [turnIndex, turn] of session().entries()) {
    input.push(
      turn.screenshot
        ? { role: "user", content: [{ type: "input_text", text: turn.user }, { type: "input_image", image_url: `data:image/png;base64,${SCREENSHOT}`, detail: "low" }] }
        : { role: "user", content: turn.user },
    );
    for (const [index, step] of turn.steps.entries()) {
      input.push({ type: "reasoning", id: `rs_${step.id}`, summary: index === 0 ? [{ type: "summary_text", text: `Checking with ${step.tool}.` }] : [], encrypted_content: `gAAAAB${Buffer.from(`${turnIndex}:${step.id}:${step.tool}`).toString("base64").repeat(6)}` });
      input.push({ type: "function_call", id: `fc_${step.id}`, call_id: step.id, name: step.tool, arguments: JSON.stringify(step.args), status: "completed" });
      input.push({ type: "function_call_output", call_id: step.id, output: step.output });
    }
    input.push({ type: "message", id: `msg_${turnIndex}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: turn.answer, annotations: [] }] });
  }
  return { model: "gpt-5", instructions: SYSTEM, input, store: false, include: ["reasoning.encrypted_content"] };
}

/**
 * A Gemini request body: the system prompt is `systemInstruction`, outside `contents`; user and
 * model alternate (a turn's words join the responses before them); each model call's first
 * `functionCall` carries a thought signature; responses hold their output under `result`, as
 * Google's ADK writes them.
 */
export function geminiBody() {
  const contents = [];
  const push = (role, parts) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const [turnIndex, turn] of session().entries()) {
    const parts = [{ text: turn.user }];
    if (turn.screenshot) parts.push({ inlineData: { mimeType: "image/png", data: RECEIPT } });
    push("user", parts);
    for (const [index, step] of turn.steps.entries()) {
      const thought = index === 0 && turnIndex % 2 === 0 ? [{ text: `The user wants: ${turn.user.slice(0, 60)}… ${step.tool} first.`, thought: true }] : [];
      push("model", [...thought, { functionCall: { name: step.tool, args: step.args }, thoughtSignature: Buffer.from(`sig:${step.id}`).toString("base64") }]);
      push("user", [{ functionResponse: { name: step.tool, response: { result: step.output } } }]);
    }
    push("model", [{ text: turn.answer }]);
  }
  return { systemInstruction: { parts: [{ text: SYSTEM }] }, contents, generationConfig: { thinkingConfig: { includeThoughts: true } } };
}

/** The seed's flat text: `[age:N]` tags (N = turns ago) and ```tool_result fences. */
export function flatText() {
  const turns = session();
  return turns
    .map((turn, index) => {
      const lines = [`[age:${turns.length - 1 - index}] user: ${turn.user}`];
      if (turn.screenshot) lines.push(`![dashboard](data:image/png;base64,${SCREENSHOT})`);
      for (const step of turn.steps) {
        lines.push(`assistant: calling ${step.tool} ${JSON.stringify(step.args)}`, "```tool_result name=" + step.tool, step.output, "```");
      }
      lines.push(`assistant: ${turn.answer}`);
      return lines.join("\n");
    })
    .join("\n\n");
}

/** File name → contents, as written. */
export function sampleFiles() {
  return {
    "openai-chat.json": `${JSON.stringify(openaiChat(), null, 2)}\n`,
    "anthropic-messages.json": `${JSON.stringify(anthropicBody(), null, 2)}\n`,
    "ai-sdk-messages.json": `${JSON.stringify(aiSdkMessages(), null, 2)}\n`,
    "openai-responses.json": `${JSON.stringify(responsesBody(), null, 2)}\n`,
    "gemini-contents.json": `${JSON.stringify(geminiBody(), null, 2)}\n`,
    "flat-text.txt": `${flatText()}\n`,
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes("--check");
  let stale = 0;
  for (const [name, contents] of Object.entries(sampleFiles())) {
    const file = path.join(here, name);
    if (check) {
      const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : null;
      if (current !== contents) {
        console.error(`www/samples/${name} is out of date: run node www/samples/generate.mjs`);
        stale += 1;
      }
    } else {
      fs.writeFileSync(file, contents);
      console.log(`wrote www/samples/${name} (${contents.length} chars)`);
    }
  }
  process.exit(stale === 0 ? 0 : 1);
}
