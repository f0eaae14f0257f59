//! Tries every tier on a real agent session: a Claude Code JSONL file (Anthropic content blocks)
//! or an OpenAI Chat Completions request body. Not a test: the data is not ours to commit, so it
//! is read from where it lies.
//!
//! `cargo run --release --example realdata -- ../shared/realdata/9e953218-585f-4692-89df-9e0747a31c68.jsonl`

use serde_json::Value;
use std::cell::Cell;
use tiered_compaction::summary::summarise::LocalBoxFuture;
use tiered_compaction::{
    BudgetPressure, CompactOptions, ContextInput, FormatChoice, Summariser, SummariserFailure,
    SummaryAnswer, SummaryRequest, Tier, TierContext, compact_with_tier,
};

/// An extractive stand-in for a model: the first line of every tool call it was shown.
struct Extractive {
    asked_chars: Cell<usize>,
}

impl Summariser for Extractive {
    fn summarise(
        &self,
        request: SummaryRequest,
    ) -> LocalBoxFuture<'_, Result<SummaryAnswer, SummariserFailure>> {
        self.asked_chars
            .set(self.asked_chars.get() + request.transcript.len() + request.instructions.len());
        let lines: Vec<&str> = request
            .transcript
            .lines()
            .filter(|l| l.starts_with("[tool call"))
            .take(40)
            .collect();
        let summary = format!("Goal and steps so far:\n{}", lines.join("\n"));
        eprintln!(
            "  summariser asked: {} chars of transcript, {} mustKeep items, target {} tokens",
            request.transcript.len(),
            request.must_keep.len(),
            request.target_tokens
        );
        Box::pin(async move {
            Ok(SummaryAnswer {
                summary,
                usage: None,
            })
        })
    }
}

fn messages_of(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("readable file");
    if path.ends_with(".jsonl") {
        text.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|entry| {
                matches!(entry["type"].as_str(), Some("user" | "assistant"))
                    && entry["isSidechain"] != true
            })
            .map(|entry| entry["message"].clone())
            .filter(|message| message["role"].is_string())
            .collect()
    } else {
        let body: Value = serde_json::from_str(&text).expect("JSON body");
        body["messages"].as_array().cloned().unwrap_or_default()
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("a path to a session file");
    let messages = messages_of(&path);
    println!("{path}: {} messages", messages.len());
    for tier in [
        Tier::Micro,
        Tier::TimeBased,
        Tier::Auto,
        Tier::SessionMemory,
    ] {
        let summariser = Extractive {
            asked_chars: Cell::new(0),
        };
        let pressure = BudgetPressure::new(
            messages.len() as f64,
            0.8,
            400.0,
            tier == Tier::SessionMemory,
        )
        .expect("valid");
        let ctx = TierContext::new(
            "real",
            pressure,
            ContextInput::Messages {
                messages: messages.clone(),
                format: FormatChoice::Auto,
            },
        );
        let options = CompactOptions {
            summariser: Some(&summariser),
            ..CompactOptions::default()
        };
        let start = std::time::Instant::now();
        match pollster::block_on(compact_with_tier(tier, &ctx, &options)) {
            Ok(result) => println!(
                "{tier:>15} [{}]: {} -> {} tokens ({:.1}% saved), {} archived, summariser asked {} chars, {:.1} ms; {}",
                result.format,
                result.before_tokens,
                result.after_tokens,
                100.0 * result.tokens_saved as f64 / result.before_tokens.max(1) as f64,
                result.archive.len(),
                summariser.asked_chars.get(),
                start.elapsed().as_secs_f64() * 1000.0,
                result.reason
            ),
            Err(error) => println!("{tier:>15}: error: {error}"),
        }
    }
}
