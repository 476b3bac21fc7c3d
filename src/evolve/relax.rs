//! Hop distances after edges were added, without a new search (issue 37):
//! an owner whose distances a batch can only lower — no removed edge was
//! tight for it, so every shortest path it had is still there — gets its
//! new distances by a breadth-first relaxation from the ends of the added
//! edges that shorten something, level by level from the smallest new
//! distance. It visits only the nodes that come closer (and their
//! neighbours), and lists them for [`super::pairs::advance_changed`], where
//! a full search would give all n distances to compare.
//!
//! Exact: a node lowered at level L has distance L in the new graph (the
//! levels below L are final before L is opened, as in a BFS from several
//! sources at their own start levels), and a node not lowered keeps its
//! old distance, which no new path beats. Tested against the search on the
//! new graph (below, and `incremental_recomputation_equals_full_recomputation`).

use crate::graph::Graph;

/// An edge that is new in the batch (either direction may shorten).
pub(super) type Added = (u32, u32);

/// Per-worker buffers of [`relax_hop`].
#[derive(Default)]
pub(super) struct Relax {
    seeds: Vec<(f64, u32)>,
    frontier: Vec<u32>,
    next: Vec<u32>,
    /// The nodes lowered, with their distance before, sorted by node.
    pub changed: Vec<(u32, f64)>,
}

/// Lowers `dist` (hop distances from one owner, ∞ unreachable) to the hop
/// distances of `g`, which is the graph they were computed on plus the
/// edges `added` (and minus edges on no shortest path of this owner);
/// `r.changed` gets every node lowered, with its old distance, in node
/// order. Returns whether any node was lowered.
pub(super) fn relax_hop(g: &Graph, added: &[Added], dist: &mut [f64], r: &mut Relax) -> bool {
    r.seeds.clear();
    r.changed.clear();
    for &(u, v) in added {
        let (du, dv) = (dist[u as usize], dist[v as usize]);
        if du + 1.0 < dv {
            r.seeds.push((du + 1.0, v));
        } else if dv + 1.0 < du {
            r.seeds.push((dv + 1.0, u));
        }
    }
    if r.seeds.is_empty() {
        return false;
    }
    r.seeds
        .sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    r.frontier.clear();
    let mut level = r.seeds[0].0;
    let mut si = 0;
    loop {
        while si < r.seeds.len() && r.seeds[si].0 == level {
            let v = r.seeds[si].1;
            if dist[v as usize] > level {
                r.changed.push((v, dist[v as usize]));
                dist[v as usize] = level;
                r.frontier.push(v);
            }
            si += 1;
        }
        if r.frontier.is_empty() {
            match r.seeds.get(si) {
                Some(&(l, _)) => {
                    level = l;
                    continue;
                }
                None => break,
            }
        }
        let up = level + 1.0;
        r.next.clear();
        for &u in &r.frontier {
            for &w in g.neighbors(u) {
                let dw = &mut dist[w as usize];
                if *dw > up {
                    r.changed.push((w, *dw));
                    *dw = up;
                    r.next.push(w);
                }
            }
        }
        std::mem::swap(&mut r.frontier, &mut r.next);
        level = up;
    }
    r.changed.sort_unstable_by_key(|c| c.0);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distance::{DistanceKind, DistanceOptions, Distances};
    use crate::rng::splitmix64;

    fn hops(g: &Graph, owner: u32) -> Vec<f64> {
        let d = Distances::new(g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
        let mut ws = d.workspace();
        let mut out = Vec::new();
        d.batch(&[owner], &mut ws, |_, row| out = row.to_vec());
        out
    }

    /// On random sparse graphs (several components, so that added edges
    /// also make nodes reachable), relaxing after random additions gives
    /// the search's distances on the new graph for every owner, and lists
    /// exactly the nodes whose distance moved, with their old distance.
    #[test]
    fn relaxation_equals_a_new_search() {
        let n = 60u32;
        let mut state = 37u64;
        let mut node = || {
            state += 1;
            (splitmix64(state) % u64::from(n)) as u32
        };
        let mut relax = Relax::default();
        for trial in 0..40 {
            // 45 to 75 edges on 60 nodes: several components.
            let edges: Vec<(u32, u32)> = (0..45 + trial % 31).map(|_| (node(), node())).collect();
            let added: Vec<(u32, u32)> = (0..1 + trial % 7)
                .map(|_| (node(), node()))
                .filter(|(u, v)| u != v)
                .collect();
            let before = Graph::from_index_edges(n as usize, &edges, None, false).unwrap();
            let all: Vec<(u32, u32)> = edges.iter().chain(&added).copied().collect();
            let after = Graph::from_index_edges(n as usize, &all, None, false).unwrap();
            for owner in 0..n {
                let old = hops(&before, owner);
                let want = hops(&after, owner);
                let mut dist = old.clone();
                let moved = relax_hop(&after, &added, &mut dist, &mut relax);
                assert_eq!(dist, want, "trial {trial}, owner {owner}");
                let expect: Vec<(u32, f64)> = (0..n)
                    .filter(|&i| want[i as usize] != old[i as usize])
                    .map(|i| (i, old[i as usize]))
                    .collect();
                assert_eq!(relax.changed, if moved { expect } else { vec![] });
            }
        }
    }
}
