//! Edge-list loading: formats, id handling, node lists, and one test per kind of
//! bad input asserting that the message names the file, the line, the offending
//! text and what was expected.

use crate::support::scratch::scratch;
use flate2::Compression;
use flate2::write::GzEncoder;
use privdiffuse::Error;
use privdiffuse::graph::{LoadOptions, load_graph};
use std::io::Write;
use std::path::{Path, PathBuf};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn load(p: &Path) -> privdiffuse::Result<privdiffuse::Graph> {
    load_graph(p, &LoadOptions::default())
}

/// Asserts an `Error::Input` at `line` whose text contains the file name and
/// every one of `parts`.
fn assert_input_error(
    r: privdiffuse::Result<privdiffuse::Graph>,
    file: &Path,
    line: usize,
    parts: &[&str],
) {
    let e = r.expect_err("bad input must be an error");
    let text = e.to_string();
    match &e {
        Error::Input {
            file: f, line: l, ..
        } => {
            assert_eq!(f, file, "{text}");
            assert_eq!(*l, line, "{text}");
        }
        other => panic!("expected Error::Input, got {other:?}"),
    }
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(text.contains(name), "no file name in: {text}");
    if line == 0 {
        // Not tied to a line: the file alone, never "file:0:" (issue 33).
        assert!(!text.contains(":0:"), "a line 0 in: {text}");
    } else {
        assert!(
            text.contains(&format!(":{line}:")),
            "no line number in: {text}"
        );
    }
    for p in parts {
        assert!(text.contains(p), "missing {p:?} in: {text}");
    }
}

#[test]
fn loads_the_golden_graphs() {
    let k = load(&golden("karate.edges")).unwrap();
    let s = k.stats();
    assert_eq!(
        (s.nodes, s.edges, s.components, s.weighted),
        (34, 78, 1, false)
    );
    let w = load(&golden("karate_weighted.edges")).unwrap();
    assert!(w.is_weighted());
    assert_eq!(w.m(), 78);
    // w(0,1) = 1 + (0*7 + 1*13) % 5 = 4 (golden README).
    assert_eq!(w.neighbor_weights(0).unwrap()[0], 4.0);
    let l = load(&golden("lesmis.edges")).unwrap();
    assert_eq!((l.n(), l.m()), (77, 254));
    let f = load(&golden("florentine.edges")).unwrap();
    assert_eq!((f.n(), f.m()), (15, 20));
    // The bundled copy is the golden one.
    assert_eq!(
        std::fs::read(golden("karate.edges")).unwrap(),
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/karate.edges")).unwrap()
    );
}

#[test]
fn karate_plus_needs_the_node_list_for_its_isolated_node() {
    let without = load(&golden("karate_plus.edges")).unwrap().stats();
    assert_eq!(
        (without.nodes, without.edges, without.components),
        (36, 79, 2)
    );
    let dir = scratch("plus");
    let ids: String = (0..=36).map(|i| format!("{i}\n")).collect();
    let nodes = write(
        &dir,
        "karate_plus.nodes",
        format!("# all ids\n{ids}").as_bytes(),
    );
    let opts = LoadOptions {
        nodes_file: Some(nodes),
        ..LoadOptions::default()
    };
    let g = load_graph(&golden("karate_plus.edges"), &opts).unwrap();
    let s = g.stats();
    assert_eq!((s.nodes, s.edges, s.components, s.isolated), (37, 79, 3, 1));
    assert_eq!(g.ids().index_of("36"), Some(36));
    assert_eq!(g.degree(36), 0);
}

#[test]
fn formats_comments_header_separators_and_sparse_ids() {
    let dir = scratch("formats");
    let p = write(
        &dir,
        "mixed.csv",
        b"% matrix-market style comment\nSource,Target\n\n# another\n1000000000000,7\r\n7\t3\n  3   1000000000000  \n7,7\n3 7\n",
    );
    let g = load(&p).unwrap();
    assert_eq!((g.n(), g.m()), (3, 3));
    // Integer ids: index order is ascending id.
    assert_eq!(g.ids().label(0).to_string(), "3");
    assert_eq!(g.ids().label(2).to_string(), "1000000000000");
    assert_eq!(g.dropped().self_loops, 1);
    assert_eq!(g.dropped().duplicates, 1);
}

