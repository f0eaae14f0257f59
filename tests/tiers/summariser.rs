//! The summariser contract seen from Rust with a deterministic fake: what a request holds, where
//! the summary lands, every misbehaviour's exact outcome, and the loop guard over a long session.

use crate::common::*;
use serde_json::{Value, json};
use tiered_compaction::{CompactOptions, ContextData, Tier, TierResult, compact_with_tier};

const SCREENSHOT: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk";

/// An agent session: system prompt, task, a screenshot, tool runs touching files with errors.
fn session(turns: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a careful coding agent."}),
        json!({"role": "user", "content": "Make the parser accept trailing commas. Always run `cargo test` before answering."}),
    ];
    for turn in 0..turns {
        let id = format!("call_{turn}");
        messages.push(json!({"role": "assistant", "content": format!("Looking at step {turn}."), "tool_calls": [
            {"id": id, "type": "function", "function": {"name": "bash", "arguments": format!("{{\"cmd\":\"cargo test -p parser --test t{turn}\"}}")}}
        ]}));
        let log = format!(
            "error[E0308]: mismatched types in src/parser/mod.rs:{turn}\n{}",
            "   Compiling parser v0.1.0 (/work/parser)\n".repeat(40)
        );
        messages.push(json!({"role": "tool", "tool_call_id": id, "content": log}));
        let user = if turn == 1 {
            json!({"role": "user", "content": [
                {"type": "text", "text": "Here is the failing screen. Do not edit Cargo.lock."},
                {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", SCREENSHOT.repeat(400))}}
            ]})
        } else {
            json!({"role": "user", "content": format!("continue with step {}", turn + 1)})
        };
        messages.push(user);
    }
    messages.push(json!({"role": "assistant", "content": "Done: trailing commas parse."}));
    messages
}

/// Runs `tier` with a protected tail of one step: this session makes one model call per user
/// turn, so the newest step and the newest user words are its latest turn.
fn run(tier: Tier, messages: Vec<Value>, pct: f64, fake: &FakeSummariser) -> TierResult {
    let ctx = messages_ctx(messages, pressure(9, pct, 0.0, tier == Tier::SessionMemory));
    run_tier_keeping(tier, &ctx, Some(fake), 1)
}

/// Runs auto as [`run`] does, to `target` of the window. In this session the screenshot (a 1 × 1
/// PNG, billed as OpenAI bills it: 255 tokens) and the tool outputs are most of the context: at
/// 0.8, stubs and media alone bring it to 0.12, so a summary is asked for only under that (0.06:
/// the six oldest of the eight runs; 0.035: all eight; 0: all the older context).
fn run_auto_to(messages: Vec<Value>, target: f64, fake: &FakeSummariser) -> TierResult {
    let ctx = messages_ctx(messages, pressure(9, 0.8, 0.0, false));
    let mut options = CompactOptions {
        summariser: Some(fake),
        ..CompactOptions::default()
    };
    options.policy.keep_recent_steps = 1;
    options.policy.auto_target_pct = target;
    block_on(compact_with_tier(Tier::Auto, &ctx, &options)).unwrap()
}

#[test]
fn the_request_holds_what_a_summariser_needs_and_no_media() {
    let fake = FakeSummariser::new(Mode::Good);
    // Target 0: everything but the protected content goes, the screenshot's message included.
    let result = run_auto_to(session(8), 0.0, &fake);
    assert_eq!(fake.calls(), 1);
    let request = fake.requests.borrow()[0].clone();
    assert_eq!(request.tier, Tier::Auto);
    assert_eq!(request.session_id, "s-test");
    assert_eq!(request.correlation_id, result.correlation_id);
    for section in [
        "Goal",
        "Decisions made",
        "Files, identifiers and URLs",
        "Errors seen",
        "Open tasks",
        "User directives",
    ] {
        assert!(
            request.instructions.contains(section),
            "instructions lack {section}"
        );
    }
    assert!(
        request
            .must_keep
            .iter()
            .any(|k| k.contains("src/parser/mod.rs")),
        "{:?}",
        request.must_keep
    );
    assert!(
        request
            .must_keep
            .iter()
            .any(|k| k.starts_with("error[E0308]")),
        "{:?}",
        request.must_keep
    );
    assert!(
        request.transcript.contains("Here is the failing screen.")
            && !request.transcript.contains(SCREENSHOT),
        "media must be stripped from the transcript"
    );
    assert!(request.transcript.contains("[tool call bash #call_0]"));
    assert!(!request.messages.is_empty() && request.messages.iter().all(|m| m["role"] != "system"));
    let replaced = request.transcript.chars().count() as u64 / 4;
    assert!(
        request.target_tokens >= 64 && request.target_tokens < replaced,
        "{} vs {replaced}",
        request.target_tokens
    );
}

