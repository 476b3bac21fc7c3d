//! Tests of the value models: the spec grammar, and each model's defining
//! property (exact count, connected growth, re-seeding, SIR closure and its
//! closed forms, smoothing's standard deviation and neighbour correlation),
//! with tolerances of 6 standard errors derived from the sample sizes.

use super::*;
use crate::rng::{Purpose, rng_for};
use crate::values::{ValueSpec, Values};
use std::path::Path;

fn bundled() -> Graph {
    Graph::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/geometric150.edges")).unwrap()
}

fn rng(seed: u64) -> PrivRng {
    rng_for(seed, 0, 0, Purpose::ValueModel)
}

/// Nodes reachable from `from` through arcs whose both ends satisfy `inside`.
fn reach(g: &Graph, from: &[u32], inside: impl Fn(u32) -> bool) -> Vec<bool> {
    let mut seen = vec![false; g.n()];
    let mut queue: Vec<u32> = from.iter().copied().filter(|&s| inside(s)).collect();
    for &s in &queue {
        seen[s as usize] = true;
    }
    let mut h = 0;
    while h < queue.len() {
        let u = queue[h];
        h += 1;
        for &v in g.neighbors(u) {
            if !seen[v as usize] && inside(v) {
                seen[v as usize] = true;
                queue.push(v);
            }
        }
    }
    seen
}

/// Binomial count within 6 standard deviations of n·p.
fn assert_binomial(count: usize, n: usize, p: f64, what: &str) {
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    let dev = (count as f64 - n as f64 * p).abs();
    assert!(
        dev <= 6.0 * sd,
        "{what}: {count} of {n}, expected {} ± 6·{sd:.2}",
        n as f64 * p
    );
}

#[test]
fn model_specs_round_trip_and_refusals_name_values() {
    for (given, canonical) in [
        ("infection:seeds=3,frac=0.3", "infection:seeds=3,frac=0.3"),
        (
            "infection: frac=0.25 , seeds=1",
            "infection:seeds=1,frac=0.25",
        ),
        (
            "sir:seeds=2,beta=0.1,gamma=1",
            "sir:seeds=2,beta=0.1,gamma=1",
        ),
        (
            "sir:gamma=0.5,beta=0,seeds=7",
            "sir:seeds=7,beta=0,gamma=0.5",
        ),
        ("smooth:sd=2,steps=3", "smooth:sd=2,steps=3"),
        ("smooth:steps=0,sd=0", "smooth:sd=0,steps=0"),
    ] {
        let v: ValueSpec = given.parse().unwrap();
        assert_eq!(v.to_string(), canonical);
        assert_eq!(canonical.parse::<ValueSpec>().unwrap(), v);
        v.check().unwrap();
    }
    for (spec, needle) in [
        ("infection:seeds=3", "a value for 'frac'"),
        ("infection:seeds=3,frac=0.3,x=1", "unknown key 'x'"),
        ("infection:seeds=3,seeds=2,frac=0.3", "'seeds' twice"),
        ("infection:seeds=2.5,frac=0.3", "an integer ≥ 0 for 'seeds'"),
        ("infection:seeds=0,frac=0.3", "K ≥ 1"),
        ("infection:seeds=1,frac=1.5", "0 ≤ P ≤ 1"),
        ("infection:seeds=1,frac=nan", "a finite number for 'frac'"),
        ("infection:3,0.3", "key=value pairs"),
        ("sir:seeds=1,beta=0.5,gamma=0", "0 < G ≤ 1"),
        ("sir:seeds=1,beta=-0.1,gamma=1", "0 ≤ B ≤ 1"),
        ("smooth:sd=-1,steps=1", "S ≥ 0"),
        ("smooth:sd=1,steps=1001", "0..=1000"),
        ("smooth:sd=1,steps=99999999999", "0..=1000"),
        ("smooth", "a value for 'sd'"),
    ] {
        let e = spec.parse::<ValueSpec>().unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("invalid values '{spec}'")) && e.contains(needle),
            "{spec}: {e}"
        );
    }
    // Built from variants: the same checks.
    let m = ValueSpec::Model(ValueModel::Sir {
        seeds: 1,
        beta: 2.0,
        gamma: 1.0,
    });
    assert!(m.check().unwrap_err().to_string().contains("0 ≤ B ≤ 1"));
}

