//! The relay on hop distances when every relay trims, for up to 64 owners
//! at once: the rounds of the protocol with one bit per owner.
//!
//! Each node knows its hop from each owner of the batch (the library's
//! 64-source level search, as `simulate` runs it). Round by round, the
//! nodes that came to hold some owners' levels send to every
//! (out-)neighbour one machine word per trim level: the owners whose signal
//! goes out at that trim (a node at known hop d trims at ε(d + 1)), so an
//! arc carries the messages of all 64 owners in one OR. Every receiver then
//! compares, for the 64 owners at once, each trim heard this round with the
//! richest it had (a byte per node and owner, eight per word): where it is
//! richer it becomes the node's learned ε, and where it reaches the node's
//! own level — ε(t) ≥ ε(d), i.e. d ≥ the first hop of t's plateau of ε — the
//! node holds that owner's level and sends in the next round.
//!
//! Counts: the level search adds up, per owner and hop, the nodes and their
//! out-degrees; after the rounds, node by node, the recipients that did not
//! end with the rule — held their level, learned exactly it — are listed
//! and taken out of those sums (a non-holder sends nothing). Recipients are
//! then counted per (hop, learned index, held) as in the sweep
//! ([`super::levels`]).
//!
//! Only for hop distances with no untrimmed relay, and owners whose
//! eccentricity is at most [`DEEPEST`]; otherwise the sweep runs.

use super::levels::LevelTally;
use super::plan::RelayPlan;
use super::signal::{Diffusion, Signal};
use super::stats::{OwnerStats, RunStats};
use crate::distance::{LevelSearch, LevelVisitor};
use crate::error::Result;
use crate::graph::Graph;
use crate::process::family::NoiseFamily;
use std::ops::ControlFlow;

/// Unreachable / nothing received (every byte value stays ≤ 127, which the
/// word-wise comparisons below need).
const FAR: u8 = 127;

/// Deepest hop this engine handles (trims reach DEEPEST + 1 < [`FAR`]).
pub const DEEPEST: usize = 125;

/// Owners per batch (one bit each).
const W: usize = 64;

/// Columns of the per-owner tables (hops 0 ..= DEEPEST + 1).
const H: usize = DEEPEST + 2;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// A cell: one byte per owner of the batch, as eight words.
type Cell = [u64; 8];

/// The high bit of every byte of `hb` (others zero) gathered into 8 bits.
#[inline]
fn gather(hb: u64) -> u64 {
    ((hb >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
}

/// High bit of each byte of `x` (bytes ≤ 127) set where the byte is > t
/// (t ≤ 126).
#[inline]
fn gt_word(x: u64, t: u8) -> u64 {
    ((x | HI) - LO * (u64::from(t) + 1)) & HI
}

/// High bit of each byte set where the byte is zero.
#[inline]
fn zero_word(x: u64) -> u64 {
    !(((x & !HI) + !HI) | x) & HI
}

/// The owners whose byte is above `t` (t ≤ 126).
#[inline]
fn above(c: &Cell, t: u8) -> u64 {
    c.iter()
        .enumerate()
        .fold(0, |m, (j, &x)| m | gather(gt_word(x, t)) << (8 * j))
}

/// The owners whose byte equals `t` (t ≤ 127).
#[inline]
fn equal(c: &Cell, t: u8) -> u64 {
    c.iter().enumerate().fold(0, |m, (j, &x)| {
        m | gather(zero_word(x ^ (LO * u64::from(t)))) << (8 * j)
    })
}

/// The owners whose bytes of `a` and `b` are equal.
#[inline]
fn same(a: &Cell, b: &Cell) -> u64 {
    a.iter().zip(b).enumerate().fold(0, |m, (j, (&x, &y))| {
        m | gather(zero_word(x ^ y)) << (8 * j)
    })
}

/// Byte `i` of a cell.
#[inline]
fn byte(c: &Cell, i: usize) -> u8 {
    (c[i / 8] >> (8 * (i % 8))) as u8
}

/// Sets byte `i` of a cell.
#[inline]
fn set_byte(c: &mut Cell, i: usize, t: u8) {
    let s = 8 * (i % 8);
    c[i / 8] = (c[i / 8] & !(0xFF << s)) | (u64::from(t) << s);
}

/// Sets the bytes of the owners in `bits` to `t`.
#[inline]
fn set_where(c: &mut Cell, bits: u64, t: u8) {
    for (j, w) in c.iter_mut().enumerate() {
        let m8 = (bits >> (8 * j)) & 0xFF;
        if m8 == 0 {
            continue;
        }
        // Byte b of `sel` holds bit b of m8 alone; non-zero bytes → 0xFF.
        let sel = (m8 * LO) & 0x8040_2010_0804_0201;
        let nz = (((sel & !HI) + !HI) | sel) & HI;
        let mask = (nz >> 7) * 0xFF;
        *w = (*w & !mask) | ((LO * u64::from(t)) & mask);
    }
}

/// A cell with every byte `t`.
const fn filled(t: u8) -> Cell {
    [LO * t as u64; 8]
}

/// Fills the known hops, and per owner and hop the nodes and their
/// out-degrees, from the level search.
struct Known<'s> {
    graph: &'s Graph,
    known: &'s mut [Cell],
    ecc: &'s mut [usize],
    /// Per owner and hop: nodes (`hist[i·H + d]`) and their out-degrees.
    hist: &'s mut [u64],
    hdeg: &'s mut [u64],
    deep: bool,
}

impl LevelVisitor for Known<'_> {
    fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()> {
        if level as usize > DEEPEST {
            self.deep = true;
            return ControlFlow::Break(());
        }
        let l = level as usize;
        for (&v, &m) in nodes.iter().zip(masks) {
            let cell = &mut self.known[v as usize];
            let deg = self.graph.degree(v) as u64;
            let mut bits = m;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                set_byte(cell, i, level as u8);
                self.ecc[i] = l;
                self.hist[i * H + l] += 1;
                self.hdeg[i * H + l] += deg;
            }
        }
        ControlFlow::Continue(())
    }

    fn done(&mut self, _: &[u64]) {}
}

