//! The held-out split by game: a position whose game is known is held out with its whole
//! game (seeded by the game's id within its source), so a game's positions are never on
//! both sides; a position without a game id is held out on its own, by its number, as
//! before game ids existed. Memory and streamed tunes, `error`, `compare` and the lab all
//! split through [`GameSplit`].

use crate::mix::{held_out, splitmix64};
use std::collections::HashSet;
use std::fmt;

/// Mixed into a game's key, so game ids and position numbers draw apart.
const GAMES: u64 = 0x9a3e_5c1d_0b7f_4e21;

/// The number a game's positions are drawn by: its id, kept apart per source (the same id
/// in two files is two games).
pub fn game_key(source: u64, game: u64) -> u64 {
    splitmix64(splitmix64(GAMES ^ source) ^ game)
}

/// What a run holds out for validation: a share of the games, and whether positions that
/// name no game are held out one by one at the same share.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HeldOut {
    /// Games (and, with `loose`, positions without a game id) in 1,000 held out.
    pub per_mille: u32,
    /// Positions without a game id are held out one by one (`--validate N` given); else
    /// they are all trained on.
    pub loose: bool,
}

impl HeldOut {
    /// Nothing held out.
    pub const NONE: HeldOut = HeldOut {
        per_mille: 0,
        loose: false,
    };

    /// What a run holds out unless told otherwise: a tenth of the games, so that wherever
    /// the positions name their games the run judges its table on games it never saw;
    /// positions that name none are all trained on.
    pub const DEFAULT: HeldOut = HeldOut {
        per_mille: 100,
        loose: false,
    };

    /// What `--validate PERCENT` asks: that share of the games and of the positions without
    /// a game id one by one; without it, [`HeldOut::DEFAULT`].
    pub fn asked(percent: Option<f64>) -> HeldOut {
        match percent {
            Some(percent) => HeldOut::share((percent * 10.0).round() as u32),
            None => HeldOut::DEFAULT,
        }
    }

    /// `per_mille` in 1,000 of the games, and of the positions without a game id one by one
    /// (`--validate N`).
    pub fn share(per_mille: u32) -> HeldOut {
        HeldOut {
            per_mille,
            loose: true,
        }
    }

    /// `per_mille` in 1,000 of the games only: positions without a game id are all trained
    /// on (a default run: a position held out beside its game's others says little).
    pub fn games(per_mille: u32) -> HeldOut {
        HeldOut {
            per_mille,
            loose: false,
        }
    }
}

impl Default for HeldOut {
    /// [`HeldOut::DEFAULT`].
    fn default() -> HeldOut {
        HeldOut::DEFAULT
    }
}

/// Which positions are held out, position by position in the data's order, and what the
/// split holds.
#[derive(Clone, Debug, Default)]
pub struct GameSplit {
    held_out: HeldOut,
    /// The games seen on each side (training, held out), by key.
    games: [HashSet<u64>; 2],
    /// The positions on each side.
    positions: [u64; 2],
    /// The positions without a game id, held out on their own.
    loose: u64,
}

impl GameSplit {
    /// A split holding out what `held_out` says.
    pub fn new(held_out: HeldOut) -> GameSplit {
        GameSplit {
            held_out,
            ..GameSplit::default()
        }
    }

    /// Whether the position numbered `index` among the data's positions, of game `game` of
    /// source `source` when known, is held out; counted.
    pub fn held(&mut self, source: u64, game: Option<u64>, index: u64) -> bool {
        let held = match game {
            Some(game) => {
                let key = game_key(source, game);
                let held = held_out(key, self.held_out.per_mille);
                self.games[usize::from(held)].insert(key);
                held
            }
            None => {
                self.loose += 1;
                self.held_out.loose && held_out(index, self.held_out.per_mille)
            }
        };
        self.positions[usize::from(held)] += 1;
        held
    }

    /// What the split holds.
    pub fn counts(&self) -> SplitCounts {
        SplitCounts {
            positions: self.positions,
            games: self.games.each_ref().map(|g| g.len() as u64),
            loose: self.loose,
            loose_held: self.held_out.loose,
            per_mille: self.held_out.per_mille,
        }
    }
}

/// What a held-out split holds: positions and games on each side (training, held out), and
/// the positions that carry no game id.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SplitCounts {
    /// Positions for training, held out.
    pub positions: [u64; 2],
    /// Games for training, held out (those whose positions carry an id).
    pub games: [u64; 2],
    /// Positions without a game id.
    pub loose: u64,
    /// Whether those are held out one by one (else all trained on).
    pub loose_held: bool,
    /// The share of the games asked to be held out, in 1,000.
    pub per_mille: u32,
}

impl SplitCounts {
    /// Whether there is nothing to say: nothing held out, and no position kept from it
    /// for want of a game id.
    pub fn nothing_held(&self) -> bool {
        let kept_from_it = !self.loose_held && self.loose > 0 && self.games[0] == 0;
        self.positions[1] == 0 && !kept_from_it && !self.no_game_fell_held()
    }

    /// Whether a share of the games was asked for and the positions name games, but none
    /// of them fell in it (too few games for the share).
    fn no_game_fell_held(&self) -> bool {
        self.per_mille > 0 && self.games[0] > 0 && self.games[1] == 0
    }

    /// The share asked, in percent (`10`, `12.5`).
    fn percent(&self) -> f64 {
        f64::from(self.per_mille) / 10.0
    }
}