#[test]
fn the_summary_stands_where_the_runs_were_and_protected_content_stays() {
    let fake = FakeSummariser::new(Mode::Good);
    let input = session(8);
    let result = run_auto_to(input.clone(), 0.06, &fake);
    let out = result.messages().unwrap();
    assert!(out[..2] == input[..2], "system prompt and task");
    assert!(
        out[out.len() - 2..] == input[input.len() - 2..],
        "latest turn"
    );
    let summary_at = out
        .iter()
        .position(|m| {
            m["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("[summary of earlier tool runs] covers"))
        })
        .unwrap();
    // Runs oldest first, only as many as the budget needs: the oldest `n` of eight. The summary
    // stands where the last of them was, before the user's words that followed it.
    let n: usize = result
        .reason
        .split("replaced ")
        .nth(1)
        .and_then(|rest| rest.split(" tool-run step(s) by one summary").next())
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("{}", result.reason));
    assert!((1..8).contains(&n), "{}", result.reason);
    assert!(
        result.reason.contains("target 0.06 met after tool runs"),
        "{}",
        result.reason
    );
    assert_eq!(
        out[summary_at + 1],
        input[2 + 3 * (n - 1) + 2],
        "the summary stands where the last summarised run was"
    );
    let users_before: Vec<&Value> = input.iter().filter(|m| m["role"] == "user").collect();
    let users_after: Vec<&Value> = out.iter().filter(|m| m["role"] == "user").collect();
    assert_eq!(
        users_before.len(),
        users_after.len(),
        "auto replaces tool runs, never user messages"
    );
    for (before, after) in users_before.iter().zip(&users_after) {
        if before["content"].is_string() {
            assert!(before == after, "user words kept verbatim");
        } else {
            // The screenshot's words stay; the image becomes a placeholder (media is stripped).
            assert!(before["content"][0] == after["content"][0]);
            let placeholder = after["content"][1]["text"].as_str().unwrap();
            assert!(
                placeholder.starts_with("[media removed: image/png, "),
                "{placeholder}"
            );
        }
    }
    let tools: Vec<&Value> = out.iter().filter(|m| m["role"] == "tool").collect();
    let kept: Vec<String> = (n..8).map(|turn| format!("call_{turn}")).collect();
    assert_eq!(tools.len(), 8 - n, "the newer runs stay (stubbed)");
    for (tool, id) in tools.iter().zip(&kept) {
        assert_eq!(tool["tool_call_id"], id.as_str());
    }
    assert_eq!(
        out.iter().filter(|m| m.get("tool_calls").is_some()).count(),
        8 - n,
        "runs folded whole, no orphan"
    );
    assert!(result.after_tokens < result.before_tokens);
    assert_eq!(result.summariser_usage.unwrap().output_tokens, 20);
    assert!(!result.degraded);
    // Its own output, at the pressure it is at (what the host reports next): under the target,
    // so nobody is called and nothing changes.
    let pct = 0.8 * result.after_tokens as f64 / result.before_tokens as f64;
    let ctx = messages_ctx(out.to_vec(), pressure(9, pct, 0.0, false));
    let mut options = CompactOptions {
        summariser: Some(&fake),
        ..CompactOptions::default()
    };
    options.policy.keep_recent_steps = 1;
    options.policy.auto_target_pct = 0.035;
    let again = block_on(compact_with_tier(Tier::Auto, &ctx, &options)).unwrap();
    assert_eq!(fake.calls(), 1);
    assert_eq!(again.context, result.context, "{}", again.reason);
}

#[test]
fn a_summary_missing_must_keep_items_gets_them_appended_verbatim() {
    let fake = FakeSummariser::new(Mode::Good); // names only the first item
    let result = run_auto_to(session(8), 0.035, &fake);
    let request = fake.requests.borrow()[0].clone();
    let text = serde_json::to_string(result.messages().unwrap()).unwrap();
    assert!(text.contains("[kept verbatim]"));
    for item in &request.must_keep {
        let encoded = serde_json::to_string(item).unwrap();
        assert!(text.contains(&encoded[1..encoded.len() - 1]), "lost {item}");
    }
    assert!(!result.degraded);
}

