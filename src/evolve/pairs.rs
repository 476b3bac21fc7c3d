//! Per-owner state of an evolving release and the arithmetic of one release
//! under the three policies, shared by the live run and the replay of a
//! resumed one (so both reach the same totals, bit for bit).
//!
//! Per (owner, recipient) pair the engine keeps the current distance, the
//! largest ε ever released and the `resample` policy's pooling sums. The
//! timeline's means are running sums over pairs: each owner's changes of a
//! batch are summed in recipient order into a [`Delta`], and the deltas are
//! added to the [`Totals`] in owner order — an order fixed by the data, not
//! by the threads.

use crate::error::Result;
use crate::process::discrete::DiscreteNoise;
use crate::process::{Norm, sample_marginal};
use crate::rng::{LANES, PrivRng, Purpose, StreamStart, rng_for_stream, stream_starts};
use crate::store::{Level, Levels, OwnerPath, StoreConfig, TimelineRow};
use rand::Rng;

/// What a release needs besides the pair: the levels (map, top, family),
/// the stream seed, the norm and dimension.
pub(crate) struct Ctx<'a> {
    pub levels: &'a Levels,
    pub seed: u64,
    pub norm: Norm,
    pub dim: usize,
}

impl<'a> Ctx<'a> {
    /// The context of a run of `config` at `levels`.
    pub fn of(levels: &'a Levels, config: &StoreConfig) -> Self {
        Ctx {
            levels,
            seed: config.seed,
            norm: config.norm,
            dim: config.dim,
        }
    }

    /// The level answered at distance `d` (0: no answer — unreachable, or
    /// out of range; for the discrete family a rung level).
    #[inline]
    pub fn eps(&self, d: f64) -> Result<f64> {
        self.levels.at(d)
    }

    /// Whether distance `d` puts a pair out of the answerable range
    /// ([`Levels::level`]).
    #[inline]
    pub fn skipped(&self, d: f64) -> Result<bool> {
        Ok(matches!(self.levels.level(d)?, Level::OutOfRange(_)))
    }

    /// The expected ‖y − u‖² of an answer at level `e` of an owner whose
    /// value rounds to the grid with squared error `round_sq`: n·c/ε² for
    /// Laplace (c the norm's factor), the discrete law's variance at the
    /// rung plus the rounding for the discrete family.
    #[inline]
    pub fn theory(&self, e: f64, round_sq: f64) -> Result<f64> {
        match self.levels.discrete() {
            None => Ok(self.norm.mse_factor(self.dim) / (e * e)),
            Some(noise) => Ok(noise.mse(noise.rung_of(e)?) + round_sq),
        }
    }

    /// The `resample` policy's generator of the pair (`owner`, `r`) in
    /// `batch`: the stream keyed (seed, owner, recipient, batch) — seeded
    /// whatever the paths' entropy (a policy measured, never released).
    pub fn resample_rng(&self, owner: u32, r: u32, batch: u64) -> PrivRng {
        rng_for_stream(self.seed, owner as u64, r as u64, Purpose::Resample, batch)
    }

    /// [`Ctx::resample_rng`] of [`LANES`] recipients of one owner, their
    /// first blocks computed together (the same words: `crate::rng`'s
    /// `stream_starts`).
    pub fn resample_rngs(&self, owner: u32, rs: [u32; LANES], batch: u64) -> [StreamStart; LANES] {
        stream_starts(
            self.seed,
            owner as u64,
            rs.map(u64::from),
            Purpose::Resample,
            batch,
        )
    }

    /// The `resample` policy's fresh answer at level `e`, as its error
    /// `x = y − u`, drawn from `rng` (the pair's [`Ctx::resample_rng`]);
    /// returns its pooling weight (1/variance, up to a common factor: ε²
    /// for Laplace).
    pub fn resample_into<R: Rng + ?Sized>(
        &self,
        e: f64,
        u: &[f64],
        x: &mut [f64],
        rng: &mut R,
    ) -> Result<f64> {
        match self.levels.discrete() {
            None => {
                sample_marginal(self.norm, e, x, rng);
                Ok(e * e)
            }
            Some(noise) => {
                let k = noise.rung_of(e)?;
                let mut draw = vec![0i64; u.len()];
                noise.sample_fresh_into(k, rng, &mut draw)?;
                let mut uhat = vec![0i64; u.len()];
                noise.round_into(u, &mut uhat)?;
                noise.answer_into(&uhat, &draw, x)?;
                for (xi, a) in x.iter_mut().zip(u) {
                    *xi -= a;
                }
                Ok(1.0 / noise.variance(k))
            }
        }
    }
}

