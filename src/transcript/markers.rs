//! The texts this library writes into a context. Readers recognise them on the next call, which
//! is what makes tiers idempotent and keeps `auto` from summarising its own summary.

/// What a stale turn's agent blocks become (`time_based`, seed text).
pub const STALE_BLOCK: &str = "[stale block pruned]";
/// Heading of a model-written summary of older tool runs (`auto`).
pub const RUN_SUMMARY: &str = "[summary of earlier tool runs]";
/// Heading of a structural digest of a tool run (`auto` without a summariser, or its fallback).
pub const RUN_DIGEST: &str = "[digest of earlier tool runs]";
/// Heading of a model-written summary of older conversation, tool runs included (`auto`).
pub const CONVERSATION_SUMMARY: &str = "[summary of earlier conversation]";
/// Heading of a structural digest of older conversation (`auto` without a summariser, or its
/// fallback).
pub const CONVERSATION_DIGEST: &str = "[digest of earlier conversation]";
/// What stands where a stretch folded into a summary further down was, where removing it would
/// put two messages of one role side by side in a format whose roles alternate (Anthropic).
pub const FOLDED: &str = "[folded into the summary below]";
/// First line of a session summary (`session_memory`, seed text).
pub const SESSION_SUMMARY: &str = "[session summary]";
/// The message that keeps roles alternating after a replaced run, where the format needs it
/// (Anthropic: a run replaced between a user message and an assistant message).
pub const ROLE_BRIDGE: &str = "[earlier tool results: folded into the digest above]";
/// Heading of `mustKeep` items a summary left out, appended verbatim.
pub const KEPT_VERBATIM: &str = "[kept verbatim]";

/// How the pruned-body marker begins.
pub const PRUNED_BODY_PREFIX: &str = "[tool result body pruned: ";
/// How the marker of a pruned string inside a tool call's input begins.
pub const PRUNED_INPUT_PREFIX: &str = "[tool input pruned: ";

/// A stub written for a tool result, as it stands inside a tool call's input: the same facts,
/// its marker naming an input.
pub fn as_input_stub(stub: &str) -> String {
    match stub.rfind(PRUNED_BODY_PREFIX) {
        Some(at) => format!(
            "{}{PRUNED_INPUT_PREFIX}{}",
            &stub[..at],
            &stub[at + PRUNED_BODY_PREFIX.len()..]
        ),
        None => stub.to_string(),
    }
}

/// The marker that ends a collapsed tool-result body (`micro`, seed text).
pub fn pruned_body(chars: usize) -> String {
    format!("[tool result body pruned: {chars} chars]")
}

/// The pruned-body marker naming the archive entry to recall the body by (structured context),
/// or the seed's marker without one (flat text).
pub fn pruned_body_recall(chars: usize, recall: Option<&str>) -> String {
    match recall {
        Some(id) => format!("[tool result body pruned: {chars} chars; recall: {id}]"),
        None => pruned_body(chars),
    }
}

/// The first line of a stale tool result's stub (`time_based` on structured context).
pub fn stale_stub(tool: Option<&str>, chars: usize, recall: &str) -> String {
    match tool {
        Some(tool) => format!("[stale block pruned: {tool}, {chars} chars; recall: {recall}]"),
        None => format!("[stale block pruned: {chars} chars; recall: {recall}]"),
    }
}

/// What stands in for an archived thinking or reasoning block.
pub fn thinking_archived(chars: usize, recall: &str) -> String {
    format!("[thinking archived: {chars} chars; recall: {recall}]")
}

/// Whether `text` is a stub `time_based` wrote.
pub fn is_stale_stub(text: &str) -> bool {
    text.trim_start().starts_with("[stale block pruned")
}

/// The placeholder that stands for stripped media: type, size and content hash.
pub fn media_placeholder(media_type: &str, bytes: usize, sha256_hex: &str) -> String {
    format!("[media removed: {media_type}, {bytes} bytes, sha256:{sha256_hex}]")
}

/// The heading of an `auto` summary under `marker` ([`RUN_SUMMARY`] or
/// [`CONVERSATION_SUMMARY`]) covering `covered_tokens` tokens of original context.
pub fn summary_heading(marker: &str, covered_tokens: u64) -> String {
    format!("{marker} covers {covered_tokens} tokens")
}

/// The tokens an `auto` summary (of runs or of conversation) says it covers (`None` for any
/// other text).
pub fn covered_tokens(text: &str) -> Option<u64> {
    let first_line = text.trim_start().lines().next()?;
    let rest = [RUN_SUMMARY, CONVERSATION_SUMMARY]
        .iter()
        .find_map(|marker| first_line.strip_prefix(marker))?
        .trim();
    rest.strip_prefix("covers ")?
        .strip_suffix(" tokens")?
        .parse()
        .ok()
}

/// Whether `text` is something this library wrote in place of removed content.
pub fn is_library_text(text: &str) -> bool {
    let text = text.trim_start();
    [
        STALE_BLOCK,
        RUN_SUMMARY,
        RUN_DIGEST,
        CONVERSATION_SUMMARY,
        CONVERSATION_DIGEST,
        FOLDED,
        SESSION_SUMMARY,
        ROLE_BRIDGE,
    ]
    .iter()
    .any(|marker| text.starts_with(marker))
}

/// Whether `text` is a body `micro` already collapsed (ends with the pruned-body marker, with
/// or without a recall id) or a stale-block stub.
pub fn is_collapsed_body(text: &str) -> bool {
    let text = text.trim_end();
    // The marker is on the last line: only that line is searched (a body can be megabytes).
    let last_line = text.rsplit_once('\n').map_or(text, |(_, line)| line);
    // Both markers end with `]`: a last line that does not (a long one-line body) is not
    // searched.
    let marker_ends = last_line.ends_with(']')
        && (last_line.ends_with(" chars]")
            || last_line
                .rsplit_once("; recall: ")
                .is_some_and(|(_, id)| id.ends_with(']') && !id.contains(char::is_whitespace)));
    let collapsed = marker_ends
        && (last_line.contains(PRUNED_BODY_PREFIX) || last_line.contains(PRUNED_INPUT_PREFIX));
    collapsed || is_stale_stub(text) || text.starts_with("[thinking archived: ")
}

/// `text` made inert as flat text: a line that would start structure (an `[age:N]` tag, a code
/// fence, or after the first line one of our markers) is quoted with `> `, so a summary written
/// into flat text reads back as the one prose block it is (otherwise a quoted tag or marker
/// would split it, and the next call would see a fresh block instead of our summary).
pub fn inert_in_flat_text(text: &str) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(index, line)| {
            // A markdown image with a data-URI target is media anywhere on a line.
            let line = line.replace("](data:", "] (data:");
            let trimmed = line.trim_start();
            // The first line is the summary's own heading, which must stay one.
            if trimmed.starts_with("[age:")
                || trimmed.starts_with("```")
                || trimmed.starts_with("![")
                || (index > 0 && is_library_text(trimmed))
            {
                format!("> {line}")
            } else {
                line
            }
        })
        .collect()
}
