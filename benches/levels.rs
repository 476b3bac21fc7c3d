//! Hop-level benchmarks on the 1M-node / 10M-edge Erdős–Rényi graph (issue
//! #13 item 1): one 64-source bit-parallel BFS batch on one thread, as level
//! histograms only, with level rows, and as the historical `f64` rows; the
//! per-answer cost of a level look-up; and the same batch after relabelling
//! the nodes in BFS (Cuthill–McKee-like) order or by degree, to see whether
//! a cache-friendly order pays.
//!
//! `PRIVDIFFUSE_ER` names the edge list (default `/work/big/er1m.edges`,
//! made by `privdiffuse generate er --n 1000000 --m 10000000 --seed 1`);
//! skipped with a notice when absent.
//!
//! `cargo bench -p privdiffuse-benches --bench levels -- --quick`

use criterion::{Criterion, criterion_group, criterion_main};
use privdiffuse::distance::{
    Direction, DistanceKind, DistanceOptions, Distances, LevelRow, LevelSearch, LevelVisitor,
};
use privdiffuse::graph::{Graph, LoadOptions, load_graph};
use std::hint::black_box;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

fn er_path() -> PathBuf {
    std::env::var_os("PRIVDIFFUSE_ER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/big/er1m.edges"))
}

/// `g` with node `order[k]` renamed `k`.
fn relabel(g: &Graph, order: &[u32]) -> Graph {
    let mut new_of = vec![0u32; g.n()];
    for (k, &v) in order.iter().enumerate() {
        new_of[v as usize] = k as u32;
    }
    let edges: Vec<(u32, u32)> = g
        .edges()
        .map(|(u, v, _)| (new_of[u as usize], new_of[v as usize]))
        .collect();
    Graph::from_index_edges(g.n(), &edges, None, false).unwrap()
}

/// BFS order from node 0 (then the other components), neighbours by degree.
fn bfs_order(g: &Graph) -> Vec<u32> {
    let n = g.n();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    for s in 0..n {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let start = order.len();
        order.push(s as u32);
        let mut head = start;
        while head < order.len() {
            let u = order[head] as usize;
            head += 1;
            let mut nb: Vec<u32> = g
                .neighbors(u as u32)
                .iter()
                .copied()
                .filter(|&v| !seen[v as usize])
                .collect();
            nb.sort_by_key(|&v| g.degree(v));
            nb.dedup();
            for v in nb {
                if !seen[v as usize] {
                    seen[v as usize] = true;
                    order.push(v);
                }
            }
        }
    }
    order
}

fn degree_order(g: &Graph) -> Vec<u32> {
    let mut o: Vec<u32> = (0..g.n() as u32).collect();
    o.sort_by_key(|&v| std::cmp::Reverse(g.degree(v)));
    o
}

/// Counts the (node, level) meetings of a search.
struct Count(u64);

impl LevelVisitor for Count {
    fn level(&mut self, _level: u32, nodes: &[u32], _masks: &[u64]) -> ControlFlow<()> {
        self.0 += nodes.len() as u64;
        ControlFlow::Continue(())
    }
    fn done(&mut self, _seen: &[u64]) {}
}

fn bench(c: &mut Criterion) {
    let path = er_path();
    if !path.exists() {
        eprintln!(
            "SKIPPED: {} not found (see the module docs)",
            path.display()
        );
        return;
    }
    // `hop_levels` is sequential: every timing below is one thread.
    {
        let g = load_graph(&path, &LoadOptions::default()).unwrap();
        let n = g.n();
        let sources: Vec<u32> = (0..64)
            .map(|i| (i * 15_485_863u64 % n as u64) as u32)
            .collect();
        let mut grp = c.benchmark_group("er1m_batch64");
        grp.sample_size(10)
            .measurement_time(Duration::from_secs(20));
        for (name, graph) in [
            ("as_loaded", None),
            ("bfs_order", Some(relabel(&g, &bfs_order(&g)))),
            ("degree_order", Some(relabel(&g, &degree_order(&g)))),
        ] {
            let gg = graph.as_ref().unwrap_or(&g);
            let d = Distances::new(gg, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
            let mut ws = d.workspace();
            grp.bench_function(format!("{name}/histograms"), |b| {
                b.iter(|| {
                    let mut t = 0u64;
                    d.hop_levels(
                        &sources,
                        &mut ws,
                        |_| false,
                        |_, lv| t += lv.hist().len() as u64,
                    )
                    .unwrap();
                    black_box(t)
                })
            });
            // The level-by-level search the utility runs (no rows at all), in
            // each expansion direction.
            let mut search = LevelSearch::new();
            for (dname, dir) in [
                ("auto", Direction::Auto),
                ("top_down", Direction::TopDown),
                ("bottom_up", Direction::BottomUp),
            ] {
                grp.bench_function(format!("{name}/level_search_{dname}"), |b| {
                    b.iter(|| {
                        let mut c = Count(0);
                        let _ = search.run_with(gg, &sources, dir, &mut c);
                        black_box(c.0)
                    })
                });
            }
            if name != "as_loaded" {
                continue;
            }
            grp.bench_function(format!("{name}/level_rows"), |b| {
                b.iter(|| {
                    let mut t = 0u64;
                    d.hop_levels(
                        &sources,
                        &mut ws,
                        |_| true,
                        |_, lv| {
                            if let Some(LevelRow::Compact(r)) = lv.row() {
                                t += r[7] as u64;
                            }
                        },
                    )
                    .unwrap();
                    black_box(t)
                })
            });
            grp.bench_function(format!("{name}/f64_rows"), |b| {
                b.iter(|| {
                    let mut t = 0.0;
                    d.batch(&sources, &mut ws, |_, r| t += r[7]);
                    black_box(t)
                })
            });
            // Per answer: the level table look-up of every recipient of one
            // source (what responses and utility sums do per recipient).
            let table: Vec<f64> = (0..64).map(|k| 1.0 / (1.0 + k as f64)).collect();
            let mut row = Vec::new();
            d.hop_levels(
                &sources[..1],
                &mut ws,
                |_| true,
                |_, lv| {
                    // One source gets the single-source BFS's wide row.
                    match lv.row() {
                        Some(LevelRow::Compact(r)) => row = r.to_vec(),
                        Some(LevelRow::Wide(r)) => {
                            row = r.iter().map(|&l| l.min(u16::MAX as u32) as u16).collect()
                        }
                        None => {}
                    }
                },
            )
            .unwrap();
            assert_eq!(row.len(), gg.n(), "the look-up runs over every recipient");
            grp.bench_function("per_answer_lookup_1m", |b| {
                b.iter(|| {
                    let mut s = 0.0;
                    for &l in &row {
                        if l != u16::MAX {
                            s += table[l as usize];
                        }
                    }
                    black_box(s)
                })
            });
        }
        grp.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
