// DOM rendering of the original and compacted context from the archive model
// (archive-model.mjs): removed parts marked in the original, replaced and restored parts in the
// output. Display only: the exact output is shown separately, as JSON.
import { pathKey } from "./archive-model.mjs";

/** `el("span", { class: "x", dataset: { entry: "a1" } }, "text", child)` */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

/** A short label for an entry: the first characters of its id (`a3f9c1b2e07d4` → "a3f9c"). */
export const shortId = (entry) => entry.id.slice(0, 5);

function markSpan(cls, entry, ...children) {
  return el("span", { class: `mark ${cls}`, dataset: { entry: entry.id }, title: `${entry.id} · ${entry.kind} · ${entry.location}` }, el("span", { class: "tag" }, shortId(entry)), ...children);
}

// Long strings (tool output, base64) are clipped in the view; the exact JSON is elsewhere.
const CLIP_AT = 1600;
const CLIP_KEEP = 1200;

function renderString(value) {
  const quoted = JSON.stringify(value);
  if (quoted.length <= CLIP_AT) return el("span", { class: "json-string" }, quoted);
  return el("span", { class: "json-string" }, quoted.slice(0, CLIP_KEEP), el("span", { class: "clipped" }, `… +${quoted.length - CLIP_KEEP} chars`), '"');
}

/**
 * Pretty JSON (two-space indent) with the values at `marks` (pathKey → { cls, entry }) wrapped
 * in highlighted spans.
 */
export function renderJson(value, marks = new Map(), steps = [], indent = "") {
  const inner = () => {
    if (Array.isArray(value)) {
      if (value.length === 0) return ["[]"];
      const parts = ["[\n"];
      value.forEach((item, index) => {
        parts.push(`${indent}  `, renderJson(item, marks, [...steps, index], `${indent}  `), index < value.length - 1 ? ",\n" : "\n");
      });
      parts.push(`${indent}]`);
      return parts;
    }
    if (value !== null && typeof value === "object") {
      const keys = Object.keys(value);
      if (keys.length === 0) return ["{}"];
      const parts = ["{\n"];
      keys.forEach((key, index) => {
        parts.push(`${indent}  `, el("span", { class: "json-key" }, JSON.stringify(key)), ": ", renderJson(value[key], marks, [...steps, key], `${indent}  `), index < keys.length - 1 ? ",\n" : "\n");
      });
      parts.push(`${indent}}`);
      return parts;
    }
    if (typeof value === "string") return [renderString(value)];
    return [el("span", { class: "json-literal" }, JSON.stringify(value))];
  };
  const mark = steps.length > 0 ? marks.get(pathKey(steps)) : undefined;
  const fragment = document.createDocumentFragment();
  fragment.append(...inner());
  return mark ? markSpan(mark.cls, mark.entry, fragment) : fragment;
}

// ---------------------------------------------------------------------------------------------
// Flat text.

function textNodes(nodes, mode) {
  return nodes.map((node) => {
    if (node.type === "text") return document.createTextNode(node.text);
    if (mode === "original") return markSpan("removed", node.entry, ...textNodes(node.children, mode));
    if (node.restored) return markSpan("restored", node.entry, ...textNodes(node.children, mode));
    if (node.entry.replacement === "") return markSpan("gone", node.entry, "⌫");
    return markSpan("replaced", node.entry, node.entry.replacement);
  });
}

// ---------------------------------------------------------------------------------------------
// Messages.

function roleOf(message) {
  return message && typeof message === "object" && typeof message.role === "string" ? message.role : "?";
}

function card(message, { index, cls = "", label = null, marks }) {
  return el(
    "article",
    { class: `message ${cls}`.trim(), dataset: { role: roleOf(message) } },
    el("header", {}, el("span", { class: "index" }, `#${index}`), " ", el("span", { class: "role" }, roleOf(message)), label ? el("span", { class: "card-label" }, label) : null),
    el("pre", { class: "json" }, renderJson(message, marks)),
  );
}

function editMarks(slot, mode) {
  const marks = new Map();
  for (const edit of slot.edits) {
    const cls = mode === "original" ? "removed" : edit.restored ? "restored" : "replaced";
    marks.set(pathKey(edit.steps), { cls, entry: edit.entry });
  }
  return marks;
}

function rangeLabel(entry) {
  return `${shortId(entry)} · ${entry.kind} · ${entry.location}`;
}

function originalCards(slots, ancestors, out) {
  for (const slot of slots) {
    if (slot.type === "range") {
      originalCards(slot.children, [...ancestors, slot.entry], out);
      continue;
    }
    const label = ancestors.length > 0 ? `removed by ${ancestors.map(shortId).join(" ⊃ ")}` : null;
    const node = card(slot.original, { index: slot.inputIndex, cls: ancestors.length > 0 ? "in-removed" : "", label, marks: editMarks(slot, "original") });
    if (ancestors.length > 0) node.dataset.entry = ancestors.at(-1).id;
    out.push(node);
  }
  return out;
}

function outputCards(slots, counter, out) {
  for (const slot of slots) {
    if (slot.type === "message") {
      out.push(card(slot.message, { index: counter.next++, marks: editMarks(slot, "output") }));
    } else if (slot.restored) {
      out.push(el("div", { class: "restored-group", dataset: { entry: slot.entry.id } }, el("div", { class: "group-label" }, `restored ${rangeLabel(slot.entry)}`), ...outputCards(slot.children, counter, [])));
    } else if (slot.message !== null) {
      const node = card(slot.message, { index: counter.next++, cls: "replaced-card", label: `replaces ${rangeLabel(slot.entry)}`, marks: new Map() });
      node.dataset.entry = slot.entry.id;
      out.push(node);
    } else {
      const count = Array.isArray(slot.entry.content) ? slot.entry.content.length : 0;
      out.push(el("div", { class: "gone-marker", dataset: { entry: slot.entry.id } }, `⌫ ${rangeLabel(slot.entry)}: ${count} message(s) removed, kept in the archive`));
    }
  }
  return out;
}

/** The original context, with what the tier removed marked. */
export function renderOriginal(model) {
  if (model.kind === "text") return el("pre", { class: "flat" }, ...textNodes(model.nodes, "original"));
  return el("div", { class: "cards" }, ...originalCards(model.slots, [], []));
}

/** The shown (compacted, partly restored) context, with replaced and restored parts marked. */
export function renderOutput(model) {
  if (model.kind === "text") return el("pre", { class: "flat" }, ...textNodes(model.nodes, "output"));
  return el("div", { class: "cards" }, ...outputCards(model.slots, { next: 0 }, []));
}

/** A message list or text before any compaction (no marks). */
export function renderPlain(context) {
  if (context.text !== undefined) return el("pre", { class: "flat" }, context.text);
  return el("div", { class: "cards" }, ...context.messages.map((message, index) => card(message, { index, marks: new Map() })));
}
