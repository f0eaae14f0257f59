//! The structural digest of older conversation (`auto` past its tool runs, without a
//! summariser or as its fallback): the user's directives verbatim and in full, longer user
//! content and the agent's words by their first characters, one line per tool call, then the
//! lines that matter and the paths.

use super::{RUN_FACTS, SHORT, calls, one_line, summary_body, write_facts};
use crate::markers;
use crate::must_keep::DIRECTIVE_MAX_CHARS;
use crate::transcript::{BlockKind, Format, Message, Role, Transcript};
use std::fmt::Write;
use std::ops::Range;

/// A digest of messages `range`; `recall` names the archive entry that holds them. Each line
/// is one message's text in order; a directive keeps its line breaks (it is carried as the user
/// wrote it), so only it may span lines.
pub fn conversation_digest(
    transcript: &Transcript,
    range: Range<usize>,
    recall: Option<&str>,
) -> String {
    let messages = &transcript.messages[range];
    let mut out = String::from(markers::CONVERSATION_DIGEST);
    if let Some(id) = recall {
        let _ = write!(out, "\nrecall: {id}");
    }
    let flat = transcript.format == Format::Text;
    for message in messages {
        if message.is_library_summary {
            // An earlier digest or summary folded into this one keeps its lines.
            for line in summary_body(message).lines() {
                let _ = write!(out, "\n{line}");
            }
            continue;
        }
        write_words(&mut out, message, flat);
    }
    for call in calls(messages) {
        let _ = write!(out, "\n- {}", call.line());
    }
    // As many facts per exchange as a run's digest keeps: a stretch of many turns is not cut
    // down to one run's share.
    let turns = messages.iter().filter(|m| m.has_user_words()).count();
    write_facts(&mut out, messages, RUN_FACTS * (1 + turns));
    out
}

/// One line per text of `message`: a directive whole, anything else by its first characters.
fn write_words(out: &mut String, message: &Message, flat: bool) {
    let user = message.has_user_words();
    let texts = message
        .blocks
        .iter()
        .filter(|block| block.kind == BlockKind::Text && !block.is_nested());
    for block in texts {
        let words = crate::base::cut::trim(&block.text);
        let chars = words.chars().count();
        let _ = match (user, flat) {
            _ if words.is_empty() => Ok(()),
            (true, _) if chars <= DIRECTIVE_MAX_CHARS => write!(out, "\nuser: {words}"),
            (true, _) => write!(out, "\nuser ({chars} chars): {}", one_line(words, SHORT)),
            (false, true) => write!(out, "\n- {}", one_line(words, SHORT)),
            (false, false) => write!(
                out,
                "\n{}: {}",
                role_label(message.role),
                one_line(words, SHORT)
            ),
        };
    }
}

fn role_label(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Tool => "tool",
        Role::System | Role::Developer => "system",
        Role::Assistant => "assistant",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcript::{Block, Source};
    use std::borrow::Cow;

    fn message(role: Role, text: &str) -> Message<'static> {
        Message {
            role,
            blocks: vec![Block::new(
                BlockKind::Text,
                Cow::Owned(text.to_string()),
                vec![],
            )],
            source: Source::Index(0),
            explicit_age: None,
            is_library_summary: false,
        }
    }

    #[test]
    fn directives_stay_whole_and_the_rest_is_cut() {
        let directive = format!("Never touch Cargo.toml.\n{}", "Keep the API. ".repeat(70));
        let pasted = format!("{}error: boom in src/a.rs\n", "log line\n".repeat(300));
        let answer = "I will look at it. ".repeat(20);
        let transcript = Transcript {
            format: Format::OpenAi,
            messages: vec![
                message(Role::User, &directive),
                message(Role::Assistant, &answer),
                message(Role::User, &pasted),
            ],
        };
        let digest = conversation_digest(&transcript, 0..3, Some("a0123456789ab"));
        assert!(digest.starts_with("[digest of earlier conversation]\nrecall: a0123456789ab\n"));
        assert!(digest.contains(&format!("\nuser: {}", directive.trim())));
        assert!(digest.contains("\nassistant: I will look at it."));
        assert!(digest.contains(&format!(
            "\nuser ({} chars): log line log line",
            pasted.trim().chars().count()
        )));
        assert!(digest.contains("! error: boom in src/a.rs"), "{digest}");
        assert!(digest.chars().count() < directive.len() + answer.len() + pasted.len());
    }
}
