//! time_based: pruning blocks older than the age threshold (`[age:N]` tags in flat text).

use crate::common::*;
use tiered_compaction::{CompactOptions, ContextData, Tier, compact};

#[test]
fn time_based_prunes_the_stale_block_85_to_14_tokens() {
    let text = format!(
        "[age:12] very old block\n{}\n\n[age:1] fresh block\nkept content here",
        "stale content ".repeat(20)
    );
    let ctx = text_ctx(&text, pressure(3, 0.2, 400.0, false));
    let result = block_on(compact(&ctx, &CompactOptions::default())).unwrap();
    assert_eq!(result.tier, Tier::TimeBased);
    assert_eq!(
        result.context,
        ContextData::Text("[stale block pruned]\n\n[age:1] fresh block\nkept content here".into())
    );
    assert_eq!((result.before_tokens, result.after_tokens), (85, 14));
}

#[test]
fn an_indented_age_tag_is_not_swallowed_by_the_stale_block_regression() {
    let text = "[age:9] old work\nold lines old lines old lines old lines\n  [age:1] fresh work the agent needs\n";
    let result = run_tier(
        Tier::TimeBased,
        &text_ctx(text, pressure(3, 0.2, 400.0, false)),
        None,
    );
    let out = result.text().unwrap();
    assert!(out.contains("[age:1] fresh work the agent needs"), "{out}");
    assert!(out.starts_with("[stale block pruned]"), "{out}");
}
