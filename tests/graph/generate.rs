//! Generators: determinism, the bundled geometric150 network, sampling
//! distributions (fixed seeds, tolerances of 6 standard errors), and petgraph as
//! an oracle for connected components.

use privdiffuse::Graph;
use privdiffuse::graph::generate::{
    GeometricParam, barabasi_albert, erdos_renyi, geometric, max_edge_length, watts_strogatz,
};
use privdiffuse::graph::{LoadOptions, load_graph};
use std::collections::VecDeque;
use std::path::Path;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// Largest finite hop distance (plain BFS from every node).
fn hop_diameter(g: &Graph) -> u32 {
    let n = g.n();
    let mut dist = vec![u32::MAX; n];
    let mut q = VecDeque::new();
    let mut best = 0;
    for s in 0..n as u32 {
        dist.fill(u32::MAX);
        dist[s as usize] = 0;
        q.push_back(s);
        while let Some(u) = q.pop_front() {
            for &v in g.neighbors(u) {
                if dist[v as usize] == u32::MAX {
                    dist[v as usize] = dist[u as usize] + 1;
                    best = best.max(dist[v as usize]);
                    q.push_back(v);
                }
            }
        }
    }
    best
}

#[test]
fn bundled_geometric150_is_what_the_documented_parameters_give() {
    // data/README.md: generate geometric --n 150 --edges 1256 --seed 2
    let (g, pts) = geometric(150, GeometricParam::TargetEdges(1256), 2).unwrap();
    let bundled = load_graph(&data("geometric150.edges"), &LoadOptions::default()).unwrap();
    assert_eq!(bundled.n(), 150);
    assert_eq!(bundled.m(), 1256);
    assert_eq!(bundled.stats().components, 1);
    let a: Vec<_> = g.edges().collect();
    let b: Vec<_> = bundled.edges().collect();
    assert_eq!(a, b);
    // The coordinates file round-trips every f64 exactly.
    let coords = std::fs::read_to_string(data("geometric150.coords.csv")).unwrap();
    let mut lines = coords.lines();
    assert_eq!(lines.next(), Some("node,x,y"));
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f[0].parse::<usize>().unwrap(), i);
        assert_eq!(f[1].parse::<f64>().unwrap(), pts[i][0]);
        assert_eq!(f[2].parse::<f64>().unwrap(), pts[i][1]);
    }
    // Documented: radius 0.20509886398795993, hop diameter 9 (thesis: hops 1–9).
    assert_eq!(max_edge_length(&g, &pts), 0.20509886398795993);
    assert_eq!(hop_diameter(&bundled), 9);
}

#[test]
fn same_seed_same_graph_other_seed_other_graph() {
    type Gen = fn(u64) -> Graph;
    let gens: [Gen; 4] = [
        |s| geometric(200, GeometricParam::Radius(0.1), s).unwrap().0,
        |s| erdos_renyi(200, 600, s).unwrap(),
        |s| barabasi_albert(200, 2, s).unwrap(),
        |s| watts_strogatz(200, 4, 0.2, s).unwrap(),
    ];
    for make in gens {
        let (a, b, c) = (make(5), make(5), make(6));
        assert_eq!(a.targets(), b.targets());
        assert_ne!(a.targets(), c.targets());
    }
}

#[test]
fn components_agree_with_petgraph() {
    // Sparse ER graphs (mean degree ≈ 1) have many components.
    for seed in 0..5 {
        let g = erdos_renyi(2000, 1000, seed).unwrap();
        let (count, labels) = g.components();
        let pg = g.to_petgraph();
        assert_eq!(pg.node_count(), 2000);
        assert_eq!(pg.edge_count(), 1000);
        assert_eq!(count, petgraph::algo::connected_components(&pg));
        assert!(count > 100);
        for (u, v, _) in g.edges() {
            assert_eq!(labels[u as usize], labels[v as usize]);
        }
        let dg = g.to_petgraph_directed();
        assert_eq!(dg.edge_count(), 2000);
        assert_eq!(count, petgraph::algo::connected_components(&dg));
    }
}

#[test]
fn er_picks_every_pair_with_probability_m_over_pairs() {
    // n = 5 has 10 pairs; with m = 3 each pair is an edge with p = 0.3.
    // Count over T graphs ~ Binomial(T, p): s.e. = sqrt(T p (1-p)) ≈ 64.8 for T = 20,000.
    let t = 20_000u64;
    let mut count = [0u64; 10];
    for seed in 0..t {
        let g = erdos_renyi(5, 3, seed).unwrap();
        assert_eq!(g.m(), 3);
        for (u, v, _) in g.edges() {
            count[(v * (v - 1) / 2 + u) as usize] += 1;
        }
    }
    let se = (t as f64 * 0.3 * 0.7).sqrt();
    for c in count {
        assert!((c as f64 - 0.3 * t as f64).abs() < 6.0 * se, "{count:?}");
    }
}

