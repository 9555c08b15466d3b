//! Property tests: the line and label readers take any text without panicking, and read
//! back the labels they write. `PROPTEST_CASES=100000 cargo test --release --test fuzz`
//! runs them longer than CI does.

use proptest::prelude::*;
use texel_data::{parse_line, LabelFormat};

/// Lines near the real ones: FEN-like fields from chess characters, then a label-like tail.
fn near_lines() -> impl Strategy<Value = String> {
    let board = "[pnbrqkPNBRQK1-8/]{0,70}";
    let side = "[wb-]{0,2}";
    let castling = "[KQkqA-Ha-h-]{0,5}";
    let ep = "([a-h][1-8]|-){0,1}";
    let counters = "([0-9]{1,12} ){0,3}";
    let label = "(\\[[0-9.+-]{0,6}\\]|c9 \"[0-9/.-]{0,8}\";|[01]-[01]|1/2-1/2|[0-9.+-]{0,8}|)";
    (board, side, castling, ep, counters, label)
        .prop_map(|(b, s, c, e, n, l)| format!("{b} {s} {c} {e} {n}{l}"))
}

proptest! {
    #[test]
    fn any_text_is_a_line_or_a_reason(line in "\\PC{0,200}", stm in any::<bool>()) {
        let _ = parse_line(&line, None, stm);
        let _ = parse_line(&line, Some(LabelFormat::C9), stm);
        let _ = parse_line(&line, Some(LabelFormat::Bracket), stm);
    }

    #[test]
    fn near_lines_are_a_line_or_a_reason(line in near_lines(), stm in any::<bool>()) {
        if let Ok((l, format)) = parse_line(&line, None, stm) {
            if let Some(text) = format.write(l.label) {
                prop_assert_eq!(format.read(&text), Some(l.label), "{}", line);
            }
        }
    }

    #[test]
    fn any_marlinformat_record_is_a_position_or_a_reason(bytes in proptest::array::uniform32(any::<u8>())) {
        if let Ok(l) = texel_data::marlin::read_record(&bytes) {
            // What was read writes back to a record that reads the same.
            let outcome = l.label.outcome().expect("a game result");
            let again = texel_data::marlin::write_record(&l.position, outcome, l.score.unwrap());
            let read = texel_data::marlin::read_record(&again).unwrap();
            prop_assert_eq!(read.position, l.position);
        }
    }

    #[test]
    fn any_bulletformat_record_is_a_position_or_a_reason(bytes in proptest::array::uniform32(any::<u8>())) {
        if let Ok(l) = texel_data::bullet::read_bytes(&bytes) {
            let outcome = l.label.outcome().expect("a game result");
            let again = texel_data::bullet::write_record(&l.position, outcome, l.score.unwrap());
            let read = texel_data::bullet::read_bytes(&again).unwrap();
            prop_assert_eq!(read.position, l.position);
        }
    }

    #[test]
    fn any_viriformat_game_reads_as_far_as_its_moves_are_legal(
        start in proptest::array::uniform32(any::<u8>()),
        moves in proptest::collection::vec(any::<u32>(), 0..40),
    ) {
        // Any start record and moves: positions up to the first bad move, then its reason.
        let mut game = start.to_vec();
        for m in &moves {
            game.extend(m.to_le_bytes());
        }
        game.extend([0; 4]);
        let read = texel_data::viri::positions(&game);
        let bad = read.iter().position(Result::is_err).unwrap_or(read.len());
        prop_assert!(bad + 1 >= read.len(), "nothing is read after a bad move");
    }

    #[test]
    fn any_label_text_is_read_or_refused(text in "\\PC{0,40}") {
        let _ = LabelFormat::detect(&text);
        for f in LabelFormat::ALL {
            let _ = f.read(&text);
        }
    }
}
