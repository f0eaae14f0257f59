//! The policy's one table of fields (`src/config/policy.rs`) against what users read: every field
//! is declared in `js/index.d.ts` with its type and default, listed in the README with its
//! default, and refused with the error text its kind states.

use serde_json::json;
use tiered_compaction::PolicyConfig;
use tiered_compaction::config::{Kind, RENAMED};

fn read(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The body of `export interface PolicyConfig { ... }` in the declarations.
fn declared_policy() -> String {
    let types = read("js/index.d.ts");
    let start = types
        .find("export interface PolicyConfig {")
        .expect("PolicyConfig is declared");
    let end = start + types[start..].find("\n}").expect("closing brace");
    types[start..end].to_string()
}

/// The number right after `marker` in `text` (`Default 0.70.` → 0.7).
fn number_after(text: &str, marker: &str) -> Option<f64> {
    let rest = &text[text.find(marker)? + marker.len()..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    rest[..end].trim_end_matches('.').parse().ok()
}

#[test]
fn every_field_is_declared_with_its_type_and_default() {
    let declared = declared_policy();
    let defaults = PolicyConfig::default().describe();
    for (spec, (js, default)) in PolicyConfig::SPECS.iter().zip(&defaults) {
        assert_eq!(spec.js, *js);
        let line = format!("  {}?: {};", spec.js, spec.kind.ts_type());
        let at = declared
            .find(&line)
            .unwrap_or_else(|| panic!("index.d.ts lacks `{line}`"));
        // The doc comment just above the field states the default.
        let doc = &declared[declared[..at].rfind("/**").expect("a doc comment")..at];
        match spec.kind {
            Kind::TierWeights => assert!(doc.contains("TIER_COST_WEIGHT"), "{doc}"),
            Kind::Strings | Kind::Object { .. } => {
                assert!(doc.contains(&format!("Default {default}")), "{doc}")
            }
            _ => assert_eq!(
                number_after(doc, "Default "),
                default.parse::<f64>().ok(),
                "{js}: {doc}"
            ),
        }
    }
    // Nothing declared that the table does not have.
    let fields = declared.matches("?: ").count();
    assert_eq!(fields, PolicyConfig::SPECS.len(), "{declared}");
}

#[test]
fn the_readme_lists_every_field_with_its_default() {
    let readme = read("README.md");
    let start = readme
        .find("- **`PolicyConfig`**")
        .expect("the README's policy list");
    let list = &readme[start
        ..start
            + readme[start..]
                .find("\n- **")
                .unwrap_or(readme.len() - start)];
    let defaults = PolicyConfig::default().describe();
    for (spec, (js, default)) in PolicyConfig::SPECS.iter().zip(defaults) {
        let marker = format!("`{js}` ");
        assert!(list.contains(&marker), "README lacks {js}");
        match default.parse::<f64>() {
            Ok(number) => assert_eq!(number_after(list, &marker), Some(number), "{js}"),
            Err(_) if matches!(spec.kind, Kind::Object { .. }) => {
                assert!(
                    list.contains(&format!("{marker}`{default}`")),
                    "{js}: {default}"
                )
            }
            Err(_) if default.starts_with('[') => {
                assert!(list.contains(&format!("{marker}{default}")), "{js}")
            }
            Err(_) => assert!(list.contains(&format!("{marker}`{{ none,")), "{js}"),
        }
    }
    for (old, new) in RENAMED {
        assert!(list.contains(&format!("`{old}`")) && list.contains(&format!("`{new}`")));
    }
}

#[test]
fn each_kind_refuses_with_the_words_it_states() {
    for spec in PolicyConfig::SPECS {
        let (bad, expected) = match spec.kind {
            Kind::Fraction => (
                json!(2),
                "must be a finite number in [0, 1], got 2".to_string(),
            ),
            Kind::NonNegative => (
                json!(-1),
                "must be a finite number >= 0, got -1".to_string(),
            ),
            Kind::AtLeastOne => (
                json!(0.5),
                "must be a finite number >= 1, got 0.5".to_string(),
            ),
            Kind::Integer { min: 0 } => (
                json!(-1),
                "must be an integer in [0, 9007199254740991], got -1".to_string(),
            ),
            Kind::Integer32 { min: 0 } => (
                json!(1.5),
                "must be an integer in [0, 4294967295], got 1.5".to_string(),
            ),
            Kind::Integer { min } | Kind::Integer32 { min } => {
                (json!(0), format!("must be an integer >= {min}, got 0"))
            }
            Kind::TierWeights => (
                json!({"auto": -1}),
                "must be a finite number >= 0, got -1".to_string(),
            ),
            Kind::Strings => (json!(3), "must be an array, got number".to_string()),
            Kind::Object { .. } => (json!(3), "must be an object, got number".to_string()),
        };
        let error = PolicyConfig::from_json(&json!({ spec.js: bad })).expect_err(spec.js);
        assert!(error.path.starts_with(spec.js), "{error}");
        assert!(
            error.to_string().ends_with(&expected),
            "{}: {error}",
            spec.js
        );
    }
    for (old, new) in RENAMED {
        let error = PolicyConfig::from_json(&json!({ *old: 5 })).expect_err(old);
        assert_eq!(error.to_string(), format!("{old} was renamed to {new}"));
    }
}
