//! The structural digest of older conversation (`auto` past its tool runs, without a
//! summariser or as its fallback): the user's directives verbatim and in full, longer user
//! content and the agent's words by their first characters, one line per tool call, then the
//! lines that matter and the paths.

use super::{
    RUN_FACTS, SHORT, calls, directives, directives_in, one_line, summary_body, write_facts,
};
use crate::transcript::markers;
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
    let mut lines = Vec::new();
    for message in messages {
        if message.is_library_summary {
            // An earlier digest or summary folded into this one keeps its lines (CR included).
            for line in summary_body(message).split('\n') {
                lines.push(Line::Kept(line.to_string()));
            }
            continue;
        }
        words(&mut lines, message, flat);
    }
    write_lines(&mut out, lines);
    for call in calls(messages) {
        let _ = write!(out, "\n- {}", call.line());
    }
    // As many facts per exchange as a run's digest keeps: a stretch of many turns is not cut
    // down to one run's share.
    let turns = messages.iter().filter(|m| m.has_user_words()).count();
    write_facts(&mut out, messages, RUN_FACTS * (1 + turns));
    directives::carry(out, &directives_in(messages))
}

/// A line of the digest: kept whatever the digest's length (a directive, an earlier digest's
/// line), or the head of a message, of which a long stretch keeps the first and last few.
enum Line {
    Kept(String),
    Head(String),
}

/// Heads of messages a digest shows at most: the oldest half and the newest half of this many.
/// A stretch of hundreds of short messages must still come out shorter than itself.
const HEADS: usize = 24;

fn write_lines(out: &mut String, lines: Vec<Line>) {
    let heads = lines
        .iter()
        .filter(|line| matches!(line, Line::Head(_)))
        .count();
    let skipped = heads.saturating_sub(HEADS);
    let mut head = 0;
    for line in lines {
        let text = match line {
            Line::Kept(text) => text,
            Line::Head(text) => {
                head += 1;
                match head {
                    // The first one left out says how many are.
                    at if at == HEADS / 2 + 1 && skipped > 0 => {
                        format!("- … {skipped} more message(s), in the archive")
                    }
                    at if at > HEADS / 2 && at <= HEADS / 2 + skipped => continue,
                    _ => text,
                }
            }
        };
        let _ = write!(out, "\n{text}");
    }
}

/// One line per text of `message`: a directive whole, anything else by its first characters.
fn words(lines: &mut Vec<Line>, message: &Message, flat: bool) {
    let user = message.has_user_words();
    let texts = message
        .blocks
        .iter()
        .filter(|block| block.kind == BlockKind::Text && !block.is_nested());
    for block in texts {
        let directive = directives::words(&block.text);
        if user && directives::is_directive(directive) {
            // Verbatim: the first line's indentation and every line break kept.
            lines.push(Line::Kept(directives::labelled("user:", directive)));
            continue;
        }
        let words = crate::base::cut::trim(&block.text);
        let chars = words.chars().count();
        lines.push(match (user, flat) {
            _ if words.is_empty() => continue,
            (true, _) => Line::Head(format!("user ({chars} chars): {}", one_line(words, SHORT))),
            (false, true) => Line::Head(format!("- {}", one_line(words, SHORT))),
            (false, false) => Line::Head(format!(
                "{}: {}",
                role_label(message.role),
                one_line(words, SHORT)
            )),
        });
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
            bound_to_next: false,
            output_item: false,
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

    #[test]
    fn a_long_stretch_shows_its_oldest_and_newest_messages() {
        let messages = (0..100)
            .map(|i| message(Role::Assistant, &format!("answer {i}")))
            .collect();
        let transcript = Transcript {
            format: Format::OpenAi,
            messages,
        };
        let digest = conversation_digest(&transcript, 0..100, None);
        let lines: Vec<&str> = digest.lines().collect();
        assert_eq!(lines.len(), 1 + 24 + 1);
        assert_eq!(lines[12], "assistant: answer 11");
        assert_eq!(lines[13], "- … 76 more message(s), in the archive");
        assert_eq!(lines[14], "assistant: answer 88");
        assert_eq!(lines[25], "assistant: answer 99");
    }
}
