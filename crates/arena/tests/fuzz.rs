//! Property tests: any `genfens` command line OpenBench (or anyone) sends is answered or
//! refused with a reason, never a panic or an allocation of what N asks before it is
//! checked; a small valid request gives exactly N distinct positions. `PROPTEST_CASES=10000
//! cargo test --release -p texel-arena --test fuzz` runs it longer than CI does.

use proptest::prelude::*;
use std::sync::Arc;
use texel_arena::genfens::{genfens, GenfensRequest, MAX_GENFENS};

/// A `genfens` line: the real words with odd values, or any text.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            "-?[0-9]{0,22}|x",
            "-?[0-9]{0,22}|\\PC{0,4}",
            "(None|none|no/such/file|\\PC{0,8})"
        )
            .prop_map(|(n, s, b)| format!("genfens {n} seed {s} book {b}")),
        "genfens( \\PC{0,12}){0,6}",
        "\\PC{0,60}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_genfens_line_is_read_or_refused(text in line()) {
        if let Ok(request) = text.parse::<GenfensRequest>() {
            prop_assert!(request.count <= MAX_GENFENS, "{}", text);
        }
    }

    #[test]
    fn a_small_request_gives_that_many_distinct_positions(count in 0usize..4, seed in any::<u64>()) {
        let request: GenfensRequest = format!("genfens {count} seed {seed} book None").parse().unwrap();
        let fens = genfens(&request, Arc::default()).unwrap();
        prop_assert_eq!(fens.len(), count);
        let distinct: std::collections::HashSet<&String> = fens.iter().collect();
        prop_assert_eq!(distinct.len(), count);
    }
}
