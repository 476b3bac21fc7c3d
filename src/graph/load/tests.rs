use super::*;

#[test]
fn parses_plain_digits_only() {
    assert_eq!(parse_u64(b"0"), Some(0));
    assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
    assert_eq!(parse_u64(b"18446744073709551616"), None);
    assert_eq!(parse_u64(b"-1"), None);
    assert_eq!(parse_u64(b"+1"), None);
    assert_eq!(parse_u64(b""), None);
    assert_eq!(parse_u64(b"1a"), None);
}

#[test]
fn splits_on_runs_of_separators() {
    let mut cols: [&[u8]; 4] = [&[]; 4];
    assert_eq!(split_columns(b" 1,\t2  3\r", &mut cols), 3);
    assert_eq!(&cols[..3], &[&b"1"[..], b"2", b"3"]);
    assert_eq!(split_columns(b"a b c d e", &mut cols), 4);
    assert_eq!(split_columns(b"  ", &mut cols), 0);
}

#[test]
fn headers_need_header_words_in_every_column() {
    let h = |s: &str| {
        let mut cols: [&[u8]; 4] = [&[]; 4];
        let n = split_columns(s.as_bytes(), &mut cols);
        is_edge_header(&cols[..n])
    };
    assert!(h("source,target,weight"));
    assert!(h("From To"));
    assert!(h("u v w"));
    assert!(!h("source Medici"));
    assert!(!h("1 2"));
    assert!(!h("source target 3"));
}

#[test]
fn dense_table_falls_back_to_a_map_for_sparse_ids() {
    let mut ids = IntIds::new();
    assert_eq!(ids.get(5), 0);
    assert_eq!(ids.get(1 << 40), 1);
    assert!(ids.dense.is_none());
    assert_eq!(ids.get(5), 0);
    assert_eq!(ids.get(3), 2);
    let (sorted, perm) = ids.finish();
    assert_eq!(sorted, vec![3, 5, 1 << 40]);
    assert_eq!(perm, vec![1, 2, 0]);
}

fn budget(bytes: u64) -> MemoryBudget {
    MemoryBudget {
        bytes,
        source: crate::limits::BudgetSource::Explicit,
    }
}

fn at(path: &Path) -> At<'_> {
    At {
        param: "graph",
        path,
        line: 7,
        fraction: None,
        nodes: 3,
    }
}

/// Pushes `edges` through an [`EdgeBuf`] that compacts every
/// `compact_at` edges, then builds the graph as the loader does.
fn via_buffer(
    n: usize,
    edges: &[(u32, u32)],
    weights: Option<&[f64]>,
    directed: bool,
    compact_at: usize,
) -> Graph {
    let mut b = EdgeBuf::new(directed, budget(1 << 30));
    b.start(weights.is_some(), 0, NodeMem::default());
    let p = PathBuf::from("x");
    for (k, &e) in edges.iter().enumerate() {
        if b.len() >= compact_at {
            b.compact();
        }
        if !b.has_room(1) {
            b.make_room(1, NodeMem::default(), &at(&p)).unwrap();
        }
        b.edges.push(e);
        if let Some(w) = weights {
            b.weights.push(w[k]);
        }
    }
    let (e, w, dropped) = b.finish(NodeMem::default(), &at(&p)).unwrap();
    let mut g = Graph::from_edges(NodeIds::range(n), &e, w.as_deref(), directed).unwrap();
    g.add_dropped(dropped);
    g
}

fn same(a: &Graph, b: &Graph) {
    assert_eq!((a.n(), a.m(), a.dropped()), (b.n(), b.m(), b.dropped()));
    for u in 0..a.n() as u32 {
        assert_eq!(a.neighbors(u), b.neighbors(u));
        assert_eq!(a.neighbor_weights(u), b.neighbor_weights(u));
    }
}

proptest::proptest! {
    /// Compaction changes nothing a user can see: the same graph, the
    /// same first weights, the same counts of self-loops, duplicates and
    /// conflicting weights as building from every line at once.
    #[test]
    fn compaction_is_invisible(
        raw in proptest::collection::vec((0u32..6, 0u32..6, 1u32..4), 0..120),
        directed: bool,
        weighted: bool,
        compact_at in 1usize..20,
    ) {
        let edges: Vec<(u32, u32)> = raw.iter().map(|&(u, v, _)| (u, v)).collect();
        let w: Vec<f64> = raw.iter().map(|&(_, _, w)| w as f64).collect();
        let w = weighted.then_some(w.as_slice());
        let direct = Graph::from_edges(NodeIds::range(6), &edges, w, directed).unwrap();
        same(&via_buffer(6, &edges, w, directed, compact_at), &direct);
    }
}

#[test]
fn repeated_lines_compact_instead_of_growing() {
    let mut b = EdgeBuf::new(false, budget(1 << 30));
    b.start(false, 0, NodeMem::default());
    (b.compact_at, b.compact_min) = (1000, 1000);
    let p = PathBuf::from("x");
    for _ in 0..100_000 {
        if !b.has_room(1) {
            b.make_room(1, NodeMem::default(), &at(&p)).unwrap();
        }
        b.edges.push((1, 0));
    }
    assert!(b.edges.capacity() <= 1000, "{}", b.edges.capacity());
    b.compact();
    assert_eq!(b.edges, [(0, 1)]);
    assert_eq!(b.dropped.duplicates, 99_999);
}

#[test]
fn distinct_edges_over_the_budget_are_refused_naming_the_file() {
    // 1 MB: 31,250 unweighted undirected edges at 32 bytes each.
    let mut b = EdgeBuf::new(false, budget(1_000_000));
    b.start(false, 0, NodeMem::default());
    let p = PathBuf::from("big.edges");
    let mut refused = None;
    for i in 0..100_000u32 {
        if !b.has_room(1)
            && let Err(e) = b.make_room(1, NodeMem::default(), &at(&p))
        {
            refused = Some((i, e));
            break;
        }
        b.edges.push((i, i + 1));
    }
    let (i, e) = refused.expect("refused");
    assert!((20_000..=31_250).contains(&i), "{i}");
    assert!(matches!(e, Error::Budget { .. }), "{e:?}");
    let msg = e.to_string();
    for part in [
        "graph = big.edges (3 nodes and",
        "edges by line 7)",
        "budget of 976.6 KiB",
    ] {
        assert!(msg.contains(part), "{part:?} not in {msg}");
    }
    assert!(b.need(b.edges.capacity(), NodeMem::default()) <= 1_000_000);
    // Nodes alone can exhaust the budget too.
    let b = EdgeBuf::new(false, budget(1_000_000));
    let nodes = NodeMem {
        load: 2_000_000,
        build: 0,
    };
    assert!(matches!(
        b.check_nodes(nodes, &at(&p)),
        Err(Error::Budget { .. })
    ));
}

#[test]
fn parse_accepts_leading_zeros_of_any_length() {
    assert_eq!(parse_u64(b"0000000000000000000000000007"), Some(7));
    assert_eq!(
        parse_u64(b"00000000000000000000018446744073709551615"),
        Some(u64::MAX)
    );
    assert_eq!(parse_u64(b"1234567890123456789"), Some(1234567890123456789));
}
