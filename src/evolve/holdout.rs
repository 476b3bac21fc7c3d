//! `generate events`: a graph split into a START graph and an event stream —
//! held-out edges added back in random order, optionally some of START's
//! edges removed at random positions — for experiments with `evolve`.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::rng::{Purpose, rng_for};
use crate::store::EdgeEvent;
use rand::RngExt;

/// A graph split for `evolve`: START's edges and the events.
#[derive(Clone, Debug)]
pub struct HeldOut {
    /// START's edges `(u, v, w)`, u < v, in the graph's order.
    pub start: Vec<(u32, u32, f64)>,
    /// Additions of the held-out edges and removals of START edges,
    /// interleaved, times 1, 2, … (`line` is the row's line in the events
    /// file as written: time + 1).
    pub events: Vec<EdgeEvent>,
}

fn fraction(name: &str, x: f64) -> Result<()> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(Error::param(name, x, "a fraction in [0, 1]"))
    }
}

/// Holds out `round(hold_out · m)` edges of `g` chosen uniformly (seeded),
/// added back as events in random order; with `remove` > 0, also
/// `round(remove · |START|)` of START's edges removed, the removals placed
/// at uniformly random positions among the additions.
pub fn hold_out(g: &Graph, hold_out: f64, remove: f64, seed: u64) -> Result<HeldOut> {
    fraction("hold_out", hold_out)?;
    fraction("remove", remove)?;
    if g.is_directed() {
        return Err(Error::Unsupported(
            "generate events: an undirected graph is expected".into(),
        ));
    }
    let mut rng = rng_for(seed, 0, 0, Purpose::Generate);
    let mut edges: Vec<(u32, u32, f64)> =
        g.edges().map(|(u, v, w)| (u.min(v), u.max(v), w)).collect();
    let m = edges.len();
    let h = (hold_out * m as f64).round() as usize;
    for i in 0..h {
        let j = rng.random_range(i..m);
        edges.swap(i, j);
    }
    let held: Vec<(u32, u32, f64)> = edges[..h].to_vec();
    let mut start: Vec<(u32, u32, f64)> = edges[h..].to_vec();
    start.sort_by_key(|e| (e.0, e.1));
    let r = (remove * start.len() as f64).round() as usize;
    let mut pick: Vec<usize> = (0..start.len()).collect();
    for i in 0..r {
        let j = rng.random_range(i..pick.len());
        pick.swap(i, j);
    }
    let removed: Vec<(u32, u32, f64)> = pick[..r].iter().map(|&i| start[i]).collect();
    // Interleave: a uniformly random arrangement of h additions and r removals.
    let total = h + r;
    let mut is_removal = vec![false; total];
    let mut slots: Vec<usize> = (0..total).collect();
    for i in 0..r {
        let j = rng.random_range(i..total);
        slots.swap(i, j);
        is_removal[slots[i]] = true;
    }
    let (mut a, mut b) = (held.into_iter(), removed.into_iter());
    let mut events = Vec::with_capacity(total);
    for (k, &rem) in is_removal.iter().enumerate() {
        let (e, add) = if rem {
            (b.next(), false)
        } else {
            (a.next(), true)
        };
        let Some((u, v, w)) = e else { continue };
        events.push(EdgeEvent {
            line: k as u64 + 2,
            time: (k + 1) as f64,
            u,
            v,
            add,
            w,
        });
    }
    Ok(HeldOut { start, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_disjointness_and_determinism() {
        let g = Graph::load("data/karate.edges").unwrap();
        let h = hold_out(&g, 0.1, 0.05, 3).unwrap();
        let m = g.m() as usize;
        let held = (0.1 * m as f64).round() as usize;
        let adds = h.events.iter().filter(|e| e.add).count();
        assert_eq!((adds, h.start.len()), (held, m - held));
        let rem = h.events.len() - adds;
        assert_eq!(rem, (0.05 * (m - held) as f64).round() as usize);
        let start: std::collections::HashSet<(u32, u32)> =
            h.start.iter().map(|e| (e.0, e.1)).collect();
        for e in &h.events {
            assert_eq!(start.contains(&(e.u, e.v)), !e.add);
        }
        let times: Vec<f64> = h.events.iter().map(|e| e.time).collect();
        assert_eq!(
            times,
            (1..=h.events.len()).map(|t| t as f64).collect::<Vec<_>>()
        );
        let again = hold_out(&g, 0.1, 0.05, 3).unwrap();
        assert_eq!(again.events, h.events);
        assert_ne!(hold_out(&g, 0.1, 0.05, 4).unwrap().events, h.events);
        assert!(hold_out(&g, 1.5, 0.0, 1).is_err());
    }
}
