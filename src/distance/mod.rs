//! Graph distances from an owner to every node: the input of the privacy map
//! `ε(d)` (issue 3 §5, DESIGN "graph → distances → ε").
//!
//! One entry point, [`Distances`], prepared once per graph and kind and then
//! queried from many threads, each with its own [`Workspace`]:
//!
//! | kind | algorithm | prepare | per owner |
//! | --- | --- | --- | --- |
//! | [`DistanceKind::Hop`] | BFS; batches use the 64-source bit-parallel BFS of Then et al. (VLDB 2014) | – | O(N + M) |
//! | [`DistanceKind::Weighted`] | Dijkstra, binary heap | – | O((N + M) log N) |
//! | [`DistanceKind::Resistance`] | dense pseudo-inverse of the Laplacian per component (Cholesky, `faer`) | O(Σ n_c³) | O(N) |
//! | [`DistanceKind::ResistanceApprox`] | Spielman–Srivastava JL sketch, Jacobi-PCG solves | O(k · PCG) | O(k · N) |
//!
//! Hop distances can also be consumed level by level without any row:
//! [`LevelSearch`] runs 64 bit-parallel searches and hands a
//! [`LevelVisitor`] each level's newly reached nodes with the mask of
//! sources reaching them; [`SubsetSums`] sums per-source values over such
//! masks in eight look-ups.
//!
//! Unreachable nodes (another component, or no directed path) get
//! `f64::INFINITY`; the owner itself gets 0. Edge weights are lengths, which
//! for the resistance kinds means resistances (conductance `1 / w`).

mod approx;
mod bitbfs;
mod hop;
mod level_sums;
mod resistance;
mod visit;
mod weighted;

pub use approx::ResistanceSketch;
pub(crate) use level_sums::LevelSums;
pub use resistance::ExactResistance;
pub use visit::{Direction, LevelSearch, LevelVisitor, SubsetSums};

use crate::error::{Error, Result};
use crate::graph::Graph;
use std::fmt;
use std::str::FromStr;

/// Which distance the privacy levels are built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DistanceKind {
    /// Number of edges on a shortest path (directed graphs follow out-edges).
    Hop,
    /// Sum of edge lengths on a shortest path (length 1 when unweighted).
    Weighted,
    /// Exact effective resistance (edge length = resistance); undirected only.
    Resistance,
    /// Effective resistance from a Johnson–Lindenstrauss sketch, for graphs
    /// whose components are too large for the dense exact route.
    ResistanceApprox,
}

impl DistanceKind {
    /// All kinds, in CLI order.
    pub const ALL: [DistanceKind; 4] = [
        DistanceKind::Hop,
        DistanceKind::Weighted,
        DistanceKind::Resistance,
        DistanceKind::ResistanceApprox,
    ];

    /// The CLI / serde spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            DistanceKind::Hop => "hop",
            DistanceKind::Weighted => "weighted",
            DistanceKind::Resistance => "resistance",
            DistanceKind::ResistanceApprox => "resistance-approx",
        }
    }
}

impl fmt::Display for DistanceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DistanceKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        DistanceKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s.trim())
            .ok_or_else(|| {
                Error::param(
                    "distance",
                    s,
                    format!(
                        "one of hop, weighted, resistance, resistance-approx{}",
                        crate::util::suggest::did_you_mean(
                            s,
                            &["hop", "weighted", "resistance", "resistance-approx"]
                        )
                    ),
                )
            })
    }
}

/// Tuning of the resistance routes (an unknown key is refused when read,
/// as in every configuration).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistanceOptions {
    /// Largest connected component (nodes) the exact dense route accepts;
    /// memory is 8·n_c² bytes per component (20,000 → 3.2 GB).
    pub resistance_cap: usize,
    /// Number of random projections of the sketch (memory 4·k·N bytes).
    pub approx_k: usize,
    /// Relative residual `‖L z − b‖ / ‖b‖` at which each PCG solve stops.
    pub approx_tol: f64,
    /// Seed of the random projections (`Purpose::Sketch`).
    pub seed: u64,
}

impl DistanceOptions {
    /// Default largest component for the exact route.
    pub const DEFAULT_RESISTANCE_CAP: usize = 20_000;
}