#[test]
fn models_are_drawn_once_from_the_seed_and_bit_models_are_one_dimensional() {
    let g = bundled();
    let p = Path::new("g.edges");
    let spec: ValueSpec = "infection:seeds=2,frac=0.3".parse().unwrap();
    let get = |v: &Values| -> Vec<f64> {
        (0..g.n() as u32)
            .map(|j| {
                let mut x = [0.0];
                v.value(j, &mut x);
                x[0]
            })
            .collect()
    };
    let a = get(&Values::resolve(&spec, &g, p, 1, 5).unwrap());
    let b = get(&Values::resolve(&spec, &g, p, 1, 5).unwrap());
    let c = get(&Values::resolve(&spec, &g, p, 1, 6).unwrap());
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a.iter().sum::<f64>(), 45.0); // round(0.3 · 150)
    for s in ["infection:seeds=2,frac=0.3", "sir:seeds=1,beta=0.2,gamma=1"] {
        let e = Values::resolve(&s.parse().unwrap(), &g, p, 2, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`dim` = 1") && e.contains("got `dim` = 2"),
            "{e}"
        );
    }
    let e = Values::resolve(
        &"sir:seeds=151,beta=0.2,gamma=1".parse().unwrap(),
        &g,
        p,
        1,
        1,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("at most the graph's 150 nodes"), "{e}");
    // Reals in any dimension.
    let v = Values::resolve(&"smooth:sd=1,steps=2".parse().unwrap(), &g, p, 3, 1).unwrap();
    let mut x = [0.0; 3];
    v.value(7, &mut x);
    assert!(x.iter().all(|t| t.is_finite() && *t != 0.0));
}

/// Exact count round(P·N); grown layer by layer from the seeds (all nodes
/// closer to the seeds than the deepest infected one are infected, none
/// beyond it), so connected to the seeds through infected nodes.
#[test]
fn infection_has_the_exact_count_and_grows_by_layers_from_the_seeds() {
    let g = bundled();
    let n = g.n();
    for (s, (k, frac)) in [
        (1usize, 0.3),
        (3, 0.3),
        (3, 0.01),
        (5, 0.9),
        (2, 1.0),
        (1, 0.0),
    ]
    .into_iter()
    .enumerate()
    {
        for seed in 0..20u64 {
            let o = infection(&g, k, frac, &mut rng(100 * s as u64 + seed));
            let count = o.infected.iter().filter(|b| **b).count();
            assert_eq!(count, (frac * n as f64).round() as usize);
            assert_eq!(o.seeds.len(), k, "connected graph: no re-seeding");
            let conn = reach(&g, &o.seeds, |v| o.infected[v as usize]);
            assert_eq!(conn, o.infected, "k={k} frac={frac} seed={seed}");
            // Multi-source BFS depths from the seeds.
            let mut depth = vec![u32::MAX; n];
            let mut queue = o.seeds.clone();
            for &q in &queue {
                depth[q as usize] = 0;
            }
            let mut h = 0;
            while h < queue.len() {
                let u = queue[h];
                h += 1;
                for &v in g.neighbors(u) {
                    if depth[v as usize] == u32::MAX {
                        depth[v as usize] = depth[u as usize] + 1;
                        queue.push(v);
                    }
                }
            }
            let deepest = (0..n)
                .filter(|&v| o.infected[v])
                .map(|v| depth[v])
                .max()
                .unwrap_or(0);
            for (&dv, &inf) in depth.iter().zip(&o.infected) {
                if dv < deepest {
                    assert!(inf || count == 0);
                }
                if dv > deepest {
                    assert!(!inf);
                }
            }
        }
    }
}

/// Components of sizes 1, 2, …, 12 (paths) and 20 isolated nodes: when the
/// seeds' components hold fewer nodes than the target, all of them are
/// infected before new seeds are drawn, the new seeds lie outside them, and
/// the infected set stays connected to the seeds within each component.
#[test]
fn infection_draws_new_seeds_among_unreached_nodes() {
    let mut edges = Vec::new();
    let mut base = 0u32;
    for size in 1..=12u32 {
        edges.extend((0..size - 1).map(|i| (base + i, base + i + 1)));
        base += size;
    }
    let n = base as usize + 20;
    let g = Graph::from_index_edges(n, &edges, None, false).unwrap();
    let mut reseeded = 0;
    for seed in 0..200u64 {
        let k = 2;
        let o = infection(&g, k, 0.5, &mut rng(seed));
        let count = o.infected.iter().filter(|b| **b).count();
        assert_eq!(count, (0.5 * n as f64).round() as usize);
        assert_eq!(reach(&g, &o.seeds, |v| o.infected[v as usize]), o.infected);
        // Seeds come in batches of k: every batch after the first was drawn
        // outside what the earlier batches reach, and only once all of that
        // was infected.
        for b in (k..o.seeds.len()).step_by(k) {
            reseeded += 1;
            let before = reach(&g, &o.seeds[..b], |_| true);
            for &s in &o.seeds[b..(b + k).min(o.seeds.len())] {
                assert!(!before[s as usize], "seed {s} was reachable already");
            }
            for (v, (&b, &inf)) in before.iter().zip(&o.infected).enumerate() {
                assert!(!b || inf, "node {v} skipped");
            }
        }
    }
    assert!(reseeded > 200, "the test should re-seed often ({reseeded})");
}

