//! One owner's work inside a chunk: its recipients grouped into units (one
//! per distinct hop level, or one per recipient of a continuous row), the
//! path or fresh noise, the answers folded into the chunk's aggregates, and
//! its optional rows.

use super::aggregate::OwnerCell;
use super::chunk::{ChunkOut, Counts};
use super::config::Unreachable;
use super::plan::Plan;
use super::rows::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use crate::distance::{HopLevels, LevelRow, Workspace};
use crate::error::Result;
use crate::limits;
use crate::mechanism::{Mechanism, brownian_at, independent_noise, sample_owner_path};
use crate::post::Post;
use crate::process::laplace::laplace;
use crate::process::{NoisePath, Norm};
use crate::rng::{PrivRng, Purpose, rng_for};

/// Per-worker scratch, reused across owners.
pub(super) struct Scratch {
    pub(super) u: Vec<f64>,
    pub(super) y: Vec<f64>,
    pub(super) v: Vec<f64>,
    pub(super) path: NoisePath,
    pub(super) hop_unit: Vec<u32>,
    /// Per unit: u, raw, post(raw) (3n) of the current mechanism, for rows.
    pub(super) unit_vals: Vec<f64>,
    /// One answer's u, raw, post(raw).
    pub(super) vals: Vec<f64>,
    pub(super) unit_d: Vec<f64>,
    pub(super) unit_eps: Vec<f64>,
    pub(super) unit_count: Vec<u64>,
    pub(super) unit_bucket: Vec<usize>,
    pub(super) unit_node: Vec<u32>,
    pub(super) unit_noise: Vec<f64>,
    pub(super) vars: Vec<f64>,
    pub(super) order: Vec<u32>,
    pub(super) cells: Vec<OwnerCell>,
    pub(super) touched: Vec<usize>,
    pub(super) recs: Vec<(u32, u32)>,
    pub(super) recs_owner: u32,
    pub(super) unit_sq: Vec<f64>,
    pub(super) unit_scale: Vec<f64>,
    pub(super) eps_cache: Vec<f64>,
    pub(super) sigma_cache: Vec<(f64, f64)>,
    /// Buffers of `noise = discrete`.
    pub(super) disc: super::discrete_state::DiscreteScratch,
}

pub(super) struct Worker {
    pub(super) ws: Workspace,
    pub(super) s: Scratch,
}

/// Which optional outputs are being written (skip formatting the rest).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Wants {
    pub(super) jumps: bool,
    pub(super) owners: bool,
    pub(super) paths: bool,
    pub(super) ego: bool,
    pub(super) responses: bool,
}

pub(super) const UNIT_NONE: u32 = u32::MAX;

/// One owner's distances: hop levels (histogram, and a level row when
/// per-recipient work is needed) or a continuous `f64` row.
#[derive(Clone, Copy)]
pub(super) enum Dist<'r> {
    Levels(&'r HopLevels<'r>),
    Row(&'r [f64]),
}

