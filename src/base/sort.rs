//! A stable merge sort with small code. The standard library's sort is faster on large inputs
//! but brings several kilobytes of wasm per element type; the lists sorted here (edits, runs,
//! tool ids) are short or already in order.

/// `items` sorted stably by `key`.
pub(crate) fn sorted_by_key<T, K: Ord>(items: Vec<T>, key: &impl Fn(&T) -> K) -> Vec<T> {
    sorted_by(items, &|a: &T, b: &T| key(a) < key(b))
}

/// `items` sorted stably by `less` (no key is built: comparing borrowed text allocates nothing).
pub(crate) fn sorted_by<T>(items: Vec<T>, less: &impl Fn(&T, &T) -> bool) -> Vec<T> {
    if items.len() <= 1 {
        return items;
    }
    let mut left = items;
    let right = left.split_off(left.len() / 2);
    let (left, right) = (sorted_by(left, less), sorted_by(right, less));
    let mut merged = Vec::with_capacity(left.len() + right.len());
    let mut left = left.into_iter().peekable();
    let mut right = right.into_iter().peekable();
    loop {
        let take_right = match (left.peek(), right.peek()) {
            (Some(a), Some(b)) => less(b, a),
            (Some(_), None) => false,
            (None, Some(_)) => true,
            (None, None) => return merged,
        };
        merged.extend(if take_right {
            right.next()
        } else {
            left.next()
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn agrees_with_the_standard_stable_sort(items in proptest::collection::vec((0u8..8, any::<u16>()), 0..64)) {
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.0);
            prop_assert_eq!(sorted_by_key(items, &|item: &(u8, u16)| item.0), expected);
        }
    }
}