/// Per-worker buffers, reused across batches.
#[derive(Default)]
pub(crate) struct BatchScratch<S> {
    /// Node v's hop from each owner.
    known: Vec<Cell>,
    /// Richest trim index node v received from each owner's diffusion.
    got: Vec<Cell>,
    /// Owners whose level node v holds.
    held: Vec<u64>,
    /// Owners whose level node v came to hold this round.
    hnext: Vec<u64>,
    /// Per trim group of the round: the owners each node heard from.
    rm: Vec<Vec<u64>>,
    /// Trim index of each group of the round.
    groups: Vec<u8>,
    /// Nodes that heard something this round (once per group at most).
    touched: Vec<u32>,
    frontier: Vec<(u32, u64)>,
    next: Vec<(u32, u64)>,
    /// Per owner: latest round in which a node first held its level.
    rounds: Vec<u32>,
    ecc: Vec<usize>,
    /// `plateau[t]`: the first hop L with ε(L) = ε(t).
    plateau: Vec<u8>,
    /// Per owner and hop: nodes, out-degrees (level search).
    hist: Vec<u64>,
    hdeg: Vec<u64>,
    /// Recipients off the rule: (owner, hop, learned index, held, out-degree).
    odd: Vec<(u8, u8, u8, bool, u64)>,
    degsum: Vec<u64>,
    search: LevelSearch,
    tally: LevelTally<S>,
}