/// ‖γ·û − u‖²: the squared rounding of `u` to the grid of `noise` (0
/// without one).
pub(crate) fn rounding_sq(noise: Option<&DiscreteNoise>, u: &[f64]) -> Result<f64> {
    let Some(noise) = noise else {
        return Ok(0.0);
    };
    let g = noise.grid();
    let mut s = 0.0;
    for &a in u {
        let d = g.value_of(i128::from(g.round(a)?))? - a;
        s += d * d;
    }
    Ok(s)
}

/// One owner: its path and its pairs' state (indexed by recipient).
pub(crate) struct OwnerState {
    pub owner: u32,
    /// Current distance to every node (∞: unreachable).
    pub dist: Vec<f64>,
    /// Largest ε released to each recipient (0: never).
    pub max_eps: Vec<f64>,
    /// `resample`: Σ ε² over the pair's answers.
    pub sum_w: Vec<f64>,
    /// `resample`: Σ ε²·x over the pair's answers (x = answer − u), n per pair.
    pub sum_wx: Vec<f64>,
    pub path: OwnerPath,
    /// The owner's value, and its squared rounding to the grid (discrete
    /// family; 0 otherwise).
    pub u: Vec<f64>,
    pub round_sq: f64,
    /// Segments already in the store, and the stored bottom.
    pub stored: usize,
    pub stored_bottom: f64,
    /// After a cheap resume: what rebuilds the pooling sums of a pair
    /// released again (`None` in a run that started at batch 0).
    pub history: Option<Box<PoolHistory>>,
}

impl OwnerState {
    pub fn new(
        owner: u32,
        nodes: usize,
        path: OwnerPath,
        u: Vec<f64>,
        round_sq: f64,
    ) -> OwnerState {
        let n = path.dim();
        OwnerState {
            owner,
            dist: vec![f64::INFINITY; nodes],
            max_eps: vec![0.0; nodes],
            sum_w: vec![0.0; nodes],
            sum_wx: vec![0.0; nodes * n],
            stored: 0,
            stored_bottom: f64::NAN,
            history: None,
            path,
            u,
            round_sq,
        }
    }

    /// Whether the path grew since it was last stored.
    pub fn path_changed(&self) -> bool {
        self.stored == 0 || self.path.bottom() != self.stored_bottom
    }

    pub fn mark_stored(&mut self) {
        self.stored = self.path.segments();
        self.stored_bottom = self.path.bottom();
    }
}

/// The per-pair sums a batch changes and the totals keep: squared errors of
/// the best, pooled (`resample`) and first (`frozen`) answers, the theory,
/// and the ε spent under the current and the `resample` policy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Sums {
    pub best_sq: f64,
    pub theory: f64,
    pub eps: f64,
    pub resample_eps: f64,
    pub pooled_sq: f64,
    pub first_sq: f64,
    pub first_eps: f64,
}

impl Sums {
    fn add(&mut self, d: &Sums) {
        self.best_sq += d.best_sq;
        self.theory += d.theory;
        self.eps += d.eps;
        self.resample_eps += d.resample_eps;
        self.pooled_sq += d.pooled_sq;
        self.first_sq += d.first_sq;
        self.first_eps += d.first_eps;
    }
}

/// One owner's changes in one batch (summed in recipient order).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Delta {
    pub answers: u64,
    pub pairs: u64,
    pub closer: u64,
    pub farther: u64,
    pub sums: Sums,
    /// Change of the pairs out of range (issue 33 item 5).
    pub skipped: i64,
}

/// Running sums over every pair released so far.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Totals {
    pub pairs: u64,
    pub sums: Sums,
    /// Reachable pairs whose level is out of range now (not stored in
    /// `batch_totals`: a resume counts them on the current graph).
    pub skipped: u64,
}

impl Totals {
    pub fn add(&mut self, d: &Delta) {
        self.pairs += d.pairs;
        self.sums.add(&d.sums);
        self.skipped = self.skipped.saturating_add_signed(d.skipped);
    }

