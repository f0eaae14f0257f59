//! Each tier's tests in one place, one module per tier, plus what holds across tiers: which
//! tier is selected, what every tier keeps, and what a result reports. Tests named `..._regression`
//! each pin one defect of the seed's implementation (each fails on the seed's behaviour); tests
//! with the seed's numbers in their names check its documented behaviour. `tests/README.md` maps
//! the other places a tier is exercised (properties, the request-body path, fuzz findings, unit
//! tests beside the code).

#[path = "../common/mod.rs"]
mod common;

mod agent_runs;
mod auto;
mod batches;
mod cache;
mod directives;
mod every_tier;
mod micro;
mod must_keep;
mod repair;
mod reporting;
mod selection;
mod session_memory;
mod summariser;
mod time_based;

use serde_json::{Value, json};

/// The seed's micro example: a bash tool result with a 900-character body.
fn micro_example() -> String {
    format!("```tool_result name=bash\n{}\n```", "C".repeat(900))
}

/// An OpenAI-format coding session: system prompt, task, six tool runs with long logs, and a
/// latest answer.
fn agent_session() -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "system", "content": "You are a coding agent."}),
        json!({"role": "user", "content": "Fix the failing test in src/parser.rs. Never touch Cargo.toml."}),
    ];
    for i in 0..6 {
        messages.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("c{i}"), "type": "function", "function": {"name": "bash", "arguments": format!("{{\"cmd\":\"cargo test step{i}\"}}")}}
        ]}));
        messages.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": format!("error: test step{i} failed at src/parser.rs:{i}\n{}", "log line\n".repeat(80))}));
        messages.push(json!({"role": "user", "content": format!("keep going, step {i}")}));
    }
    messages.push(json!({"role": "assistant", "content": "Latest answer: fixed."}));
    messages
}
