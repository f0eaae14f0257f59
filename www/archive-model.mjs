// The compacted context as a tree that remembers what each archive entry replaced, so the page
// can highlight removed and replaced parts and put any archived item back.
//
// A tier makes one or more plans, one pass each (auto: micro's stubs, then thinking archived,
// then media stripped, then runs summarised); every entry's `location` is in the coordinates of
// the input of its plan, and one plan's entries share a `kind`. So the tree is built plan by plan
// from the input: each entry becomes a node whose children are what stood at its location then
// (possibly an earlier plan's node: a stub or a media placeholder inside a summarised run). Restoring a node shows its children instead of its
// replacement; a node inside a removed range becomes restorable once that range is restored.
// The finished tree must reproduce the tier's output exactly; when it does not (an archive this
// code does not understand), `problems` says why and restoring is disabled.

/** Consecutive entries of one kind: one plan of the tier (the runs `restore` undoes). */
export function archivePlans(archive) {
  const plans = [];
  for (const entry of archive) {
    if (plans.length > 0 && plans.at(-1)[0].kind === entry.kind) plans.at(-1).push(entry);
    else plans.push([entry]);
  }
  return plans;
}

const TEXT_RANGE = /^text\[(\d+)\.\.(\d+)\]$/;
const MESSAGE_RANGE = /^messages\[(\d+)\.\.(\d+)\]$/;
const MESSAGE_PATH = /^messages\[(\d+)\]((?:\[\d+\]|\.[A-Za-z_$][\w$]*)+)$/;

/** `.content[0].output` → ["content", 0, "output"]. */
export function parsePath(rest) {
  return [...rest.matchAll(/\[(\d+)\]|\.([A-Za-z_$][\w$]*)/g)].map((match) => (match[1] !== undefined ? Number(match[1]) : match[2]));
}

/** ["content", 0, "output"] → "content[0].output" (the key the renderer marks values by). */
export function pathKey(steps) {
  return steps.map((step, index) => (typeof step === "number" ? `[${step}]` : index === 0 ? step : `.${step}`)).join("");
}

// ---------------------------------------------------------------------------------------------
// Flat text. Nodes: { type: "text", text } | { type: "entry", entry, children, restored }.

const codePoints = (text) => Array.from(text);

function shownText(node) {
  if (node.type === "text") return node.text;
  return node.restored ? node.children.map(shownText).join("") : node.entry.replacement;
}

/** Replaces code points [start, end) of the shown sequence `nodes` by a node for `entry`. */
function spliceText(nodes, entry, start, end, problems) {
  // An earlier entry's replacement that the range cuts through (rather than covers) cannot come
  // back on its own any more: it becomes plain text first.
  let offset = 0;
  const clean = nodes.map((node) => {
    const length = codePoints(shownText(node)).length;
    const [from, to] = [offset, offset + length];
    offset = to;
    const cut = (from < start && start < to) || (from < end && end < to);
    if (node.type === "entry" && cut) {
      problems.push(`${node.entry.id} is partly covered by ${entry.id}; it can only come back with it`);
      return { type: "text", text: shownText(node) };
    }
    return node;
  });
  offset = 0;
  const before = [];
  const inside = [];
  const after = [];
  for (const node of clean) {
    const text = shownText(node);
    const points = codePoints(text);
    const [from, to] = [offset, offset + points.length];
    offset = to;
    if (points.length === 0) (from > start && from < end ? inside : from <= start ? before : after).push(node);
    else if (to <= start) before.push(node);
    else if (from >= end) after.push(node);
    else if (from >= start && to <= end) inside.push(node);
    else {
      // A plain text node cut by the range: split it.
      const cutStart = Math.max(0, start - from);
      const cutEnd = Math.min(points.length, end - from);
      if (cutStart > 0) before.push({ type: "text", text: points.slice(0, cutStart).join("") });
      inside.push({ type: "text", text: points.slice(cutStart, cutEnd).join("") });
      if (cutEnd < points.length) after.push({ type: "text", text: points.slice(cutEnd).join("") });
    }
  }
  const covered = inside.map(shownText).join("");
  if (covered !== entry.content) problems.push(`${entry.id}: the text at ${entry.location} is not the archived content`);
  return [...before, { type: "entry", entry, children: inside, restored: false }, ...after];
}

