//! One engine process and the positions it scores: each searched from a cleared hash (so
//! a score does not depend on what the process saw before), the engine restarted after a
//! crash, a hang or an answer that is not UCI, and the position tried again.

use crate::settings::{LabelSettings, Teacher};
use shakmaty::Chess;
use std::time::Instant;
use texel_arena::engine::Failure;
use texel_arena::uci::{Analysis, UciProcess};

/// What the teacher made of one position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// The engine's analysis, or `None` when every try failed.
    pub analysis: Option<Analysis>,
    /// One line per failed try: what happened and what the engine said.
    pub complaints: Vec<String>,
}

/// An engine process of one thread, started when first needed.
pub struct Scorer {
    teacher: Teacher,
    engine: Option<UciProcess>,
}

impl Scorer {
    /// A scorer whose engine is started now.
    ///
    /// # Errors
    /// The engine does not start or is no UCI engine.
    pub fn start(teacher: &Teacher) -> Result<Scorer, Failure> {
        let mut scorer = Scorer {
            teacher: teacher.clone(),
            engine: None,
        };
        scorer.engine()?;
        Ok(scorer)
    }

    /// The running engine, started (with `UCI_ShowWDL` on where it is offered) if none runs.
    fn engine(&mut self) -> Result<&mut UciProcess, Failure> {
        if self.engine.is_none() {
            let t = &self.teacher;
            let named = |name: &str| (t.options.iter()).any(|(n, _)| n.eq_ignore_ascii_case(name));
            let mut engine = UciProcess::start(&t.cmd, &t.args, &t.options, t.hash_mb)?;
            if engine.offers("UCI_ShowWDL") && !named("UCI_ShowWDL") {
                engine.set_option("UCI_ShowWDL", "true")?;
            }
            self.engine = Some(engine);
        }
        Ok(self.engine.as_mut().expect("started above"))
    }

    /// Scores `pos` (written `fen`) with up to `settings.tries` tries.
    ///
    /// # Errors
    /// The engine cannot be started again after a failure: labelling cannot go on.
    pub fn score(
        &mut self,
        pos: &Chess,
        fen: &str,
        settings: &LabelSettings,
    ) -> Result<Verdict, Failure> {
        let mut complaints = Vec::new();
        for _ in 0..settings.tries.max(1) {
            let deadline = Instant::now() + settings.timeout;
            let go = settings.teacher.limit.go();
            let engine = self.engine()?;
            let tried = engine
                .new_game()
                .and_then(|()| engine.analyse(pos, fen, &go, deadline));
            match tried {
                Ok(analysis) => {
                    let analysis = Some(analysis);
                    return Ok(Verdict {
                        analysis,
                        complaints,
                    });
                }
                Err(failure) => {
                    let mut engine = self.engine.take().expect("running");
                    complaints.push(format!("{failure}{}", engine.words()));
                }
            }
        }
        Ok(Verdict {
            analysis: None,
            complaints,
        })
    }
}
