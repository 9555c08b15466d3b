//! texel's own table as a [`Model`]: a linear parameter changes the cached sums of the
//! positions in its column only; a curve input those that count the curve values it moves;
//! where a formula reads the parameter, the formula is computed again from the position's
//! stored inputs. Error changes are summed per column block or per fixed chunk of touched
//! positions, in position order.

use super::{Dataset, Trial};
use crate::touch::{Combiner, Touch};
use rayon::prelude::*;
use texel_eval::params::{flat_params, Component};
use texel_eval::Params;
use texel_solve::RowSink;
use texel_solve::{Jacobian, Model, Move, Probes, Values};

/// Touched positions per parallel chunk of a probe.
const PROBE_CHUNK: usize = 4096;

/// The probing state of a descent over texel's table.
pub struct TableCache {
    /// King attack (white's minus black's) of every position under the current parameters.
    attacks: Vec<[i32; 2]>,
    /// Buffers that combine the touches of a probe.
    combiner: Combiner,
    /// The touches of the last probe of a value formulas or curves read: slot, delta.
    last_touches: Option<(usize, i32, Vec<Touch>)>,
}

/// What a move does to a touched position.
#[derive(Copy, Clone, Debug)]
struct Change {
    pos: u32,
    /// The change of its sums.
    sums: [i32; 2],
    /// Its new scale, where the scale rules read the moved value.
    scale: Option<u8>,
    /// Its new king attack, where the attack formula reads the moved value.
    attack: Option<[i32; 2]>,
}

impl Dataset {
    /// Change of the summed error if a parameter no formula reads moved by `delta`: the
    /// column's blocks are decoded in parallel, summed per block in order.
    fn probe_linear(&self, mv: Move<'_, Params>, errors: &[f64]) -> f64 {
        let (k, delta) = (mv.sigmoid, mv.delta);
        let blocks: Vec<f64> = (0..self.blocks(mv.slot))
            .into_par_iter()
            .map(|b| {
                let mut sum = 0.0;
                self.for_block(mv.slot, b, |pos, mid, end| {
                    let i = pos as usize;
                    let new = self.eval_with(i, [mid * delta, end * delta]);
                    sum += k.squared_error(new, self.target(i)) - errors[i];
                });
                sum
            })
            .collect();
        blocks.iter().sum()
    }

    /// What moving to `trial` does to a touched position, given its king attack now.
    #[inline]
    fn touched(&self, t: &Touch, attack: [i32; 2], trial: &Trial) -> Change {
        let (pos, i) = (t.pos, t.pos as usize);
        let sums = [t.mid, t.end];
        if !t.formula {
            return Change {
                pos,
                sums,
                scale: None,
                attack: None,
            };
        }
        let (sums, scale, attack) = self.formula_change(i, (sums, attack), trial);
        Change {
            pos,
            sums,
            scale: Some(scale),
            attack,
        }
    }

    /// The touches of `mv` (of a value formulas or curves read), reusing the last probe's.
    fn touches_of(&self, cache: &mut TableCache, mv: Move<'_, Params>) -> Vec<Touch> {
        match cache.last_touches.take() {
            Some((s, d, touches)) if (s, d) == (mv.slot, mv.delta) => touches,
            _ => self.touches(mv.slot, mv.delta, mv.values, &mut cache.combiner),
        }
    }

    /// What `mv` (of a value formulas or curves read) does to the positions it touches.
    fn changes(&self, cache: &mut TableCache, mv: Move<'_, Params>) -> Vec<Change> {
        let touches = self.touches_of(cache, mv);
        let moved = mv.values.moved(mv.slot, mv.delta);
        let trial = self.trial(&moved, mv.slot);
        let attacks = &cache.attacks;
        touches
            .par_chunks(PROBE_CHUNK)
            .flat_map_iter(|chunk| {
                let trial = &trial;
                chunk
                    .iter()
                    .map(move |t| self.touched(t, attacks[t.pos as usize], trial))
            })
            .collect()
    }

    /// What `mv` does to every position it touches: through the formulas and curves that
    /// read the value, or down its column.
    fn moved(&self, cache: &mut TableCache, mv: Move<'_, Params>) -> Vec<Change> {
        match self.read_by_formulas(mv.slot) {
            true => self.changes(cache, mv),
            false => self.column_changes(mv),
        }
    }

    /// What `mv` of a value no formula reads does to the positions of its column.
    fn column_changes(&self, mv: Move<'_, Params>) -> Vec<Change> {
        let mut moved = Vec::new();
        for b in 0..self.blocks(mv.slot) {
            self.for_block(mv.slot, b, |pos, mid, end| {
                let sums = [mid * mv.delta, end * mv.delta];
                moved.push(Change {
                    pos,
                    sums,
                    scale: None,
                    attack: None,
                })
            });
        }
        moved
    }
}

impl Model for Dataset {
    type Values = Params;

    fn len(&self) -> usize {
        Dataset::len(self)
    }

