//! auto's model-free reductions, cheapest first: micro's stubs outside the protected tail,
//! inline media replaced by a placeholder (type, size, SHA-256), thinking blocks outside the
//! tail to the archive. Each is lossless by recall: the archive holds what it removed.

use super::budget::Stage;
use super::protection;
use crate::plan::{ArchiveKind, Plan, block_id};
use crate::tiers::{TierEnv, block_edit};
use crate::transcript::markers;
use crate::transcript::{Block, BlockKind, Transcript};

/// The plan of cheap `stage` over `transcript`.
pub fn plan(stage: Stage, transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    match stage {
        Stage::Stubs => crate::tiers::micro::plan(transcript, env),
        Stage::Media => strip_media(transcript, env),
        Stage::Thinking => archive_thinking(transcript, env),
        Stage::ToolRuns | Stage::OlderConversation => Plan::default(),
    }
}

/// Thinking and reasoning blocks outside protected content go to the archive, each on its own
/// (as Anthropic's `clear_thinking` does); their messages keep their text and tool calls.
fn archive_thinking(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    block_plan(
        transcript,
        env,
        "archived {} thinking block(s)",
        &|index, at, block: &Block<'_>| {
            if block.kind != BlockKind::Thinking || markers::is_collapsed_body(&block.text) {
                return None;
            }
            let id = block_id(ArchiveKind::Thinking, transcript, index, at);
            Some((
                markers::thinking_archived(block.chars(), &id),
                ArchiveKind::Thinking,
            ))
        },
    )
}

/// Media placeholders for inline media outside protected content.
fn strip_media(transcript: &Transcript, env: &TierEnv<'_>) -> Plan {
    block_plan(
        transcript,
        env,
        "stripped {} inline media block(s)",
        &|_, _, block: &Block<'_>| match &block.kind {
            BlockKind::Media { inline: true, .. } => {
                Some((crate::media::placeholder(block), ArchiveKind::Media))
            }
            _ => None,
        },
    )
}

/// A block's new text, and what the removed content was.
type Replacement = (String, ArchiveKind);

/// The plan that replaces each block outside protected content for which `replace` (given the
/// message index, the block index and the block) has a text, where it saves tokens; `done`
/// says what was done, `{}` standing for how many.
fn block_plan(
    transcript: &Transcript,
    env: &TierEnv<'_>,
    done: &str,
    replace: &dyn Fn(usize, usize, &Block<'_>) -> Option<Replacement>,
) -> Plan {
    let protection = protection(transcript, env);
    let mut edits = Vec::new();
    for (index, message) in transcript.messages.iter().enumerate() {
        if protection.is_protected(index) {
            continue;
        }
        for (at, block) in message.blocks.iter().enumerate() {
            let edit = replace(index, at, block)
                .and_then(|(text, kind)| block_edit(block, (index, at), text, kind, env.counter));
            edits.extend(edit);
        }
    }
    let reason = match edits.len() {
        0 => String::new(),
        count => done.replace("{}", &count.to_string()),
    };
    Plan::of(edits, reason)
}
