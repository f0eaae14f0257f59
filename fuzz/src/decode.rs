//! Fuzz bytes → a generated conversation: every choice the proptest generator
//! (`tests/common/generate.rs`) makes at random is read from the bytes instead, so libFuzzer's
//! coverage guidance steers the shape (turns, parallel calls, long outputs, images, age tags) and
//! the text (hard Unicode, CRLF, fences, tags, the library's own markers, arbitrary strings,
//! lone surrogates as they cross from JS), and binary images kept by the host.

use crate::common::generate::{Call, Conversation, Step, Turn};
use arbitrary::{Arbitrary, Result, Unstructured};

/// Text pieces that exercise the readers and the tiers: hard Unicode, line ends, fences, age
/// tags, media and the markers the library itself writes (which a conversation may quote).
const PIECES: &[&str] = &[
    "plain words ",
    "emoji 👩\u{200d}👩\u{200d}👧\u{200d}👦 and 🇯🇵 ",
    "日本語のテキスト ",
    "e\u{301}\u{302} combining ",
    "\u{600} ",
    "line\r\nbreak ",
    "\r",
    "\n\n",
    "    ",
    "src/lib.rs ",
    "error: failed to compile\n",
    "https://example.com/x ",
    "```\n",
    "````rust\n",
    "```tool_result name=bash\n",
    "[age:7] ",
    "\n  [age:2] indented\n",
    "[stale block pruned]",
    "[tool result body pruned: 12 chars]",
    "[summary of earlier tool runs] covers 10 tokens\n",
    "[digest of earlier tool runs]\n",
    "[session summary]\n",
    "[kept verbatim]\n",
    "![img](data:image/png;base64,iVBORw0KGgo)",
    "```data:image/png;base64,iVBORw0KGgo\n```\n",
    // Lone surrogates as they cross from JS (binding/src/surrogates.rs): private-use characters of
    // a window, one per surrogate (a high one cut from an emoji, a low one, a reversed pair).
    "cut \u{E03D}",
    "\u{E600} tail ",
    "\u{E600}\u{E03D}",
    "\u{F003D}\u{F0600}",
    // CR LF where micro cuts its head (80 characters).
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n",
];

const TOOLS: &[&str] = &["bash", "read_file", "web_fetch"];

/// Short text: pieces and arbitrary strings.
pub fn text(u: &mut Unstructured<'_>) -> Result<String> {
    let pieces = u.int_in_range(1..=6)?;
    let mut out = String::new();
    for _ in 0..pieces {
        if u.ratio(1, 4)? {
            out.push_str(<&str>::arbitrary(u)?);
        } else {
            out.push_str(u.choose(PIECES)?);
        }
    }
    Ok(out)
}

/// A tool's output: short, a repeated text (often over micro's threshold), or a long log.
fn output(u: &mut Unstructured<'_>) -> Result<String> {
    Ok(match u.int_in_range(0..=2)? {
        0 => text(u)?,
        1 => {
            let times = u.int_in_range(10..=60)?;
            text(u)?.repeat(times)
        }
        _ => "log line ok\n".repeat(u.int_in_range(1..=250)?),
    })
}

fn call(u: &mut Unstructured<'_>) -> Result<Call> {
    let argument: String = text(u)?.chars().take(30).collect();
    Ok(Call {
        name: u.choose(TOOLS)?.to_string(),
        arguments: serde_json::json!({ "arg": argument }).to_string(),
        output: output(u)?,
        is_error: u.ratio(1, 7)?,
    })
}

fn step(u: &mut Unstructured<'_>) -> Result<Step> {
    if u.ratio(1, 2)? {
        return Ok(Step::Say(text(u)?));
    }
    let preface = if u.arbitrary()? { Some(text(u)?) } else { None };
    let count = u.int_in_range(1..=3)?;
    let calls = (0..count).map(|_| call(u)).collect::<Result<_>>()?;
    Ok(Step::Calls(preface, calls))
}

fn turn(u: &mut Unstructured<'_>) -> Result<Turn> {
    let user = text(u)?;
    let image = if u.ratio(1, 7)? {
        Some("iVBORw0KGgo".repeat(u.int_in_range(18..=270)?))
    } else {
        None
    };
    let count = u.int_in_range(0..=4)?;
    let steps = (0..count).map(|_| step(u)).collect::<Result<_>>()?;
    let age_tag = if u.ratio(1, 5)? {
        Some(u.int_in_range(0..=11)?)
    } else {
        None
    };
    // Binary data the host keeps (a host-value placeholder, AI SDK only), or a base64 string.
    let binary = u.arbitrary()?;
    Ok(Turn {
        user,
        image,
        binary,
        steps,
        age_tag,
    })
}

/// A conversation of 1 to 9 turns.
pub fn conversation(u: &mut Unstructured<'_>) -> Result<Conversation> {
    let system = text(u)?;
    let count = u.int_in_range(1..=9)?;
    let turns = (0..count).map(|_| turn(u)).collect::<Result<_>>()?;
    Ok(Conversation {
        system,
        turns,
        extras: u.arbitrary()?,
    })
}