/// One owner's work: units, answers, aggregates and rows.
impl Plan<'_> {
    pub(super) fn new_worker(&self) -> Worker {
        let n = self.model.dim;
        Worker {
            ws: self.distances.workspace(),
            s: Scratch {
                u: vec![0.0; n],
                y: vec![0.0; n],
                v: vec![0.0; n],
                path: NoisePath::empty(n),
                hop_unit: Vec::new(),
                unit_vals: Vec::new(),
                vals: Vec::new(),
                unit_d: Vec::new(),
                unit_eps: Vec::new(),
                unit_count: Vec::new(),
                unit_bucket: Vec::new(),
                unit_node: Vec::new(),
                unit_noise: Vec::new(),
                vars: Vec::new(),
                order: Vec::new(),
                cells: Vec::new(),
                touched: Vec::new(),
                recs: Vec::new(),
                recs_owner: u32::MAX,
                unit_sq: Vec::new(),
                unit_scale: Vec::new(),
                eps_cache: Vec::new(),
                sigma_cache: Vec::new(),
                disc: Default::default(),
            },
        }
    }

    /// ε at an integer distance, cached per worker (the map is fixed).
    pub(super) fn eps_at_hop(&self, cache: &mut Vec<f64>, d: usize) -> f64 {
        if d >= cache.len() {
            let from = cache.len();
            cache.extend((from..=d).map(|k| self.map.eps(k as f64)));
        }
        cache[d]
    }

    /// Collects the owner's recipients into units: one per distinct hop
    /// distance, from the level histogram (ε evaluated once per level), or
    /// one per recipient of a continuous row.
    pub(super) fn build_units(
        &self,
        s: &mut Scratch,
        owner: u32,
        dist: Dist<'_>,
        counts: &mut Counts,
    ) -> Result<()> {
        s.unit_d.clear();
        s.unit_eps.clear();
        s.unit_count.clear();
        s.unit_bucket.clear();
        s.unit_node.clear();
        let floor = self.config.unreachable == Unreachable::Floor;
        let eps_floor = self.map.eps_min().unwrap_or(f64::NAN);
        let mut unreachable = 0u64;
        match dist {
            Dist::Levels(lv) => {
                let hist = lv.hist();
                unreachable = lv.unreachable();
                s.hop_unit.clear();
                s.hop_unit.resize(hist.len(), UNIT_NONE);
                for (k, &c) in hist.iter().enumerate().skip(1) {
                    if c > 0 {
                        s.hop_unit[k] = s.unit_d.len() as u32;
                        s.unit_d.push(k as f64);
                        let e = self.eps_at_hop(&mut s.eps_cache, k);
                        s.unit_eps.push(e);
                        s.unit_count.push(c);
                        s.unit_bucket.push(k);
                    }
                }
                if unreachable > 0 && floor {
                    s.unit_d.push(f64::INFINITY);
                    s.unit_eps.push(eps_floor);
                    s.unit_count.push(unreachable);
                    s.unit_bucket.push(0);
                }
            }
            Dist::Row(row) => {
                for (j, &d) in row.iter().enumerate() {
                    if j as u32 == owner {
                        continue;
                    }
                    if !d.is_finite() {
                        unreachable += 1;
                        if !floor {
                            continue;
                        }
                    }
                    let e = if d.is_finite() {
                        self.map.eps(d)
                    } else {
                        eps_floor
                    };
                    s.unit_d.push(d);
                    s.unit_eps.push(e);
                    s.unit_count.push(1);
                    s.unit_bucket.push(self.buckets.index(d));
                    s.unit_node.push(j as u32);
                }
            }
        }
        if !floor {
            counts.skipped_unreachable += unreachable;
        }
        // Every level of the run inside the range where its sums stay finite
        // (limits: "The range of privacy levels").
        let delta = self.model.sensitivity;
        for (k, &e) in s.unit_eps.iter().enumerate() {
            if !limits::level_in_range(e, delta) {
                let d = s.unit_d[k];
                let at = if d.is_finite() {
                    format!("distance {}", limits::fmt_num(d))
                } else {
                    "unreachable members (answered at `eps_min`)".to_string()
                };
                if let Some(err) = limits::level_error(&self.map.spec(), e, &at, delta) {
                    return Err(err);
                }
            }
        }
        Ok(())
    }

    /// Calls `f(node, unit)` for every answered recipient, in node order.
    /// Hop levels need their level row (asked for by `process_chunk`).
    pub(super) fn each_recipient(
        &self,
        owner: u32,
        dist: Dist<'_>,
        hop_unit: &[u32],
        unit_d: &[f64],
        unit_node: &[u32],
        mut f: impl FnMut(u32, usize),
    ) {
        match dist {
            Dist::Levels(lv) => {
                let floor_unit = (self.config.unreachable == Unreachable::Floor
                    && unit_d.last().is_some_and(|d| !d.is_finite()))
                .then(|| unit_d.len() - 1);
                let row: LevelRow<'_> = lv
                    .row()
                    .expect("a level row is requested for per-recipient work");
                row.for_each(|v, l| {
                    if v == owner {
                        return;
                    }
                    match l {
                        Some(l) => f(v, hop_unit[l as usize] as usize),
                        None => {
                            if let Some(u) = floor_unit {
                                f(v, u)
                            }
                        }
                    }
                });
            }
            Dist::Row(_) => {
                for (k, &j) in unit_node.iter().enumerate() {
                    f(j, k);
                }
            }
        }
    }

    /// The independent baseline when no per-answer output is needed: the same
    /// draws in the same (node) order as the per-recipient route, summed per
    /// unit, so the aggregates are bitwise identical either way.
    pub(super) fn independent_sums(
        &self,
        s: &mut Scratch,
        owner: u32,
        dist: Dist<'_>,
        rng: &mut PrivRng,
    ) {
        let units = s.unit_eps.len();
        let n = self.model.dim;
        s.unit_sq.clear();
        s.unit_sq.resize(units, 0.0);
        s.unit_scale.clear();
        s.unit_scale
            .extend(s.unit_eps.iter().map(|&e| 1.0 / self.model.level(e)));
        let l1 = self.model.norm == Norm::L1;
        let Scratch {
            unit_sq,
            unit_scale,
            unit_eps,
            hop_unit,
            unit_d,
            unit_node,
            v,
            ..
        } = s;
        let mut draw = |k: usize| -> f64 {
            if l1 {
                let mut sq = 0.0;
                for _ in 0..n {
                    let x = laplace(rng, unit_scale[k]);
                    sq += x * x;
                }
                sq
            } else {
                independent_noise(&self.model, unit_eps[k], rng, v);
                v.iter().map(|x| x * x).sum()
            }
        };
        self.each_recipient(owner, dist, hop_unit, unit_d, unit_node, |_, k| {
            unit_sq[k] += draw(k);
        });
        for k in 0..units {
            let b = s.unit_bucket[k];
            if b >= s.cells.len() {
                s.cells.resize(b + 1, OwnerCell::default());
            }
            let cell = &mut s.cells[b];
            if cell.count == 0 {
                s.touched.push(b);
            }
            cell.count += s.unit_count[k];
            cell.sum_sq += s.unit_sq[k];
        }
    }

    /// Lists every answered recipient as (node, unit index), in node order,
    /// once per owner.
    pub(super) fn collect_recipients(&self, s: &mut Scratch, owner: u32, dist: Dist<'_>) {
        if s.recs_owner == owner {
            return;
        }
        s.recs.clear();
        s.recs_owner = owner;
        let Scratch {
            recs,
            hop_unit,
            unit_d,
            unit_node,
            ..
        } = s;
        self.each_recipient(owner, dist, hop_unit, unit_d, unit_node, |j, k| {
            recs.push((j, k as u32))
        });
    }

    pub(super) fn sigma(&self, cache: &mut Vec<(f64, f64)>, eps: f64) -> Result<f64> {
        if let Some(&(_, sg)) = cache.iter().find(|(e, _)| *e == eps) {
            return Ok(sg);
        }
        let sg = self.model.gaussian_sigma(eps)?;
        if cache.len() < 64 {
            cache.push((eps, sg));
        }
        Ok(sg)
    }

    /// Probability that a `bit` answer equals the owner's bits `u` at level
    /// `eps` (README "Correct bits"): per coordinate 1 − ½·e^{−ε/(2Δ)} for
    /// Laplace noise of scale Δ/ε (1-D, or ℓ1 whose coordinates are
    /// independent), Φ(1/(2σ)) for Gaussian noise; the product over the
    /// coordinates. NaN where there is no closed form (ℓ2 noise in n ≥ 2, a
    /// value off {0, 1}, post-processing other than `bit`).
    pub(super) fn correct_prob(&self, mech: Mechanism, eps: f64, sigma: f64, u: &[f64]) -> f64 {
        if self.post != Post::Bit || u.iter().any(|&x| x != 0.0 && x != 1.0) {
            return f64::NAN;
        }
        let n = self.model.dim as i32;
        let q = match mech {
            Mechanism::Gaussian => crate::process::calibration::normal_cdf(0.5 / sigma),
            _ if n == 1 || self.model.norm == Norm::L1 => {
                1.0 - 0.5 * (-0.5 * self.model.level(eps)).exp()
            }
            _ => return f64::NAN,
        };
        q.powi(n)
    }

    pub(super) fn process_owner(
        &self,
        s: &mut Scratch,
        wants: Wants,
        pos: usize,
        owner: u32,
        dist: Dist<'_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        self.values.value(owner, &mut s.u);
        s.recs_owner = u32::MAX;
        self.build_units(s, owner, dist, &mut out.counts)?;
        let label = self.graph.ids().label(owner).to_string();
        let recipients: u64 = s.unit_count.iter().sum();
        if recipients == 0 {
            out.counts.owners_without_recipients += 1;
            if wants.owners {
                for r in self.replicates.clone() {
                    out.owners.push(OwnerRow {
                        owner: label.clone(),
                        replicate: r,
                        recipients: 0,
                        distance_min: None,
                        distance_max: None,
                        eps_lo: None,
                        eps_hi: None,
                        jumps: 0,
                        jumps_expected: 0.0,
                    });
                }
            }
            return Ok(());
        }
        for r in self.replicates.clone() {
            self.process_replicate(s, wants, pos, owner, &label, r, recipients, dist, out)?;
        }
        Ok(())
    }

    /// One replicate of one owner: every mechanism, rows and cells.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn process_replicate(
        &self,
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
        if let Some(d) = &self.discrete {
            return self.process_replicate_discrete(
                d, s, wants, pos, owner, label, rep, recipients, dist, out,
            );
        }
        let n = self.model.dim;
        let seed = self.config.seed;
        let eps_lo = s.unit_eps.iter().copied().fold(f64::INFINITY, f64::min);
        let eps_hi = s.unit_eps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let units = s.unit_eps.len();
        s.unit_noise.resize(units * n, 0.0);
        let want_responses = wants.responses;
        let want_ego = wants.ego && self.ego.binary_search(&pos).is_ok();
        let bits = self.post == Post::Bit;
        let mut owner_jumps = 0u64;
        let mut owner_expected = 0.0;
        for (mi, &mech) in self.mechanisms.iter().enumerate() {
            // (Both cleared: a worker whose last owner failed half-way is
            // reused by the next chunk.)
            s.cells.clear();
            s.touched.clear();
            let first = mi == 0;
            let record_ego = want_ego && first;
            match mech {
                Mechanism::Correlated | Mechanism::Gaussian => {
                    s.vars.clear();
                    if mech == Mechanism::Correlated {
                        self.check_path_memory(eps_lo, eps_hi, wants.jumps)?;
                        let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Path);
                        sample_owner_path(&self.model, eps_lo, eps_hi, &mut rng, &mut s.path)?;
                        for k in 0..units {
                            let v = s.path.value_at(self.model.level(s.unit_eps[k]));
                            s.unit_noise[k * n..(k + 1) * n].copy_from_slice(v);
                        }
                        owner_jumps = s.path.num_jumps() as u64;
                        owner_expected = self.model.norm.jump_rate(n) * (eps_hi.ln() - eps_lo.ln());
                        if wants.jumps || (wants.paths && pos < self.config.path_owners) {
                            self.record_path(s, wants, pos, label, rep, out)?;
                        }
                    } else {
                        for k in 0..units {
                            let sg = self.sigma(&mut s.sigma_cache, s.unit_eps[k])?;
                            s.vars.push(sg * sg);
                        }
                        let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Gaussian);
                        brownian_at(n, &s.vars, &mut rng, &mut s.order, &mut s.unit_noise);
                        if wants.paths && pos < self.config.path_owners {
                            self.record_brownian(s, label, rep, out)?;
                        }
                    }
                    for k in 0..units {
                        let c = s.unit_count[k];
                        let e = s.unit_eps[k];
                        let v = &s.unit_noise[k * n..(k + 1) * n];
                        let theory = if mech == Mechanism::Gaussian {
                            n as f64 * s.vars[k]
                        } else {
                            self.model.laplace_mse(e)
                        };
                        let sigma = s.vars.get(k).map_or(f64::NAN, |v| v.sqrt());
                        let pc = if bits {
                            self.correct_prob(mech, e, sigma, &s.u)
                        } else {
                            0.0
                        };
                        let b = s.unit_bucket[k];
                        add_cell(
                            &mut s.cells,
                            &mut s.touched,
                            b,
                            c,
                            e,
                            v,
                            theory,
                            &s.u,
                            &self.post,
                            &mut s.y,
                        );
                        if bits {
                            add_correct_theory(&mut s.cells[b], c, pc);
                        }
                    }
                    if want_responses || record_ego {
                        // The per-level answer table: u, raw, post(raw) per unit.
                        s.unit_vals.clear();
                        for k in 0..units {
                            fill_answer(
                                &s.u,
                                &s.unit_noise[k * n..(k + 1) * n],
                                &self.post,
                                &mut s.vals,
                            );
                            s.unit_vals.extend_from_slice(&s.vals);
                        }
                        self.collect_recipients(s, owner, dist);
                        for &(j, k) in &s.recs {
                            let k = k as usize;
                            let vals = &s.unit_vals[k * 3 * n..(k + 1) * 3 * n];
                            let v = &s.unit_noise[k * n..(k + 1) * n];
                            let (d, e) = (s.unit_d[k], s.unit_eps[k]);
                            if record_ego {
                                ego_row(&mut out.ego, self, label, rep, j, d, e, v, vals);
                            }
                            if want_responses {
                                response_row(
                                    &mut out.responses,
                                    self,
                                    label,
                                    rep,
                                    j,
                                    d,
                                    e,
                                    mech,
                                    vals,
                                );
                            }
                        }
                    }
                }
                Mechanism::Independent => {
                    let mut rng = rng_for(seed, owner as u64, rep as u64, Purpose::Independent);
                    if !want_responses && !record_ego && self.post.is_none() {
                        self.independent_sums(s, owner, dist, &mut rng);
                    } else {
                        self.collect_recipients(s, owner, dist);
                        for &(j, k) in &s.recs {
                            let k = k as usize;
                            let e = s.unit_eps[k];
                            independent_noise(&self.model, e, &mut rng, &mut s.v);
                            let b = s.unit_bucket[k];
                            // ε and theory are added per unit below, exactly as for
                            // the other mechanisms, so the columns agree bitwise.
                            add_cell(
                                &mut s.cells,
                                &mut s.touched,
                                b,
                                1,
                                0.0,
                                &s.v,
                                0.0,
                                &s.u,
                                &self.post,
                                &mut s.y,
                            );
                            if record_ego || want_responses {
                                fill_answer(&s.u, &s.v, &self.post, &mut s.vals);
                                let d = s.unit_d[k];
                                if record_ego {
                                    ego_row(&mut out.ego, self, label, rep, j, d, e, &s.v, &s.vals);
                                }
                                if want_responses {
                                    response_row(
                                        &mut out.responses,
                                        self,
                                        label,
                                        rep,
                                        j,
                                        d,
                                        e,
                                        mech,
                                        &s.vals,
                                    );
                                }
                            }
                        }
                    }
                    for k in 0..units {
                        let c = s.unit_count[k] as f64;
                        let cell = &mut s.cells[s.unit_bucket[k]];
                        cell.sum_eps += c * s.unit_eps[k];
                        cell.sum_theory += c * self.model.laplace_mse(s.unit_eps[k]);
                        if bits {
                            let pc = self.correct_prob(mech, s.unit_eps[k], f64::NAN, &s.u);
                            add_correct_theory(cell, s.unit_count[k], pc);
                        }
                    }
                }
            }
            // Fold this owner's (and replicate's) cells into the chunk table.
            for &b in &s.touched {
                s.cells[b].fold_into(out.tables[mi].at(b));
                s.cells[b] = OwnerCell::default();
            }
            s.touched.clear();
            out.counts.responses += recipients;
        }
        out.counts.jumps += owner_jumps;
        out.counts.jumps_expected += owner_expected;
        if !wants.owners {
            return Ok(());
        }
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
        Ok(())
    }
}