    /// The timeline row of a batch with these totals.
    pub fn row(&self, batch: u64, time: Option<f64>, events: u64, d: &Delta) -> TimelineRow {
        let mean = |s: f64| (self.pairs > 0).then(|| s / self.pairs as f64);
        TimelineRow {
            batch,
            time,
            events,
            pairs_closer: d.closer,
            pairs_farther: d.farther,
            answers: d.answers,
            pairs: self.pairs,
            mse: mean(self.sums.best_sq),
            mse_theory: mean(self.sums.theory),
            eps_spent: mean(self.sums.eps),
            resample_mse: mean(self.sums.pooled_sq),
            resample_eps_spent: mean(self.sums.resample_eps),
            frozen_mse: mean(self.sums.first_sq),
            frozen_eps_spent: mean(self.sums.first_eps),
            pairs_skipped: (self.skipped > 0).then_some(self.skipped),
        }
    }
}

impl Delta {
    pub fn add(&mut self, d: &Delta) {
        self.answers += d.answers;
        self.pairs += d.pairs;
        self.closer += d.closer;
        self.farther += d.farther;
        self.sums.add(&d.sums);
        self.skipped += d.skipped;
    }
}

fn sq(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum()
}

/// ‖sum_wx / sum_w‖²: the squared error of the inverse-variance pooling.
fn pooled(sum_w: f64, sum_wx: &[f64]) -> f64 {
    sum_wx.iter().map(|x| (x / sum_w) * (x / sum_w)).sum()
}

/// Releases to recipient `r` at level `e` (above its largest so far) in
/// `batch`: the answer is read from the owner's path (extended if needed);
/// the `resample` policy draws a fresh answer from the stream keyed (seed,
/// owner, recipient, batch); `frozen` keeps the first. Updates the pair and
/// `delta`; `scratch.error` is left holding the answer's error `y − u` (for
/// Laplace the noise `V_e`). `rng` is the pair's [`Ctx::resample_rng`] in
/// `batch`.
pub(crate) fn release<R: Rng + ?Sized>(
    ctx: &Ctx<'_>,
    st: &mut OwnerState,
    r: u32,
    e: f64,
    delta: &mut Delta,
    scratch: &mut ReleaseScratch,
    rng: &mut R,
) -> Result<()> {
    let (x, err) = (&mut scratch.draw[..], &mut scratch.error);
    let n = ctx.dim;
    let ri = r as usize;
    let m = st.max_eps[ri];
    if let Some(h) = st.history.as_mut() {
        h.fill(ctx, st.owner, ri, &st.u, &mut st.sum_w, &mut st.sum_wx)?;
    }
    err.resize(n, 0.0);
    st.path.reach(e)?;
    st.path.error_into(e, &st.u, err)?;
    let sq_new = sq(err);
    // The error of the answer held before (x as scratch, before the draw).
    let sq_old = if m > 0.0 && st.path.error_into(m, &st.u, x)? {
        sq(x)
    } else {
        0.0
    };
    let w = ctx.resample_into(e, &st.u, x, rng)?;
    let wx = &mut st.sum_wx[ri * n..(ri + 1) * n];
    if m == 0.0 {
        delta.pairs += 1;
        delta.sums.first_sq += sq_new;
        delta.sums.first_eps += e;
        delta.sums.best_sq += sq_new;
        delta.sums.theory += ctx.theory(e, st.round_sq)?;
        delta.sums.eps += e;
        st.sum_w[ri] = w;
        for (s, xi) in wx.iter_mut().zip(x.iter()) {
            *s = w * xi;
        }
        delta.sums.pooled_sq += pooled(st.sum_w[ri], wx);
    } else {
        delta.sums.best_sq += sq_new - sq_old;
        delta.sums.theory += ctx.theory(e, st.round_sq)? - ctx.theory(m, st.round_sq)?;
        delta.sums.eps += e - m;
        let before = pooled(st.sum_w[ri], wx);
        st.sum_w[ri] += w;
        for (s, xi) in wx.iter_mut().zip(x.iter()) {
            *s += w * xi;
        }
        delta.sums.pooled_sq += pooled(st.sum_w[ri], wx) - before;
    }
    delta.sums.resample_eps += e;
    delta.answers += 1;
    st.max_eps[ri] = e;
    Ok(())
}

/// The buffers [`release`] works in, reused from one release to the next.
pub(crate) struct ReleaseScratch {
    /// A fresh draw (before it, the error of the answer held before).
    draw: Vec<f64>,
    /// The new answer's error `y − u`.
    error: Vec<f64>,
}