impl Default for DistanceOptions {
    fn default() -> Self {
        DistanceOptions {
            resistance_cap: Self::DEFAULT_RESISTANCE_CAP,
            approx_k: approx::DEFAULT_K,
            approx_tol: approx::DEFAULT_TOL,
            seed: 0,
        }
    }
}

enum Engine {
    Hop,
    Weighted,
    Resistance(ExactResistance),
    Approx(ResistanceSketch),
}

/// Distances of one kind on one graph, prepared once (the resistance routes
/// factorise or sketch here) and then queried per owner. `Send + Sync`: share
/// one value across threads and give each thread its own [`Workspace`].
///
/// ```
/// use privdiffuse::{DistanceKind, DistanceOptions, Distances, Graph};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let g = Graph::load("data/karate.edges")?;
/// // Owners are node indices; original ids map to them through `ids()`.
/// let owners: Vec<u32> = ["0", "33"].iter().map(|id| g.ids().index_of(id).unwrap()).collect();
/// let opts = DistanceOptions::default();
/// let rows = |kind| -> Result<Vec<Vec<f64>>, privdiffuse::Error> {
///     let dist = Distances::new(&g, kind, &opts)?;
///     let mut rows = Vec::new();
///     dist.batch(&owners, &mut dist.workspace(), |_, row| rows.push(row.to_vec()));
///     Ok(rows)
/// };
/// let hop = rows(DistanceKind::Hop)?;
/// let res = rows(DistanceKind::Resistance)?;
/// let (a, b) = (owners[0] as usize, owners[1] as usize);
/// assert_eq!((hop[0][a], hop[0][b], hop[1][a]), (0.0, 2.0, 2.0)); // the two leaders
/// assert_eq!(hop[0].iter().filter(|&&d| d == 1.0).count(), g.degree(owners[0]));
/// for (h, r) in hop[0].iter().zip(&res[0]) {
///     // Unit resistors: effective resistance never exceeds the shortest path,
///     // and is positive off the owner.
///     assert!(*r <= h + 1e-12 && (*r > 0.0) == (*h > 0.0));
/// }
/// assert!((res[0][b] - res[1][a]).abs() < 1e-12); // symmetric
/// # Ok(()) }
/// ```
pub struct Distances<'g> {
    graph: &'g Graph,
    kind: DistanceKind,
    engine: Engine,
}

/// Per-thread reusable buffers of [`Distances`] queries (queue, heap,
/// bit-parallel BFS words and levels). Create with [`Distances::workspace`].
#[derive(Default)]
pub struct Workspace {
    pub(crate) queue: Vec<u32>,
    pub(crate) heap: weighted::Heap,
    pub(crate) bits: bitbfs::BitBfs,
    pub(crate) row: Vec<f64>,
}

/// Hop levels from one source, handed out by [`Distances::hop_levels`]:
/// how many nodes lie at each hop (counted during the search) and, when
/// asked for, every node's hop as a compact row.
pub struct HopLevels<'a> {
    pub(crate) hist: &'a [u64],
    pub(crate) unreachable: u64,
    pub(crate) row: Option<LevelRow<'a>>,
    pub(crate) degs: Option<&'a [u64]>,
}

impl<'a> HopLevels<'a> {
    /// `hist()[k]`: nodes at exactly `k` hops (`hist()[0] == 1`, the source
    /// itself); the last entry is non-zero.
    pub fn hist(&self) -> &'a [u64] {
        self.hist
    }

    /// Nodes the source does not reach.
    pub fn unreachable(&self) -> u64 {
        self.unreachable
    }

    /// Every node's hop from the source, when the caller asked for it.
    pub fn row(&self) -> Option<LevelRow<'a>> {
        self.row
    }

    /// Per hop, the sum of the out-degrees of the nodes at that hop
    /// (aligned with [`hist`](Self::hist)), when the caller asked for it
    /// ([`Distances::hop_level_sums`]).
    pub(crate) fn out_degrees(&self) -> Option<&'a [u64]> {
        self.degs
    }
}

