//! Choosing what goes past the cheap reductions: pieces oldest first, tool runs before older
//! conversation, only as many as the budget needs. What a piece saves is estimated before any
//! model call: a digest by its real size; a summary by the length asked for
//! ([`crate::summary::summarise::target_tokens`]) over everything chosen, plus the `mustKeep` items it
//! carries verbatim (the user's directives whole, the others up to half its length) and its
//! heading.

use super::digests::{bridge_tokens, digest_of, for_format};
use super::stretch::Stretch;
use super::units::Units;
use crate::summary::must_keep;
use crate::summary::summarise::target_tokens;
use crate::tiers::{TierEnv, range_tokens};
use crate::transcript::markers;
use crate::transcript::{Format, Transcript};
use std::ops::Range;

/// What was chosen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Choice {
    /// The chosen pieces, adjacent ones joined, in order.
    pub stretches: Vec<Stretch>,
    /// Tool runs were not enough: older conversation was taken too.
    pub reached_talk: bool,
    /// Every piece was chosen: nothing more could go.
    pub everything: bool,
}

/// Chooses pieces of `units` oldest first (runs, then conversation) until the estimate saves
/// `to_save` tokens, for one summary (`by_summary`) or for a digest each.
pub fn choose(
    transcript: &Transcript,
    units: &Units,
    to_save: u64,
    by_summary: bool,
    env: &TierEnv<'_>,
) -> Choice {
    let ordered = units
        .runs
        .iter()
        .map(|range| (range, false))
        .chain(units.talk.iter().map(|range| (range, true)));
    let mut estimate = Estimate::new(transcript, by_summary, env);
    let mut chosen = Vec::new();
    for (range, talk) in ordered {
        if estimate.saved() >= to_save {
            break;
        }
        estimate.add(range.clone(), talk);
        chosen.push(Stretch::piece(range.clone(), talk));
    }
    let everything = chosen.len() == units.runs.len() + units.talk.len();
    let reached_talk = chosen.iter().any(|stretch| stretch.talk);
    Choice {
        stretches: joined(chosen),
        reached_talk,
        everything,
    }
}

/// An archive id as long as the ones a digest names (`plan::range_id`).
const SAMPLE_ID: &str = "a000000000000";

/// What replacing the pieces chosen so far saves.
struct Estimate<'t, 'e> {
    transcript: &'t Transcript<'t>,
    env: &'e TierEnv<'e>,
    by_summary: bool,
    /// Tokens of the summary's heading.
    heading: u64,
    /// Tokens of the pieces chosen.
    replaced: u64,
    /// Tokens of the user's directives in them: a summary carries each whole.
    directives: u64,
    /// Tokens of their other `mustKeep` items (a request asks for those that fit half the
    /// summary's length; one the summary leaves out is appended).
    items: u64,
    /// What their digests save.
    digested: u64,
}

impl<'t, 'e> Estimate<'t, 'e> {
    fn new(transcript: &'t Transcript<'t>, by_summary: bool, env: &'e TierEnv<'e>) -> Self {
        let heading = markers::summary_heading(markers::CONVERSATION_SUMMARY, 0);
        Self {
            transcript,
            env,
            by_summary,
            heading: env.counter.count(&heading),
            replaced: 0,
            directives: 0,
            items: 0,
            digested: 0,
        }
    }

    fn add(&mut self, range: Range<usize>, talk: bool) {
        let tokens = range_tokens(self.transcript, range.clone(), self.env.counter);
        self.replaced += tokens;
        if self.by_summary {
            let items = must_keep::collect(self.transcript, std::slice::from_ref(&range));
            let all = kept_tokens(&items, self.env);
            // Fitted to no length at all, the list is its directives only.
            let directives = kept_tokens(&items.fit(0, self.env.counter), self.env);
            self.directives += directives;
            self.items += all.saturating_sub(directives);
        } else {
            // As the plan writes it: with a recall id where the format has ids.
            let recall = (self.transcript.format != Format::Text).then_some(SAMPLE_ID);
            let end = range.end;
            let digest = digest_of(self.transcript, range.clone(), talk, recall);
            let digest = for_format(self.transcript, digest, end);
            let cost =
                self.env.counter.count(&digest) + bridge_tokens(self.transcript, range, self.env);
            self.digested += tokens.saturating_sub(cost);
        }
    }

    fn saved(&self) -> u64 {
        if !self.by_summary {
            return self.digested;
        }
        if self.replaced == 0 {
            return 0;
        }
        let summary = target_tokens(self.replaced, self.env.pressure.context_pct_used);
        let cost = summary + self.directives + self.items.min(summary / 2) + self.heading;
        self.replaced.saturating_sub(cost)
    }
}

/// Tokens of `items` as a summary lists them.
fn kept_tokens(items: &[String], env: &TierEnv<'_>) -> u64 {
    match items.is_empty() {
        true => 0,
        false => env.counter.count(&items.join("\n- ")),
    }
}

/// `stretches` in order, adjacent ones joined into one.
pub fn joined(stretches: Vec<Stretch>) -> Vec<Stretch> {
    let sorted = crate::base::sort::sorted_by_key(stretches, &|s: &Stretch| s.range.start);
    let mut out: Vec<Stretch> = Vec::with_capacity(sorted.len());
    for stretch in sorted {
        match out.last_mut() {
            Some(last) if last.range.end == stretch.range.start => {
                last.range.end = stretch.range.end;
                last.talk |= stretch.talk;
                last.run_pieces += stretch.run_pieces;
                last.talk_pieces += stretch.talk_pieces;
            }
            _ => out.push(stretch),
        }
    }
    out
}