impl ReleaseScratch {
    /// Buffers for answers of dimension `dim`.
    pub(crate) fn new(dim: usize) -> ReleaseScratch {
        ReleaseScratch {
            draw: vec![0.0; dim],
            error: Vec::with_capacity(dim),
        }
    }
}

/// An explicit release of one batch: (recipient, ε, distance, the path's
/// value as stored).
pub(crate) type ReleaseRow = (u32, f64, f64, Vec<u8>);

/// Moves an owner to its distances `row` of this batch: counts pairs whose
/// ε rose or fell, and releases to every pair whose ε rose above its
/// largest (recorded in `rows` when `record`).
pub(crate) fn advance(
    ctx: &Ctx<'_>,
    st: &mut OwnerState,
    row: &[f64],
    batch: u64,
    record: bool,
    rows: &mut Vec<ReleaseRow>,
) -> Result<Delta> {
    let mut m = Mover::new(ctx, batch, record, rows);
    for (r, &d) in row.iter().enumerate() {
        let old = st.dist[r];
        if d == old || (d.is_nan() && old.is_nan()) {
            continue;
        }
        // (The owner's own distance, 0, is kept too: the events' endpoints
        // are tested against it.)
        st.dist[r] = d;
        // The next recipients are the likely next releases (all of them
        // in batch 0): their generators are derived together.
        m.moved(st, r, old, d, (r as u32 + 1)..row.len() as u32)?;
    }
    Ok(m.delta)
}

/// [`advance`] for an owner whose distances were already lowered in place
/// ([`super::relax::relax_hop`]): `changed` lists each recipient whose
/// distance moved with its distance before, in recipient order — the
/// recipients [`advance`] would visit, in its order, so the sums are the
/// same bits.
pub(crate) fn advance_changed(
    ctx: &Ctx<'_>,
    st: &mut OwnerState,
    changed: &[(u32, f64)],
    batch: u64,
    record: bool,
    rows: &mut Vec<ReleaseRow>,
) -> Result<Delta> {
    debug_assert!(changed.windows(2).all(|w| w[0].0 < w[1].0));
    let mut m = Mover::new(ctx, batch, record, rows);
    for (i, &(r, old)) in changed.iter().enumerate() {
        let d = st.dist[r as usize];
        let ahead = changed[i + 1..].iter().map(|c| c.0);
        m.moved(st, r as usize, old, d, ahead)?;
    }
    Ok(m.delta)
}

/// What [`advance`] and [`advance_changed`] carry from one recipient to
/// the next: the batch, the owner's delta and its releases.
struct Mover<'c, 'a, 'r> {
    ctx: &'c Ctx<'a>,
    batch: u64,
    record: bool,
    rows: &'r mut Vec<ReleaseRow>,
    delta: Delta,
    scratch: ReleaseScratch,
    /// The `resample` generators derived ahead: (recipient, generator).
    ahead: [(u32, Option<StreamStart>); LANES],
}

impl<'c, 'a, 'r> Mover<'c, 'a, 'r> {
    fn new(ctx: &'c Ctx<'a>, batch: u64, record: bool, rows: &'r mut Vec<ReleaseRow>) -> Self {
        Mover {
            ctx,
            batch,
            record,
            rows,
            delta: Delta::default(),
            scratch: ReleaseScratch::new(ctx.dim),
            ahead: std::array::from_fn(|_| (u32::MAX, None)),
        }
    }

    /// The `resample` generator of (`owner`, `r`) in this batch: derived
    /// ahead, or derived now together with those of the recipients `next`
    /// (up to [`LANES`] − 1 of them).
    fn generator(&mut self, owner: u32, r: u32, next: impl Iterator<Item = u32>) -> StreamStart {
        if let Some(g) = self
            .ahead
            .iter_mut()
            .find(|a| a.0 == r)
            .and_then(|a| a.1.take())
        {
            return g;
        }
        let mut rs = [r; LANES];
        for (slot, n) in rs[1..].iter_mut().zip(next) {
            *slot = n;
        }
        let gens = self.ctx.resample_rngs(owner, rs, self.batch);
        let mut gens = gens.into_iter();
        let first = gens.next();
        for ((slot, &n), g) in self.ahead.iter_mut().zip(&rs).skip(1).zip(gens) {
            *slot = (n, Some(g));
        }
        self.ahead[0] = (u32::MAX, None);
        // (`LANES` ≥ 1: the first lane is `r`'s.)
        first.unwrap_or_else(|| unreachable!("LANES >= 1"))
    }

