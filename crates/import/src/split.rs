//! Splits a PGN stream into the text of single games, each with the line it starts on, so
//! games can be parsed by the workers and a bad game reported by its line number.

use std::io::BufRead;

/// One game's text and the input line (1-based) its first line is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct GameText {
    /// Line number of the game's first line.
    pub line: u64,
    /// The game's bytes, tags and movetext (and whatever follows up to the next game).
    pub text: Vec<u8>,
}

/// Reads games from PGN text. A game begins at a tag line (`[` first on the line) that
/// follows movetext, or at the first line after a line whose movetext ends the game with a
/// result (`1-0`, `0-1`, `1/2-1/2`, `*`): text between games is a game of its own, as the
/// PGN parser reads it. A `[` inside a `{ }` comment that spans lines begins nothing.
pub(super) struct Games<R> {
    input: R,
    line: u64,
    /// The tag line that ended the previous game, and its number.
    pending: Option<(u64, Vec<u8>)>,
}

impl<R: BufRead> Games<R> {
    pub(super) fn new(input: R) -> Self {
        Games {
            input,
            line: 0,
            pending: None,
        }
    }

    /// The next game, `None` at the end of the input.
    pub(super) fn next_game(&mut self) -> std::io::Result<Option<GameText>> {
        let mut game = GameText {
            line: 0,
            text: Vec::new(),
        };
        let (mut movetext, mut in_comment, mut ended) = (false, false, false);
        loop {
            let (number, line) = match self.pending.take() {
                Some(pending) => pending,
                None => {
                    let mut buf = Vec::new();
                    if self.input.read_until(b'\n', &mut buf)? == 0 {
                        return Ok((game.line > 0).then_some(game));
                    }
                    self.line += 1;
                    (self.line, buf)
                }
            };
            let body = line.trim_ascii_start();
            let tag = !in_comment && body.starts_with(b"[");
            if (tag && movetext) || (ended && !body.is_empty()) {
                self.pending = Some((number, line));
                return Ok(Some(game));
            }
            if !body.is_empty() {
                if game.line == 0 {
                    game.line = number;
                }
                if !tag {
                    movetext = true;
                    (in_comment, ended) = scan_movetext(body, in_comment);
                }
            }
            game.text.extend_from_slice(&line);
        }
    }
}

/// Scans a movetext line, given whether a `{ }` comment was open at its start: whether
/// one is open at its end, and whether the line's last token outside comments is a game
/// result. A `;` comment runs to the end of the line.
fn scan_movetext(line: &[u8], mut open: bool) -> (bool, bool) {
    let mut token = Vec::new();
    let mut last = Vec::new();
    for &b in line {
        match (open, b) {
            (true, b'}') => open = false,
            (true, _) => {}
            (false, b'{' | b';') => {
                if !token.is_empty() {
                    last = std::mem::take(&mut token);
                }
                if b == b';' {
                    break;
                }
                open = true;
            }
            (false, b) if b.is_ascii_whitespace() => {
                if !token.is_empty() {
                    last = std::mem::take(&mut token);
                }
            }
            (false, b) => token.push(b),
        }
    }
    if !token.is_empty() {
        last = token;
    }
    let result = matches!(&last[..], b"1-0" | b"0-1" | b"1/2-1/2" | b"*");
    (open, result && !open)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<(u64, String)> {
        let mut games = Games::new(text.as_bytes());
        std::iter::from_fn(|| games.next_game().unwrap())
            .map(|g| (g.line, String::from_utf8(g.text).unwrap()))
            .collect()
    }

    #[test]
    fn games_start_at_tags_after_movetext() {
        let text = "\n[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
                    [Event \"b\"]\n\n1. d4 {a comment\n[%clk 0:01:00] still 1-0} d5\n*\n\
                    garbage\n[Event \"c\"]\n1. c4 ; rest { of line\n[Result \"0-1\"]\n";
        let games = split(text);
        let starts: Vec<u64> = games.iter().map(|g| g.0).collect();
        assert_eq!(starts, vec![2, 7, 12, 13, 15]);
        assert!(games[1].1.ends_with("still 1-0} d5\n*\n"));
        assert_eq!(games[2].1, "garbage\n");
        assert!(games[3].1.ends_with("rest { of line\n"));
    }

    #[test]
    fn empty_input_has_no_games() {
        assert!(split("").is_empty());
        assert!(split("\n\n  \n").is_empty());
    }
}
