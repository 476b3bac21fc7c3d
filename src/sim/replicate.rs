//! One owner's answers under a noise family, written once for every family
//! (monomorphised): the owner's units get their levels (the family's:
//! ε/Δ, a variance, a rung), then per replicate and mechanism either one
//! path read at every unit (`correlated`; the Gaussian family's Brownian
//! path) or fresh noise per recipient (`independent`), folded into the
//! owner's cells with the closed-form theory, and the optional rows.
//!
//! Bitwise conventions kept from the engines this replaces: a unit's
//! `theory` is the family's MSE plus the owner's squared rounding (0 for the
//! f64 families); independent draws are made in node order from one
//! generator per owner and replicate, and summed per unit when no answer is
//! listed.

use super::chunk::ChunkOut;
use super::owner::{OnRecipients, Owner, Scratch, Wants, units_of};
use super::plan::Plan;
use super::rows::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::error::Result;
use crate::limits;
use crate::mechanism::Mechanism;
use crate::post::Post;
use crate::process::family::{NoiseFamily, StreamKey};
use crate::rng::Purpose;

impl Plan<'_> {
    /// The owner's secret as answered and every unit's level, ε used, theory
    /// and probability of a correct bit (once per owner: they do not depend
    /// on the replicate).
    pub(super) fn prepare_units<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &mut Scratch<F>,
        label: &str,
    ) -> Result<()> {
        let f = &mut s.f;
        let round_sq = fam.prepare(
            &s.u,
            &mut f.secret,
            crate::process::family::Whose::Owner(label),
        )?;
        let bits = self.post == Post::Bit && s.u.iter().all(|&x| x == 0.0 || x == 1.0);
        f.levels.clear();
        f.used.clear();
        f.theory.clear();
        f.correct.clear();
        for (k, &e) in s.unit_eps.iter().enumerate() {
            let level = match fam.level_cached(&mut f.level_cache, e, 64) {
                Ok(level) => level,
                // The family's refusal, naming the map and the distance.
                Err(err) => {
                    let d = s.unit_d[k];
                    let at = if d.is_finite() {
                        format!("distance {}", crate::limits::fmt_num(d))
                    } else {
                        "unreachable members (answered at `eps_min`)".to_string()
                    };
                    return Err(fam
                        .checked_level(e, &self.map.spec(), &at)
                        .err()
                        .unwrap_or(err));
                }
            };
            f.levels.push(level);
            f.used.push(fam.eps_used(e, level));
            f.theory.push(fam.mse(level) + round_sq);
            f.correct.push(if bits {
                fam.correct_prob(level, &s.u)?
            } else {
                f64::NAN
            });
        }
        crate::process::family::check_resolved(
            fam,
            &s.u,
            f.levels.iter().copied(),
            crate::process::family::Whose::Owner(label),
        )
    }

    /// One replicate of one owner: every mechanism, rows and cells.
    pub(super) fn process_replicate<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &mut Scratch<F>,
        wants: Wants,
        at: Owner<'_, '_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let (lo, hi) = extremes(&s.f.used);
        let mut owner_jumps = 0u64;
        let mut owner_expected = 0.0;
        let want_ego = wants.ego && self.ego.binary_search(&at.pos).is_ok();
        for (mi, &mech) in self.mechanisms.iter().enumerate() {
            // (Cleared: a worker whose last owner failed half-way is
            // reused by the next chunk.)
            s.cells.clear();
            // This owner's answers under this mechanism: ego rows or not.
            let wants = Wants {
                ego: want_ego && mi == 0,
                ..wants
            };
            match mech {
                Mechanism::Correlated | Mechanism::Gaussian => {
                    let (j, e) = self.answer_path(fam, s, wants, at, mech, out)?;
                    owner_jumps = j;
                    owner_expected = e;
                }
                Mechanism::Independent => {
                    self.answer_fresh(fam, s, wants, at, out)?;
                }
            }
            // Fold this owner's (and replicate's) cells into the chunk table.
            s.cells.fold_into(&mut out.tables[mi]);
            out.counts.responses += at.recipients;
        }
        out.counts.jumps += owner_jumps;
        out.counts.jumps_expected += owner_expected;
        if wants.owners {
            let (dmin, dmax) = extremes(&s.unit_d);
            out.owners.push(OwnerRow {
                owner: at.label.to_string(),
                replicate: at.rep,
                recipients: at.recipients,
                distance_min: Some(dmin),
                distance_max: Some(dmax),
                eps_lo: Some(lo),
                eps_hi: Some(hi),
                jumps: owner_jumps,
                jumps_expected: owner_expected,
            });
        }
        Ok(())
    }

    /// The owner's one path, read at every unit: cells and rows. Returns
    /// the path's changes and their expectation.
    fn answer_path<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &mut Scratch<F>,
        wants: Wants,
        at: Owner<'_, '_>,
        mech: Mechanism,
        out: &mut ChunkOut,
    ) -> Result<(u64, f64)> {
        let n = s.u.len();
        let units = s.unit_eps.len();
        let f = &mut s.f;
        let (lo, hi) = (extremes_at(&f.used, 0), extremes_at(&f.used, 1));
        let (lo, hi) = ((f.used[lo], f.levels[lo]), (f.used[hi], f.levels[hi]));
        let b = fam.path_breakpoints(lo.1, hi.1);
        if b > 0 {
            self.check_path_memory(lo.0, hi.0, b, wants.jumps)?;
        }
        let key = StreamKey::new(
            self.config.seed,
            u64::from(at.owner),
            u64::from(at.rep),
            fam.path_purpose(),
        );
        let mut rng = fam.generator(key)?;
        fam.sample_path(&f.levels, &mut rng, &mut f.path)?;
        let jumps = fam.changes(&f.path);
        let expected = fam.expected_changes(lo, hi);
        self.record_path(fam, s, wants, at, out);
        let rows = wants.responses || wants.ego;
        let f = &mut s.f;
        f.y.resize(n, 0.0);
        f.unit_vals.clear();
        for k in 0..units {
            let v = fam.read(&f.path, k, f.levels[k]);
            let sq = fam.answer(&s.u, &f.secret, v, &mut f.y)?;
            let b = s.unit_bucket[k];
            let post = post_of(&self.post, &f.y, &mut f.post);
            let cell = s.cells.add(
                b,
                s.unit_count[k],
                f.used[k],
                sq,
                f.theory[k],
                post.map(|p| (p, s.u.as_slice())),
            );
            if self.post == Post::Bit {
                cell.add_correct(s.unit_count[k], f.correct[k]);
            }
            if rows {
                // The per-level answer table: u, raw, post(raw) per unit.
                fill_answer(&s.u, &f.y, &self.post, &mut f.vals);
                f.unit_vals.extend_from_slice(&f.vals);
            }
        }
        if rows {
            self.collect_recipients(s, at.owner, at.dist);
            reserve_rows(out, wants, s.recs.len());
            let f = &mut s.f;
            // One error norm per level: every recipient of a level holds
            // the same answer.
            f.unit_err.clear();
            for k in 0..units {
                let vals = &f.unit_vals[k * 3 * n..(k + 1) * 3 * n];
                let v = fam.read(&f.path, k, f.levels[k]);
                f.unit_err.push(fam.error_norm(&s.u, &vals[n..2 * n], v));
            }
            let f = &s.f;
            for &(j, k) in &s.recs {
                let k = k as usize;
                let answer = Answer {
                    j,
                    d: s.unit_d[k],
                    eps: f.used[k],
                    mech,
                    vals: &f.unit_vals[k * 3 * n..(k + 1) * 3 * n],
                    err: f.unit_err[k],
                };
                self.answer_rows(out, wants, at, &answer);
            }
        }
        Ok((jumps, expected))
    }

    /// Fresh noise per recipient (the independent baseline), in node order
    /// from one generator per owner and replicate.
    fn answer_fresh<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &mut Scratch<F>,
        wants: Wants,
        at: Owner<'_, '_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let n = s.u.len();
        let units = s.unit_eps.len();
        let key = StreamKey::new(
            self.config.seed,
            u64::from(at.owner),
            u64::from(at.rep),
            Purpose::Independent,
        );
        let mut rng = fam.generator(key)?;
        let rows = wants.responses || wants.ego;
        // Without listed answers or post-processing, only the sums per unit.
        let sums_only = !rows && self.post.is_none();
        s.f.unit_sq.clear();
        s.f.unit_sq.resize(units, 0.0);
        if sums_only {
            // Drawn as the level row is read: no list of recipients.
            let sums = FreshSums {
                fam,
                u: &s.u,
                secret: &s.f.secret,
                levels: &s.f.levels,
                rng: &mut rng,
                sums: &mut s.f.unit_sq,
            };
            self.recipients(at.owner, at.dist, units_of!(s), sums)?;
        } else {
            self.collect_recipients(s, at.owner, at.dist);
        }
        let f = &mut s.f;
        f.noise.resize(n, F::Coord::default());
        f.y.resize(n, 0.0);
        if rows {
            reserve_rows(out, wants, s.recs.len());
        }
        let listed: &[(u32, u32)] = if sums_only { &[] } else { &s.recs };
        for &(j, k) in listed {
            let k = k as usize;
            fam.sample_fresh(f.levels[k], &mut rng, &mut f.noise)?;
            let sq = fam.answer(&s.u, &f.secret, &f.noise, &mut f.y)?;
            let b = s.unit_bucket[k];
            let post = post_of(&self.post, &f.y, &mut f.post);
            // ε and theory are added per unit below, as for the path, so the
            // columns agree bitwise.
            s.cells
                .add(b, 1, 0.0, sq, 0.0, post.map(|p| (p, s.u.as_slice())));
            if rows {
                fill_answer(&s.u, &f.y, &self.post, &mut f.vals);
                let answer = Answer {
                    j,
                    d: s.unit_d[k],
                    eps: f.used[k],
                    mech: Mechanism::Independent,
                    vals: &f.vals,
                    err: fam.error_norm(&s.u, &f.y, &f.noise),
                };
                self.answer_rows(out, wants, at, &answer);
            }
        }
        for k in 0..units {
            let b = s.unit_bucket[k];
            let c = s.unit_count[k];
            let cell = s.cells.add(b, 0, 0.0, 0.0, 0.0, None);
            if sums_only {
                cell.count += c;
                cell.sum_sq += f.unit_sq[k];
            }
            cell.sum_eps += c as f64 * f.used[k];
            cell.sum_theory += c as f64 * f.theory[k];
            if self.post == Post::Bit {
                cell.add_correct(c, f.correct[k]);
            }
        }
        Ok(())
    }

    /// paths.csv rows (the first owners' paths) and jumps.csv rows.
    fn record_path<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &Scratch<F>,
        wants: Wants,
        at: Owner<'_, '_>,
        out: &mut ChunkOut,
    ) {
        let f = &s.f;
        if wants.jumps {
            fam.jumps(&f.path, &mut |eps, size| {
                out.jumps.push(JumpRow {
                    owner: at.label.to_string(),
                    replicate: at.rep,
                    eps,
                    distance: self.map.distance_at(eps),
                    jump_norm: size,
                })
            });
        }
        if wants.paths && at.pos < self.config.path_owners {
            fam.breakpoints(&f.path, &f.levels, &s.unit_eps, &mut |eps, v| {
                out.paths.push(PathRow {
                    owner: at.label.to_string(),
                    replicate: Some(at.rep),
                    eps,
                    v: v.to_vec(),
                })
            });
        }
    }

    /// ego.csv and responses.csv rows of one answer.
    fn answer_rows(&self, out: &mut ChunkOut, wants: Wants, at: Owner<'_, '_>, a: &Answer<'_>) {
        let n = a.vals.len() / 3;
        let recipient = || self.graph.ids().label(a.j).to_string();
        if wants.ego {
            let correct =
                (self.post == Post::Bit).then(|| u8::from(a.vals[2 * n..] == a.vals[..n]));
            out.ego.push(EgoRow {
                owner: Some(at.label.to_string()),
                replicate: at.rep,
                recipient: recipient(),
                distance: a.d,
                eps: a.eps,
                error_norm: a.err,
                correct,
                values: a.vals.to_vec(),
            });
        }
        if wants.responses {
            out.responses.push(ResponseRow {
                owner: at.label.to_string(),
                replicate: at.rep,
                recipient: recipient(),
                distance: a.d,
                eps: a.eps,
                mechanism: a.mech,
                values: a.vals.to_vec(),
            });
        }
    }

    /// Refuses an owner's path over privacy levels `[eps_lo, eps_hi]` of
    /// `breakpoints` (a path per worker, and in `simulate` the jump rows of
    /// the chunks in flight) beyond the memory budget.
    pub(crate) fn check_path_memory(
        &self,
        eps_lo: f64,
        eps_hi: f64,
        breakpoints: u64,
        rows: bool,
    ) -> Result<()> {
        let t = limits::pool_threads();
        let b = breakpoints;
        let mut need = limits::bytes_of(&[limits::path_bytes(b, self.model.dim), t]);
        if rows {
            // 64 bytes per jumps.csv row, 64 owners per chunk, 4t chunks.
            need =
                need.saturating_add(limits::bytes_of(&[b, 64, crate::exec::CHUNK as u64, 4 * t]));
        }
        if need <= self.budget.bytes {
            return Ok(());
        }
        self.budget.check(
            "dim",
            format!(
                "{} (a path over ε from {} to {})",
                self.model.dim,
                limits::fmt_num(eps_lo),
                limits::fmt_num(eps_hi)
            ),
            need,
        )
    }
}