    /// Recipient `r` moved from distance `old` to `d` (`st.dist[r]` already
    /// holds `d`); `next` are the recipients that may move after it.
    fn moved(
        &mut self,
        st: &mut OwnerState,
        r: usize,
        old: f64,
        d: f64,
        next: impl Iterator<Item = u32>,
    ) -> Result<()> {
        if r == st.owner as usize {
            return Ok(());
        }
        let (ctx, batch) = (self.ctx, self.batch);
        // A level out of range gets no answer (0, as if unreachable) and is
        // counted; on START, whose distances are known before anything is
        // written, it is the map's mistake and refused (issue 33 item 5).
        let (l_old, l_new) = (ctx.levels.level(old)?, ctx.levels.level(d)?);
        let out = |l: Level| matches!(l, Level::OutOfRange(_));
        if batch == 0 && out(l_new) {
            return Err(ctx.levels.refusal(d));
        }
        self.delta.skipped += i64::from(out(l_new)) - i64::from(out(l_old));
        let level = |l: Level| match l {
            Level::At(e) => e,
            Level::Unreachable | Level::OutOfRange(_) => 0.0,
        };
        let (e_old, e) = (level(l_old), level(l_new));
        if e > e_old {
            self.delta.closer += 1;
        } else if e < e_old {
            self.delta.farther += 1;
        }
        if e > st.max_eps[r] {
            let mut rng = self.generator(st.owner, r as u32, next);
            let delta = &mut self.delta;
            release(ctx, st, r as u32, e, delta, &mut self.scratch, &mut rng)?;
            if self.record {
                let v = st.path.blob_at(e).unwrap_or_default();
                self.rows.push((r as u32, e, d, v));
            }
        }
        Ok(())
    }
}

/// The pairs of `st` out of range at its current distances (a resumed
/// run's count; a live run keeps it by [`Delta::skipped`]).
pub(crate) fn skipped_pairs(ctx: &Ctx<'_>, st: &OwnerState) -> Result<u64> {
    let mut n = 0;
    for (r, &d) in st.dist.iter().enumerate() {
        if r != st.owner as usize && d.is_finite() && ctx.skipped(d)? {
            n += 1;
        }
    }
    Ok(n)
}

/// What rebuilds a resumed pair's pooling sums when it is released again.
pub(crate) struct PoolHistory {
    /// The pair's batch-0 level (0: unreachable at START; NaN: sums rebuilt).
    pub(super) eps0: Vec<f64>,
    /// The owner's explicit releases `(recipient, batch, ε)` up to the
    /// resumed batch, sorted by recipient then batch.
    pub(super) explicit: Vec<(u32, u64, f64)>,
}

impl PoolHistory {
    /// Fills `sum_w[r]` and `sum_wx[r·n..]` as the live run left them
    /// (no-op once done), before [`super::pairs::release`] reads them.
    pub(crate) fn fill(
        &mut self,
        ctx: &Ctx<'_>,
        owner: u32,
        r: usize,
        u: &[f64],
        sum_w: &mut [f64],
        sum_wx: &mut [f64],
    ) -> Result<()> {
        let e0 = self.eps0[r];
        if e0.is_nan() {
            return Ok(());
        }
        self.eps0[r] = f64::NAN;
        let lo = self.explicit.partition_point(|a| a.0 < r as u32);
        let hi = self.explicit.partition_point(|a| a.0 <= r as u32);
        let later = self.explicit[lo..hi].iter().map(|&(_, b, e)| (b, e));
        let first = (e0 > 0.0).then_some((0u64, e0));
        let n = ctx.dim;
        let mut x = vec![0.0; n];
        let wx = &mut sum_wx[r * n..(r + 1) * n];
        for (k, (b, e)) in first.into_iter().chain(later).enumerate() {
            let mut rng = ctx.resample_rng(owner, r as u32, b);
            let w = ctx.resample_into(e, u, &mut x, &mut rng)?;
            if k == 0 {
                sum_w[r] = w;
                for (s, xi) in wx.iter_mut().zip(&x) {
                    *s = w * xi;
                }
            } else {
                sum_w[r] += w;
                for (s, xi) in wx.iter_mut().zip(&x) {
                    *s += w * xi;
                }
            }
        }
        Ok(())
    }
}
