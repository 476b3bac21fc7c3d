//! Graph views: `Graph::ego` equals the induced subgraph computed here
//! independently (BFS over the parsed edge list, then a filter of its lines),
//! ids and lengths kept; `privdiffuse subgraph` output loads back to the view.

use crate::support::scratch::scratch;
use privdiffuse::Graph;
use privdiffuse::graph::{LoadOptions, load_graph};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

fn golden(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// `(u, v, w)` lines of an edge-list file (w = 1 when absent), as text ids.
fn parse(path: &Path) -> Vec<(String, String, f64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            let w = c.get(2).map_or(1.0, |w| w.parse().unwrap());
            (c[0].to_string(), c[1].to_string(), w)
        })
        .collect()
}

/// The node set within `r` hops of `centre` and the edge lines among them,
/// normalised (undirected: smaller id first, as numbers).
fn expected(
    lines: &[(String, String, f64)],
    centre: &str,
    r: u32,
    directed: bool,
) -> (BTreeSet<u64>, BTreeSet<(u64, u64, u64)>) {
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (u, v, _) in lines {
        adj.entry(u).or_default().push(v);
        if !directed {
            adj.entry(v).or_default().push(u);
        }
    }
    let mut hops: BTreeMap<&str, u32> = BTreeMap::from([(centre, 0)]);
    let mut q = VecDeque::from([centre]);
    while let Some(u) = q.pop_front() {
        let h = hops[u];
        if h == r {
            continue;
        }
        for &v in adj.get(u).into_iter().flatten() {
            if !hops.contains_key(v) {
                hops.insert(v, h + 1);
                q.push_back(v);
            }
        }
    }
    let nodes: BTreeSet<u64> = hops.keys().map(|s| s.parse().unwrap()).collect();
    let mut edges = BTreeSet::new();
    for (u, v, w) in lines {
        let (a, b): (u64, u64) = (u.parse().unwrap(), v.parse().unwrap());
        if nodes.contains(&a) && nodes.contains(&b) {
            let (a, b) = if directed || a < b { (a, b) } else { (b, a) };
            edges.insert((a, b, w.to_bits()));
        }
    }
    (nodes, edges)
}

/// The view's nodes and edges by original id.
fn actual(g: &Graph) -> (BTreeSet<u64>, BTreeSet<(u64, u64, u64)>) {
    let id = |i: u32| g.ids().label(i).to_string().parse::<u64>().unwrap();
    let nodes = (0..g.n() as u32).map(id).collect();
    let edges = g
        .edges()
        .map(|(u, v, w)| {
            let (a, b) = (id(u), id(v));
            let (a, b) = if g.is_directed() || a < b {
                (a, b)
            } else {
                (b, a)
            };
            (a, b, w.to_bits())
        })
        .collect();
    (nodes, edges)
}

fn check_all_egos(file: &str, directed: bool, radii: &[u32]) {
    let path = golden(file);
    let lines = parse(&path);
    let g = load_graph(
        &path,
        &LoadOptions {
            directed,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let mut sizes = BTreeSet::new();
    for &r in radii {
        for i in 0..g.n() as u32 {
            let id = g.ids().label(i).to_string();
            let view = g.ego(&id, r).unwrap();
            let (n, e) = expected(&lines, &id, r, directed);
            assert_eq!(actual(&view), (n.clone(), e), "{file} ego {id}:{r}");
            assert_eq!(view.is_directed(), directed);
            assert_eq!(view.is_weighted(), g.is_weighted());
            assert_eq!(view.view_of().unwrap().spec, format!("ego:{id}:{r}"));
            // Node order is the graph's: integer ids ascending.
            let ids: Vec<u64> = (0..view.n() as u32)
                .map(|k| view.ids().label(k).to_string().parse().unwrap())
                .collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]));
            // The same nodes through `subgraph` give the same graph.
            let sub = g.subgraph(ids.iter().rev().map(|x| x.to_string())).unwrap();
            assert_eq!(actual(&sub), actual(&view));
            sizes.insert(view.n());
        }
    }
    // The cases are not all trivial (whole graph or a single node).
    assert!(sizes.len() > 3, "{file}: ego sizes {sizes:?}");
}