impl RelayPlan<'_> {
    /// Whether no fraction makes any relay untrimmed (round(F·N) = 0 for
    /// every F), so that [`Diffusion::batch_chunk`] may run.
    pub(crate) fn all_trim(&self) -> bool {
        let n = self.graph().n() as f64;
        self.fractions().iter().all(|&f| (f * n).round() == 0.0)
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// Up to 64 owners at once (every relay trimming): `stats[i·F + f]`
    /// gets owner i's counts (the same under every fraction f), `run` the
    /// recipients per bucket. `Ok(false)`, with nothing counted, when an
    /// owner's eccentricity exceeds [`DEEPEST`].
    pub(crate) fn batch_chunk(
        &self,
        s: &mut BatchScratch<Signal<F>>,
        owners: &[u32],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
    ) -> Result<bool> {
        debug_assert!(owners.len() <= W && self.is_hop());
        let g = self.graph();
        let n = g.n();
        let k = owners.len();
        if s.held.len() != n {
            s.known = vec![filled(FAR); n];
            s.got = vec![filled(FAR); n];
            s.held = vec![0; n];
            s.hnext = vec![0; n];
            s.rm.clear();
        }
        s.known.fill(filled(FAR));
        s.ecc.clear();
        s.ecc.resize(k, 0);
        s.hist.clear();
        s.hist.resize(k * H, 0);
        s.hdeg.clear();
        s.hdeg.resize(k * H, 0);
        for (i, &o) in owners.iter().enumerate() {
            set_byte(&mut s.known[o as usize], i, 0);
            s.hist[i * H] = 1;
            s.hdeg[i * H] = g.degree(o) as u64;
        }
        let mut known = Known {
            graph: g,
            known: &mut s.known,
            ecc: &mut s.ecc,
            hist: &mut s.hist,
            hdeg: &mut s.hdeg,
            deep: false,
        };
        let _ = s.search.run(g, owners, &mut known);
        if known.deep {
            return Ok(false);
        }
        // Every index a trim or a learned level can take, FAR included.
        self.eps_table(&mut s.tally.eps, FAR as usize);
        if s.plateau.is_empty() {
            let eps = &s.tally.eps;
            s.plateau = (0..=FAR as usize)
                .map(|t| (0..=t).find(|&l| eps[l] == eps[t]).unwrap_or(t) as u8)
                .collect();
        }
        self.batch_rounds(s, owners);
        self.batch_tally(s, owners, stats, run)?;
        s.got.fill(filled(FAR));
        s.held.fill(0);
        Ok(true)
    }

    /// The rounds: `got`, `held`, `rounds`.
    fn batch_rounds(&self, s: &mut BatchScratch<Signal<F>>, owners: &[u32]) {
        let g = self.graph();
        let (offsets, targets) = (g.offsets(), g.targets());
        let n = g.n();
        s.rounds.clear();
        s.rounds.resize(owners.len(), 0);
        s.frontier.clear();
        for (i, &o) in owners.iter().enumerate() {
            s.held[o as usize] |= 1 << i;
            s.frontier.push((o, 1 << i));
        }
        let mut round = 0u32;
        while !s.frontier.is_empty() {
            round += 1;
            s.groups.clear();
            for fi in 0..s.frontier.len() {
                let (u, m) = s.frontier[fi];
                let (lo, hi) = (offsets[u as usize], offsets[u as usize + 1]);
                // The owners u sends for, grouped by trim index (known hop
                // + 1): one group unless u holds owners at several hops.
                let cell = &s.known[u as usize];
                let mut rest = m;
                while rest != 0 {
                    let d = byte(cell, rest.trailing_zeros() as usize);
                    let gm = rest & equal(cell, d);
                    rest &= !gm;
                    let t = d + 1;
                    let gi = match s.groups.iter().position(|&x| x == t) {
                        Some(gi) => gi,
                        None => {
                            s.groups.push(t);
                            if s.rm.len() < s.groups.len() {
                                s.rm.push(vec![0; n]);
                            }
                            s.groups.len() - 1
                        }
                    };
                    let rm = &mut s.rm[gi];
                    for &v in &targets[lo..hi] {
                        let x = &mut rm[v as usize];
                        if *x == 0 {
                            s.touched.push(v);
                        }
                        *x |= gm;
                    }
                }
            }
            s.next.clear();
            let mut newly = 0u64;
            for ti in 0..s.touched.len() {
                let v = s.touched[ti] as usize;
                for gi in 0..s.groups.len() {
                    let mask = std::mem::take(&mut s.rm[gi][v]);
                    if mask == 0 {
                        continue;
                    }
                    let t = s.groups[gi];
                    let better = mask & above(&s.got[v], t);
                    if better == 0 {
                        continue;
                    }
                    set_where(&mut s.got[v], better, t);
                    let p = s.plateau[t as usize];
                    let reach_p = if p == 0 {
                        !0
                    } else {
                        above(&s.known[v], p - 1)
                    };
                    let h = better & !s.held[v] & reach_p & !equal(&s.known[v], FAR);
                    s.held[v] |= h;
                    s.hnext[v] |= h;
                    newly |= h;
                }
                if s.hnext[v] != 0 {
                    s.next.push((v as u32, std::mem::take(&mut s.hnext[v])));
                }
            }
            s.touched.clear();
            while newly != 0 {
                let i = newly.trailing_zeros() as usize;
                newly &= newly - 1;
                s.rounds[i] = round;
            }
            std::mem::swap(&mut s.frontier, &mut s.next);
        }
    }

    /// The recipients off the rule, node by node; then each owner's counts.
    fn batch_tally(
        &self,
        s: &mut BatchScratch<Signal<F>>,
        owners: &[u32],
        stats: &mut [OwnerStats],
        run: &mut RunStats,
    ) -> Result<()> {
        let g = self.graph();
        let k = owners.len();
        let nf = self.fractions().len();
        let all = if k == W { !0 } else { (1u64 << k) - 1 };
        s.odd.clear();
        for v in 0..g.n() {
            let (known, got) = (&s.known[v], &s.got[v]);
            let recipient = all & !equal(known, FAR) & !equal(known, 0);
            let mut odd = recipient & !(s.held[v] & same(got, known));
            while odd != 0 {
                let i = odd.trailing_zeros() as usize;
                odd &= odd - 1;
                let h = s.held[v] >> i & 1 != 0;
                let deg = g.degree(v as u32) as u64;
                s.odd.push((i as u8, byte(known, i), byte(got, i), h, deg));
            }
        }
        s.odd.sort_unstable_by_key(|e| e.0);
        let mut at = 0;
        for (i, &o) in owners.iter().enumerate() {
            let ecc = s.ecc[i];
            let row = i * H..(i + 1) * H;
            let (hist, hdeg) = (&mut s.hist[row.clone()], &mut s.hdeg[row]);
            let recipients: u64 = hist[1..=ecc].iter().sum();
            let first = at;
            while at < s.odd.len() && s.odd[at].0 as usize == i {
                let (_, d, _, h, deg) = s.odd[at];
                // Off the rule: not among the plain recipients, and a node
                // that never held sends nothing.
                hist[d as usize] -= 1;
                if !h {
                    hdeg[d as usize] -= deg;
                }
                at += 1;
            }
            if recipients == 0 {
                for st in &mut stats[i * nf..(i + 1) * nf] {
                    *st = OwnerStats::default();
                }
                continue;
            }
            self.level_path(&mut s.tally, o, ecc)?;
            s.tally.clear_pairs(ecc);
            for (d, &c) in hist.iter().enumerate().take(ecc + 1).skip(1) {
                if c > 0 {
                    s.tally.add(d, d as u32, true, c);
                }
            }
            for &(_, d, got, h, _) in &s.odd[first..at] {
                s.tally.add(d as usize, got as u32, h, 1);
            }
            // Holders at hop d forward trimmed at ε(d + 1).
            s.degsum.clear();
            s.degsum.push(0);
            s.degsum.extend_from_slice(&hdeg[..=ecc]);
            for f in 0..nf {
                self.level_stats(
                    &mut s.tally,
                    ecc,
                    recipients,
                    &s.degsum,
                    f,
                    Some(s.rounds[i]),
                    &mut stats[i * nf + f],
                    run,
                );
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(bytes: &[u8; W]) -> Cell {
        let mut c = filled(0);
        for (i, &b) in bytes.iter().enumerate() {
            set_byte(&mut c, i, b);
        }
        c
    }

    /// The word-wise comparisons against a byte-by-byte oracle.
    #[test]
    fn word_wise_byte_comparisons() {
        let mut x = [0u8; W];
        for (i, b) in x.iter_mut().enumerate() {
            *b = ((i * 37 + 11) % 128) as u8;
        }
        x[5] = FAR;
        x[6] = 0;
        let c = cell(&x);
        for (i, &xi) in x.iter().enumerate() {
            assert_eq!(byte(&c, i), xi);
        }
        for t in 0..=126u8 {
            let want: u64 = (0..W).filter(|&i| x[i] > t).map(|i| 1u64 << i).sum();
            assert_eq!(above(&c, t), want, "above {t}");
            let want: u64 = (0..W).filter(|&i| x[i] == t).map(|i| 1u64 << i).sum();
            assert_eq!(equal(&c, t), want, "equal {t}");
        }
        assert_eq!(equal(&c, FAR), 1 << 5);
        let mut y = x;
        y[0] = (x[0] + 1) % 128;
        y[63] = (x[63] + 3) % 128;
        assert_eq!(same(&c, &cell(&y)), !(1 | 1 << 63));
        for bits in [
            0u64,
            1,
            1 << 63,
            0x8000_0000_0000_0081,
            !0,
            0x0123_4567_89AB_CDEF,
        ] {
            let mut d = c;
            set_where(&mut d, bits, 42);
            for (i, &xi) in x.iter().enumerate() {
                let want = if bits >> i & 1 != 0 { 42 } else { xi };
                assert_eq!(byte(&d, i), want, "bits {bits:x}, byte {i}");
            }
        }
    }
}
