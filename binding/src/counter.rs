//! `options.countTokens`: the host's tokenizer behind the core's infallible [`TokenCounter`].
//! A bad return value or a throw cannot be reported from `count`, so the first one is remembered
//! (the seed rule stands in meanwhile) and the whole call rejects with it afterwards.

use crate::errors;
use crate::host::{describe_thrown, type_name};
use compaction::error::{CompactionError, ErrorKind, describe_number};
use compaction::tokens::{SeedRule, TokenCounter};
use std::cell::RefCell;
use wasm_bindgen::JsValue;

/// A JS `(text: string) => number` callback.
pub struct JsCounter {
    callback: js_sys::Function,
    path: &'static str,
    /// The first failure, with the thrown value when there was one. Borrowed only inside
    /// `count` and `failure`, never across an `.await`.
    failure: RefCell<Option<(CompactionError, Option<JsValue>)>>,
    /// The window the call's lone surrogates crossed in: the host counts its own code units.
    window: std::cell::Cell<crate::surrogates::Window>,
}

impl JsCounter {
    /// Wraps `callback`; `path` names it in errors (`options.countTokens`).
    pub fn new(callback: js_sys::Function, path: &'static str) -> Self {
        Self {
            callback,
            path,
            failure: RefCell::new(None),
            window: std::cell::Cell::default(),
        }
    }

    /// Sets the window of the call's lone surrogates (see [`crate::surrogates`]).
    pub fn set_window(&self, window: crate::surrogates::Window) {
        self.window.set(window);
    }

    /// The JS error of the first failure, if any.
    pub fn failure(&self) -> Option<JsValue> {
        self.failure
            .borrow()
            .as_ref()
            .map(|(error, cause)| errors::to_js(error, cause.as_ref()))
    }

    fn remember(&self, error: CompactionError, cause: Option<JsValue>) {
        let mut failure = self.failure.borrow_mut();
        if failure.is_none() {
            *failure = Some((error, cause));
        }
    }
}

impl TokenCounter for JsCounter {
    fn count(&self, text: &str) -> u64 {
        let fallback = || SeedRule::default().count(text);
        if self.failure.borrow().is_some() {
            return fallback();
        }
        match self
            .callback
            .call1(&JsValue::UNDEFINED, &self.window.get().to_js(text))
        {
            Ok(value) => match value.as_f64() {
                Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9.0e15 => n as u64,
                other => {
                    let got = other.map_or_else(|| type_name(&value).to_string(), describe_number);
                    self.remember(
                        CompactionError::type_error(
                            self.path,
                            format!("must return an integer >= 0, got {got}"),
                        ),
                        None,
                    );
                    fallback()
                }
            },
            Err(thrown) => {
                self.remember(
                    CompactionError::new(
                        ErrorKind::Callback,
                        self.path,
                        format!("threw: {}", describe_thrown(&thrown)),
                    ),
                    Some(thrown),
                );
                fallback()
            }
        }
    }
}
