// Type-checked (never run) by tests/types/run.mjs: the providers' own SDK message types (OpenAI
// Chat Completions and Responses, Anthropic, the AI SDK, Google GenAI) go in as they are and come
// back as the same type, and the AI SDK helper fits generateText's prepareStep.
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { generateText, type ModelMessage, type PrepareStepFunction } from "ai";
import type { Content } from "@google/genai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { compact, compactWithTier, restore, type MessagesResult } from "tiered-compaction";
import { prepareStep } from "tiered-compaction/ai-sdk";

const pressure = { turnCount: 3, contextPctUsed: 0.4, idleSeconds: 12, sessionComplete: false };

// OpenAI Chat Completions, with a legacy `function` role message (openai 7.x still declares it).
const openai: ChatCompletionMessageParam[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Fix the failing test." },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"npm test"}' } }] },
  { role: "tool", tool_call_id: "c1", content: "FAIL test/users.test.ts" },
  { role: "assistant", content: null, function_call: { name: "lookup", arguments: "{}" } },
  { role: "function", name: "lookup", content: "legacy function result" },
];
const fromOpenAI: MessagesResult<ChatCompletionMessageParam> = await compact({ sessionId: "s", pressure, messages: openai });
const backToOpenAI: ChatCompletionMessageParam[] = fromOpenAI.messages;
const restoredOpenAI: ChatCompletionMessageParam[] = restore(fromOpenAI);
const viaTier: ChatCompletionMessageParam[] = (await compactWithTier("micro", { sessionId: "s", pressure, messages: openai, format: "openai" })).messages;

// Anthropic Messages.
const anthropic: MessageParam[] = [
  { role: "user", content: "Fix the failing test." },
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "npm test" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "FAIL test/users.test.ts" }] },
];
const backToAnthropic: MessageParam[] = (await compact({ sessionId: "s", pressure, messages: anthropic, format: "anthropic" })).messages;

// AI SDK ModelMessage.
const aiSdk: ModelMessage[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Fix the failing test." },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "npm test" } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "FAIL" } }] },
];
const backToAiSdk: ModelMessage[] = (await compact({ sessionId: "s", pressure, messages: aiSdk, format: "ai-sdk" })).messages;

// OpenAI Responses API input items: messages with and without a type, a reasoning item, a call
// and its output, an item passed through.
const responses: ResponseInputItem[] = [
  { role: "developer", content: "You are a coding agent." },
  { role: "user", content: [{ type: "input_text", text: "Fix the failing test." }] },
  { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAAB" },
  { type: "function_call", call_id: "c1", name: "bash", arguments: '{"command":"npm test"}' },
  { type: "function_call_output", call_id: "c1", output: "FAIL test/users.test.ts" },
  { type: "item_reference", id: "msg_1" },
];
const backToResponses: ResponseInputItem[] = (await compact({ sessionId: "s", pressure, messages: responses, format: "responses" })).messages;
const restoredResponses: ResponseInputItem[] = restore(await compactWithTier("micro", { sessionId: "s", pressure, messages: responses }));

// Google GenAI contents.
const gemini: Content[] = [
  { role: "user", parts: [{ text: "Fix the failing test." }] },
  { role: "model", parts: [{ functionCall: { name: "bash", args: { command: "npm test" } }, thoughtSignature: "sig" }] },
  { role: "user", parts: [{ functionResponse: { name: "bash", response: { output: "FAIL" } } }] },
];
const backToGemini: Content[] = (await compact({ sessionId: "s", pressure, messages: gemini, format: "gemini" })).messages;
// AI SDK media in every DataContent form, and URL objects: the SDK's own parts go in as they are,
// and the package's part types accept the same values.
const bytes = new Uint8Array([137, 80, 78, 71]);
const media: ModelMessage[] = [
  { role: "user", content: [{ type: "image", image: bytes, mediaType: "image/png" }, { type: "image", image: new URL("https://example.test/a.png") }] },
  { role: "user", content: [{ type: "file", data: bytes.buffer, mediaType: "image/png" }, { type: "file", data: Buffer.from(bytes), mediaType: "image/png" }, { type: "file", data: "iVBORw0KGgo=", mediaType: "image/png" }] },
];
const backToMedia: ModelMessage[] = restore(await compact({ sessionId: "s", pressure, messages: media, format: "ai-sdk" }));
const parts: Array<import("tiered-compaction").AiSdkImagePart | import("tiered-compaction").AiSdkFilePart> = [
  { type: "image", image: bytes },
  { type: "image", image: new URL("https://example.test/a.png") },
  { type: "file", data: bytes.buffer, mediaType: "image/png" },
  { type: "file", data: { type: "data", data: Buffer.from(bytes) }, mediaType: "image/png" },
  { type: "file", data: { type: "url", url: new URL("https://example.test/b.png") }, mediaType: "image/png" },
];
void [backToMedia, parts];

// The result keeps the SDK type: an OpenAI result is not an Anthropic list.
// @ts-expect-error ChatCompletionMessageParam is not MessageParam
const wrong: MessageParam[] = fromOpenAI.messages;

// The AI SDK helper is a prepareStep as generateText declares it.
const step: PrepareStepFunction<{}> = prepareStep({ contextWindow: 200_000 });
declare const model: Parameters<typeof generateText>[0]["model"];
await generateText({ model, prompt: "hi", prepareStep: prepareStep({ contextWindow: 200_000, compactOptions: { policy: { keepRecentSteps: 2 } } }) });
// @ts-expect-error the context window is required
prepareStep({});

// @ts-expect-error a Gemini list is not a Responses list
const wrongGemini: ResponseInputItem[] = backToGemini;

void [backToOpenAI, restoredOpenAI, viaTier, backToAnthropic, backToAiSdk, wrong, step, backToResponses, restoredResponses, wrongGemini];
