//! The library's one error type. Every rejection of input names the field path that caused it
//! (`pressure.contextPctUsed`, `messages[3].content`) so a host can fix its call without reading
//! our source. The binding layer maps [`ErrorKind`] to the JS error class.

use std::fmt;

/// Which JS error class an error becomes, and a coarse category for hosts that branch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A value has the wrong type or shape (becomes a JS `TypeError`).
    Type,
    /// A value has the right type but is out of range (becomes a JS `RangeError`).
    Range,
    /// The input could not be parsed (malformed JSON, unknown format).
    Parse,
    /// The host's callback (summariser, token counter) failed in a way that cannot be recovered.
    Callback,
}

impl ErrorKind {
    /// A stable machine-readable code, exposed to JS as `error.code`.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Type => "ERR_TC_INVALID_TYPE",
            ErrorKind::Range => "ERR_TC_OUT_OF_RANGE",
            ErrorKind::Parse => "ERR_TC_PARSE",
            ErrorKind::Callback => "ERR_TC_CALLBACK",
        }
    }
}

/// An error from any operation of the library: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactionError {
    /// Category, which decides the JS error class.
    pub kind: ErrorKind,
    /// Field path in the caller's terms, e.g. `messages[3].content` (empty when not about a field).
    pub path: String,
    /// The problem, phrased to follow the path: `must be a finite number in [0, 1], got NaN`.
    pub problem: String,
}

impl CompactionError {
    /// A wrong-type error at `path`.
    pub fn type_error(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::new(ErrorKind::Type, path, problem)
    }

    /// An out-of-range error at `path`.
    pub fn range_error(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::new(ErrorKind::Range, path, problem)
    }

    /// A parse error at `path`.
    pub fn parse_error(path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self::new(ErrorKind::Parse, path, problem)
    }

    /// An error of any kind at `path`.
    pub fn new(kind: ErrorKind, path: impl Into<String>, problem: impl Into<String>) -> Self {
        Self {
            kind,
            path: path.into(),
            problem: problem.into(),
        }
    }

    /// The same error with `prefix` put in front of its path (`pressure` + `turnCount`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.path = join_path(prefix, &self.path);
        self
    }
}

/// Joins a parent path and a child path: `join_path("messages[3]", "content")`.
pub fn join_path(parent: &str, child: &str) -> String {
    match (parent.is_empty(), child.is_empty()) {
        (true, _) => child.to_string(),
        (_, true) => parent.to_string(),
        _ if child.starts_with('[') => format!("{parent}{child}"),
        _ => format!("{parent}.{child}"),
    }
}

impl fmt::Display for CompactionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.problem)
        } else if self.problem.starts_with(':') {
            write!(f, "{}{}", self.path, self.problem)
        } else {
            write!(f, "{} {}", self.path, self.problem)
        }
    }
}

impl std::error::Error for CompactionError {}

/// Shorthand for results of this crate.
pub type Result<T, E = CompactionError> = std::result::Result<T, E>;

/// `value` if `ok`, else a range error at `path`: `must be {range}, got {value}` (as JS prints
/// it).
pub fn check_number(path: &str, value: f64, ok: bool, range: &str) -> Result<f64> {
    ok.then_some(value).ok_or_else(|| {
        CompactionError::range_error(
            path,
            format!("must be {range}, got {}", describe_number(value)),
        )
    })
}

/// Describes a number for an error message the way JS would print it (`NaN`, `Infinity`, `-1`).
pub fn describe_number(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        if value > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        crate::base::decimal::shortest(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_joins_path_and_problem() {
        let e = CompactionError::range_error("contextPctUsed", "must be in [0, 1], got NaN")
            .under("pressure");
        assert_eq!(
            e.to_string(),
            "pressure.contextPctUsed must be in [0, 1], got NaN"
        );
        let e = CompactionError::type_error("[3]", ": expected an object").under("messages");
        assert_eq!(e.to_string(), "messages[3]: expected an object");
    }
}