/// Adds `count` answers' probability `p` of a correct bit (NaN: none known).
#[inline]
fn add_correct_theory(cell: &mut OwnerCell, count: u64, p: f64) {
    if p.is_nan() {
        cell.correct_undefined += count;
    } else {
        cell.correct_theory += count as f64 * p;
    }
}

/// `vals` = u, raw = u + v, post(raw).
#[inline]
fn fill_answer(u: &[f64], v: &[f64], post: &Post, vals: &mut Vec<f64>) {
    let n = u.len();
    vals.clear();
    vals.extend_from_slice(u);
    vals.extend(u.iter().zip(v).map(|(a, b)| a + b));
    vals.extend_from_within(n..2 * n);
    post.apply(&mut vals[2 * n..]);
}

/// Adds `count` identical answers with noise `v` at level `eps` to bucket `b`
/// of the owner's cells.
#[allow(clippy::too_many_arguments)]
#[inline]
fn add_cell(
    cells: &mut Vec<OwnerCell>,
    touched: &mut Vec<usize>,
    b: usize,
    count: u64,
    eps: f64,
    v: &[f64],
    theory: f64,
    u: &[f64],
    post: &Post,
    y: &mut [f64],
) {
    if b >= cells.len() {
        cells.resize(b + 1, OwnerCell::default());
    }
    let cell = &mut cells[b];
    if cell.count == 0 {
        touched.push(b);
    }
    let c = count as f64;
    let sq: f64 = v.iter().map(|x| x * x).sum();
    cell.count += count;
    cell.sum_eps += c * eps;
    cell.sum_sq += c * sq;
    cell.sum_theory += c * theory;
    if !post.is_none() {
        for ((yi, ui), vi) in y.iter_mut().zip(u).zip(v) {
            *yi = ui + vi;
        }
        post.apply(y);
        let psq: f64 = y.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
        if y == u {
            cell.post_exact += count;
        }
        cell.post_sq += c * psq;
    }
}