function buildText(input, result) {
  const problems = [];
  let nodes = [{ type: "text", text: input }];
  for (const plan of archivePlans(result.archive)) {
    const ranges = plan.map((entry) => {
      const match = TEXT_RANGE.exec(entry.location);
      if (!match) problems.push(`${entry.id}: location ${entry.location} is not a text range`);
      return match ? { entry, start: Number(match[1]), end: Number(match[2]) } : null;
    }).filter(Boolean);
    // Right to left, so the offsets of the entries still to place do not move.
    ranges.sort((a, b) => b.start - a.start);
    for (const { entry, start, end } of ranges) nodes = spliceText(nodes, entry, start, end, problems);
  }
  if (nodes.map(shownText).join("") !== result.text) problems.push("the archive does not rebuild the output text");
  return { kind: "text", input, nodes, problems };
}

// ---------------------------------------------------------------------------------------------
// Messages. Slots: { type: "message", message, original?, edits: [{ entry, steps, restored }] }
//                | { type: "range", entry, children, message (null when removed outright), restored }.

/** Whether a slot stands for a message of the current context (a range removed outright does not). */
function isPresent(slot) {
  return slot.type === "message" || slot.entry.replacement !== "";
}

function buildMessages(input, result) {
  const problems = [];
  let slots = input.map((message, index) => ({ type: "message", message: structuredClone(message), original: message, inputIndex: index, edits: [] }));
  for (const plan of archivePlans(result.archive)) {
    // Locations count the messages of this plan's input: slots that stand for one.
    const present = slots.flatMap((slot, index) => (isPresent(slot) ? [index] : []));
    const slotIndex = (messageIndex) => (messageIndex < present.length ? present[messageIndex] : slots.length);
    const ranges = [];
    for (const entry of plan) {
      const range = MESSAGE_RANGE.exec(entry.location);
      const path = MESSAGE_PATH.exec(entry.location);
      if (range) {
        ranges.push({ entry, start: slotIndex(Number(range[1])), end: slotIndex(Number(range[2])) });
      } else if (path) {
        const slot = slots[slotIndex(Number(path[1]))];
        if (slot?.type !== "message") {
          problems.push(`${entry.id}: ${entry.location} is not a message`);
          continue;
        }
        slot.edits.push({ entry, steps: parsePath(path[2]), restored: false });
      } else {
        problems.push(`${entry.id}: location ${entry.location} is not understood`);
      }
    }
    // Right to left, so the slot indexes of the ranges still to place do not move.
    ranges.sort((a, b) => b.start - a.start);
    for (const { entry, start, end } of ranges) {
      const children = slots.slice(start, end);
      const shown = children.filter(isPresent);
      const content = Array.isArray(entry.content) ? entry.content : [];
      if (shown.length !== content.length) {
        problems.push(`${entry.id}: ${entry.location} does not match the archived ${content.length} message(s)`);
      }
      // What each covered message was at this plan (e.g. with a media placeholder in it).
      shown.forEach((child, index) => {
        if (content[index] !== undefined) child.message = structuredClone(content[index]);
      });
      slots = [...slots.slice(0, start), { type: "range", entry, children, message: null, restored: false }, ...slots.slice(end)];
    }
  }
  // The top level now stands for the output, message by message.
  const present = slots.filter(isPresent);
  if (present.length !== result.messages.length) {
    problems.push(`the archive rebuilds ${present.length} output messages, the output has ${result.messages.length}`);
  } else {
    present.forEach((slot, index) => {
      slot.message = structuredClone(result.messages[index]);
    });
  }
  return { kind: "messages", input, slots, problems };
}

// ---------------------------------------------------------------------------------------------
// The shared interface.

/** The model of `result` (from `compact`) for the context it was given. */
export function buildModel(context, result) {
  return context.text !== undefined ? buildText(context.text, result) : buildMessages(context.messages, result);
}

function visibleItems(model) {
  const out = [];
  const walk = (items) => {
    for (const item of items) {
      if ((item.type === "entry" || item.type === "range") && item.restored) walk(item.children);
      else out.push(item);
    }
  };
  walk(model.kind === "text" ? model.nodes : model.slots);
  return out;
}

