//! Property tests: the UCI loop takes any sequence of commands, well-formed or not, and
//! ends when its input does, without panicking or hanging. `PROPTEST_CASES=10000 cargo
//! test --release --test fuzz` runs it longer than CI does.

use proptest::prelude::*;

/// One command line: a real command with odd arguments, or any text.
fn command() -> impl Strategy<Value = String> {
    let moves = "( [a-h][1-8][a-h][1-8][qrbn]?){0,4}";
    let go_word = prop_oneof![
        (
            "(depth|nodes|movetime|wtime|btime|winc|binc|movestogo|mate)",
            "-?[0-9]{0,7}|x"
        )
            .prop_map(|(w, n)| format!("{w} {n}")),
        Just("infinite".to_string()),
        Just("ponder".to_string()),
        moves.prop_map(|m| format!("searchmoves{m}")),
    ];
    prop_oneof![
        prop::collection::vec(go_word, 0..4).prop_map(|w| format!("go {}", w.join(" "))),
        "[0-3]".prop_map(|d| format!("go perft {d}")),
        moves.prop_map(|m| format!("position startpos moves{m}")),
        "[pnbrqkPNBRQK1-8/]{0,40} [wb] [KQkq-]{1,4} -".prop_map(|f| format!("position fen {f}")),
        ("[A-Za-z_\\[\\].0-9]{0,24}", "-?[0-9]{0,12}|\\PC{0,6}")
            .prop_map(|(n, v)| format!("setoption name {n} value {v}")),
        Just("setoption name Hash value 1".to_string()),
        Just("isready".to_string()),
        Just("ucinewgame".to_string()),
        Just("stop".to_string()),
        Just("uci".to_string()),
        "\\PC{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: ProptestConfig::default().cases / 4, ..ProptestConfig::default() })]

    #[test]
    fn any_commands_end_with_the_input(lines in prop::collection::vec(command(), 0..8)) {
        let input = lines.join("\n") + "\n";
        let began = std::time::Instant::now();
        let startup = texel_search::uci::Startup::default();
        texel_search::uci::run(std::io::Cursor::new(input.clone()), std::io::sink(), startup)
            .unwrap();
        prop_assert!(began.elapsed().as_secs() < 30, "{}", input);
    }
}