#[test]
fn a_first_line_of_digits_beyond_u64_is_an_edge_not_a_header() {
    // Digits-only ids are numbers however long: the line is the first edge,
    // as the same ids on a later line are (it was skipped as a header).
    let dir = scratch("long-digits");
    let p = write(&dir, "long.edges", b"99999999999999999999999 1\n1 2\n");
    let g = load(&p).unwrap();
    assert_eq!((g.n(), g.m()), (3, 2));
    assert!(g.ids().index_of("99999999999999999999999").is_some());
}

#[test]
fn byte_order_mark_is_ignored() {
    let dir = scratch("bom");
    let p = write(&dir, "bom.csv", b"\xEF\xBB\xBF1,2\n2,3\n");
    let g = load(&p).unwrap();
    assert!(g.ids().is_integer());
    assert_eq!((g.n(), g.m()), (3, 2));
}

#[test]
fn string_tokens_keep_first_appearance_order_and_spelling_digit_ids_are_numbers() {
    let dir = scratch("tokens");
    let p = write(
        &dir,
        "fam.edges",
        b"10 Medici\nMedici Strozzi\n007 10\n7 Medici\n",
    );
    let g = load(&p).unwrap();
    let labels: Vec<String> = (0..g.n() as u32)
        .map(|i| g.ids().label(i).to_string())
        .collect();
    // The id rule: an id of ASCII digits is a number, so `007` and `7` are
    // one node, printed `7`, even among string ids.
    assert_eq!(labels, ["10", "Medici", "Strozzi", "7"]);
    assert!(!g.ids().is_integer());
    // With only integers, `007` and `7` are one node too.
    let q = write(&dir, "ints.edges", b"007 1\n7 2\n");
    assert_eq!(load(&q).unwrap().n(), 3);
    // A string that merely contains digits keeps its spelling.
    let r = write(&dir, "mixed.edges", b"+7 07\n7.0 x07\n");
    let g = load(&r).unwrap();
    let labels: Vec<String> = (0..g.n() as u32)
        .map(|i| g.ids().label(i).to_string())
        .collect();
    assert_eq!(labels, ["+7", "7", "7.0", "x07"]);
}

#[test]
fn gzip_is_read_by_extension_or_magic_bytes() {
    let dir = scratch("gzip");
    let text = std::fs::read(golden("karate.edges")).unwrap();
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(&text).unwrap();
    let gz = enc.finish().unwrap();
    let a = write(&dir, "karate.edges.gz", &gz);
    let b = write(&dir, "karate_no_extension", &gz);
    for p in [a, b] {
        let g = load(&p).unwrap();
        assert_eq!((g.n(), g.m()), (34, 78));
    }
}

#[test]
fn conflicting_duplicate_weights_are_counted_and_first_is_kept() {
    let dir = scratch("conflict");
    let p = write(&dir, "w.edges", b"1 2 0.5\n2 1 3\n2 3 1\n");
    let g = load(&p).unwrap();
    assert_eq!(g.dropped().conflicting_weights, 1);
    assert_eq!(g.neighbor_weights(0).unwrap(), &[0.5]);
    assert!(
        g.dropped()
            .warning()
            .unwrap()
            .contains("first weight was kept")
    );
}

#[test]
fn directed_option_keeps_arcs_one_way() {
    let dir = scratch("directed");
    let p = write(&dir, "d.edges", b"1 2\n2 1\n2 3\n");
    let opts = LoadOptions {
        directed: true,
        ..LoadOptions::default()
    };
    let g = load_graph(&p, &opts).unwrap();
    assert_eq!(g.m(), 3);
    assert_eq!(g.neighbors(2), &[] as &[u32]);
    assert_eq!(g.stats().components, 1);
}

// ---- bad input: one test per case ----