/** The context as shown now: the output with the restored items put back. */
export function shownContext(model) {
  if (model.kind === "text") return model.nodes.map(shownText).join("");
  const messages = [];
  for (const item of visibleItems(model)) {
    if (item.type === "message") messages.push(item.message);
    else if (item.message !== null) messages.push(item.message);
  }
  return messages;
}

/** Every archive entry's state: "restored", "restorable", or "hidden" (inside a removed range). */
export function entryStates(model) {
  const states = new Map();
  const visible = new Set(visibleItems(model));
  const walk = (items, shown) => {
    for (const item of items) {
      const isShown = shown && (visible.has(item) || item.restored === true);
      if (item.type === "entry" || item.type === "range") {
        states.set(item.entry.id, item.restored ? "restored" : isShown ? "restorable" : "hidden");
        walk(item.children, item.restored && isShown);
      } else if (item.type === "message") {
        for (const edit of item.edits) {
          const blocked = item.edits.some((other) => other !== edit && !other.restored && item.edits.indexOf(other) > item.edits.indexOf(edit) && isPrefix(other.steps, edit.steps));
          states.set(edit.entry.id, edit.restored ? "restored" : isShown && !blocked ? "restorable" : "hidden");
        }
      }
    }
  };
  walk(model.kind === "text" ? model.nodes : model.slots, true);
  return states;
}

function isPrefix(prefix, steps) {
  return prefix.length <= steps.length && prefix.every((step, index) => step === steps[index]);
}

/** An entry that inserted a message and removed nothing (`messages[i..i]`). */
function isBridge(entry) {
  const range = MESSAGE_RANGE.exec(entry.location);
  return range !== null && range[1] === range[2] && Array.isArray(entry.content) && entry.content.length === 0;
}

/** The item right after `target` in the list that holds it. */
function siblingAfter(model, target) {
  let found;
  const walk = (items) => {
    const at = items.indexOf(target);
    if (at >= 0) found = items[at + 1];
    for (const item of items) if (found === undefined && item.children) walk(item.children);
  };
  walk(model.kind === "text" ? model.nodes : model.slots);
  return found;
}

function findItem(model, id) {
  let found = null;
  const walk = (items) => {
    for (const item of items) {
      if (found) return;
      if ((item.type === "entry" || item.type === "range") && item.entry.id === id) found = { item };
      else if (item.type === "message") {
        const edit = item.edits.find((candidate) => candidate.entry.id === id);
        if (edit) found = { item, edit };
      }
      if (!found && item.children) walk(item.children);
    }
  };
  walk(model.kind === "text" ? model.nodes : model.slots);
  return found;
}

/** Puts archive entry `id` back into the shown context. Returns false when it cannot be (yet). */
export function restoreEntry(model, id) {
  if (model.problems.length > 0 || entryStates(model).get(id) !== "restorable") return false;
  const { item, edit } = findItem(model, id);
  if (!edit) {
    item.restored = true;
    // A run replaced where the format's roles must alternate may have a bridge message after
    // it (an entry of an empty range that removed nothing): it goes with the run.
    const bridge = siblingAfter(model, item);
    if (bridge?.type === "range" && isBridge(bridge.entry)) bridge.restored = true;
    return true;
  }
  const parent = edit.steps.slice(0, -1).reduce((value, step) => value?.[step], item.message);
  const last = edit.steps.at(-1);
  if (parent === undefined || parent === null || typeof parent !== "object") return false;
  // A part removed outright (empty replacement) is inserted back; a replaced value is set back.
  if (Array.isArray(parent) && edit.entry.replacement === "") parent.splice(last, 0, structuredClone(edit.entry.content));
  else parent[last] = structuredClone(edit.entry.content);
  edit.restored = true;
  return true;
}

/** Restores everything, outermost first, until nothing restorable is left; returns how many
 * entries are restored (a bridge comes back with its run). */
export function restoreAll(model) {
  for (;;) {
    const next = [...entryStates(model)].find(([, state]) => state === "restorable");
    if (!next || !restoreEntry(model, next[0])) break;
  }
  return [...entryStates(model).values()].filter((state) => state === "restored").length;
}

/** Whether the shown context is exactly the input again. */
export function equalsInput(model) {
  const shown = shownContext(model);
  return model.kind === "text" ? shown === model.input : JSON.stringify(shown) === JSON.stringify(model.input);
}
