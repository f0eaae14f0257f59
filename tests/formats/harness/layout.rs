//! How the harness writes the expected files it updates: JSON, each value on one line when it
//! fits in [`WIDTH`] columns, else one line per element or field, so a change shows as a short
//! diff of the lines it touches.

use serde_json::Value;

/// The widest line a value is kept whole on (wider values open up one level at a time).
const WIDTH: usize = 100;

/// `value` laid out, with a final newline.
pub fn write(value: &Value) -> String {
    let mut out = String::new();
    write_at(value, 0, 0, &mut out);
    out.push('\n');
    out
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Writes `value` starting at `column`, its closing bracket (when it opens up) at `indent`.
fn write_at(value: &Value, indent: usize, column: usize, out: &mut String) {
    let whole = compact(value);
    let opens = match value {
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => !fields.is_empty(),
        _ => false,
    };
    if !opens || column + whole.len() <= WIDTH {
        out.push_str(&whole);
        return;
    }
    let pad = " ".repeat(indent + 2);
    match value {
        Value::Array(items) => {
            out.push_str("[\n");
            for (at, item) in items.iter().enumerate() {
                out.push_str(&pad);
                write_at(item, indent + 2, indent + 2, out);
                out.push_str(if at + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&" ".repeat(indent));
            out.push(']');
        }
        Value::Object(fields) => {
            out.push_str("{\n");
            for (at, (key, item)) in fields.iter().enumerate() {
                out.push_str(&pad);
                out.push_str(&compact(&Value::String(key.clone())));
                out.push_str(": ");
                write_at(item, indent + 2, indent + 2 + key.len() + 4, out);
                out.push_str(if at + 1 < fields.len() { ",\n" } else { "\n" });
            }
            out.push_str(&" ".repeat(indent));
            out.push('}');
        }
        _ => out.push_str(&whole),
    }
}
