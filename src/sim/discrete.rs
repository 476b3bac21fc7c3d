//! `noise = discrete` in the simulation (issue 25 item 2): one owner's
//! replicate under the exact integer chain of
//! [`process::discrete`](crate::process::discrete).
//!
//! The owner's value is rounded half up to the grid (û), each unit's level is
//! answered at its rung (the largest ladder level ≤ ε, never more private
//! than asked, never less), and the answer is y = (û + X)·γ, exact. The
//! correlated mechanism draws one chain per owner from its largest needed
//! rung (top) down through every rung to its smallest (memo §4); the
//! independent baseline draws fresh DL at each recipient's rung, in node
//! order. `eps` columns hold the rung used; `theory` is n·Var·γ² at the rung
//! plus the owner's squared rounding ‖γ·û − u‖² (the noise is independent of
//! the rounding).

use super::aggregate::OwnerCell;
use super::chunk::ChunkOut;

use super::discrete_state::DiscreteSim;
use super::owner::{Dist, Scratch, Wants};
use super::plan::Plan;
use super::rows::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::error::Result;
use crate::mechanism::Mechanism;
use crate::post::Post;
use crate::process::discrete::options::refuse_gaussian;
use crate::process::discrete::{DiscreteNoise, DiscretePath};
use crate::rng::Purpose;

impl Plan<'_> {
    /// The discrete noise of the plan (`None` for Laplace).
    pub(crate) fn discrete(&self) -> Option<&DiscreteSim> {
        self.discrete.as_ref()
    }
}

/// Adds `count` identical answers `y` (exact) to the owner's value `u` at the
/// used level `eps` to bucket `b`: squared error of y and of post(y).
#[allow(clippy::too_many_arguments)]
#[inline]
fn add_cell(
    cells: &mut Vec<OwnerCell>,
    touched: &mut Vec<usize>,
    b: usize,
    count: u64,
    eps: f64,
    sq: f64,
    theory: f64,
    post: Option<(&[f64], &[f64])>,
) {
    if b >= cells.len() {
        cells.resize(b + 1, OwnerCell::default());
    }
    let cell = &mut cells[b];
    if cell.count == 0 {
        touched.push(b);
    }
    let c = count as f64;
    cell.count += count;
    cell.sum_eps += c * eps;
    cell.sum_sq += c * sq;
    cell.sum_theory += c * theory;
    if let Some((p, u)) = post {
        let psq: f64 = p.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
        if p == u {
            cell.post_exact += count;
        }
        cell.post_sq += c * psq;
    }
}

/// y = (û + X)·γ exact, its error y − u and ‖y − u‖².
#[inline]
fn answer(noise: &DiscreteNoise, u: &[f64], uhat: &[i64], x: &[i64], y: &mut [f64]) -> Result<f64> {
    noise.answer_into(uhat, x, y)?;
    Ok(y.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum())
}

