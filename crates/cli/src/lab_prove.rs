//! `texel lab --prove`: every kept subject, with its tuned values, played against the base
//! at fixed nodes as an SPRT on game pairs, so that an error drop is checked in games.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use texel_arena::elo::Sprt;
use texel_arena::engine::{EngineSpec, TimeControl};
use texel_arena::sprt::SprtTest;
use texel_arena::{run_match, MatchOptions};
use texel_eval::Params;
use texel_tune::lab_report::{apply, GameProof, KeepRule, Proofs};
use texel_tune::{LabSpace, Verdict};

/// How the kept subjects are played.
#[derive(clap::Args, Clone, Debug)]
pub struct ProveArgs {
    /// Play every kept subject (its tuned values) against the base at fixed nodes as an SPRT,
    /// and add its Elo, LLR and verdict to the reports. Games go to `OUT/prove/`; a rerun
    /// keeps finished games.
    #[arg(long)]
    pub prove: bool,
    /// The SPRT of each proof, as `texel match --sprt` (`ELO0,ELO1[,MODEL]`).
    #[arg(
        long,
        default_value = "0,5",
        allow_hyphen_values = true,
        value_name = "ELO0,ELO1[,MODEL]"
    )]
    pub prove_sprt: SprtTest,
    /// Games of each proof at most; an SPRT still undecided then says so.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    pub prove_games: u32,
    /// Nodes per move in the proofs.
    #[arg(long, default_value_t = 1000, allow_negative_numbers = true)]
    pub prove_nodes: u64,
    /// Openings of the proofs (EPD/FEN or PGN lines; 2 seeded random plies are added).
    #[arg(long, default_value = "data/openings.epd")]
    pub prove_openings: PathBuf,
    /// Games played at once (default: all cores).
    #[arg(long, allow_negative_numbers = true)]
    pub prove_threads: Option<usize>,
}

/// The two tables of a subject's proof: the subject's (the base with its tuned values; for
/// an ablation, the base) and its opponent's (the base; for an ablation, the base with the
/// term at zero).
fn tables(base: &Params, verdict: &Verdict, rule: &KeepRule) -> (Params, Params) {
    if verdict.kind == texel_tune::SubjectKind::Ablation {
        let mut without = base.clone();
        for (name, _) in &verdict.values {
            if let Some(t) = texel_eval::TermId::by_name(name) {
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

/// Plays one subject's proof (keeping the finished games of an earlier run in its PGN).
/// `None` when interrupted.
fn prove_one(
    args: &ProveArgs,
    dir: &Path,
    base: &Params,
    verdict: &Verdict,
    rule: &KeepRule,
) -> Result<Option<GameProof>> {
    let stem = file_stem(&verdict.subject);
    let (subject, opponent) = tables(base, verdict, rule);
    let (ours, theirs) = (
        dir.join(format!("{stem}.json")),
        dir.join(format!("{stem}-opponent.json")),
    );
    subject.save(&ours)?;
    opponent.save(&theirs)?;
    let pgn = dir.join(format!("{stem}.pgn"));
    let nodes = TimeControl::Nodes(args.prove_nodes);
    let mut options = MatchOptions {
        engines: vec![
            EngineSpec::built_in(&verdict.subject, Some(ours), nodes.clone()),
            EngineSpec::built_in("base", Some(theirs), nodes),
        ],
        round_robin: false,
        games: args.prove_games,
        concurrency: crate::threads(args.prove_threads, "--prove-threads"),
        openings: texel_arena::openings::read_openings(&args.prove_openings)
            .with_context(|| format!("--prove-openings {}", args.prove_openings.display()))?,
        random_plies: 2,
        seed: 1,
        adjudication: texel_loop::GATE_ADJUDICATION,
        pgn: Some(pgn),
        sprt: Some(args.prove_sprt),
        event: format!("texel lab --prove {}", verdict.subject),
        first_round: 1,
        earlier: Vec::new(),
    };
    options.continue_games()?;
    let report = run_match(&options, crate::catch_interrupts()?, &mut |_| {})?;
    if report.interrupted {
        return Ok(None);
    }
    let score = report.pairings[0].score;
    let sprt = report.sprt.unwrap_or(Sprt::Continue(0.0));
    let verdict_word = match sprt {
        Sprt::AcceptH1(_) => "H1",
        Sprt::AcceptH0(_) => "H0",
        Sprt::Continue(_) => "undecided",
    };
    Ok(Some(GameProof {
        wins: score.wins,
        draws: score.draws,
        losses: score.losses,
        elo: match report.pairings[0].paired {
            true => report.pairings[0].pairs.elo(),
            false => score.elo(),
        },
        llr: sprt.llr(),
        sprt: verdict_word.into(),
        test: args.prove_sprt.to_string(),
    }))
}

/// Proves every kept subject in turn, printing each result. Returns the proofs, and whether
/// all were played (false when interrupted).
pub fn prove(
    args: &ProveArgs,
    out: &Path,
    base: &Params,
    verdicts: &[Verdict],
    rule: &KeepRule,
) -> Result<(Proofs, bool)> {
    let dir = out.join("prove");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let mut proofs = Proofs::new();
    for v in verdicts.iter().filter(|v| rule.keeps(v)) {
        let Some(p) = prove_one(args, &dir, base, v, rule)? else {
            return Ok((proofs, false));
        };
        let [games, elo, llr, words] = p.cells();
        say!(
            "{}: {games} in games, {elo} Elo, LLR {llr}: {words}",
            v.subject
        );
        proofs.insert(v.subject.clone(), p);
    }
    Ok((proofs, true))
}
