//! [`settings_table!`]: declares a settings struct from one table of rows — Rust field, type,
//! default, JS name, [`Kind`](super::Kind) and doc — and derives from it the struct, its
//! `Default`, its field list, its reader, its checks and its description. A table can hold
//! another (a nested object such as `cache`): every table is itself a
//! [`Setting`](super::Setting) of kind `Object`.

/// See the module doc.
macro_rules! settings_table {
    (
        $(#[doc = $struct_doc:literal])+
        pub struct $name:ident {
            $(
                $(#[doc = $doc:literal])+
                $field:ident: $ty:ty = $default:expr, $js:literal, $kind:expr;
            )+
        }
    ) => {
        $(#[doc = $struct_doc])+
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $default, )+ }
            }
        }

        impl $name {
            /// Every field: JS name, kind and doc, in table order.
            pub const SPECS: &'static [$crate::config::FieldSpec] = &[
                $( $crate::config::FieldSpec { js: $js, kind: $kind, doc: concat!($($doc, "\n"),+) }, )+
            ];

            /// The option names a host may set, as they are spelled in JS.
            pub const FIELDS: &'static [&'static str] = &[ $( $js, )+ ];

            /// Reads every field `source` sets over the current values (no checks of values yet);
            /// refuses unknown and renamed fields.
            fn read_fields(
                &mut self,
                source: &dyn $crate::config::FieldSource,
                renamed: &[(&'static str, &'static str)],
            ) -> $crate::error::Result<()> {
                $crate::config::reject_unknown(&source.keys()?, Self::FIELDS, renamed)?;
                $(
                    if let Some(value) =
                        <$ty as $crate::config::Setting>::read(source, $js, $kind)?
                    {
                        self.$field = value;
                    }
                )+
                Ok(())
            }

            /// Checks every field against its kind.
            fn check_fields(&self) -> $crate::error::Result<()> {
                $( <$ty as $crate::config::Setting>::check(&self.$field, $js, $kind)?; )+
                Ok(())
            }

            /// Each field's value as the docs write it, in table order (`("autoContextPct",
            /// "0.7")`).
            pub fn describe(&self) -> Vec<(&'static str, String)> {
                vec![ $( ($js, <$ty as $crate::config::Setting>::describe(&self.$field)), )+ ]
            }
        }

        /// A nested table: read from an object field, its errors under the field's name.
        impl $crate::config::Setting for $name {
            fn read(
                source: &dyn $crate::config::FieldSource,
                js: &'static str,
                _: $crate::config::Kind,
            ) -> $crate::error::Result<Option<Self>> {
                let Some(fields) = source.object(js)? else {
                    return Ok(None);
                };
                let mut table = Self::default();
                table
                    .read_fields(&*fields, &[])
                    .map_err(|error| error.under(js))?;
                Ok(Some(table))
            }

            fn check(&self, js: &'static str, _: $crate::config::Kind) -> $crate::error::Result<()> {
                self.check_fields().map_err(|error| error.under(js))
            }

            fn describe(&self) -> String {
                let fields: Vec<String> = $name::describe(self)
                    .into_iter()
                    .map(|(js, value)| format!("{js}: {value}"))
                    .collect();
                format!("{{ {} }}", fields.join(", "))
            }
        }
    };
}

pub(crate) use settings_table;

#[cfg(test)]
#[allow(dead_code)] // the tables' other items are exercised by PolicyConfig's own tests
mod tests {
    use crate::config::{JsonFields, Kind, Setting};

    settings_table! {
        /// A nested table, as `cache` will be.
        pub struct Inner {
            /// Seconds.
            ttl_seconds: f64 = 300.0, "ttlSeconds", Kind::NonNegative;
            /// Steps.
            steps: u64 = 10, "steps", Kind::Integer { min: 1 };
        }
    }

    settings_table! {
        /// An outer table holding it.
        pub struct Outer {
            /// A fraction.
            pct: f64 = 0.5, "pct", Kind::Fraction;
            /// The nested object.
            inner: Inner = Inner::default(), "inner", Kind::Object { ts: "InnerConfig" };
        }
    }

    fn read(json: serde_json::Value) -> crate::error::Result<Outer> {
        let mut outer = Outer::default();
        outer.read_fields(&JsonFields::of(&json)?, &[])?;
        outer.check_fields()?;
        Ok(outer)
    }

    #[test]
    fn a_nested_object_is_read_checked_and_named() {
        let outer = read(serde_json::json!({"inner": {"ttlSeconds": 60}})).unwrap();
        assert_eq!(outer.inner.ttl_seconds, 60.0);
        assert_eq!(outer.inner.steps, 10, "absent fields keep their defaults");
        let error = read(serde_json::json!({"inner": {"steps": 0}})).unwrap_err();
        assert_eq!(
            error.to_string(),
            "inner.steps must be an integer >= 1, got 0"
        );
        let error = read(serde_json::json!({"inner": {"ttl": 1}})).unwrap_err();
        assert_eq!(error.path, "inner.ttl");
        let error = read(serde_json::json!({"inner": 5})).unwrap_err();
        assert_eq!(error.to_string(), "inner must be an object, got number");
        assert_eq!(
            Setting::describe(&Outer::default().inner),
            "{ ttlSeconds: 300, steps: 10 }"
        );
    }
}
