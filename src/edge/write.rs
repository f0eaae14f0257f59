//! Messages written as compact JSON straight into the output body, as serde_json's compact
//! writer writes them (`serde_json::to_string`), byte for byte. Through `to_string` each edited
//! message was a `String` of its own, grown as it was written and then copied into the body,
//! and its strings were escaped a byte at a time (strings are written by
//! [`crate::base::bytes::push_json_string`], which finds the plain runs between escapes eight bytes at a time).

use crate::base::bytes::push_json_string;
use serde_json::Value;

/// Appends `value` as compact JSON. Recursive: parsed values are at most 128 levels deep.
pub(crate) fn write_value(out: &mut String, value: &Value) -> serde_json::Result<()> {
    match value {
        Value::String(text) => push_json_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_value(out, item)?;
            }
            out.push(']');
        }
        Value::Object(fields) => {
            out.push('{');
            for (index, (name, item)) in fields.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_json_string(out, name);
                out.push(':');
                write_value(out, item)?;
            }
            out.push('}');
        }
        // Numbers (few in messages) and literals: serde_json's own spelling.
        other => out.push_str(&serde_json::to_string(other)?),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn written(value: &Value) -> String {
        let mut out = String::new();
        write_value(&mut out, value).expect("writes");
        out
    }

    #[test]
    fn escapes_as_serde_json() {
        let text =
            "a\"b\\c\nd\re\tf\u{8}g\u{c}h\u{0}i\u{1f}j\u{7f}é😀 \u{2028}plain text long enough/";
        for cut in 0..text.len() {
            if let Some(piece) = text.get(cut..) {
                let value = Value::String(piece.to_string());
                assert_eq!(
                    written(&value),
                    serde_json::to_string(&value).expect("writes")
                );
            }
        }
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z\"\\\\/\u{0}-\u{1f}\u{7f}\u{e9}\u{2028}\u{1F600}\\[\\]{},: ]{0,24}"
                .prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::vec(("[a-z\"\\\\\u{1}\u{e9}]{0,9}", inner), 0..5)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn writes_what_serde_json_writes(value in any_json()) {
            prop_assert_eq!(written(&value), serde_json::to_string(&value).expect("writes"));
        }
    }
}