#[test]
fn empty_file_says_no_edges() {
    let dir = scratch("empty");
    let p = write(&dir, "empty.edges", b"");
    assert_input_error(
        load(&p),
        &p,
        0,
        &["no edges", "file is empty", "expected at least one line"],
    );
    let q = write(&dir, "comments.edges", b"# only\n\n% comments\n");
    assert_input_error(
        load(&q),
        &q,
        3,
        &["no edges", "comment", "expected at least one line"],
    );
}

#[test]
fn one_column_is_rejected() {
    let dir = scratch("onecol");
    let p = write(&dir, "one.edges", b"1 2\n3\n");
    assert_input_error(
        load(&p),
        &p,
        2,
        &["'3'", "1 column", "expected 2 or 3 columns"],
    );
}

#[test]
fn too_many_columns_are_rejected() {
    let dir = scratch("fourcol");
    let p = write(&dir, "four.edges", b"1 2 1.5 1700000000\n");
    assert_input_error(
        load(&p),
        &p,
        1,
        &["'1 2 1.5 1700000000'", "expected 2 or 3 columns"],
    );
}

#[test]
fn mixing_two_and_three_columns_is_rejected() {
    let dir = scratch("mixcols");
    let p = write(&dir, "mix.edges", b"# weighted\n1 2 0.5\n2 3\n");
    assert_input_error(
        load(&p),
        &p,
        3,
        &[
            "'2 3'",
            "first edge line (2)",
            "expected every line to be `u v w`",
        ],
    );
    let q = write(&dir, "mix2.edges", b"1 2\n2 3 4\n");
    assert_input_error(
        load(&q),
        &q,
        2,
        &["'2 3 4'", "expected every line to be `u v`"],
    );
}

#[test]
fn non_numeric_weight_is_rejected() {
    let dir = scratch("nanweight");
    let p = write(&dir, "w.edges", b"1 2 0.5\n2 3 heavy\n");
    assert_input_error(
        load(&p),
        &p,
        2,
        &["'heavy'", "not a number", "expected a finite number > 0"],
    );
}

#[test]
fn negative_zero_nan_and_infinite_weights_are_rejected() {
    let dir = scratch("badweights");
    for (i, w) in ["-1", "0", "NaN", "inf", "-0.0"].iter().enumerate() {
        let p = write(
            &dir,
            &format!("w{i}.edges"),
            format!("1 2 1\n2 3 {w}\n").as_bytes(),
        );
        assert_input_error(
            load(&p),
            &p,
            2,
            &[&format!("'{w}'"), "expected a finite number > 0"],
        );
    }
}

#[test]
fn more_nodes_than_the_cap_is_rejected() {
    let dir = scratch("cap");
    let p = write(&dir, "cap.edges", b"1 2\n2 3\n3 4\n4 5\n");
    let opts = LoadOptions {
        max_nodes: 4,
        ..LoadOptions::default()
    };
    assert_input_error(
        load_graph(&p, &opts),
        &p,
        4,
        &["'5'", "node number 5", "at most 4 distinct nodes"],
    );
    // Exactly at the cap is fine.
    let q = write(&dir, "ok.edges", b"1 2\n2 3\n3 4\n");
    assert_eq!(load_graph(&q, &opts).unwrap().n(), 4);
}

#[test]
fn unreadable_file_is_an_io_error_naming_it() {
    let dir = scratch("dir");
    let missing = dir.join("privdiffuse-definitely-missing.edges");
    let e = load(&missing).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    assert!(
        e.to_string()
            .contains("privdiffuse-definitely-missing.edges")
    );
    // A directory cannot be read as a file either.
    let e = load(&dir).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
}

#[test]
fn binary_file_is_rejected_with_its_line() {
    let dir = scratch("binary");
    let p = write(&dir, "bin.edges", b"1 2\n\x7fELF\x02\x01\x00\x00 3\n");
    assert_input_error(
        load(&p),
        &p,
        2,
        &[
            "binary data",
            "NUL byte",
            "ELF",
            "expected a text edge list",
        ],
    );
    let q = write(&dir, "latin1.edges", b"1 2\nM\xe9dici 3\n");
    assert_input_error(
        load(&q),
        &q,
        2,
        &[
            "binary data",
            "not UTF-8",
            "dici 3",
            "expected a text edge list",
        ],
    );
}

