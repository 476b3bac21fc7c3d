//! Views: the induced subgraph on part of a graph's nodes, with the original
//! ids kept — an ego network (`--ego ID[:R]`) or the nodes of a list
//! (`--subgraph FILE`).
//!
//! A view is a [`Graph`] in its own right: distances, owners and recipients
//! are computed on it alone, exactly as on the edge list that
//! `privdiffuse subgraph` writes out (which loads back to the same graph).
//! Node order is the whole graph's order restricted to the view, so integer
//! ids stay ascending. Edge lengths are kept. The view remembers what it was
//! cut from ([`Graph::view_of`], echoed by `info` and `summary.json`).
//!
//! **Ego networks of directed graphs follow out-arcs:** the ego view of `ID`
//! is `ID` and every node it reaches in at most `R` arcs — the members the
//! owner `ID` can answer — and every arc among them. R counts hops also on
//! weighted graphs.

use super::Graph;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A part of a graph to keep (spec `ego:ID[:R]` or `subgraph:FILE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphView {
    /// Node `id` and every node within `radius` hops of it (out-arcs for a
    /// directed graph).
    Ego {
        /// The centre's original id.
        id: String,
        /// Hops, ≥ 1.
        radius: u32,
    },
    /// The nodes listed in a file (one id per line, as a `--nodes` file).
    Subgraph(PathBuf),
}

const EGO_EXPECTED: &str =
    "a node id, optionally followed by `:R` hops (R ≥ 1, default 1), e.g. `0` or `0:2`";

impl GraphView {
    /// Parses the value of `--ego`: `ID` or `ID:R` (R ≥ 1; default 1). The
    /// last `:` followed by a number separates R (a number that is no whole
    /// R ≥ 1, `0:-1` or `0:1.5`, is refused as a radius, not looked up as an
    /// id), so an id containing a colon is written with its radius (`a:3:1`).
    pub fn parse_ego(text: &str) -> Result<GraphView> {
        let t = text.trim();
        let numeric = |r: &str| {
            r.trim_start_matches(['+', '-'])
                .starts_with(|c: char| c.is_ascii_digit() || c == '.')
                && r.parse::<f64>().is_ok()
        };
        let (id, radius) = match t.rsplit_once(':') {
            Some((id, r)) if numeric(r) => match r.parse::<u32>() {
                Ok(r) if r >= 1 => (id.trim(), r),
                _ => return Err(Error::param("ego", text, EGO_EXPECTED)),
            },
            _ => (t, 1),
        };
        if id.is_empty() || id.contains(char::is_control) {
            return Err(Error::param("ego", text, EGO_EXPECTED));
        }
        Ok(GraphView::Ego {
            id: id.to_string(),
            radius,
        })
    }

    /// The view of `--subgraph FILE`.
    pub fn subgraph(file: impl Into<PathBuf>) -> GraphView {
        GraphView::Subgraph(file.into())
    }

    /// Cuts the view out of `g` (see [`Graph::ego`], [`Graph::subgraph_file`]).
    pub fn apply(&self, g: &Graph) -> Result<Graph> {
        match self {
            GraphView::Ego { id, radius } => g.ego(id, *radius),
            GraphView::Subgraph(file) => g.subgraph_file(file),
        }
    }

    /// In words: `ego network of node 0 (1 hop)`, `subgraph on the nodes
    /// listed in FILE`.
    pub fn describe(&self) -> String {
        match self {
            GraphView::Ego { id, radius: 1 } => format!("ego network of node {id} (1 hop)"),
            GraphView::Ego { id, radius } => format!("ego network of node {id} ({radius} hops)"),
            GraphView::Subgraph(f) => format!("subgraph on the nodes listed in {}", f.display()),
        }
    }
}

impl std::str::FromStr for GraphView {
    type Err = Error;
    /// `ego:ID[:R]` or `subgraph:FILE`.
    fn from_str(s: &str) -> Result<GraphView> {
        let t = s.trim();
        if let Some(rest) = t.strip_prefix("ego:") {
            return GraphView::parse_ego(rest).map_err(|_| {
                Error::param(
                    "view",
                    s,
                    "ego:ID or ego:ID:R (R ≥ 1 hops), or subgraph:FILE",
                )
            });
        }
        if let Some(f) = t.strip_prefix("subgraph:")
            && !f.trim().is_empty()
        {
            return Ok(GraphView::Subgraph(PathBuf::from(f.trim())));
        }
        Err(Error::param(
            "view",
            s,
            "ego:ID or ego:ID:R (R ≥ 1 hops), or subgraph:FILE",
        ))
    }
}