/// Marginals: on a cycle every node is infected with probability T/N by
/// symmetry (uniform seed), and the node cut from the last layer is either
/// end with probability ½; on an edgeless graph the infected set is a
/// uniform subset (each node with probability T/N). Counts over R runs are
/// Binomial(R, p): within 6 standard deviations.
#[test]
fn infection_seeds_and_last_layers_are_uniform() {
    let nn = 20u32;
    let cyc: Vec<(u32, u32)> = (0..nn).map(|i| (i, (i + 1) % nn)).collect();
    let cycle = Graph::from_index_edges(nn as usize, &cyc, None, false).unwrap();
    let edgeless = Graph::from_index_edges(nn as usize, &[], None, false).unwrap();
    let r = 4000usize;
    // frac 0.3 → T = 6 = 1 + 2 + 2 + one of the two nodes at depth 3.
    let mut per_node = vec![0usize; nn as usize];
    let mut clockwise = 0usize;
    let mut per_node_edgeless = vec![0usize; nn as usize];
    for seed in 0..r as u64 {
        let o = infection(&cycle, 1, 0.3, &mut rng(seed));
        for (c, b) in per_node.iter_mut().zip(&o.infected) {
            *c += usize::from(*b);
        }
        let s = o.seeds[0];
        if o.infected[((s + 3) % nn) as usize] {
            clockwise += 1;
        }
        assert!(o.infected[((s + 3) % nn) as usize] != o.infected[((s + nn - 3) % nn) as usize]);
        let o = infection(&edgeless, 3, 0.35, &mut rng(seed + 1_000_000));
        for (c, b) in per_node_edgeless.iter_mut().zip(&o.infected) {
            *c += usize::from(*b);
        }
    }
    for v in 0..nn as usize {
        assert_binomial(per_node[v], r, 0.3, &format!("cycle node {v}"));
        assert_binomial(per_node_edgeless[v], r, 0.35, &format!("edgeless node {v}"));
    }
    assert_binomial(clockwise, r, 0.5, "last layer's clockwise node");
}

/// A literal discrete-time SIR, step by step, for comparison.
fn sir_steps(g: &Graph, seeds: &[u32], beta: f64, gamma: f64, rng: &mut PrivRng) -> Vec<bool> {
    let n = g.n();
    // 0 susceptible, 1 infectious, 2 recovered.
    let mut state = vec![0u8; n];
    for &s in seeds {
        state[s as usize] = 1;
    }
    let mut ever: Vec<bool> = state.iter().map(|s| *s == 1).collect();
    while state.contains(&1) {
        let infectious: Vec<u32> = (0..n as u32).filter(|&u| state[u as usize] == 1).collect();
        let mut newly = Vec::new();
        for &u in &infectious {
            for &v in g.neighbors(u) {
                if state[v as usize] == 0 && rng.random::<f64>() < beta {
                    newly.push(v);
                }
            }
        }
        for &u in &infectious {
            if rng.random::<f64>() < gamma {
                state[u as usize] = 2;
            }
        }
        for v in newly {
            if state[v as usize] == 0 {
                state[v as usize] = 1;
                ever[v as usize] = true;
            }
        }
    }
    ever
}

