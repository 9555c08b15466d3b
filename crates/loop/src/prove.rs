//! A lab's kept subjects proven in games: each subject's tuned table played against the
//! base at fixed nodes as an SPRT on game pairs, so that an error drop is checked where it
//! counts. [`GameProver`] is the [`texel_lab::Prover`] of `texel lab --prove`.

use crate::error::{io, LoopError};
use crate::rounds::GATE_ADJUDICATION;
use crate::selfplay::all_cores;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use texel_arena::elo::Sprt;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::sprt::SprtTest;
use texel_arena::{run_match, MatchOptions};
use texel_eval::{Params, TermId};
use texel_lab::report::{apply, GameProof, KeepRule};
use texel_lab::{LabSpace, ProveError, Prover, SubjectKind, Verdict};

/// How a lab's kept subjects are played (`texel lab`'s `--prove` flags; as a serde record,
/// the same names).
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProveSettings {
    /// Play every kept subject (its tuned values) against the base at fixed nodes as an SPRT,
    /// and add its Elo, LLR and verdict to the reports. Games go to `OUT/prove/`; a rerun
    /// keeps finished games.
    #[cfg_attr(feature = "clap", arg(long))]
    pub prove: bool,
    /// The SPRT of each proof, as `texel match --sprt` (`ELO0,ELO1[,MODEL]`).
    #[cfg_attr(feature = "clap", arg(
        long,
        default_value = DEFAULT_PROVE_SPRT,
        allow_hyphen_values = true,
        value_name = "ELO0,ELO1[,MODEL]"
    ))]
    pub prove_sprt: SprtTest,
    /// Games of each proof at most; an SPRT still undecided then says so.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = ProveSettings::default().prove_games, allow_negative_numbers = true))]
    pub prove_games: u32,
    /// Nodes per move in the proofs.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = ProveSettings::default().prove_nodes, allow_negative_numbers = true))]
    pub prove_nodes: u64,
    /// Openings of the proofs (EPD/FEN or PGN lines; 2 seeded random plies are added).
    #[cfg_attr(feature = "clap", arg(long, default_value = crate::settings::DEFAULT_OPENINGS))]
    pub prove_openings: PathBuf,
    /// Games played at once (default: all cores).
    #[cfg_attr(feature = "clap", arg(long, allow_negative_numbers = true))]
    pub prove_threads: Option<usize>,
}

/// The SPRT of a proof when none is given.
const DEFAULT_PROVE_SPRT: &str = "0,5";

impl Default for ProveSettings {
    /// Every setting at its default (the flags' defaults are these).
    fn default() -> ProveSettings {
        ProveSettings {
            prove: false,
            prove_sprt: DEFAULT_PROVE_SPRT.parse().expect("valid bounds"),
            prove_games: 1000,
            prove_nodes: 1000,
            prove_openings: PathBuf::from(crate::settings::DEFAULT_OPENINGS),
            prove_threads: None,
        }
    }
}

/// Plays the proofs of a lab whose files are in `out`: each subject's games go to
/// `out/prove/SUBJECT.pgn` beside the two tables played.
pub struct GameProver<'s> {
    /// How the games are played.
    pub settings: &'s ProveSettings,
    /// The lab's folder.
    pub out: PathBuf,
}

impl Prover<Params> for GameProver<'_> {
    fn prove(
        &mut self,
        base: &Params,
        verdict: &Verdict,
        rule: &KeepRule,
        interrupt: &AtomicBool,
    ) -> Result<Option<GameProof>, ProveError> {
        Ok(self.prove_one(base, verdict, rule, interrupt)?)
    }
}

/// The two tables of a subject's proof: the subject's (the base with its tuned values; for
/// an ablation, the base) and its opponent's (the base; for an ablation, the base with the
/// term at zero).
fn tables(base: &Params, verdict: &Verdict, rule: &KeepRule) -> (Params, Params) {
    if verdict.kind == SubjectKind::Ablation {
        let mut without = base.clone();
        for (name, _) in &verdict.values {
            if let Some(t) = TermId::by_name(name) {
                without.zero_term(t);
            }
        }
        return (base.clone(), without);
    }
    let (with, _, _) = apply(LabSpace::Table, base, std::slice::from_ref(verdict), rule);
    (with, base.without_candidates())
}

/// A file name for a subject (`-ROOK_X` as `minus-ROOK_X`).
fn file_stem(subject: &str) -> String {
    subject.replace('-', "minus-").replace(['/', ' '], "_")
}

impl GameProver<'_> {
    /// Plays one subject's proof (keeping the finished games of an earlier run in its PGN).
    /// `None` when interrupted.
    fn prove_one(
        &self,
        base: &Params,
        verdict: &Verdict,
        rule: &KeepRule,
        interrupt: &AtomicBool,
    ) -> Result<Option<GameProof>, LoopError> {
        let dir = self.out.join("prove");
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        let stem = file_stem(&verdict.subject);
        let (subject, opponent) = tables(base, verdict, rule);
        let ours = dir.join(format!("{stem}.json"));
        let theirs = dir.join(format!("{stem}-opponent.json"));
        subject.save(&ours)?;
        opponent.save(&theirs)?;
        let mut options = self.options(
            &verdict.subject,
            (ours, theirs),
            &dir.join(format!("{stem}.pgn")),
        )?;
        options.continue_games()?;
        let report = run_match(&options, interrupt, &mut |_| {})?;
        if report.interrupted {
            return Ok(None);
        }
        let (pairing, test) = (&report.pairings[0], self.settings.prove_sprt);
        let sprt = report.sprt.unwrap_or(Sprt::Continue(0.0));
        let word = match sprt {
            Sprt::AcceptH1(_) => "H1",
            Sprt::AcceptH0(_) => "H0",
            Sprt::Continue(_) => "undecided",
        };
        Ok(Some(GameProof {
            wins: pairing.score.wins,
            draws: pairing.score.draws,
            losses: pairing.score.losses,
            elo: match pairing.paired {
                true => pairing.pairs.elo(),
                false => pairing.score.elo(),
            },
            llr: sprt.llr(),
            sprt: word.into(),
            test,
        }))
    }

    /// The match of `subject`'s table (`ours`) against its opponent's (`theirs`).
    fn options(
        &self,
        subject: &str,
        (ours, theirs): (PathBuf, PathBuf),
        pgn: &Path,
    ) -> Result<MatchOptions, LoopError> {
        let settings = self.settings;
        let nodes = TimeControl::Nodes(settings.prove_nodes);
        Ok(MatchOptions {
            engines: vec![
                EngineSpec::built_in(subject, Some(ours), nodes.clone()),
                EngineSpec::built_in("base", Some(theirs), nodes),
            ],
            round_robin: false,
            games: settings.prove_games,
            concurrency: settings.prove_threads.unwrap_or_else(all_cores),
            openings: texel_arena::openings::read_openings(&settings.prove_openings)?,
            random_plies: 2,
            seed: 1,
            adjudication: GATE_ADJUDICATION,
            pgn: Some(pgn.to_path_buf()),
            sprt: Some(settings.prove_sprt),
            event: format!("texel lab --prove {subject}"),
            first_round: 1,
            earlier: Vec::new(),
        })
    }
}