impl std::fmt::Display for GraphView {
    /// The canonical spec: `ego:ID:R` (radius always written), `subgraph:FILE`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphView::Ego { id, radius } => write!(f, "ego:{id}:{radius}"),
            GraphView::Subgraph(p) => write!(f, "subgraph:{}", p.display()),
        }
    }
}

crate::util::spec::serde_as_spec!(GraphView);

/// What a view was cut from (`info`, `summary.json`'s `graph.view`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewOf {
    /// The view as a spec (`ego:0:1`, `subgraph:FILE`; `induced` for a set
    /// of nodes given by index).
    pub spec: String,
    /// The file the whole graph was read from, if any.
    pub of_file: Option<PathBuf>,
    /// Nodes of the whole graph.
    pub of_nodes: usize,
    /// Edges of the whole graph.
    pub of_edges: u64,
}

impl Graph {
    /// The ego network of the node with original id `id`: the induced
    /// subgraph on it and every node within `radius` hops (out-arcs for a
    /// directed graph), ids kept. An unknown id or `radius` = 0 is an error.
    pub fn ego(&self, id: &str, radius: u32) -> Result<Graph> {
        let centre = self.ids().index_of(id).ok_or_else(|| {
            Error::param(
                "ego",
                id,
                match self.source() {
                    Some(p) => format!("a node id that occurs in {}", p.display()),
                    None => "a node id of the graph".to_string(),
                },
            )
        })?;
        if radius == 0 {
            return Err(Error::param("ego", format!("{id}:0"), EGO_EXPECTED));
        }
        Ok(self.ego_of(centre, radius))
    }