/// Closure (every infected non-seed has an infected neighbour) and the
/// edge cases: β = 0 infects only the seeds, β = 1 the seeds' components.
#[test]
fn sir_is_closed_under_the_process_and_its_edge_cases_hold() {
    let g = bundled();
    for seed in 0..30u64 {
        let mut r = rng(seed);
        let seeds = draw_seeds(g.n(), 1 + (seed % 3) as usize, &mut r);
        let set = sir(&g, &seeds, 0.05, 0.5, &mut r);
        for v in 0..g.n() as u32 {
            if set[v as usize] && !seeds.contains(&v) {
                assert!(g.neighbors(v).iter().any(|&u| set[u as usize]), "{v}");
            }
        }
        assert!(seeds.iter().all(|&s| set[s as usize]));
        assert_eq!(reach(&g, &seeds, |v| set[v as usize]), set);
        let none = sir(&g, &seeds, 0.0, 0.3, &mut r);
        let only: Vec<bool> = (0..g.n() as u32).map(|v| seeds.contains(&v)).collect();
        assert_eq!(none, only);
    }
    // β = 1 on a graph of two components: exactly the seed's component.
    let g2 =
        Graph::from_index_edges(7, &[(0, 1), (1, 2), (3, 4), (4, 5), (5, 6)], None, false).unwrap();
    for gamma in [1.0, 0.3, 1e-300] {
        let set = sir(&g2, &[4], 1.0, gamma, &mut rng(1));
        assert_eq!(set, [false, false, false, true, true, true, true]);
    }
}

/// γ = 1 is bond percolation: from one end of a path the infection reaches
/// distance d with probability β^d. γ < 1 on isolated pairs: the partner of
/// a seed is infected with probability β/(1 − (1 − β)(1 − γ)) (one attempt
/// per infectious step, recovery after each). Counts are Binomial.
#[test]
fn sir_matches_its_closed_forms() {
    let path: Vec<(u32, u32)> = (0..9u32).map(|i| (i, i + 1)).collect();
    let pg = Graph::from_index_edges(10, &path, None, false).unwrap();
    let (beta, r) = (0.6, 20_000usize);
    let mut reached = [0usize; 4];
    let mut rg = rng(7);
    for _ in 0..r {
        let set = sir(&pg, &[0], beta, 1.0, &mut rg);
        for (d, c) in reached.iter_mut().enumerate() {
            *c += usize::from(set[d + 1]);
        }
    }
    for (d, &c) in reached.iter().enumerate() {
        assert_binomial(
            c,
            r,
            beta.powi(d as i32 + 1),
            &format!("distance {}", d + 1),
        );
    }
    let m = 20_000u32;
    let pairs: Vec<(u32, u32)> = (0..m).map(|i| (2 * i, 2 * i + 1)).collect();
    let pg = Graph::from_index_edges(2 * m as usize, &pairs, None, false).unwrap();
    let seeds: Vec<u32> = (0..m).map(|i| 2 * i).collect();
    for (beta, gamma) in [(0.3, 0.4), (0.05, 0.1), (0.5, 1.0)] {
        let set = sir(&pg, &seeds, beta, gamma, &mut rng(11));
        let got = (0..m).filter(|i| set[(2 * i + 1) as usize]).count();
        let p = beta / (1.0 - (1.0 - beta) * (1.0 - gamma));
        assert_binomial(got, m as usize, p, &format!("β={beta} γ={gamma}"));
    }
}

/// The percolation form against the literal step-by-step process on the
/// bundled graph: per node, the infection frequencies over R runs agree
/// within 6 standard errors of their difference (and the mean final sizes).
#[test]
fn sir_percolation_form_agrees_with_the_step_by_step_process() {
    let g = bundled();
    let (beta, gamma, r) = (0.04, 0.3, 3000usize);
    let seeds = [17u32];
    let (mut fa, mut fb) = (vec![0usize; g.n()], vec![0usize; g.n()]);
    let (mut ra, mut rb) = (rng(21), rng(22));
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    for _ in 0..r {
        let a = sir(&g, &seeds, beta, gamma, &mut ra);
        let b = sir_steps(&g, &seeds, beta, gamma, &mut rb);
        for v in 0..g.n() {
            fa[v] += usize::from(a[v]);
            fb[v] += usize::from(b[v]);
        }
        sa.push(a.iter().filter(|x| **x).count() as f64);
        sb.push(b.iter().filter(|x| **x).count() as f64);
    }
    for v in 0..g.n() {
        let (pa, pb) = (fa[v] as f64 / r as f64, fb[v] as f64 / r as f64);
        let se = ((pa * (1.0 - pa) + pb * (1.0 - pb)) / r as f64).sqrt();
        assert!(
            (pa - pb).abs() <= 6.0 * se + 1e-12,
            "node {v}: {pa} vs {pb}"
        );
    }
    let stat = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|t| (t - m) * (t - m)).sum::<f64>() / (x.len() - 1) as f64;
        (m, v / x.len() as f64)
    };
    let ((ma, va), (mb, vb)) = (stat(&sa), stat(&sb));
    assert!((ma - mb).abs() < 6.0 * (va + vb).sqrt(), "{ma} vs {mb}");
    assert!(ma > 3.0, "the test needs outbreaks ({ma})");
}

