//! `mustKeep` as properties over generated sessions (SPEC §6): whatever the mix of directives,
//! floods of one error, paths and URLs, the directives come first and whole, repeats that differ
//! only in numbers count once, every kind present gets a place in the first round, and the rest
//! fits half of `targetTokens`.

mod common;

use common::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use tiered_compaction::{SummaryRequest, Tier};

/// A session: `directive` as the task, then one tool run per output.
fn session(directive: &str, outputs: &[String]) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": directive}),
    ];
    for (i, output) in outputs.iter().enumerate() {
        let id = format!("c{i}");
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"make\"}"}}
        ]}));
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": output}));
    }
    messages.push(json!({"role": "assistant", "content": "Done."}));
    messages
}

fn request(messages: Vec<Value>) -> SummaryRequest {
    let fake = FakeSummariser::new(Mode::Good);
    let ctx = messages_ctx(messages, pressure(9, 0.5, 0.0, true));
    run_tier(Tier::SessionMemory, &ctx, Some(&fake));
    fake.requests.into_inner().remove(0)
}

fn kind(item: &str) -> &'static str {
    if item.starts_with("Error:") {
        "error"
    } else if item.starts_with("https://") {
        "url"
    } else {
        "path"
    }
}

proptest! {
    #![proptest_config(common::cases::config(32))]

    #[test]
    fn directives_first_repeats_once_every_kind_its_share(
        directive_len in 10usize..1900,
        flood in 0usize..80,
        files in 0usize..120,
        urls in 0usize..6,
        padding in 0usize..300,
    ) {
        let directive: String = "Keep the public API stable. ".chars().cycle().take(directive_len).collect();
        let directive = directive.trim().to_string();
        let errors: String = (0..flood).map(|n| format!("Error: timeout after {} ms\n", 100 + n)).collect();
        let paths: String = (0..files).map(|n| format!("M src/mod_{n}/lib.rs\n")).collect();
        let links: String = (0..urls).map(|n| format!("see https://example.com/doc/{n}\n")).collect();
        let filler = "compiling ...\n".repeat(padding);
        let outputs = vec![format!("{errors}{filler}"), format!("{paths}{filler}"), format!("{links}{filler}")];
        let request = request(session(&directive, &outputs));
        let items = &request.must_keep;
        // The directive first, whole.
        prop_assert_eq!(&items[0], &directive);
        let rest = &items[1..];
        // One flood counts once.
        prop_assert!(rest.iter().filter(|i| kind(i) == "error").count() <= 1);
        // The first round holds one of each kind present, in the fixed order, while it fits.
        let present: Vec<&str> = [("error", flood > 0), ("path", files > 0), ("url", urls > 0)]
            .into_iter().filter(|(_, p)| *p).map(|(k, _)| k).collect();
        let first_round: Vec<&str> = rest.iter().take(present.len()).map(|i| kind(i)).collect();
        prop_assert_eq!(&first_round[..], &present[..first_round.len()]);
        // No kind takes more than its fair share of what was kept: counts differ by at most one
        // between kinds that still had items.
        let count = |k: &str| rest.iter().filter(|i| kind(i) == k).count();
        let available = |k: &str| match k { "error" => flood.min(1), "path" => files, _ => urls };
        for a in ["error", "path", "url"] {
            for b in ["error", "path", "url"] {
                if count(a) > count(b) + 1 {
                    prop_assert_eq!(count(b), available(b), "{} crowded out {}: {:?}", a, b, rest);
                }
            }
        }
        // Besides the directive, the items fit half the target (one token per separator).
        let spent: u64 = rest.iter().map(|i| (i.chars().count() as u64 / 4).max(1) + 1).sum();
        prop_assert!(spent <= request.target_tokens / 2, "{} > {}", spent, request.target_tokens / 2);
    }
}