    fn slot_count(&self) -> usize {
        texel_eval::table::FLAT_LEN
    }

    fn target(&self, i: usize) -> f64 {
        Dataset::target(self, i)
    }

    fn set_targets(&mut self, targets: Vec<f32>) {
        assert_eq!(targets.len(), self.len(), "one target a position");
        for (i, target) in targets.into_iter().enumerate() {
            let label = texel_data::Label::from_score(f64::from(target));
            self.set_label(i, label.expect("targets are scores from 0 to 1"));
        }
    }

    fn eval(&self, i: usize) -> i32 {
        Dataset::eval(self, i)
    }

    fn rescore(&mut self, values: &Params) {
        Dataset::rescore(self, values);
    }

    fn sample(&self, n: usize) -> Self {
        Dataset::sample(self, n)
    }

    fn support(&self, slots: &[usize]) -> usize {
        Dataset::support(self, slots)
    }

    fn probe(&self, cache: &mut TableCache, mv: Move<'_, Params>, errors: &[f64]) -> f64 {
        if !self.read_by_formulas(mv.slot) {
            return self.probe_linear(mv, errors);
        }
        let touches = self.touches(mv.slot, mv.delta, mv.values, &mut cache.combiner);
        let moved = mv.values.moved(mv.slot, mv.delta);
        let trial = self.trial(&moved, mv.slot);
        let (k, attacks) = (mv.sigmoid, &cache.attacks);
        let chunks: Vec<f64> = touches
            .par_chunks(PROBE_CHUNK)
            .map(|chunk| {
                chunk
                    .iter()
                    .map(|t| {
                        let i = t.pos as usize;
                        let c = self.touched(t, attacks[i], &trial);
                        let new = match c.scale {
                            Some(scale) => self.eval_scaled(i, c.sums, scale),
                            None => self.eval_with(i, c.sums),
                        };
                        k.squared_error(new, self.target(i)) - errors[i]
                    })
                    .sum::<f64>()
            })
            .collect();
        // A probe that pays is applied next: it then needs the same touches.
        cache.last_touches = Some((mv.slot, mv.delta, touches));
        chunks.iter().sum()
    }

    fn apply(&mut self, cache: &mut TableCache, mv: Move<'_, Params>, errors: &mut [f64]) {
        for c in self.moved(cache, mv) {
            let i = c.pos as usize;
            self.shift_linear(i, c.sums);
            if let Some(scale) = c.scale {
                self.set_scale(i, scale);
            }
            if let Some(attack) = c.attack {
                cache.attacks[i] = attack;
            }
            errors[i] = mv
                .sigmoid
                .squared_error(Dataset::eval(self, i), Dataset::target(self, i));
        }
    }

    fn linear(&self, slot: usize) -> bool {
        !self.read_by_formulas(slot)
    }

    fn exact_eval(&self, i: usize) -> f64 {
        self.exact_eval_moved(i, [0, 0], self.scale(i))
    }
}

impl Probes for Dataset {
    type Cache = TableCache;

    fn cache(&self, values: &Params) -> TableCache {
        TableCache {
            attacks: self.attacks(values),
            combiner: Combiner::new(self.len()),
            last_touches: None,
        }
    }

    fn cache_bytes(cache: &TableCache) -> usize {
        8 * cache.attacks.capacity() + cache.combiner.memory_bytes()
    }

    fn refresh(&mut self, cache: &mut TableCache, values: &Params) {
        cache.attacks = self.rescore_keeping_attacks(values);
        cache.last_touches = None;
    }

    fn eval_moves(&self, cache: &mut TableCache, mv: Move<'_, Params>) -> Vec<(u32, f64)> {
        let mut moves: Vec<(u32, f64)> = (self.moved(cache, mv).iter())
            .map(|c| {
                let i = c.pos as usize;
                let scale = c.scale.unwrap_or(self.scale(i));
                let new = self.exact_eval_moved(i, c.sums, scale);
                (c.pos, new - self.exact_eval_moved(i, [0, 0], self.scale(i)))
            })
            .collect();
        moves.sort_unstable_by_key(|m| m.0);
        moves
    }
}

impl Jacobian for Dataset {
    /// A tapered parameter's middlegame value pairs with its endgame value.
    fn pairs_with_next(&self, slot: usize) -> bool {
        flat_params()[slot].component == Component::Mid
    }

    fn row_blocks(&self) -> usize {
        self.segment_count()
    }

    fn block_span(&self, b: usize) -> (usize, usize) {
        self.segment_positions(b)
    }

    fn block_rows<S: RowSink>(&self, b: usize, slots: &[usize], rows: &mut S) {
        let (start, len) = self.segment_positions(b);
        rows.begin(start, len);
        for (j, &slot) in slots.iter().enumerate() {
            self.for_block(slot, b, |pos, mid, end| {
                let [m, e] = self.slopes(pos as usize);
                rows.push(
                    pos as usize,
                    j as u32,
                    f64::from(mid) * m + f64::from(end) * e,
                );
            });
        }
    }
}
