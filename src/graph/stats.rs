//! SimSummary statistics of a graph (`privdiffuse info`, `summary.json`) and its
//! connected components.

use super::Graph;

/// What `privdiffuse info` reports about a graph.
///
/// For directed graphs, components are weakly connected and a node's degree is
/// its in-degree plus its out-degree (so `degree_mean` = 2·edges / nodes in
/// both cases, and an isolated node has no arc at all).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct GraphStats {
    /// Number of nodes (including isolated ones from a node list).
    pub nodes: usize,
    /// Number of edges kept (undirected edges counted once).
    pub edges: u64,
    /// Whether arcs are one-way.
    pub directed: bool,
    /// Whether edges carry lengths.
    pub weighted: bool,
    /// Number of (weakly) connected components.
    pub components: usize,
    /// Nodes in the largest component.
    pub largest_component: usize,
    /// Nodes without any edge.
    pub isolated: usize,
    /// Smallest degree.
    pub degree_min: usize,
    /// Mean degree (2·edges / nodes; 0 for an empty graph).
    pub degree_mean: f64,
    /// Largest degree.
    pub degree_max: usize,
    /// Input edges `u u` dropped.
    pub self_loops_dropped: u64,
    /// Repeated input edges dropped.
    pub duplicates_dropped: u64,
    /// Dropped duplicates whose weight differed from the kept (first) one.
    pub conflicting_weights: u64,
    /// For a view (`--ego`, `--subgraph`): what it was cut from. The counts
    /// of dropped lines above are then those of the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view: Option<super::ViewOf>,
}

impl Graph {
    /// SimSummary statistics (one pass over the arcs plus a union–find).
    pub fn stats(&self) -> GraphStats {
        let n = self.n();
        let (count, labels) = self.components();
        let mut sizes = vec![0usize; count];
        for &c in &labels {
            sizes[c as usize] += 1;
        }
        let degrees: Vec<usize> = if self.is_directed() {
            let mut d: Vec<usize> = (0..n as u32).map(|u| self.degree(u)).collect();
            for &v in self.targets() {
                d[v as usize] += 1;
            }
            d
        } else {
            (0..n as u32).map(|u| self.degree(u)).collect()
        };
        let dropped = self.dropped();
        GraphStats {
            nodes: n,
            edges: self.m(),
            directed: self.is_directed(),
            weighted: self.is_weighted(),
            components: count,
            largest_component: sizes.iter().copied().max().unwrap_or(0),
            isolated: degrees.iter().filter(|&&d| d == 0).count(),
            degree_min: degrees.iter().copied().min().unwrap_or(0),
            degree_mean: if n == 0 {
                0.0
            } else {
                2.0 * self.m() as f64 / n as f64
            },
            degree_max: degrees.iter().copied().max().unwrap_or(0),
            self_loops_dropped: dropped.self_loops,
            duplicates_dropped: dropped.duplicates,
            conflicting_weights: dropped.conflicting_weights,
            view: self.view_of().cloned(),
        }
    }

    /// Connected components (weakly connected for directed graphs): their number
    /// and each node's component label. Labels are `0..count`, numbered in order
    /// of each component's smallest node index (node 0 is in component 0).
    pub fn components(&self) -> (usize, Vec<u32>) {
        let n = self.n();
        // Union–find with union by size and path halving: O(m α(n)), and it
        // treats arcs as undirected, which is what weak connectivity needs.
        let mut parent: Vec<u32> = (0..n as u32).collect();
        let mut size = vec![1u32; n];
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let p = parent[x as usize];
                parent[x as usize] = parent[p as usize];
                x = parent[x as usize];
            }
            x
        }
        for u in 0..n as u32 {
            for &v in self.neighbors(u) {
                if !self.is_directed() && v < u {
                    continue;
                }
                let (a, b) = (find(&mut parent, u), find(&mut parent, v));
                if a != b {
                    let (big, small) = if size[a as usize] >= size[b as usize] {
                        (a, b)
                    } else {
                        (b, a)
                    };
                    parent[small as usize] = big;
                    size[big as usize] += size[small as usize];
                }
            }
        }
        let mut label_of_root = vec![u32::MAX; n];
        let mut labels = vec![0u32; n];
        let mut count = 0u32;
        for u in 0..n as u32 {
            let r = find(&mut parent, u) as usize;
            if label_of_root[r] == u32::MAX {
                label_of_root[r] = count;
                count += 1;
            }
            labels[u as usize] = label_of_root[r];
        }
        (count as usize, labels)
    }

    /// The graph as a petgraph `UnGraph` (each edge once, weights = lengths;
    /// node `i` is petgraph's `NodeIndex(i)`), for interop with petgraph's
    /// algorithms. For a directed graph every arc becomes an undirected edge (so
    /// `u → v` and `v → u` give two parallel edges); use
    /// [`Graph::to_petgraph_directed`] to keep directions.
    pub fn to_petgraph(&self) -> petgraph::graph::UnGraph<(), f64, u32> {
        let mut g = petgraph::graph::UnGraph::with_capacity(self.n(), self.m() as usize);
        for _ in 0..self.n() {
            g.add_node(());
        }
        for (u, v, w) in self.edges() {
            g.add_edge(u.into(), v.into(), w);
        }
        g
    }

    /// The graph as a petgraph `DiGraph`: every arc (an undirected edge gives
    /// two arcs), weights = lengths.
    pub fn to_petgraph_directed(&self) -> petgraph::graph::DiGraph<(), f64, u32> {
        let mut g = petgraph::graph::DiGraph::with_capacity(self.n(), self.targets().len());
        for _ in 0..self.n() {
            g.add_node(());
        }
        for u in 0..self.n() as u32 {
            let lo = self.offsets()[u as usize];
            for (i, &v) in self.neighbors(u).iter().enumerate() {
                g.add_edge(u.into(), v.into(), self.arc_weight(lo + i));
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use crate::graph::Graph;

    #[test]
    fn counts_components_isolated_and_degrees() {
        // 0-1-2, 3-4, 5 isolated
        let g = Graph::from_index_edges(6, &[(0, 1), (1, 2), (3, 4), (4, 4)], None, false).unwrap();
        let (c, labels) = g.components();
        assert_eq!(c, 3);
        assert_eq!(labels, vec![0, 0, 0, 1, 1, 2]);
        let s = g.stats();
        assert_eq!(s.nodes, 6);
        assert_eq!(s.edges, 3);
        assert_eq!(s.largest_component, 3);
        assert_eq!(s.isolated, 1);
        assert_eq!((s.degree_min, s.degree_max), (0, 2));
        assert!((s.degree_mean - 1.0).abs() < 1e-15);
        assert_eq!(s.self_loops_dropped, 1);
    }

    #[test]
    fn directed_components_are_weak() {
        // 2 -> 0 <- 1: weakly one component; node 0 has in-degree 2.
        let g = Graph::from_index_edges(4, &[(2, 0), (1, 0)], None, true).unwrap();
        let (c, labels) = g.components();
        assert_eq!(c, 2);
        assert_eq!(labels, vec![0, 0, 0, 1]);
        let s = g.stats();
        assert_eq!((s.degree_min, s.degree_max, s.isolated), (0, 2, 1));
    }

    #[test]
    fn empty_graph_has_zero_stats() {
        let g = Graph::from_index_edges(0, &[], None, false).unwrap();
        let s = g.stats();
        assert_eq!((s.nodes, s.components, s.largest_component), (0, 0, 0));
        assert_eq!(s.degree_mean, 0.0);
    }
}
