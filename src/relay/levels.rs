//! The per-level tally of a hop owner, shared by the sweep ([`super::hop`])
//! and the 64-owner batch ([`super::batch`]): on hop distances every
//! trim is ε(L) for an integer L, so a message's size is one look-up per L
//! and recipients are counted per (hop, learned index, held) triple; the
//! owner's path, sizes and read-outs are then computed once per triple.

use super::plan::RelayPlan;
use super::signal::{Diffusion, Signal, message_bytes};
use super::stats::{OwnerStats, RunStats};
use crate::error::Result;
use crate::process::family::NoiseFamily;

/// Flag of a pair key whose recipients held their level.
pub(crate) const HELD: u32 = 1 << 31;

/// How far one hop owner's sweep reached, beside its tally.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OwnerReach {
    /// The deepest hop reached.
    pub ecc: usize,
    /// The nodes reached, the owner not counted.
    pub recipients: u64,
    /// The latest holding round when the engine knows it, else `None`:
    /// the deepest hop held (a node at hop d holds in round d).
    pub rounds: Option<u32>,
}

/// Per-worker buffers of the tally, reused across owners; `S` is the
/// owner's signal (a [`Signal`] of the run's family).
#[derive(Default)]
pub(crate) struct LevelTally<S> {
    /// ε(L), L = 0, 1, … (the map is fixed for a plan).
    pub eps: Vec<f64>,
    /// Breakpoints carried by a message trimmed at ε(L).
    pub bpc: Vec<usize>,
    /// The owner's value and signal.
    pub sig: S,
    /// Scratch of [`Signal::identical`].
    pub y: Vec<f64>,
    /// Per hop: (learned index | [`HELD`], recipients).
    pub pairs: Vec<Vec<(u32, u64)>>,
}

impl<S> LevelTally<S> {
    /// Empties the pair lists of hops `0..=ecc`.
    pub fn clear_pairs(&mut self, ecc: usize) {
        if self.pairs.len() <= ecc {
            self.pairs.resize(ecc + 1, Vec::new());
        }
        for p in &mut self.pairs[..=ecc] {
            p.clear();
        }
    }

    /// Counts `count` recipients at hop `d` whose richest trim is ε(got).
    #[inline]
    pub fn add(&mut self, d: usize, got: u32, held: bool, count: u64) {
        let key = got | if held { HELD } else { 0 };
        let p = &mut self.pairs[d];
        match p.iter_mut().find(|e| e.0 == key) {
            Some(e) => e.1 += count,
            None => p.push((key, count)),
        }
    }
}

impl RelayPlan<'_> {
    /// ε(L) for L = 0 ..= `upto`, evaluated as `simulate` does:
    /// `map.eps(L as f64)`.
    pub(crate) fn eps_table(&self, eps: &mut Vec<f64>, upto: usize) {
        while eps.len() <= upto {
            let l = eps.len();
            eps.push(self.eps(l as f64));
        }
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// For an owner of eccentricity `ecc` ≥ 1: checks the levels of hops
    /// 1..=ecc, samples the path over [min ε, max ε] and prepares the sizes
    /// (trims up to ε(ecc + 1)).
    pub(crate) fn level_path(
        &self,
        t: &mut LevelTally<Signal<F>>,
        owner: u32,
        ecc: usize,
    ) -> Result<()> {
        self.eps_table(&mut t.eps, ecc + 1);
        for (l, &e) in t.eps.iter().enumerate().take(ecc + 1).skip(1) {
            self.check_level(e, l as f64)?;
        }
        let lo = t.eps[1..=ecc].iter().copied().fold(f64::INFINITY, f64::min);
        let hi = t.eps[1..=ecc]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        self.owner_path(owner, lo, hi, &mut t.sig)?;
        t.bpc.clear();
        t.bpc
            .extend(t.eps[..ecc + 2].iter().map(|&e| t.sig.carried(self.fam, e)));
        Ok(())
    }

    /// One owner's counts under fraction `f` from `t.pairs` (hops
    /// 1..=`reach.ecc`) and `degsum` (out-degrees of the senders per trim
    /// index): messages, bytes, held and identical recipients, the learned
    /// ratios.
    pub(crate) fn level_stats(
        &self,
        t: &mut LevelTally<Signal<F>>,
        reach: OwnerReach,
        degsum: &[u64],
        f: usize,
        st: &mut OwnerStats,
        run: &mut RunStats,
    ) {
        let OwnerReach {
            ecc,
            recipients,
            rounds,
        } = reach;
        let dim = self.model().dim;
        let buckets = self.buckets();
        *st = OwnerStats {
            recipients,
            breakpoints: t.sig.len() as u64,
            ..OwnerStats::default()
        };
        for (l, &deg) in degsum.iter().enumerate() {
            st.messages += deg;
            st.bytes += deg * message_bytes::<F>(dim, t.bpc[l]);
        }
        for d in 1..=ecc {
            let ed = t.eps[d];
            for &(key, c) in &t.pairs[d] {
                let learned = t.eps[(key & !HELD) as usize];
                let ratio = learned / ed;
                if key & HELD != 0 {
                    st.held += c;
                    st.rounds = st.rounds.max(d as u32);
                    if t.sig.identical(self.fam, learned, ed, &mut t.y) {
                        st.identical += c;
                    }
                }
                st.excess_max = st.excess_max.max(ratio);
                run.bucket(f, buckets.index(d as f64)).add(ratio, c);
            }
        }
        if let Some(r) = rounds {
            st.rounds = r;
        }
    }
}