#[test]
fn ba_attaches_proportionally_to_degree() {
    // m = 1: nodes 0-1, node 2 joins one of them; node 3 then sees degrees
    // summing to 4 with node 2 at degree 1, so P(3 attaches to 2) = 1/4
    // (uniform attachment would give 1/3). s.e. = sqrt(p(1-p)/T) ≈ 0.0031.
    let t = 20_000u64;
    let hits = (0..t)
        .filter(|&s| barabasi_albert(4, 1, s).unwrap().neighbors(3) == [2])
        .count();
    let p = hits as f64 / t as f64;
    let se = (0.25f64 * 0.75 / t as f64).sqrt();
    assert!((p - 0.25).abs() < 6.0 * se, "p = {p}");
}

#[test]
fn ws_rewires_about_a_fraction_p_of_lattice_edges() {
    // n = 1000, k = 4: 2000 edges per graph; 20 graphs give 40,000 edges, each
    // rewired with p = 0.3: s.e. of the fraction = sqrt(p(1-p)/40000) ≈ 0.0023.
    // A rewired edge lands back on a lattice pair with probability ≈ k/n = 0.004,
    // a bias (≈ 0.001) well inside the tolerance.
    let (n, k, p) = (1000usize, 4usize, 0.3);
    let mut off = 0u64;
    let mut total = 0u64;
    for seed in 0..20 {
        let g = watts_strogatz(n, k, p, seed).unwrap();
        assert_eq!(g.m(), (n * k / 2) as u64);
        for (u, v, _) in g.edges() {
            let gap = (v - u) as usize;
            total += 1;
            if gap.min(n - gap) > k / 2 {
                off += 1;
            }
        }
    }
    let frac = off as f64 / total as f64;
    let se = (p * (1.0 - p) / total as f64).sqrt();
    assert!((frac - p).abs() < 6.0 * se, "rewired fraction {frac}");
}

#[test]
fn geometric_points_are_uniform_in_the_unit_square() {
    // Mean of 20,000 U(0,1) coordinates: s.e. = sqrt(1/12 / 20000) ≈ 0.0020.
    let (_, pts) = geometric(10_000, GeometricParam::Radius(0.0), 3).unwrap();
    let all: Vec<f64> = pts.iter().flat_map(|p| [p[0], p[1]]).collect();
    assert!(all.iter().all(|&x| (0.0..1.0).contains(&x)));
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    let se = (1.0 / 12.0 / all.len() as f64).sqrt();
    assert!((mean - 0.5).abs() < 6.0 * se, "mean {mean}");
    let below = all.iter().filter(|&&x| x < 0.25).count() as f64 / all.len() as f64;
    let se_q = (0.25f64 * 0.75 / all.len() as f64).sqrt();
    assert!((below - 0.25).abs() < 6.0 * se_q, "P(x < 1/4) = {below}");
}

#[test]
fn bad_parameters_are_parameter_errors() {
    use privdiffuse::Error;
    let is_param = |r: privdiffuse::Result<Graph>| matches!(r, Err(Error::Parameter { .. }));
    assert!(is_param(
        geometric(0, GeometricParam::Radius(0.1), 1).map(|x| x.0)
    ));
    assert!(is_param(
        geometric(10, GeometricParam::Radius(f64::NAN), 1).map(|x| x.0)
    ));
    assert!(is_param(
        geometric(10, GeometricParam::Radius(-0.1), 1).map(|x| x.0)
    ));
    assert!(is_param(
        geometric(10, GeometricParam::TargetEdges(46), 1).map(|x| x.0)
    ));
    assert!(is_param(erdos_renyi(10, 46, 1)));
    assert!(is_param(barabasi_albert(10, 10, 1)));
    assert!(is_param(watts_strogatz(10, 5, 0.1, 1)));
    assert!(is_param(watts_strogatz(10, 4, -0.1, 1)));
    // Requests far beyond memory are refused up front, not by a failed allocation.
    assert!(is_param(erdos_renyi(4_000_000, 1 << 40, 1)));
    assert!(is_param(
        geometric(4_000_000, GeometricParam::Radius(1.0), 1).map(|x| x.0)
    ));
    assert!(is_param(barabasi_albert(100_000_000, 50, 1)));
    assert!(is_param(watts_strogatz(100_000_000, 100, 0.1, 1)));
}