/// Hop of every node from one source: `u16` per node (the usual case), or
/// `u32` for a graph whose diameter does not fit `u16`.
#[derive(Clone, Copy)]
pub enum LevelRow<'a> {
    /// `u16::MAX` marks an unreachable node.
    Compact(&'a [u16]),
    /// `u32::MAX` marks an unreachable node.
    Wide(&'a [u32]),
}

impl LevelRow<'_> {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        match self {
            LevelRow::Compact(r) => r.len(),
            LevelRow::Wide(r) => r.len(),
        }
    }

    /// Whether the graph has no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hop of node `v` (`None`: unreachable).
    #[inline]
    pub fn get(&self, v: usize) -> Option<u32> {
        match self {
            LevelRow::Compact(r) => (r[v] != u16::MAX).then(|| r[v] as u32),
            LevelRow::Wide(r) => (r[v] != u32::MAX).then_some(r[v]),
        }
    }

    /// Calls `f(node, hop)` for every node in index order (`hop` is `None`
    /// when unreachable), dispatching on the width once.
    #[inline]
    pub fn for_each(&self, f: impl FnMut(u32, Option<u32>)) {
        struct Each<F>(F);
        impl<F: FnMut(u32, Option<u32>)> HopsVisit for Each<F> {
            type Out = ();
            #[inline]
            fn run(mut self, hops: impl Iterator<Item = Option<u32>>) {
                for (v, l) in hops.enumerate() {
                    (self.0)(v as u32, l);
                }
            }
        }
        self.visit(Each(f))
    }

    /// Hands `v` every node's hop in index order (`None` when unreachable)
    /// as one iterator per width: the dispatch on the width is made once,
    /// and `v`'s loop is compiled for each width.
    #[inline]
    pub fn visit<V: HopsVisit>(&self, v: V) -> V::Out {
        match self {
            LevelRow::Compact(r) => {
                v.run(r.iter().map(|&l| (l != u16::MAX).then_some(u32::from(l))))
            }
            LevelRow::Wide(r) => v.run(r.iter().map(|&l| (l != u32::MAX).then_some(l))),
        }
    }
}

/// A loop over one [`LevelRow`]'s hops, generic over the row's width (see
/// [`LevelRow::visit`]).
pub trait HopsVisit {
    /// What the loop returns.
    type Out;
    /// Runs the loop over `hops`: every node's hop in index order, `None`
    /// when unreachable.
    fn run(self, hops: impl Iterator<Item = Option<u32>>) -> Self::Out;
}

/// Owners per bit-parallel BFS batch (one machine word). Callers that
/// parallelise over owners should hand [`Distances::batch`] chunks of this size.
pub const BATCH: usize = 64;

impl<'g> Distances<'g> {
    /// Prepares `kind` distances on `graph`.
    ///
    /// Errors: the resistance kinds on a directed graph
    /// ([`Error::Unsupported`]); `resistance` with a component above
    /// `opts.resistance_cap` (the message names `resistance-approx`); invalid
    /// sketch options ([`Error::Parameter`]).
    pub fn new(graph: &'g Graph, kind: DistanceKind, opts: &DistanceOptions) -> Result<Self> {
        Self::for_rows(graph, kind, opts, usize::MAX)
    }

    /// [`Distances::new`] for a caller that reads at most `rows` rows (its
    /// owners; 0 when it reads only pairs): exact resistance then skips the
    /// full inverse when `rows` is small against a large component (see
    /// [`ExactResistance`]; the values agree to rounding, and depend only on
    /// the graph and `rows`, never on threads).
    pub fn for_rows(
        graph: &'g Graph,
        kind: DistanceKind,
        opts: &DistanceOptions,
        rows: usize,
    ) -> Result<Self> {
        check_lengths(graph, kind)?;
        let engine = match kind {
            DistanceKind::Hop => Engine::Hop,
            DistanceKind::Weighted => Engine::Weighted,
            DistanceKind::Resistance => {
                Engine::Resistance(ExactResistance::new(graph, opts, rows)?)
            }
            DistanceKind::ResistanceApprox => Engine::Approx(ResistanceSketch::new(graph, opts)?),
        };
        Ok(Distances {
            graph,
            kind,
            engine,
        })
    }

    /// The kind these distances were prepared for.
    pub fn kind(&self) -> DistanceKind {
        self.kind
    }