/// The independent baseline's sums per unit, drawn recipient by recipient
/// as they are visited ([`NoiseFamily::fresh_square_sums`]).
struct FreshSums<'a, F: NoiseFamily> {
    fam: &'a F,
    u: &'a [f64],
    secret: &'a [F::Coord],
    levels: &'a [F::Level],
    rng: &'a mut F::Rng,
    sums: &'a mut [f64],
}

impl<F: NoiseFamily> OnRecipients for FreshSums<'_, F> {
    type Out = Result<()>;
    #[inline]
    fn run(self, recs: impl Iterator<Item = (u32, u32)>) -> Result<()> {
        let units = recs.map(|(_, k)| k);
        self.fam
            .fresh_square_sums(self.u, self.secret, self.levels, units, self.rng, self.sums)
    }
}

/// Room for `answers` more rows in the outputs they go to (one owner's
/// `ego.csv` rows can be a whole graph's).
fn reserve_rows(out: &mut ChunkOut, wants: Wants, answers: usize) {
    if wants.ego {
        out.ego.reserve(answers);
    }
    if wants.responses {
        out.responses.reserve(answers);
    }
}

/// One answer for the rows: recipient, distance, ε used, mechanism, the
/// values u, raw, post(raw), and the error's norm.
struct Answer<'v> {
    j: u32,
    d: f64,
    eps: f64,
    mech: Mechanism,
    vals: &'v [f64],
    err: f64,
}