#[test]
fn truncated_gzip_is_an_error_not_a_partial_graph() {
    let dir = scratch("truncgz");
    let text: String = (0..20_000).map(|i| format!("{i} {}\n", i + 1)).collect();
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    let p = write(&dir, "cut.edges.gz", &gz[..gz.len() / 2]);
    let e = load(&p).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::Input { .. }), "{e:?}");
    assert!(msg.contains("cut.edges.gz:"), "{msg}");
    // The line reached before the stream broke (the data had 20,000 lines).
    let line: usize = msg.split(':').nth(1).unwrap().parse().unwrap();
    assert!(line > 1 && line <= 20_000, "{msg}");
    assert!(msg.contains("truncated or corrupt"), "{msg}");
    assert!(msg.contains("expected a complete gzip file"), "{msg}");
    // Losing only the 8-byte trailer (CRC + size) is caught too.
    let q = write(&dir, "notrailer.edges.gz", &gz[..gz.len() - 4]);
    assert!(matches!(load(&q), Err(Error::Input { .. })));
}

#[test]
fn bad_node_list_names_the_node_file() {
    let dir = scratch("badnodes");
    let edges = write(&dir, "e.edges", b"1 2\n");
    let nodes = write(&dir, "n.txt", b"id\n1\n2\n3\n4\n");
    let opts = LoadOptions {
        nodes_file: Some(nodes.clone()),
        max_nodes: 3,
        ..LoadOptions::default()
    };
    assert_input_error(
        load_graph(&edges, &opts),
        &nodes,
        5,
        &["'4'", "at most 3 distinct nodes"],
    );
}

// ---- real data and speed ----

#[test]
fn facebook_combined_if_present() {
    let Some(p) = crate::skip::shared_data("facebook_combined.txt") else {
        return;
    };
    let t = std::time::Instant::now();
    let g = load(&p).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let s = g.stats();
    assert_eq!((s.nodes, s.edges, s.components), (4039, 88_234, 1));
    eprintln!("facebook_combined: loaded in {:.1} ms", secs * 1e3);
}

// ---- round trip through the writer ----

mod round_trip {
    use super::*;
    use privdiffuse::Graph;
    use privdiffuse::graph::NodeIds;
    use privdiffuse::io::write_edge_list;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// Edges as label pairs (smaller label first for undirected graphs) with the
    /// weight's bits, so graphs with different index orders compare equal.
    fn labelled(g: &Graph) -> BTreeSet<(String, String, u64)> {
        g.edges()
            .map(|(u, v, w)| {
                let (a, b) = (g.ids().label(u).to_string(), g.ids().label(v).to_string());
                let (a, b) = if g.is_directed() || a <= b {
                    (a, b)
                } else {
                    (b, a)
                };
                (a, b, w.to_bits())
            })
            .collect()
    }