    /// The graph.
    pub fn graph(&self) -> &'g Graph {
        self.graph
    }

    /// Whether every finite distance is an integer (hop only), so callers can
    /// keep one bucket per value.
    pub fn is_integer(&self) -> bool {
        self.kind == DistanceKind::Hop
    }

    /// Fresh buffers for one thread.
    pub fn workspace(&self) -> Workspace {
        Workspace::default()
    }

    /// Distances from `owner` to every node: `out.len() == n`, 0 at `owner`,
    /// `f64::INFINITY` if unreachable.
    ///
    /// # Panics
    /// If `owner >= n` (callers map user ids with `NodeIds::index_of` first).
    pub fn from_owner(&self, owner: u32, ws: &mut Workspace, out: &mut Vec<f64>) {
        assert!(
            (owner as usize) < self.graph.n(),
            "owner index {owner} out of range (n = {})",
            self.graph.n()
        );
        match &self.engine {
            Engine::Hop => hop::bfs(self.graph, owner, &mut ws.queue, out),
            Engine::Weighted => weighted::dijkstra(self.graph, owner, &mut ws.heap, out),
            Engine::Resistance(r) => r.row(owner, out),
            Engine::Approx(s) => s.row(owner, out),
        }
    }

    /// The smallest positive and the largest finite distance from `owners`
    /// to anyone else (`(∞, −∞)` when there is none), over owner chunks of
    /// [`BATCH`] in parallel: the range a `range:` ε map is resolved on.
    pub fn observed_range(&self, owners: &[u32]) -> (f64, f64) {
        use rayon::prelude::*;
        owners
            .par_chunks(BATCH)
            .map_init(
                || self.workspace(),
                |ws, chunk| {
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    self.batch(chunk, ws, |i, row| {
                        for (j, &d) in row.iter().enumerate() {
                            if j as u32 != chunk[i] && d.is_finite() {
                                lo = lo.min(d);
                                hi = hi.max(d);
                            }
                        }
                    });
                    (lo, hi)
                },
            )
            .reduce(
                || (f64::INFINITY, f64::NEG_INFINITY),
                |a, b| (a.0.min(b.0), a.1.max(b.1)),
            )
    }

    /// Distances from each of `owners`: calls `f(i, row)` for `owners[i]`, `i`
    /// ascending, with `row` as in [`Distances::from_owner`]. Hop runs the
    /// bit-parallel BFS over chunks of `BATCH` owners, whose memory is
    /// O(64·N) per workspace (never N×N).
    ///
    /// # Panics
    /// If an owner is `>= n`.
    pub fn batch(&self, owners: &[u32], ws: &mut Workspace, mut f: impl FnMut(usize, &[f64])) {
        match &self.engine {
            Engine::Hop => {
                let n = self.graph.n();
                if let Some(&bad) = owners.iter().find(|&&o| o as usize >= n) {
                    panic!("owner index {bad} out of range (n = {n})");
                }
                for (c, chunk) in owners.chunks(BATCH).enumerate() {
                    let base = c * BATCH;
                    let Workspace {
                        bits, row, queue, ..
                    } = ws;
                    if chunk.len() == 1 {
                        hop::bfs(self.graph, chunk[0], queue, row);
                        f(base, row);
                    } else {
                        bits.run(self.graph, chunk, queue, row, |i, r| f(base + i, r));
                    }
                }
            }
            _ => {
                let mut row = std::mem::take(&mut ws.row);
                for (i, &o) in owners.iter().enumerate() {
                    self.from_owner(o, ws, &mut row);
                    f(i, &row);
                }
                ws.row = row;
            }
        }
    }
}

impl Distances<'_> {
    /// Hop levels from each of `owners` without `f64` rows (hop distances
    /// only): calls `f(i, levels)` for `owners[i]`, `i` ascending, with the
    /// owner's level histogram, counted during the 64-source bit-parallel
    /// search, and — only when `want_row(i)` — every node's hop as a
    /// `LevelRow`. A batch without any row stores no per-node level at
    /// all, so the histogram route costs the search alone.
    ///
    /// Errors: distances other than [`DistanceKind::Hop`] ([`Error::Unsupported`]).
    ///
    /// # Panics
    /// If an owner is `>= n`.
    ///
    /// ```
    /// use privdiffuse::{DistanceKind, DistanceOptions, Distances, Graph};
    /// # fn main() -> Result<(), privdiffuse::Error> {
    /// let g = Graph::load("data/karate.edges")?;
    /// let dist = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default())?;
    /// let owners = [0, 5, 33];
    /// dist.hop_levels(&owners, &mut dist.workspace(), |i| i == 1, |i, lv| {
    ///     assert_eq!(lv.hist()[0], 1);
    ///     assert_eq!(lv.hist().iter().sum::<u64>() + lv.unreachable(), g.n() as u64);
    ///     assert_eq!(lv.row().is_some(), i == 1);
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn hop_levels(
        &self,
        owners: &[u32],
        ws: &mut Workspace,
        want_row: impl Fn(usize) -> bool,
        mut f: impl FnMut(usize, &HopLevels<'_>),
    ) -> Result<()> {
        self.check_hop_owners(owners)?;
        for (c, chunk) in owners.chunks(BATCH).enumerate() {
            let base = c * BATCH;
            let Workspace {
                bits, row, queue, ..
            } = ws;
            bits.levels(
                self.graph,
                chunk,
                queue,
                row,
                &|i| want_row(base + i),
                &mut |i, lv| f(base + i, lv),
            );
        }
        Ok(())
    }
}

