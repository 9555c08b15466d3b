//! An output line: the position as FEN, its game, the teacher's score as EPD `ce` (the side
//! to move's centipawns, as `texel import` writes it) and its win/draw/loss chances as
//! `wdl W D L;` (the side to move's, per mille), then the result as `[1.0]` (White's).

use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;
use texel_arena::uci::Analysis;
use texel_data::{write_game, LabelFormat, Labelled};

/// The line of `position` with what the teacher said of it (`None`: its result alone).
pub fn write_line(position: &Labelled, teacher: Option<&Analysis>) -> String {
    let fen = Fen::from_position(&position.position, EnPassantMode::Legal);
    let game = position.game.map_or(String::new(), write_game);
    let score = teacher.map_or(String::new(), |a| format!(" ce {};", a.score));
    let wdl = teacher
        .and_then(|a| a.wdl)
        .map_or(String::new(), |[w, d, l]| format!(" wdl {w} {d} {l};"));
    let label = LabelFormat::Bracket
        .write(position.label)
        .expect("a bracket writes every label");
    format!("{fen}{game}{score}{wdl} {label}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use texel_data::parse_line;

    #[test]
    fn a_line_reads_back_with_its_game_result_and_the_teachers_score() {
        let input = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40 game 17; ce 12; [0.5]";
        let (position, _) = parse_line(input, None, false).unwrap();
        let teacher = Analysis {
            score: -250,
            wdl: Some([10, 300, 690]),
            depth: Some(9),
        };
        let line = write_line(&position, Some(&teacher));
        assert_eq!(
            line,
            "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40 game 17; ce -250; wdl 10 300 690; [0.5]"
        );
        let (back, _) = parse_line(&line, None, false).unwrap();
        // `ce` is the side to move's view: black to move, so White's view is +250.
        assert_eq!(
            (back.score, back.game, back.label),
            (Some(250), Some(17), position.label)
        );
        let alone = write_line(&position, None);
        assert_eq!(alone, "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40 game 17; [0.5]");
    }
}