/// The population standard deviation of every coordinate is S (to 1e-12
/// relative), for T = 0, 1, 3 and dim 1, 2; the same numbers on 1 and 2
/// threads.
#[test]
fn smooth_has_the_requested_standard_deviation() {
    let g = bundled();
    for (t, dim, sd) in [(0u32, 1usize, 1.0), (1, 1, 2.5), (3, 2, 0.1), (3, 1, 1e-3)] {
        let x = smooth(&g, dim, sd, t, &mut rng(t as u64)).unwrap();
        for d in 0..dim {
            let col: Vec<f64> = x.iter().skip(d).step_by(dim).copied().collect();
            let m = col.iter().sum::<f64>() / col.len() as f64;
            let s = (col.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / col.len() as f64).sqrt();
            assert!((s - sd).abs() <= 1e-12 * sd, "T={t} dim={dim}: {s} vs {sd}");
        }
        let on = |threads: usize| {
            crate::exec::on_threads(threads, || {
                smooth(&g, dim, sd, t, &mut rng(t as u64)).unwrap()
            })
        };
        assert_eq!(on(1), on(2));
    }
    assert_eq!(
        smooth(&g, 1, 0.0, 2, &mut rng(1)).unwrap(),
        vec![0.0; g.n()]
    );
    let one = Graph::from_index_edges(1, &[], None, false).unwrap();
    assert!(smooth(&one, 1, 1.0, 0, &mut rng(1)).is_none());
}

/// Neighbour correlation r = Σ_arcs x_u·x_v / Σ_arcs (x_u² + x_v²)/2 on the
/// bundled graph rises with T: ≈ 0 at T = 0 (within 6 standard errors over
/// R replicates), near its expectation at T = 1 (ratio of expectations from
/// the closed neighbourhoods: E x_u x_v ∝ |N[u] ∩ N[v]| / ((1 + d_u)(1 + d_v))),
/// and higher at T = 3 than at T = 1 by more than 6 standard errors of the
/// paired differences.
#[test]
fn smooth_neighbour_correlation_rises_with_steps() {
    let g = bundled();
    let n = g.n();
    let r = 300usize;
    let corr = |x: &[f64]| {
        let (mut num, mut den) = (0.0, 0.0);
        for u in 0..n as u32 {
            for &v in g.neighbors(u) {
                num += x[u as usize] * x[v as usize];
                den += 0.5 * (x[u as usize].powi(2) + x[v as usize].powi(2));
            }
        }
        num / den
    };
    let mut rs = [Vec::new(), Vec::new(), Vec::new()];
    for seed in 0..r as u64 {
        for (k, t) in [0u32, 1, 3].into_iter().enumerate() {
            rs[k].push(corr(&smooth(&g, 1, 1.0, t, &mut rng(seed)).unwrap()));
        }
    }
    let mean_se = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|t| (t - m) * (t - m)).sum::<f64>() / (x.len() - 1) as f64;
        (m, (v / x.len() as f64).sqrt())
    };
    let diff = |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(x, y)| x - y).collect() };
    let (m0, se0) = mean_se(&rs[0]);
    assert!(m0.abs() < 6.0 * se0, "T=0: {m0} (se {se0})");
    // Expected T = 1 correlation: C_uv = Σ_w A_uw A_vw, A the closed-neighbourhood average.
    let closed = |u: u32| -> Vec<u32> {
        let mut c = g.neighbors(u).to_vec();
        c.push(u);
        c.sort_unstable();
        c
    };
    let cov = |u: u32, v: u32| {
        let (a, b) = (closed(u), closed(v));
        let common = a.iter().filter(|w| b.binary_search(w).is_ok()).count();
        common as f64 / (a.len() * b.len()) as f64
    };
    let (mut num, mut den) = (0.0, 0.0);
    for u in 0..n as u32 {
        for &v in g.neighbors(u) {
            num += cov(u, v);
            den += 0.5 * (cov(u, u) + cov(v, v));
        }
    }
    let rho1 = num / den;
    let (m1, se1) = mean_se(&rs[1]);
    assert!(
        (m1 - rho1).abs() < 6.0 * se1,
        "T=1: {m1} vs {rho1} (se {se1})"
    );
    let (d10, s10) = mean_se(&diff(&rs[1], &rs[0]));
    let (d31, s31) = mean_se(&diff(&rs[2], &rs[1]));
    assert!(
        d10 > 6.0 * s10 && d31 > 6.0 * s31,
        "{d10} ({s10}), {d31} ({s31})"
    );
}