impl Distances<'_> {
    /// [`Distances::hop_levels`] without rows, each owner's histogram
    /// handed over with its out-degree sums per hop
    /// ([`HopLevels::out_degrees`]), counted in the same 64-source level
    /// search (hop distances only; same errors and panics).
    pub(crate) fn hop_level_sums(
        &self,
        owners: &[u32],
        ws: &mut Workspace,
        mut f: impl FnMut(usize, &HopLevels<'_>),
    ) -> Result<()> {
        self.check_hop_owners(owners)?;
        for (c, chunk) in owners.chunks(BATCH).enumerate() {
            let base = c * BATCH;
            ws.bits
                .level_sums(self.graph, chunk, true, &mut |i, lv| f(base + i, lv));
        }
        Ok(())
    }

    /// Refuses non-hop distances; panics on an owner `>= n`.
    fn check_hop_owners(&self, owners: &[u32]) -> Result<()> {
        if !matches!(self.engine, Engine::Hop) {
            return Err(Error::Unsupported(format!(
                "hop levels of {} distances (only hop distances have levels)",
                self.kind
            )));
        }
        let n = self.graph.n();
        if let Some(&bad) = owners.iter().find(|&&o| o as usize >= n) {
            panic!("owner index {bad} out of range (n = {n})");
        }
        Ok(())
    }
}

/// Refuses edge lengths with which a distance of `kind` could overflow
/// `f64` (a path of up to N − 1 edges, a node's sum of conductances `1/w`) or
/// leave the `f32` range of the resistance sketch, naming the first such
/// edge by its ids (see the table of caps in [`crate::limits`]). Hop
/// distances ignore lengths.
fn check_lengths(g: &Graph, kind: DistanceKind) -> Result<()> {
    use crate::limits::fmt_num as f;
    use crate::limits::{APPROX_LENGTH_MAX, APPROX_LENGTH_MIN};
    if kind == DistanceKind::Hop || g.weights().is_none() {
        return Ok(());
    }
    let hops = g.n().saturating_sub(1).max(1) as f64;
    let (lo, hi, why) = match kind {
        DistanceKind::Weighted => (
            0.0,
            f64::MAX / hops,
            "so that every path of up to N − 1 edges has a finite length",
        ),
        DistanceKind::Resistance => (
            hops / f64::MAX,
            f64::MAX / hops,
            "so that path lengths and sums of conductances 1/w stay finite",
        ),
        _ => (
            APPROX_LENGTH_MIN,
            APPROX_LENGTH_MAX,
            "the sketch stores √resistance as f32",
        ),
    };
    for (u, v, w) in g.edges() {
        if !(w >= lo && w <= hi) {
            return Err(Error::Unsupported(format!(
                "edge {} {} has length {}, outside [{}, {}] that {kind} distances accept on a \
                 graph of {} nodes ({why}); rescale the lengths",
                g.ids().label(u),
                g.ids().label(v),
                f(w),
                f(lo),
                f(hi),
                g.n()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_spellings_round_trip() {
        for k in DistanceKind::ALL {
            assert_eq!(k.to_string().parse::<DistanceKind>().unwrap(), k);
            let j = serde_json::to_string(&k).unwrap();
            assert_eq!(j, format!("\"{k}\""));
            assert_eq!(serde_json::from_str::<DistanceKind>(&j).unwrap(), k);
        }
        let e = "euclid".parse::<DistanceKind>().unwrap_err();
        assert!(e.to_string().contains("euclid") && e.to_string().contains("resistance-approx"));
    }

    #[test]
    fn distances_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Distances<'static>>();
        check::<Workspace>();
    }
}
