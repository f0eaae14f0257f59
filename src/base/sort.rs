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
    // The merge sort runs once, on indices, through `dyn`: one copy of it in the wasm whatever
    // the element type (a generic one was instantiated per type, about 1 KB each); only this
    // permutation is per type.
    let mut order = sorted_indices(items.len(), &|a, b| less(&items[a], &items[b]));
    // Position `k` takes the item at `order[k]`: apply that in place, one cycle at a time (the
    // item first at `start` moves along its cycle until the position that wants it).
    let mut items = items;
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != start {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
    items
}

/// `0..len` sorted stably by `less` on indices: a merge sort, which keeps equal items in order.
fn sorted_indices(len: usize, less: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut scratch = Vec::with_capacity(len);
    let mut width = 1;
    while width < len {
        scratch.clear();
        for start in (0..len).step_by(2 * width) {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, middle);
            while left < middle && right < end {
                // Take from the right only when strictly less: ties keep their order.
                if less(order[right], order[left]) {
                    scratch.push(order[right]);
                    right += 1;
                } else {
                    scratch.push(order[left]);
                    left += 1;
                }
            }
            scratch.extend_from_slice(&order[left..middle]);
            scratch.extend_from_slice(&order[right..end]);
        }
        std::mem::swap(&mut order, &mut scratch);
        width *= 2;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn agrees_with_the_standard_stable_sort(items in proptest::collection::vec((0u8..8, any::<u16>()), 0..200)) {
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.0);
            prop_assert_eq!(sorted_by_key(items, &|item: &(u8, u16)| item.0), expected);
        }
    }
}