#[allow(clippy::too_many_arguments)]
fn ego_row(
    out: &mut Vec<EgoRow>,
    plan: &Plan<'_>,
    owner: &str,
    replicate: u32,
    j: u32,
    d: f64,
    eps: f64,
    v: &[f64],
    vals: &[f64],
) {
    let n = v.len();
    let correct = (plan.post == Post::Bit).then(|| u8::from(vals[2 * n..] == vals[..n]));
    out.push(EgoRow {
        owner: Some(owner.to_string()),
        replicate,
        recipient: plan.graph.ids().label(j).to_string(),
        distance: d,
        eps,
        error_norm: plan.model.norm.norm_of(v),
        correct,
        values: vals.to_vec(),
    });
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn response_row(
    out: &mut Vec<ResponseRow>,
    plan: &Plan<'_>,
    owner: &str,
    replicate: u32,
    j: u32,
    d: f64,
    eps: f64,
    mech: Mechanism,
    vals: &[f64],
) {
    out.push(ResponseRow {
        owner: owner.to_string(),
        replicate,
        recipient: plan.graph.ids().label(j).to_string(),
        distance: d,
        eps,
        mechanism: mech,
        values: vals.to_vec(),
    });
}

impl Plan<'_> {
    /// Writes the owner's path (paths.csv, first owners) and its jumps (jumps.csv).
    pub(super) fn record_path(
        &self,
        s: &Scratch,
        wants: Wants,
        pos: usize,
        label: &str,
        rep: u32,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let delta = self.model.sensitivity;
        for j in s.path.jumps().filter(|_| wants.jumps) {
            let eps = j.eps * delta;
            out.jumps.push(JumpRow {
                owner: label.to_string(),
                replicate: rep,
                eps,
                distance: self.map.distance_at(eps),
                jump_norm: j.size(self.model.norm),
            });
        }
        if wants.paths && pos < self.config.path_owners {
            for (e, v) in s.path.breakpoints() {
                out.paths.push(PathRow {
                    owner: label.to_string(),
                    replicate: Some(rep),
                    eps: e * delta,
                    v: v.to_vec(),
                });
            }
        }
        Ok(())
    }
}

impl Plan<'_> {
    /// paths.csv rows of a Gaussian owner: the Brownian path is continuous, so
    /// what exists of it are its values at the levels answered, ascending in ε.
    pub(super) fn record_brownian(
        &self,
        s: &Scratch,
        label: &str,
        rep: u32,
        out: &mut ChunkOut,
    ) -> Result<()> {
        let n = self.model.dim;
        let mut order: Vec<usize> = (0..s.unit_eps.len()).collect();
        order.sort_by(|&a, &b| s.unit_eps[a].total_cmp(&s.unit_eps[b]));
        for k in order {
            out.paths.push(PathRow {
                owner: label.to_string(),
                replicate: Some(rep),
                eps: s.unit_eps[k],
                v: s.unit_noise[k * n..(k + 1) * n].to_vec(),
            });
        }
        Ok(())
    }
}