impl Plan<'_> {
    /// [`process_replicate`](Plan::process_replicate) under `noise = discrete`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn process_replicate_discrete(
        &self,
        d: &DiscreteSim,
        s: &mut Scratch,
        wants: Wants,
        pos: usize,
        owner: u32,
        label: &str,
        rep: u32,
        recipients: u64,
        dist: Dist<'_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let noise = &d.noise;
        let n = self.model.dim;
        let seed = self.config.seed;
        let units = s.unit_eps.len();
        let post_bit = self.post == Post::Bit;
        let bits = post_bit && s.u.iter().all(|&x| x == 0.0 || x == 1.0);
        let has_post = !self.post.is_none();
        let want_ego = wants.ego && self.ego.binary_search(&pos).is_ok();
        // Values on the grid, and the owner's squared rounding.
        let g = noise.grid().value();
        {
            let ds = &mut s.disc;
            ds.uhat.resize(n, 0);
            ds.x.resize(n, 0);
            ds.y.resize(n, 0.0);
            ds.err.resize(n, 0.0);
            super::discrete_bound::round_secret(noise, &s.u, &mut ds.uhat, label)?;
        }
        let round_sq: f64 = s
            .disc
            .uhat
            .iter()
            .zip(&s.u)
            .map(|(&h, &u)| (h as f64 * g - u).powi(2))
            .sum();
        // Each unit's rung, the level used and the theory there.
        let ds = &mut s.disc;
        ds.rungs.clear();
        ds.eps.clear();
        ds.theory.clear();
        ds.correct.clear();
        for &e in &s.unit_eps {
            let k = noise.rung_of(e)?;
            ds.rungs.push(k);
            ds.eps.push(noise.eps_of(k));
            ds.theory.push(noise.mse(k) + round_sq);
            let pc = if bits {
                let [f0, f1] = noise.bit_flip_probabilities(k)?;
                s.u.iter()
                    .map(|&b| 1.0 - if b == 1.0 { f1 } else { f0 })
                    .product()
            } else {
                f64::NAN
            };
            ds.correct.push(pc);
        }
        let top = ds.rungs.iter().copied().max().unwrap_or_default();
        let bottom = ds.rungs.iter().copied().min().unwrap_or_default();
        let eps_lo = noise.eps_of(bottom);
        let eps_hi = noise.eps_of(top);
        let mut owner_jumps = 0u64;
        let mut owner_expected = 0.0;
        for (mi, &mech) in self.mechanisms.iter().enumerate() {
            s.cells.clear();
            s.touched.clear();
            let record_ego = want_ego && mi == 0;
            let rows = wants.responses || record_ego;
            match mech {
                Mechanism::Correlated => {
                    let mut rng = d
                        .rng
                        .generator(seed, owner as u64, rep as u64, Purpose::Path)?;
                    noise.sample_path_into(top, bottom, &mut rng, &mut s.disc.path)?;
                    owner_jumps = s.disc.path.num_changes() as u64;
                    owner_expected = d.expected_changes(top, bottom);
                    self.record_discrete_path(noise, &s.disc.path, wants, pos, label, rep, out);
                    s.unit_vals.clear();
                    for k in 0..units {
                        let ds = &mut s.disc;
                        let x = ds.path.value_at(ds.rungs[k]).unwrap_or(&ds.x);
                        let sq = answer(noise, &s.u, &ds.uhat, x, &mut ds.y)?;
                        let post = if has_post {
                            ds.post.clear();
                            ds.post.extend_from_slice(&ds.y);
                            self.post.apply(&mut ds.post);
                            Some((ds.post.as_slice(), s.u.as_slice()))
                        } else {
                            None
                        };
                        let b = s.unit_bucket[k];
                        let c = s.unit_count[k];
                        add_cell(
                            &mut s.cells,
                            &mut s.touched,
                            b,
                            c,
                            ds.eps[k],
                            sq,
                            ds.theory[k],
                            post,
                        );
                        if post_bit {
                            add_correct(&mut s.cells[b], c, ds.correct[k]);
                        }
                        if rows {
                            // u, raw, post(raw) per unit.
                            s.unit_vals.extend_from_slice(&s.u);
                            s.unit_vals.extend_from_slice(&ds.y);
                            let at = s.unit_vals.len();
                            s.unit_vals.extend_from_slice(&ds.y);
                            self.post.apply(&mut s.unit_vals[at..]);
                        }
                    }
                    if rows {
                        self.collect_recipients(s, owner, dist);
                        for &(j, k) in &s.recs {
                            let k = k as usize;
                            let vals = &s.unit_vals[k * 3 * n..(k + 1) * 3 * n];
                            let e = s.disc.eps[k];
                            self.discrete_rows(
                                out,
                                wants,
                                record_ego,
                                label,
                                rep,
                                j,
                                s.unit_d[k],
                                e,
                                mech,
                                vals,
                            );
                        }
                    }
                }
                Mechanism::Independent => {
                    let mut rng =
                        d.rng
                            .generator(seed, owner as u64, rep as u64, Purpose::Independent)?;
                    self.collect_recipients(s, owner, dist);
                    let ds = &mut s.disc;
                    ds.sq.clear();
                    ds.sq.resize(units, 0.0);
                    for &(j, k) in &s.recs {
                        let k = k as usize;
                        noise.sample_fresh_into(ds.rungs[k], &mut rng, &mut ds.x)?;
                        let sq = answer(noise, &s.u, &ds.uhat, &ds.x, &mut ds.y)?;
                        if !has_post && !rows {
                            ds.sq[k] += sq;
                            continue;
                        }
                        let b = s.unit_bucket[k];
                        ds.post.clear();
                        ds.post.extend_from_slice(&ds.y);
                        self.post.apply(&mut ds.post);
                        let post = has_post.then_some((ds.post.as_slice(), s.u.as_slice()));
                        add_cell(&mut s.cells, &mut s.touched, b, 1, 0.0, sq, 0.0, post);
                        if rows {
                            s.vals.clear();
                            s.vals.extend_from_slice(&s.u);
                            s.vals.extend_from_slice(&ds.y);
                            s.vals.extend_from_slice(&ds.post);
                            self.discrete_rows(
                                out,
                                wants,
                                record_ego,
                                label,
                                rep,
                                j,
                                s.unit_d[k],
                                ds.eps[k],
                                mech,
                                &s.vals,
                            );
                        }
                    }
                    for k in 0..units {
                        let ds = &s.disc;
                        let b = s.unit_bucket[k];
                        let c = s.unit_count[k];
                        // ε, theory and the summed squares per unit (the
                        // per-answer cells above carry none of them).
                        add_cell(&mut s.cells, &mut s.touched, b, 0, 0.0, 0.0, 0.0, None);
                        let cell = &mut s.cells[b];
                        if !has_post && !rows {
                            cell.count += c;
                            cell.sum_sq += ds.sq[k];
                        }
                        cell.sum_eps += c as f64 * ds.eps[k];
                        cell.sum_theory += c as f64 * ds.theory[k];
                        if post_bit {
                            add_correct(cell, c, ds.correct[k]);
                        }
                    }
                }
                Mechanism::Gaussian => {
                    return Err(refuse_gaussian(
                        "mechanism",
                        "gaussian",
                        "correlated, independent or both",
                    ));
                }
            }
            for &b in &s.touched {
                s.cells[b].fold_into(out.tables[mi].at(b));
                s.cells[b] = OwnerCell::default();
            }
            s.touched.clear();
            out.counts.responses += recipients;
        }
        out.counts.jumps += owner_jumps;
        out.counts.jumps_expected += owner_expected;
        if wants.owners {
            let (dmin, dmax) = s
                .unit_d
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &d| {
                    (a.min(d), b.max(d))
                });
            out.owners.push(OwnerRow {
                owner: label.to_string(),
                replicate: rep,
                recipients,
                distance_min: Some(dmin),
                distance_max: Some(dmax),
                eps_lo: Some(eps_lo),
                eps_hi: Some(eps_hi),
                jumps: owner_jumps,
                jumps_expected: owner_expected,
            });
        }
        Ok(())
    }

    /// ego.csv and responses.csv rows of one answer (`vals` = u, raw, post).
    #[allow(clippy::too_many_arguments)]
    fn discrete_rows(
        &self,
        out: &mut ChunkOut,
        wants: Wants,
        ego: bool,
        label: &str,
        rep: u32,
        j: u32,
        d: f64,
        eps: f64,
        mech: Mechanism,
        vals: &[f64],
    ) {
        let n = vals.len() / 3;
        let recipient = self.graph.ids().label(j).to_string();
        if ego {
            let err: Vec<f64> = vals[n..2 * n]
                .iter()
                .zip(&vals[..n])
                .map(|(y, u)| y - u)
                .collect();
            let correct = (self.post == Post::Bit).then(|| u8::from(vals[2 * n..] == vals[..n]));
            out.ego.push(EgoRow {
                owner: Some(label.to_string()),
                replicate: rep,
                recipient: recipient.clone(),
                distance: d,
                eps,
                error_norm: self.model.norm.norm_of(&err),
                correct,
                values: vals.to_vec(),
            });
        }
        if wants.responses {
            out.responses.push(ResponseRow {
                owner: label.to_string(),
                replicate: rep,
                recipient,
                distance: d,
                eps,
                mechanism: mech,
                values: vals.to_vec(),
            });
        }
    }

    /// paths.csv rows (noise X·γ at every breakpoint, ascending) and
    /// jumps.csv rows (each change, at the lowest rung where the upper value
    /// holds) of a discrete path.
    #[allow(clippy::too_many_arguments)]
    fn record_discrete_path(
        &self,
        noise: &DiscreteNoise,
        path: &DiscretePath,
        wants: Wants,
        pos: usize,
        label: &str,
        rep: u32,
        out: &mut ChunkOut,
    ) {
        let g = noise.grid().value();
        let paths = wants.paths && pos < self.config.path_owners;
        if !paths && !wants.jumps {
            return;
        }
        let mut prev: Option<&[i64]> = None;
        for (k, v) in path.breakpoints() {
            let eps = noise.eps_of(k);
            if paths {
                out.paths.push(PathRow {
                    owner: label.to_string(),
                    replicate: Some(rep),
                    eps,
                    v: v.iter().map(|&x| x as f64 * g).collect(),
                });
            }
            if let (true, Some(p)) = (wants.jumps, prev) {
                let diff: Vec<f64> = v.iter().zip(p).map(|(a, b)| (a - b) as f64 * g).collect();
                out.jumps.push(JumpRow {
                    owner: label.to_string(),
                    replicate: rep,
                    eps,
                    distance: self.map.distance_at(eps),
                    jump_norm: self.model.norm.norm_of(&diff),
                });
            }
            prev = Some(v);
        }
    }
}

/// Adds `count` answers' probability `p` of a correct bit (NaN: none known).
#[inline]
fn add_correct(cell: &mut OwnerCell, count: u64, p: f64) {
    if p.is_nan() {
        cell.correct_undefined += count;
    } else {
        cell.correct_theory += count as f64 * p;
    }
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod tests;
