//! The role order of a format whose user and assistant messages alternate, the first from the
//! user (Anthropic). One place for the rule: the writer places a replacement by it
//! ([`arrange`], used by `json::apply`), and the repair finds by it the runs of one side that it
//! merges and the messages before the first user message (`crate::repair::order`). Which
//! formats alternate, their writers say (`registry::alternates`).

use crate::transcript::Role;
use std::ops::Range;

/// The wire side a message of `role` stands on in an alternating format: the assistant's, or
/// the user's (tool results travel in user messages there).
pub(crate) fn side(role: Role) -> &'static str {
    match role {
        Role::Assistant => "assistant",
        _ => "user",
    }
}

/// The runs of two or more consecutive messages on one side among `roles` (each message's index
/// and role, in order; the indices need not be contiguous): each run from its first message's
/// index to one past its last's.
pub(crate) fn same_side_runs(roles: impl IntoIterator<Item = (usize, Role)>) -> Vec<Range<usize>> {
    let roles: Vec<(usize, Role)> = roles.into_iter().collect();
    (roles.chunk_by(|a, b| side(a.1) == side(b.1)))
        .filter_map(|run| match run {
            [(first, _), .., (last, _)] => Some(*first..last + 1),
            _ => None,
        })
        .collect()
}

/// The role for a replacement that would rather be `preferred`, between a message of role
/// `before` and one of role `after` in a format whose roles alternate, the first from the user;
/// and the role of a bridge message after it when no single role fits.
pub(crate) fn arrange(
    preferred: &'static str,
    before: Option<&str>,
    after: Option<&str>,
) -> (&'static str, Option<&'static str>) {
    let other = |role: &str| if role == "user" { "assistant" } else { "user" };
    let fits = |role: &str| {
        Some(role) != before && Some(role) != after && (before.is_some() || role == "user")
    };
    if fits(preferred) {
        return (preferred, None);
    }
    if fits(other(preferred)) {
        return (other(preferred), None);
    }
    let first = match before {
        Some(role) => other(role),
        None => "user",
    };
    (first, Some(other(first)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_one_side() {
        let roles = [
            (0, Role::User),
            (1, Role::Assistant),
            (3, Role::Assistant),
            (4, Role::User),
            (5, Role::User),
            (7, Role::User),
            (8, Role::Assistant),
        ];
        assert_eq!(same_side_runs(roles), vec![1..4, 4..8]);
        assert!(same_side_runs([(0, Role::User), (1, Role::Assistant)]).is_empty());
        assert!(same_side_runs([]).is_empty());
    }

    #[test]
    fn only_anthropic_alternates() {
        use crate::formats::registry::alternates;
        use crate::transcript::Format;
        assert!(alternates(Format::Anthropic));
        assert!(!alternates(Format::OpenAi));
        assert!(!alternates(Format::AiSdk));
        assert!(!alternates(Format::Text));
    }

    #[test]
    fn a_replacement_takes_the_role_that_keeps_the_order() {
        assert_eq!(
            arrange("assistant", Some("user"), Some("user")),
            ("assistant", None)
        );
        assert_eq!(
            arrange("assistant", Some("assistant"), Some("user")),
            ("user", Some("assistant"))
        );
        assert_eq!(
            arrange("assistant", None, Some("assistant")),
            ("user", None)
        );
    }
}