/// (min, max) of `xs`.
fn extremes(xs: &[f64]) -> (f64, f64) {
    xs.iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &d| {
            (a.min(d), b.max(d))
        })
}

/// The index of the smallest (`which` = 0) or largest (1) of `xs`, the first
/// of equals.
fn extremes_at(xs: &[f64], which: usize) -> usize {
    let mut best = 0;
    for (k, &x) in xs.iter().enumerate() {
        if (which == 0 && x < xs[best]) || (which == 1 && x > xs[best]) {
            best = k;
        }
    }
    best
}

/// post(y) into `buf`, or `None` without post-processing.
#[inline]
fn post_of<'b>(post: &Post, y: &[f64], buf: &'b mut Vec<f64>) -> Option<&'b [f64]> {
    if post.is_none() {
        return None;
    }
    buf.clear();
    buf.extend_from_slice(y);
    post.apply(buf);
    Some(buf.as_slice())
}

/// `vals` = u, raw = y, post(raw).
#[inline]
fn fill_answer(u: &[f64], y: &[f64], post: &Post, vals: &mut Vec<f64>) {
    let n = u.len();
    vals.clear();
    vals.extend_from_slice(u);
    vals.extend_from_slice(y);
    vals.extend_from_within(n..2 * n);
    post.apply(&mut vals[2 * n..]);
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod discrete_tests;
