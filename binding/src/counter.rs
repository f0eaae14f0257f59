//! `options.countTokens`: the host's tokenizer behind the core's infallible [`TokenCounter`].
//! A bad return value or a throw cannot be reported from `count`, so the first one is remembered
//! (the seed rule stands in meanwhile) and the whole call rejects with it afterwards.

use crate::errors;
use crate::host::{describe_thrown, type_name};
use crate::surrogates::Window;
use compaction::error::{CompactionError, ErrorKind, describe_number};
use compaction::tokens::{SeedRule, TokenCounter};
use std::cell::{Cell, RefCell};
use wasm_bindgen::JsValue;

/// Where the callback is named in errors.
const PATH: &str = "options.countTokens";

/// A JS `(text: string) => number` callback.
pub struct JsCounter {
    callback: js_sys::Function,
    /// The first failure, with the thrown value when there was one. Borrowed only inside
    /// `count` and `failure`, never across an `.await`.
    failure: RefCell<Option<(CompactionError, Option<JsValue>)>>,
    /// The window the call's lone surrogates crossed in: the host counts its own code units.
    pub window: Cell<Window>,
}

impl JsCounter {
    /// Wraps `callback`.
    pub fn new(callback: js_sys::Function) -> Self {
        Self {
            callback,
            failure: RefCell::new(None),
            window: Cell::default(),
        }
    }

    /// The JS error of the first failure, if any.
    pub fn failure(&self) -> Option<JsValue> {
        let failure = self.failure.borrow();
        let (error, cause) = failure.as_ref()?;
        Some(errors::to_js(error, cause.as_ref()))
    }

    /// Counts `text` with the callback; the first failure is kept, and `None` stands for it.
    fn call(&self, text: &str) -> Option<u64> {
        if self.failure.borrow().is_some() {
            return None;
        }
        let (error, cause) = match self
            .callback
            .call1(&JsValue::UNDEFINED, &self.window.get().to_js(text))
        {
            Ok(value) => match value.as_f64() {
                Some(n) if crate::host::whole_count(n).is_some() => return Some(n as u64),
                other => {
                    let got = other.map_or_else(|| type_name(&value).to_string(), describe_number);
                    let problem = format!("must return an integer >= 0, got {got}");
                    (CompactionError::type_error(PATH, problem), None)
                }
            },
            Err(thrown) => {
                let problem = format!("threw: {}", describe_thrown(&thrown));
                (
                    CompactionError::new(ErrorKind::Callback, PATH, problem),
                    Some(thrown),
                )
            }
        };
        self.failure.borrow_mut().get_or_insert((error, cause));
        None
    }
}

impl TokenCounter for JsCounter {
    fn count(&self, text: &str) -> u64 {
        // After a failure, the seed rule stands in.
        self.call(text)
            .unwrap_or_else(|| SeedRule::default().count(text))
    }
}
