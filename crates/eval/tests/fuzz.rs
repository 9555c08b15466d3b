//! Property tests: parameter files of any text, and of the right keys with any values, are
//! read or refused with a reason, never a panic; what is read keeps every value within the
//! bound. `PROPTEST_CASES=100000 cargo test --release --test fuzz` runs them longer.

use proptest::prelude::*;
use texel_eval::params::in_bounds;
use texel_eval::{Params, TermId};

/// A JSON value that may or may not have a term's shape.
fn value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        any::<i64>().prop_map(serde_json::Value::from),
        (-20_000i64..20_000).prop_map(serde_json::Value::from),
        any::<f64>().prop_map(|x| serde_json::json!(x)),
        Just(serde_json::Value::Null),
        "\\PC{0,8}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(3, 64, 8, |inner| {
        prop::collection::vec(inner, 0..10).prop_map(serde_json::Value::from)
    })
}

proptest! {
    #[test]
    fn any_text_is_read_or_refused(text in "\\PC{0,300}") {
        let _ = Params::from_json_str(&text);
    }

    #[test]
    fn term_keys_with_any_values_are_read_or_refused(
        entries in prop::collection::vec((0..TermId::all().count(), value()), 0..6)
    ) {
        let names: Vec<&str> = TermId::all().map(|t| t.info().name).collect();
        let body: Vec<String> = entries
            .iter()
            .map(|(t, v)| format!("{}: {v}", serde_json::Value::from(names[*t])))
            .collect();
        let text = format!("{{{}}}", body.join(", "));
        if let Ok(p) = Params::from_json_str(&text) {
            prop_assert!(p.flat().iter().all(|&v| in_bounds(v)));
        }
    }
}
