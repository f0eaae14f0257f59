//! micro: collapsing long tool-result bodies to a head and a marker. Also exercised by
//! `tests/cut.rs` (clean cuts), `tests/body.rs` (the request-body path), `tests/fuzz_regressions.rs`
//! and the unit tests in `src/tiers/micro.rs`.

use crate::common::*;
use crate::micro_example;
use tiered_compaction::{CompactOptions, ContextData, PolicyConfig, Tier, compact};

#[test]
fn micro_collapses_the_900_char_body_232_to_36_tokens() {
    let ctx = text_ctx(&micro_example(), pressure(2, 0.1, 0.0, false));
    let result = block_on(compact(&ctx, &unbatched())).unwrap();
    assert_eq!(result.tier, Tier::Micro);
    assert_eq!(result.before_tokens, 232);
    assert_eq!(result.after_tokens, 36);
    assert_eq!(result.tokens_saved, 196);
    assert!(
        (result.cost_estimate - 0.0000294).abs() < 1e-12,
        "{}",
        result.cost_estimate
    );
    assert_eq!(
        result.context,
        ContextData::Text(format!(
            "```tool_result name=bash\n{}\n[tool result body pruned: 900 chars]\n```",
            "C".repeat(80)
        ))
    );
    assert_eq!(result.archive.len(), 1);
    assert_eq!(result.archive[0].kind, "tool_result");
    assert_eq!(
        result.archive[0].content,
        serde_json::json!("C".repeat(900))
    );
}

#[test]
fn micro_leaves_bodies_of_240_chars_and_collapses_241() {
    for (len, changed) in [(240, false), (241, true)] {
        let text = format!("```tool_result name=bash\n{}\n```", "D".repeat(len));
        let result = run_tier(
            Tier::Micro,
            &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
            None,
        );
        assert_eq!(
            result.context != ContextData::Text(text.clone()),
            changed,
            "body of {len}"
        );
        assert_eq!(result.tokens_saved > 0, changed);
    }
}

#[test]
fn a_nested_fence_does_not_end_the_tool_result_early_regression() {
    let body = format!(
        "```python\nprint('x')\n```\n{}",
        "tail of the log that must not escape\n".repeat(10)
    );
    let text = format!("```tool_result name=bash\n{body}\n```");
    let result = run_tier(
        Tier::Micro,
        &text_ctx(&text, pressure(2, 0.1, 0.0, false)),
        None,
    );
    let out = result.text().unwrap();
    // The seed ended the result at the nested fence, so the 10 log lines escaped pruning.
    assert!(
        out.matches("tail of the log that must not escape").count() <= 1,
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "[tool result body pruned: {} chars]",
            body.chars().count()
        )),
        "{out}"
    );
}

#[test]
fn thresholds_are_read_per_call_not_frozen_regression() {
    let text = format!("```tool_result name=bash\n{}\n```", "E".repeat(100));
    let ctx = text_ctx(&text, pressure(2, 0.1, 0.0, false));
    let default = block_on(compact(&ctx, &unbatched())).unwrap();
    assert_eq!(default.tokens_saved, 0);
    let options = CompactOptions {
        policy: PolicyConfig {
            micro_body_threshold_chars: 50,
            micro_keep_head_chars: 10,
            ..PolicyConfig::default()
        },
        ..unbatched()
    };
    let tuned = block_on(compact(&ctx, &options)).unwrap();
    assert!(tuned.tokens_saved > 0);
}

/// A host counter that sees the same count for any text (a tokenizer with a fixed overhead).
struct Flat;

impl tiered_compaction::TokenCounter for Flat {
    fn count(&self, _text: &str) -> u64 {
        7
    }
}

#[test]
fn an_edit_that_saves_nothing_under_the_hosts_counter_is_not_made() {
    let ctx = messages_ctx(crate::agent_session(), pressure(9, 0.4, 0.0, false));
    let saving = block_on(compact(&ctx, &unbatched())).unwrap();
    assert_eq!(saving.tier, Tier::Micro);
    assert!(saving.tokens_saved > 0 && !saving.archive.is_empty());
    let options = CompactOptions {
        counter: Some(&Flat),
        ..unbatched()
    };
    let result = block_on(compact(&ctx, &options)).unwrap();
    assert_eq!(result.tokens_saved, 0);
    assert!(result.archive.is_empty(), "{:?}", result.archive);
    let tiered_compaction::ContextInput::Messages { messages, .. } = &ctx.input else {
        unreachable!("a messages context")
    };
    assert_eq!(result.messages(), Some(&messages[..]));
}

/// A documentation page in MDX as a fetch tool returns it: components with closing tags around
/// the page's real paths and URLs, which come after a dozen kinds of tags.
fn mdx_page() -> String {
    let tags = [
        "Tip",
        "Note",
        "Warning",
        "Info",
        "Steps",
        "Step",
        "Tabs",
        "Tab",
        "Card",
        "CardGroup",
        "Accordion",
        "Frame",
    ];
    let mut page = String::from("---\ntitle: Deploying\n---\n");
    for tag in tags {
        page.push_str(&format!(
            "<{tag}>\nSome words about deploying with {tag}.\n</{tag}>\n"
        ));
    }
    page.push_str(
        "Put the worker in `src/worker/index.ts` and its settings in ./wrangler.toml, \
         then read https://developers.cloudflare.com/workers/wrangler/ and \
         https://example.com/docs/deploy#kv. Logs go to /var/log/acme/worker.log.\n",
    );
    page
}

#[test]
fn a_stub_keeps_the_pages_paths_and_urls_not_its_markup() {
    let page = mdx_page();
    let messages = vec![
        serde_json::json!({"role": "user", "content": "Read the deploy docs."}),
        serde_json::json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "f1", "type": "function", "function": {"name": "web_fetch", "arguments": "{\"url\":\"https://example.com/docs/deploy\"}"}}
        ]}),
        serde_json::json!({"role": "tool", "tool_call_id": "f1", "content": page}),
        serde_json::json!({"role": "assistant", "content": "Read it."}),
        serde_json::json!({"role": "user", "content": "Go on."}),
        serde_json::json!({"role": "assistant", "content": "On it."}),
        serde_json::json!({"role": "user", "content": "And?"}),
        serde_json::json!({"role": "assistant", "content": "Done."}),
    ];
    let mut options = unbatched();
    options.policy.keep_recent_steps = 1;
    let result = compact_late(Tier::Micro, &messages, &options);
    let stub = result.messages().unwrap()[2]["content"].as_str().unwrap();
    assert!(stub.contains("[tool result body pruned: "), "{stub}");
    for reference in [
        "src/worker/index.ts",
        "./wrangler.toml",
        "https://developers.cloudflare.com/workers/wrangler/",
        "https://example.com/docs/deploy#kv",
        "/var/log/acme/worker.log",
    ] {
        assert!(stub.contains(reference), "{reference} not in {stub}");
    }
    // The head shows the page's first characters as they are; the line of paths names no tag.
    let paths = stub.lines().rev().nth(1).unwrap();
    assert_eq!(
        paths, "https://example.com/docs/deploy#kv /var/log/acme/worker.log",
        "{stub}"
    );
}