    /// [`Graph::ego`] of the node with index `centre`.
    pub fn ego_of(&self, centre: u32, radius: u32) -> Graph {
        let n = self.n();
        let mut hops = vec![u32::MAX; n];
        let mut frontier = vec![centre];
        hops[centre as usize] = 0;
        let mut keep = vec![centre];
        for h in 1..=radius {
            let mut next = Vec::new();
            for &u in &frontier {
                for &v in self.neighbors(u) {
                    if hops[v as usize] == u32::MAX {
                        hops[v as usize] = h;
                        next.push(v);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            keep.extend_from_slice(&next);
            frontier = next;
        }
        let mut g = self.induced(&keep);
        if let Some(v) = g.view.as_mut() {
            v.spec = format!("ego:{}:{radius}", self.ids().label(centre));
        }
        g
    }

    /// The induced subgraph on the nodes with original ids `ids` (any order,
    /// repeats allowed), ids kept. An id that is not in the graph is an error.
    pub fn subgraph<I, S>(&self, ids: I) -> Result<Graph>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut keep = Vec::new();
        for id in ids {
            let id = id.as_ref();
            keep.push(
                self.ids().index_of(id).ok_or_else(|| {
                    Error::param("subgraph", id, "node ids that occur in the graph")
                })?,
            );
        }
        let mut g = self.induced(&keep);
        let n = g.n();
        if let Some(v) = g.view.as_mut() {
            v.spec = format!("subgraph ({n} nodes)");
        }
        Ok(g)
    }

    /// The induced subgraph on the nodes listed in `file` (one id per line,
    /// read as a `--nodes` file: comments, blank lines, extra columns and an
    /// `id` header allowed; repeats ignored). An id that is not in the graph
    /// is an input error naming the file and line.
    pub fn subgraph_file(&self, file: &Path) -> Result<Graph> {
        let mut keep = Vec::new();
        let mut seen = vec![false; self.n()];
        super::load::read_node_list(file, |id, line| {
            let i = self.ids().index_of(id).ok_or_else(|| {
                Error::input(
                    file,
                    line,
                    format!(
                        "node '{id}' is not in the graph{}: expected ids of its nodes",
                        self.source()
                            .map(|p| format!(" {}", p.display()))
                            .unwrap_or_default()
                    ),
                )
            })?;
            if !std::mem::replace(&mut seen[i as usize], true) {
                keep.push(i);
            }
            Ok(())
        })?;
        if keep.is_empty() {
            return Err(Error::input(
                file,
                0,
                "no node ids: expected one id per line",
            ));
        }
        let mut g = self.induced(&keep);
        if let Some(v) = g.view.as_mut() {
            v.spec = GraphView::Subgraph(file.to_path_buf()).to_string();
        }
        Ok(g)
    }

    /// The induced subgraph on the nodes with indices `nodes` (any order,
    /// repeats ignored; every index below [`Graph::n`]): those nodes, in this
    /// graph's order, and every edge between two of them, with its length.
    /// Ids, direction and the loader's drop counts are kept; the source file
    /// too (so `values = coords` finds the coordinates of the whole graph).
    ///
    /// # Panics
    /// If an index is out of range.
    pub fn induced(&self, nodes: &[u32]) -> Graph {
        let n = self.n();
        let mut new = vec![u32::MAX; n];
        for &u in nodes {
            new[u as usize] = 0;
        }
        let mut keep = Vec::with_capacity(nodes.len());
        for (u, slot) in new.iter_mut().enumerate() {
            if *slot == 0 {
                *slot = keep.len() as u32;
                keep.push(u as u32);
            }
        }
        let mut edges = Vec::new();
        let mut weights = self.is_weighted().then(Vec::new);
        for &u in &keep {
            let lo = self.offsets()[u as usize];
            for (k, &v) in self.neighbors(u).iter().enumerate() {
                let (a, b) = (new[u as usize], new[v as usize]);
                if b == u32::MAX || (!self.is_directed() && b < a) {
                    continue;
                }
                edges.push((a, b));
                if let Some(w) = weights.as_mut() {
                    w.push(self.arc_weight(lo + k));
                }
            }
        }
        let ids = self.ids().subset(&keep);
        // A clean edge set of at most this graph's size: nothing can fail.
        let mut g = Graph::from_edges(ids, &edges, weights.as_deref(), self.is_directed())
            .expect("an induced subgraph is a valid graph");
        g.add_dropped(self.dropped());
        g.source = self.source.clone();
        g.view = Some(ViewOf {
            spec: "induced".into(),
            of_file: self.source.clone(),
            of_nodes: n,
            of_edges: self.m(),
        });
        g
    }

    /// What this graph was cut from, if it is a view.
    pub fn view_of(&self) -> Option<&ViewOf> {
        self.view.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ego_specs() {
        for (s, id, r) in [
            ("0", "0", 1),
            ("17:2", "17", 2),
            ("a:3:1", "a:3", 1),
            (" x ", "x", 1),
            ("a:b", "a:b", 1),
            ("v:-1:2", "v:-1", 2),
        ] {
            assert_eq!(
                GraphView::parse_ego(s).unwrap(),
                GraphView::Ego {
                    id: id.into(),
                    radius: r
                },
                "{s}"
            );
        }
        // A radius that is a number but no whole R ≥ 1 is refused as one
        // (`0:-1` was looked up as the id "0:-1").
        for s in ["", ":2", "0:0", "0:99999999999", "0:-1", "0:1.5"] {
            let e = GraphView::parse_ego(s).unwrap_err().to_string();
            assert!(e.contains("`:R` hops"), "{s}: {e}");
        }
        for s in ["ego:0:1", "ego:a:b:2", "subgraph:x/y.txt"] {
            assert_eq!(s.parse::<GraphView>().unwrap().to_string(), s);
        }
        assert_eq!("ego:5".parse::<GraphView>().unwrap().to_string(), "ego:5:1");
        for s in ["ego:", "subgraph:", "ego5", "x:1"] {
            assert!(s.parse::<GraphView>().is_err(), "{s}");
        }
    }

    #[test]
    fn ego_of_a_path_and_directed_arcs() {
        // 10 – 20 – 30 – 40, weighted.
        let ids = crate::graph::NodeIds::integers(vec![10, 20, 30, 40]);
        let g = Graph::from_edges(
            ids,
            &[(0, 1), (1, 2), (2, 3)],
            Some(&[1.5, 2.5, 3.5]),
            false,
        )
        .unwrap();
        let e = g.ego("20", 1).unwrap();
        assert_eq!(e.n(), 3);
        let es: Vec<_> = e.edges().collect();
        assert_eq!(es, vec![(0, 1, 1.5), (1, 2, 2.5)]);
        assert_eq!(e.ids().label(2).to_string(), "30");
        assert_eq!(e.view_of().unwrap().spec, "ego:20:1");
        assert_eq!(g.ego("10", 5).unwrap().m(), 3);
        assert!(g.ego("11", 1).is_err());
        // Directed 0 → 1 → 2, 3 → 0: out-arcs only.
        let d = Graph::from_index_edges(4, &[(0, 1), (1, 2), (3, 0)], None, true).unwrap();
        let e = d.ego("0", 1).unwrap();
        assert_eq!(e.n(), 2);
        assert!(e.is_directed());
        assert_eq!(e.ids().label(1).to_string(), "1");
        assert_eq!(d.ego("3", 2).unwrap().n(), 3);
    }
}