    fn graph_strategy() -> impl Strategy<Value = (Graph, bool)> {
        (1usize..25, any::<bool>(), any::<bool>(), any::<bool>()).prop_flat_map(
            |(n, tokens, weighted, directed)| {
                let edges = prop::collection::vec((0..n as u32, 0..n as u32), 1..60);
                let weights =
                    prop::collection::vec(prop_oneof![Just(1.0), Just(0.1), 1e-300f64..1e300], 60);
                let ids = prop::collection::btree_set(any::<u64>(), n);
                (edges, weights, ids).prop_map(move |(edges, weights, ids)| {
                    let ids: Vec<u64> = ids.into_iter().collect();
                    let node_ids = if tokens {
                        NodeIds::tokens(ids.iter().map(|x| format!("n_{x:x}")).collect())
                    } else {
                        NodeIds::integers(ids)
                    };
                    let w = weighted.then(|| weights[..edges.len()].to_vec());
                    (
                        Graph::from_edges(node_ids, &edges, w.as_deref(), directed).unwrap(),
                        directed,
                    )
                })
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn written_graphs_load_back_identically((g, directed) in graph_strategy()) {
            prop_assume!(g.m() > 0);
            let dir = scratch("roundtrip");
            let path = dir.join("g.edges");
            write_edge_list(&g, &path, "round trip\nsecond comment line").unwrap();
            let labels: String = (0..g.n() as u32).map(|i| format!("{}\n", g.ids().label(i))).collect();
            let nodes = write(&dir, "g.nodes", labels.as_bytes());
            let opts = LoadOptions { directed, nodes_file: Some(nodes), ..LoadOptions::default() };
            let h = load_graph(&path, &opts).unwrap();
            prop_assert_eq!(h.n(), g.n());
            prop_assert_eq!(h.m(), g.m());
            prop_assert_eq!(h.is_weighted(), g.is_weighted());
            prop_assert_eq!(labelled(&h), labelled(&g));
            prop_assert_eq!(h.dropped().duplicates, 0);
            prop_assert_eq!(h.stats().components, g.stats().components);
        }
    }
}

// ---- the CSR builder against a naive reference ----

mod builder_reference {
    use privdiffuse::Graph;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// `Graph::from_edges` (blocked two-pass CSR build; the loader ends in
        /// it too) against a map of arcs built edge by edge: same neighbours
        /// in ascending order, the first occurrence's weight, the same counts
        /// of self-loops, repeats and conflicting repeats — on graphs spanning
        /// several 4,096-node blocks, where a few hubs make repeats frequent.
        #[test]
        fn from_edges_matches_a_naive_build(
            n in 1usize..12_000,
            raw in prop::collection::vec((0u32..7, any::<u32>(), 0u8..3), 1..400),
            weighted in any::<bool>(),
            directed in any::<bool>(),
        ) {
            let hub = |h: u32| (h as usize * n / 7) as u32;
            let edges: Vec<(u32, u32)> =
                raw.iter().map(|&(h, b, _)| (hub(h), hub(b % 7).max(b % n as u32))).collect();
            let w: Vec<f64> = raw.iter().map(|&(_, _, c)| 1.0 + c as f64).collect();
            let w = weighted.then_some(w);
            let g = Graph::from_index_edges(n, &edges, w.as_deref(), directed).unwrap();

            let mut arcs: BTreeMap<(u32, u32), f64> = BTreeMap::new();
            let (mut loops, mut dups, mut conflicts) = (0u64, 0u64, 0u64);
            for (k, &(u, v)) in edges.iter().enumerate() {
                let wk = w.as_ref().map_or(1.0, |w| w[k]);
                if u == v {
                    loops += 1;
                    continue;
                }
                let key = if directed || u < v { (u, v) } else { (v, u) };
                match arcs.get(&key) {
                    Some(&first) => {
                        dups += 1;
                        conflicts += (first != wk) as u64;
                    }
                    None => {
                        arcs.insert(key, wk);
                    }
                }
            }
            let mut adj: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
            for (&(u, v), &wk) in &arcs {
                adj[u as usize].push((v, wk));
                if !directed {
                    adj[v as usize].push((u, wk));
                }
            }
            prop_assert_eq!(g.m(), arcs.len() as u64);
            for (u, list) in adj.iter_mut().enumerate() {
                list.sort_by_key(|a| a.0);
                let nb: Vec<u32> = list.iter().map(|a| a.0).collect();
                prop_assert_eq!(g.neighbors(u as u32), &nb[..], "node {}", u);
                let ws: Vec<f64> = list.iter().map(|a| a.1).collect();
                prop_assert_eq!(g.neighbor_weights(u as u32), w.as_ref().map(|_| &ws[..]), "node {}", u);
            }
            let d = g.dropped();
            prop_assert_eq!((d.self_loops, d.duplicates, d.conflicting_weights), (loops, dups, conflicts));
        }
    }
}