#[test]
fn ego_equals_independent_bfs_and_filter_on_karate() {
    check_all_egos("data/karate.edges", false, &[1, 2]);
}

#[test]
fn ego_equals_independent_bfs_and_filter_weighted_and_directed() {
    check_all_egos("tests/golden/karate_weighted.edges", false, &[1, 2]);
    // Directed: hops follow out-arcs only.
    check_all_egos("tests/golden/karate_weighted.edges", true, &[1, 3]);
    check_all_egos("tests/golden/lesmis.edges", true, &[2]);
}

#[test]
fn unknown_centre_and_unknown_subgraph_id_are_errors() {
    let g = Graph::load(golden("data/karate.edges")).unwrap();
    let e = g.ego("99", 1).unwrap_err().to_string();
    assert!(e.contains("99") && e.contains("ego"), "{e}");
    assert!(g.ego("0", 0).is_err());
    assert!(g.subgraph(["0", "x"]).is_err());
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    c
}

/// Loads `p` (with `--nodes STEM.nodes` when written) and compares with `view`
/// index by index: ids, order, edges and lengths.
fn reloads_identically(view: &Graph, p: &Path, directed: bool) {
    let nodes = p.with_extension("nodes");
    let back = load_graph(
        p,
        &LoadOptions {
            directed,
            nodes_file: nodes.exists().then_some(nodes),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(back.n(), view.n());
    for i in 0..view.n() as u32 {
        assert_eq!(
            back.ids().label(i).to_string(),
            view.ids().label(i).to_string()
        );
    }
    let a: Vec<_> = back.edges().collect();
    let b: Vec<_> = view.edges().collect();
    assert_eq!(a, b);
    assert_eq!(back.is_weighted(), view.is_weighted());
}

#[test]
fn subgraph_command_output_reloads_to_the_view_and_refuses_to_overwrite() {
    let d = scratch("reload");
    let cases: &[(&str, &str, bool)] = &[
        ("data/karate.edges", "33:2", false),
        ("tests/golden/karate_weighted.edges", "5", false),
        ("tests/golden/karate_weighted.edges", "0:2", true),
    ];
    for (k, (file, ego, directed)) in cases.iter().enumerate() {
        let out = d.join(format!("v{k}.edges"));
        let mut c = bin();
        c.args(["subgraph", "--graph"])
            .arg(golden(file))
            .args(["--ego", ego, "--out"])
            .arg(&out);
        if *directed {
            c.arg("--directed");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(
            text.starts_with("# privdiffuse subgraph --graph "),
            "{text}"
        );
        let g = load_graph(
            &golden(file),
            &LoadOptions {
                directed: *directed,
                ..LoadOptions::default()
            },
        )
        .unwrap();
        let (id, r) = ego.split_once(':').unwrap_or((ego, "1"));
        let view = g.ego(id, r.parse().unwrap()).unwrap();
        reloads_identically(&view, &out, *directed);
        // A second run without --force is refused, and the file is untouched.
        let o = c.output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("--force") && err.lines().count() == 1, "{err}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
        assert!(c.arg("--force").output().unwrap().status.success());
    }
}

#[test]
fn subgraph_of_string_ids_with_an_isolated_node_writes_a_node_list() {
    let d = scratch("strings");
    let g = d.join("g.edges");
    // z is listed first; y is isolated in the view {z, x, y}.
    std::fs::write(&g, "z w\nx z\nw y\n").unwrap();
    let list = d.join("keep.txt");
    std::fs::write(&list, "id\ny\nz\nx\n").unwrap();
    let out = d.join("part.edges");
    let o = bin()
        .args(["subgraph", "--graph"])
        .arg(&g)
        .arg("--subgraph")
        .arg(&list)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = Graph::load(&g).unwrap();
    let view = whole.subgraph_file(&list).unwrap();
    assert_eq!(view.n(), 3);
    assert_eq!(view.m(), 1);
    assert!(out.with_extension("nodes").exists());
    reloads_identically(&view, &out, false);
}