#[test]
fn each_misbehaviour_falls_back_to_the_digest_and_says_why() {
    let cases = [
        (Mode::Reject, "summariser rejected: Error: model overloaded"),
        (Mode::Empty, "summariser returned an empty summary"),
        (
            Mode::NotString,
            "summariser returned a number, not a string or { summary: string }",
        ),
        (Mode::Long, "is not shorter than what it replaces"),
    ];
    for (mode, cause) in cases {
        let fake = FakeSummariser::new(mode);
        let result = run_auto_to(session(8), 0.1, &fake);
        assert!(result.degraded, "{mode:?}");
        assert_eq!(result.warnings.len(), 1, "{mode:?}");
        assert!(
            result.warnings[0].contains(cause),
            "{mode:?}: {}",
            result.warnings[0]
        );
        assert!(result.warnings[0].ends_with("used the structural digest instead"));
        let text = serde_json::to_string(result.messages().unwrap()).unwrap();
        assert!(text.contains("[digest of earlier tool runs]"), "{mode:?}");
        assert!(
            !text.contains("model overloaded"),
            "an error message is never a summary"
        );
        assert_eq!(
            restore(&result),
            ContextData::Messages(session(8)),
            "{mode:?}: nothing lost"
        );
        assert!(result.after_tokens < result.before_tokens);
    }
}

fn restore(result: &TierResult) -> ContextData {
    crate::common::restore::restore(&result.context, &result.archive)
}

#[test]
fn session_memory_summarises_the_whole_session_with_provenance() {
    let fake = FakeSummariser::new(Mode::Good);
    let input = session(8);
    let result = run(Tier::SessionMemory, input.clone(), 0.5, &fake);
    let summary = result.summary.clone().unwrap();
    let mut lines = summary.lines();
    assert_eq!(lines.next(), Some("[session summary]"));
    let provenance = lines.next().unwrap();
    assert!(
        provenance.starts_with("session: s-test; turns: 1-9; source sha256: "),
        "{provenance}"
    );
    let request = fake.requests.borrow()[0].clone();
    assert!(
        request
            .transcript
            .contains("Make the parser accept trailing commas"),
        "the whole session is asked for"
    );
    assert!(
        request
            .must_keep
            .iter()
            .any(|k| k.contains("Do not edit Cargo.lock")),
        "{:?}",
        request.must_keep
    );
    assert!(
        summary.contains("Do not edit Cargo.lock"),
        "the user's directive is carried verbatim"
    );
    let out = result.messages().unwrap();
    assert_eq!(out.len(), 2, "the system prompt and one user message");
    assert_eq!(out[0], input[0]);
    assert_eq!(out[1]["role"], "user");
    assert_eq!(out[1]["content"], json!(summary));
    let again = run(Tier::SessionMemory, out.to_vec(), 0.5, &fake);
    assert_eq!(fake.calls(), 1, "a session summary is not summarised again");
    assert_eq!(again.summary.as_deref(), Some(summary.as_str()));
}

#[test]
fn the_loop_guard_holds_a_50_turn_session_at_constant_pressure_to_a_handful_of_calls() {
    let fake = FakeSummariser::new(Mode::Good);
    let options = CompactOptions {
        summariser: Some(&fake),
        ..CompactOptions::default()
    };
    let full = session(50);
    // The host appends each turn's new messages to what the library gave back last time.
    let mut context: Vec<Value> = full[..2].to_vec();
    let mut appended = 2;
    let mut summaries = 0;
    for turn in 0..50 {
        let end = 2 + (turn + 1) * 3;
        context.extend_from_slice(&full[appended..end]);
        appended = end;
        let ctx = messages_ctx(context.clone(), pressure(turn as u64 + 2, 0.75, 0.0, false));
        let result = block_on(compact_with_tier(Tier::Auto, &ctx, &options)).unwrap();
        assert!(result.after_tokens <= result.before_tokens);
        summaries += usize::from(result.summariser_usage.is_some());
        context = result.messages().unwrap().to_vec();
    }
    assert_eq!(fake.calls(), summaries);
    assert!(
        (2..=10).contains(&fake.calls()),
        "{} summariser calls over 50 turns",
        fake.calls()
    );
    eprintln!(
        "loop guard: {} summariser calls over 50 turns",
        fake.calls()
    );
}

#[test]
fn nothing_to_fold_calls_nobody_and_is_not_degraded() {
    // Only system prompts: nothing but them would stand beside a summary.
    for messages in [vec![], session(0)[..1].to_vec()] {
        let fake = FakeSummariser::new(Mode::Good);
        let result = run(Tier::SessionMemory, messages.clone(), 0.5, &fake);
        assert_eq!(fake.calls(), 0);
        assert!(!result.degraded);
        assert_eq!(result.context, ContextData::Messages(messages));
        assert!(
            result.reason.contains("nothing outside protected content"),
            "{}",
            result.reason
        );
    }
}
