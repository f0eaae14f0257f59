//! Steps over whitespace in a JSON text, either way: between the tokens whose places the pass
//! knows and the ones it looks for (a colon, a comma, a bracket).

/// JSON's whitespace.
fn is_whitespace(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The position of the first byte from `at` on that is not whitespace.
pub(super) fn skip_whitespace(bytes: &[u8], at: usize) -> Option<usize> {
    Some(at + bytes.get(at..)?.iter().position(|&b| !is_whitespace(b))?)
}

/// The position of the last byte before `at` that is not whitespace, when it is `byte`.
pub(super) fn before_whitespace(bytes: &[u8], at: usize, byte: u8) -> Option<usize> {
    let found = bytes.get(..at)?.iter().rposition(|&b| !is_whitespace(b))?;
    (bytes.get(found) == Some(&byte)).then_some(found)
}

/// The position just past the last byte before `at` that is not whitespace.
pub(super) fn end_before(bytes: &[u8], at: usize) -> Option<usize> {
    Some(bytes.get(..at)?.iter().rposition(|&b| !is_whitespace(b))? + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_steps() {
        let bytes = b" [ 1 ,\n\t2 ] ";
        assert_eq!(skip_whitespace(bytes, 0), Some(1));
        assert_eq!(skip_whitespace(bytes, 2), Some(3));
        assert_eq!(skip_whitespace(bytes, 12), None);
        assert_eq!(before_whitespace(bytes, 12, b']'), Some(10));
        assert_eq!(before_whitespace(bytes, 8, b','), Some(5));
        assert_eq!(end_before(bytes, 5), Some(4));
        assert_eq!(end_before(b"  ", 2), None);
    }
}
