//! How each kind of policy field is read from a [`FieldSource`], checked and described. The
//! table in [`super::policy`] names a [`Kind`] per field; the Rust type of the field decides how
//! it is stored ([`Setting`]).

use super::source::FieldSource;
use crate::api::input::{MAX_SAFE_INTEGER, optional_integer, optional_number};
use crate::base::decimal;
use crate::error::{Result, check_number};
use crate::policy::tier::Tier;

/// What values a field takes: its type and range, as the docs and the error texts say them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A number in [0, 1].
    Fraction,
    /// A finite number >= 0.
    NonNegative,
    /// A finite number >= 1.
    AtLeastOne,
    /// An integer in [min, 2^53 - 1].
    Integer {
        /// The least value accepted.
        min: u64,
    },
    /// An integer in [min, 2^32 - 1] (counts of characters and bytes; 32-bit on wasm32).
    Integer32 {
        /// The least value accepted.
        min: u64,
    },
    /// An object with one finite number >= 0 per tier.
    TierWeights,
    /// A list of strings.
    Strings,
    /// A nested object of its own table; `ts` is its TypeScript interface.
    Object {
        /// The interface `index.d.ts` declares for it.
        ts: &'static str,
    },
}

impl Kind {
    /// The TypeScript type of the field, as `index.d.ts` declares it.
    pub fn ts_type(self) -> &'static str {
        match self {
            Kind::Fraction
            | Kind::NonNegative
            | Kind::AtLeastOne
            | Kind::Integer { .. }
            | Kind::Integer32 { .. } => "number",
            Kind::TierWeights => "Partial<Record<Tier, number>>",
            Kind::Strings => "string[]",
            Kind::Object { ts } => ts,
        }
    }
}

/// One row of the policy table: everything a reader of the docs or a test needs to know of a
/// field besides its Rust name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The name in JS (`autoContextPct`).
    pub js: &'static str,
    /// Its values.
    pub kind: Kind,
    /// Its doc comment (the same text as the Rust field's).
    pub doc: &'static str,
}

/// A Rust type a policy field is stored as: how to read a host's value into it, check it and
/// print it.
pub trait Setting: Sized {
    /// Reads field `js` of `source`; `None` when absent (the default stays).
    fn read(source: &dyn FieldSource, js: &'static str, kind: Kind) -> Result<Option<Self>>;
    /// Checks the value against `kind`; errors name `js`.
    fn check(&self, js: &'static str, kind: Kind) -> Result<()>;
    /// The value as the docs write it (`0.7`, `["a"]`).
    fn describe(&self) -> String;
}

impl Setting for f64 {
    fn read(source: &dyn FieldSource, js: &'static str, _: Kind) -> Result<Option<Self>> {
        optional_number(js, source.scalar(js)?)
    }

    fn check(&self, js: &'static str, kind: Kind) -> Result<()> {
        let (ok, range) = match kind {
            Kind::Fraction => ((0.0..=1.0).contains(self), "a finite number in [0, 1]"),
            Kind::AtLeastOne => (*self >= 1.0, "a finite number >= 1"),
            _ => (*self >= 0.0, "a finite number >= 0"),
        };
        check_number(js, *self, self.is_finite() && ok, range).map(drop)
    }
    fn describe(&self) -> String {
        decimal::shortest(*self)
    }
}

/// Integer fields: read in `[0, max]` (the reader's error), then checked against `min`.
macro_rules! integer_setting {
    ($($ty:ty),*) => {$(
        impl Setting for $ty {
            fn read(source: &dyn FieldSource, js: &'static str, kind: Kind) -> Result<Option<Self>> {
                // The largest value, as the reader's error states it; in range by the reader's
                // check (max is at most the type's own).
                let max = match kind {
                    Kind::Integer32 { .. } => f64::from(u32::MAX),
                    _ => MAX_SAFE_INTEGER,
                };
                Ok(optional_integer(js, source.scalar(js)?, max)?.map(|v| v as $ty))
            }

            fn check(&self, js: &'static str, kind: Kind) -> Result<()> {
                let min = match kind {
                    Kind::Integer { min } | Kind::Integer32 { min } => min,
                    _ => 0,
                };
                // Only 0 is below a min of 0 or 1: printed as the integer it is.
                let range = format!("an integer >= {min}");
                check_number(js, *self as f64, *self as u64 >= min, &range).map(drop)
            }

            fn describe(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
integer_setting!(u32, u64, usize);

/// Per-tier weights, in [`Tier::ALL`] order.
impl Setting for [f64; 5] {
    fn read(source: &dyn FieldSource, js: &'static str, _: Kind) -> Result<Option<Self>> {
        let Some(weights) = source.object(js)? else {
            return Ok(None);
        };
        let names = Tier::ALL.map(Tier::as_str);
        let read = || -> Result<Self> {
            super::source::reject_unknown(&weights.keys()?, &names, &[])?;
            let mut out = Tier::ALL.map(Tier::default_cost_weight);
            for (slot, name) in out.iter_mut().zip(names) {
                if let Some(value) = optional_number(name, weights.scalar(name)?)? {
                    *slot = value;
                }
            }
            Ok(out)
        };
        read().map(Some).map_err(|error| error.under(js))
    }

    fn check(&self, js: &'static str, _: Kind) -> Result<()> {
        for (tier, weight) in Tier::ALL.iter().zip(self) {
            weight
                .check(tier.as_str(), Kind::NonNegative)
                .map_err(|error| error.under(js))?;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        let entries: Vec<String> = Tier::ALL
            .iter()
            .zip(self)
            .map(|(tier, weight)| format!("{tier} {}", weight.describe()))
            .collect();
        format!("{{ {} }}", entries.join(", "))
    }
}

/// An optional value: absent (or never set) is `None`, which the field's doc gives a meaning.
impl<T: Setting> Setting for Option<T> {
    fn read(source: &dyn FieldSource, js: &'static str, kind: Kind) -> Result<Option<Self>> {
        Ok(T::read(source, js, kind)?.map(Some))
    }
    fn check(&self, js: &'static str, kind: Kind) -> Result<()> {
        self.as_ref().map_or(Ok(()), |value| value.check(js, kind))
    }
    fn describe(&self) -> String {
        self.as_ref()
            .map_or_else(|| "unset".to_string(), |value| value.describe())
    }
}

impl Setting for Vec<String> {
    fn read(source: &dyn FieldSource, js: &'static str, _: Kind) -> Result<Option<Self>> {
        source.strings(js)
    }

    fn check(&self, _: &'static str, _: Kind) -> Result<()> {
        Ok(())
    }

    fn describe(&self) -> String {
        let quoted: Vec<String> = self.iter().map(|item| format!("{item:?}")).collect();
        format!("[{}]", quoted.join(", "))
    }
}
