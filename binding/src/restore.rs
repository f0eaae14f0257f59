//! `restore` and `recallToolDefinition` in the binding: convert, call the core, convert back.

use super::{install_panic_hook, output, result_in, string_argument};
use crate::errors::{throw, throw_under};
use crate::fields::Fields;
use crate::skeleton::Originals;
use crate::surrogates::Window;
use compaction::api::result::ContextData;
use wasm_bindgen::prelude::*;

/// The exact input of the call that gave `result` (`{ messages | text | body, archive }`): its
/// archive undone. A chain of results restores step by step, newest first.
#[wasm_bindgen(js_name = restore)]
pub fn restore(result: JsValue) -> Result<JsValue, JsValue> {
    install_panic_hook();
    let under = throw_under("result");
    let fields = Fields::read(&result).map_err(under)?;
    let body = fields.get("body").map_err(under)?;
    // Read in one skeleton where the result is well shaped: binary values and URLs come back as
    // the host's own objects, lone surrogates as the host's code units.
    let read = result_in::restorable(&fields, &body);
    if !body.is_undefined() {
        let body = crate::host::js_string("body", &body).map_err(under)?;
        // The body crosses as `compactRequestBody`'s does; the archive's strings in the same
        // window (the first free one: the archive's strings are the body's).
        let (archive, window) = match read {
            Some((_, archive, originals)) => (archive, originals.window),
            None => (result_in::archive(&fields).map_err(under)?, Window::NONE),
        };
        let crossed = crate::surrogates::cross_request_body(&body, window);
        let body = crate::text::to_string(&crossed.text);
        let restored = compaction::edge::restore::restore_body(&body, &archive).map_err(under)?;
        return Ok(crossed.window.body_to_js(&restored, crossed.raw));
    }
    let (context, archive, originals) = match read {
        Some((context, archive, originals)) => (context, archive, Some(originals)),
        None => (
            result_in::context(&fields).map_err(under)?,
            result_in::archive(&fields).map_err(under)?,
            None,
        ),
    };
    match compaction::archive::restore::restore(&context, &archive).map_err(under)? {
        ContextData::Text(text) => Ok(Originals::window_of(originals.as_ref()).to_js(&text)),
        ContextData::Messages(messages) => {
            Ok(output::json_values(&messages, originals.as_ref()).into())
        }
    }
}

/// The `recall_archived` tool in `format`'s own shape, for the host to offer the model.
#[wasm_bindgen(js_name = recallToolDefinition)]
pub fn recall_tool_definition(format: JsValue) -> Result<JsValue, JsValue> {
    install_panic_hook();
    let name = string_argument("format", &format).map_err(throw)?;
    let format = result_in::format(&name).map_err(throw)?;
    let definition = compaction::archive::recall::recall_tool_definition(format).map_err(throw)?;
    Ok(output::json_value(&definition, None))
}
