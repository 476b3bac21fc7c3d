//! Hop bounds of a utility run: an upper bound on any hop distance of the
//! graph, and a guess of the owners' largest eccentricity (verified after
//! the run).

use super::{GUESS_ROUNDS, GUESS_SOURCES};
use crate::distance::{Distances, LevelSearch, LevelVisitor};
use crate::graph::Graph;

/// A lower bound on the owners' maximum eccentricity, usually equal to it
/// (a multi-source double sweep): peripheral nodes have the largest
/// eccentricities, and the nodes farthest from a set of nodes are
/// peripheral. One search from the first owner; then up to
/// [`GUESS_ROUNDS`] bit-parallel searches, each from up to
/// [`GUESS_SOURCES`] owners: first those farthest from the first owner,
/// then the owners (not yet used) among the nodes the previous search met
/// last. Every level met is the eccentricity of an owner. `None` without
/// owners.
pub(super) fn guess_max_eccentricity(distances: &Distances<'_>, owners: &[u32]) -> Option<u32> {
    /// The deepest level of a search and the nodes met there.
    struct Deepest(u32, Vec<u32>);
    impl LevelVisitor for Deepest {
        fn level(&mut self, level: u32, nodes: &[u32], _: &[u64]) -> std::ops::ControlFlow<()> {
            self.0 = level;
            self.1.clear();
            self.1.extend_from_slice(nodes);
            std::ops::ControlFlow::Continue(())
        }
        fn done(&mut self, _: &[u64]) {}
    }
    let first = *owners.first()?;
    let g = distances.graph();
    let mut ws = distances.workspace();
    let mut row = Vec::new();
    distances.from_owner(first, &mut ws, &mut row);
    let mut best = row
        .iter()
        .filter(|d| d.is_finite())
        .fold(0.0f64, |a, &d| a.max(d)) as u32;
    let mut far: Vec<(f64, u32)> = owners
        .iter()
        .map(|&o| (row[o as usize], o))
        .filter(|(d, _)| d.is_finite())
        .collect();
    far.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    far.dedup_by_key(|x| x.1);
    // The farthest owners, spread over ties (evenly spaced in id order).
    let top = far.first().map_or(0.0, |x| x.0);
    let ties = far.iter().take_while(|x| x.0 == top).count();
    let mut sources: Vec<u32> = if ties > GUESS_SOURCES {
        far[..ties]
            .iter()
            .step_by(ties.div_ceil(GUESS_SOURCES))
            .map(|x| x.1)
            .collect()
    } else {
        far.iter().take(GUESS_SOURCES).map(|x| x.1).collect()
    };
    drop(row);
    // 0: not an owner, 1: an owner, 2: an owner already searched from.
    let mut state = vec![0u8; g.n()];
    for &o in owners {
        state[o as usize] = 1;
    }
    let mut search = LevelSearch::new();
    for _ in 0..GUESS_ROUNDS {
        if sources.is_empty() {
            break;
        }
        for &s in &sources {
            state[s as usize] = 2;
        }
        let mut deepest = Deepest(0, Vec::new());
        let _ = search.run(g, &sources, &mut deepest);
        best = best.max(deepest.0);
        // Spread over the last level (evenly spaced in id order).
        let cand: Vec<u32> = deepest
            .1
            .iter()
            .copied()
            .filter(|&v| state[v as usize] == 1)
            .collect();
        let step = cand.len().div_ceil(GUESS_SOURCES).max(1);
        sources = cand.iter().copied().step_by(step).collect();
    }
    Some(best)
}

/// Upper bound on any hop distance: twice the eccentricity of one node per
/// weak component (undirected); n − 1 on directed graphs.
pub(super) fn hop_bound(g: &Graph) -> u32 {
    let n = g.n();
    if g.is_directed() {
        return n.saturating_sub(1).min(u32::MAX as usize) as u32;
    }
    let (off, tg) = (g.offsets(), g.targets());
    let mut dist = vec![u32::MAX; n];
    let mut queue = Vec::new();
    let mut bound = 0u32;
    for s in 0..n {
        if dist[s] != u32::MAX {
            continue;
        }
        dist[s] = 0;
        queue.clear();
        queue.push(s as u32);
        let mut h = 0;
        let mut ecc = 0;
        while h < queue.len() {
            let u = queue[h] as usize;
            h += 1;
            for &v in &tg[off[u]..off[u + 1]] {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u] + 1;
                    ecc = ecc.max(dist[u] + 1);
                    queue.push(v);
                }
            }
        }
        bound = bound.max(ecc.saturating_mul(2));
    }
    bound.min(n.saturating_sub(1) as u32)
}