impl fmt::Display for SplitCounts {
    /// `held out by game: 6,000 games (340,000 positions) for training, 1,000 games (57,000
    /// positions) held out`, with a line on positions without a game id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [train, held] = self.positions;
        if self.games.iter().any(|&g| g > 0) {
            let [g_train, g_held] = self.games;
            write!(
                f,
                "held out by game: {g_train} games ({train} positions) for training, \
                 {g_held} games ({held} positions) held out"
            )?;
            self.say_too_few_games(f)?;
        } else if self.loose_held {
            write!(
                f,
                "held out by position: {train} positions for training, {held} held out"
            )?;
        } else {
            write!(f, "nothing held out for validation")?;
        }
        match (self.loose, self.loose_held) {
            (0, _) => {}
            (n, true) => write!(
                f,
                "\n  {n} positions carry no game id (EPD `game N;`, a trace's `game`): they are \
                 held out one by one, so held-out positions may share games with training \
                 ones and the held-out error reads lower than on unseen games"
            )?,
            (n, false) if self.games[1] > 0 => write!(
                f,
                "\n  {n} positions carry no game id (EPD `game N;`, a trace's `game`): none of \
                 them is held out, so the held-out error judges the {} held-out games alone \
                 (--validate N holds them out too, one by one, beside their games' other \
                 positions)",
                self.games[1]
            )?,
            (n, false) => write!(
                f,
                "\n  {n} positions carry no game id (EPD `game N;`, a trace's `game`): none of \
                 them is held out, so nothing judges the tune on games it never saw \
                 (--validate N holds them out one by one, beside their games' other positions)"
            )?,
        }
        Ok(())
    }
}

impl SplitCounts {
    /// Says where the games are too few for the share asked: none fell in it, or every one.
    fn say_too_few_games(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [g_train, g_held] = self.games;
        let percent = self.percent();
        if self.no_game_fell_held() {
            write!(
                f,
                "\n  none of the {g_train} games fell in the held-out {percent}% share: nothing \
                 judges the tune on games it never saw (more games, or a larger share with \
                 --validate N, hold some out)"
            )?;
        } else if self.positions[0] == 0 && g_held > 0 {
            write!(
                f,
                "\n  every one of the {g_held} games fell in the held-out {percent}% share: none \
                 is left to train on (--validate 0 trains on every game and holds none out)"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_holds_out_a_tenth_of_the_games_unless_told_otherwise() {
        assert_eq!(HeldOut::asked(None), HeldOut::default());
        assert_eq!(HeldOut::default(), HeldOut::games(100));
        assert_eq!(HeldOut::asked(Some(12.5)), HeldOut::share(125));
        assert_eq!(HeldOut::asked(Some(0.0)).per_mille, 0);
    }

    #[test]
    fn a_games_positions_are_all_on_one_side() {
        let mut split = GameSplit::new(HeldOut::games(100));
        let mut side = std::collections::HashMap::new();
        for index in 0..50_000u64 {
            let game = index % 997;
            let held = split.held(0, Some(game), index);
            assert_eq!(*side.entry(game).or_insert(held), held, "game {game}");
        }
        let counts = split.counts();
        assert_eq!(counts.games[0] + counts.games[1], 997);
        assert!((60..140).contains(&counts.games[1]), "{counts:?}");
        assert_eq!(counts.loose, 0);
        assert!(counts.to_string().starts_with("held out by game: "));
    }

    #[test]
    fn too_few_games_for_the_share_say_what_is_held_out_and_what_to_do() {
        let held = |game: u64| held_out(game_key(0, game), 100);
        let kept = (0..).find(|&g| !held(g)).unwrap();
        let out = (0..).find(|&g| held(g)).unwrap();
        let split_of = |games: &[Option<u64>], share: HeldOut| {
            let mut split = GameSplit::new(share);
            for (i, &g) in games.iter().enumerate() {
                split.held(0, g, i as u64);
            }
            split.counts()
        };
        // One game that trains: nothing judges the tune, and the run says so.
        let one = split_of(&[Some(kept); 50], HeldOut::DEFAULT);
        assert!(!one.nothing_held());
        assert!(one
            .to_string()
            .contains("none of the 1 games fell in the held-out 10% share"));
        // One game held out: nothing trains, and the remedy is given.
        let all = split_of(&[Some(out); 50], HeldOut::DEFAULT);
        let said = all.to_string();
        assert!(said.contains("every one of the 1 games") && said.contains("--validate 0"));
        // Asked to hold nothing out: nothing to say.
        assert!(split_of(&[Some(kept); 50], HeldOut::share(0)).nothing_held());
        // Ids on some lines only: the held-out games judge, and the run says just that.
        let mut mixed = vec![Some(out); 10];
        mixed.extend([None; 10]);
        let said = split_of(&mixed, HeldOut::DEFAULT).to_string();
        assert!(said.contains("judges the 1 held-out games alone"), "{said}");
        assert!(!said.contains("never saw"), "{said}");
    }

    #[test]
    fn the_same_id_in_two_sources_is_two_games_and_loose_positions_split_as_before() {
        let keys: HashSet<u64> = (0..4).map(|s| game_key(s, 7)).collect();
        assert_eq!(keys.len(), 4);
        let mut split = GameSplit::new(HeldOut::share(300));
        for index in 0..1_000u64 {
            assert_eq!(split.held(0, None, index), held_out(index, 300));
        }
        let counts = split.counts();
        assert_eq!(counts.loose, 1_000);
        let said = counts.to_string();
        assert!(said.contains("1000 positions carry no game id"), "{said}");
        // Held out by game only (a default run), they all train, and the run says so.
        let mut split = GameSplit::new(HeldOut::games(300));
        assert!((0..1_000u64).all(|index| !split.held(0, None, index)));
        let said = split.counts().to_string();
        assert!(!split.counts().nothing_held() && said.contains("none of them is held out"));
    }
}
