//! Where a policy's fields come from: a host's options object, read through [`FieldSource`]. The
//! binding implements it over a JS object; [`JsonFields`] implements it over a JSON object. Both
//! go through the same reading and checks ([`super::setting`]).

use crate::api::input::Scalar;
use crate::error::{CompactionError, Result};
use crate::policy::pressure::json_type;
use serde_json::{Map, Value};

/// A host's options object, field by field. Errors are relative to the object (`autoContextPct
/// ...`); a caller adds its own prefix (`policy.`).
pub trait FieldSource {
    /// The names of the fields the host set, in the object's order.
    fn keys(&self) -> Result<Vec<String>>;
    /// Field `name` as a [`Scalar`] ([`Scalar::Missing`] when absent).
    fn scalar(&self, name: &'static str) -> Result<Scalar>;
    /// Field `name` as a nested object; `None` when absent, an error naming `name` when it is
    /// not an object.
    fn object(&self, name: &'static str) -> Result<Option<Box<dyn FieldSource + '_>>>;
    /// Field `name` as a list of strings; `None` when absent, an error naming the field (or the
    /// element, `name[2]`) when it is not one.
    fn strings(&self, name: &'static str) -> Result<Option<Vec<String>>>;
}

/// A JSON object as a [`FieldSource`].
#[derive(Debug, Clone, Copy)]
pub struct JsonFields<'a>(pub &'a Map<String, Value>);

impl<'a> JsonFields<'a> {
    /// `value` as a source; an error when it is not an object.
    pub fn of(value: &'a Value) -> Result<Self> {
        value.as_object().map(JsonFields).ok_or_else(|| {
            CompactionError::type_error("", format!("must be an object, got {}", json_type(value)))
        })
    }
}

impl FieldSource for JsonFields<'_> {
    fn keys(&self) -> Result<Vec<String>> {
        Ok(self.0.keys().cloned().collect())
    }

    fn scalar(&self, name: &'static str) -> Result<Scalar> {
        Ok(Scalar::from_json_field(self.0, name))
    }

    fn object(&self, name: &'static str) -> Result<Option<Box<dyn FieldSource + '_>>> {
        let Some(value) = self.0.get(name) else {
            return Ok(None);
        };
        let fields = JsonFields::of(value).map_err(|error| error.under(name))?;
        Ok(Some(Box::new(fields)))
    }

    fn strings(&self, name: &'static str) -> Result<Option<Vec<String>>> {
        let Some(value) = self.0.get(name) else {
            return Ok(None);
        };
        let Value::Array(items) = value else {
            return Err(CompactionError::type_error(
                name,
                format!("must be an array, got {}", json_type(value)),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                Value::String(text) => Ok(text.clone()),
                other => Err(CompactionError::type_error(
                    format!("{name}[{index}]"),
                    format!("must be a string, got {}", json_type(other)),
                )),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }
}

/// Refuses a field of `keys` that is not in `known`: a renamed one with its new name, any
/// other with the list of known names.
pub fn reject_unknown(
    keys: &[String],
    known: &[&str],
    renamed: &[(&'static str, &'static str)],
) -> Result<()> {
    let Some(key) = keys.iter().find(|key| !known.contains(&key.as_str())) else {
        return Ok(());
    };
    let problem = match renamed.iter().find(|(old, _)| old == key) {
        Some((_, new)) => format!("was renamed to {new}"),
        None => format!("is not a known field; expected one of {}", known.join(", ")),
    };
    Err(CompactionError::type_error(key.as_str(), problem))
}
