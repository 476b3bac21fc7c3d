use super::*;
use crate::sim::config::Owners;
use std::path::{Path, PathBuf};

fn get<'a>(f: &'a Fingerprint, key: &str) -> Option<&'a str> {
    f.entries()
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The keys whose values differ (or that one side lacks).
fn diff(a: &Fingerprint, b: &Fingerprint) -> Vec<String> {
    let mut keys: Vec<String> = a
        .entries()
        .iter()
        .chain(b.entries())
        .map(|(k, _)| k.clone())
        .collect();
    keys.dedup();
    let mut out: Vec<String> = keys
        .into_iter()
        .filter(|k| get(a, k) != get(b, k))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn graph_in(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn sim(graph: &Path) -> SimConfig {
    SimConfig {
        graph: graph.to_path_buf(),
        values: ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
        ..SimConfig::default()
    }
}

#[test]
fn equal_configurations_have_equal_fingerprints() {
    let d = tempfile::tempdir().unwrap();
    let g = graph_in(d.path(), "g.edges", "0 1\n1 2\n");
    let a = Fingerprint::simulate(&sim(&g)).unwrap();
    // The same options reached another way: specs parsed from text.
    let mut c = sim(&g);
    c.eps = "range:0.5..15".parse().unwrap();
    c.values = "uniform:0,1".parse().unwrap();
    c.owners = "all".parse().unwrap();
    assert_eq!(a, Fingerprint::simulate(&c).unwrap());
    assert_eq!(a.entries()[0], ("command".into(), "simulate".into()));
    assert_eq!(get(&a, "version"), Some(env!("PRIVDIFFUSE_VERSION")));
    assert_eq!(get(&a, "seed"), Some("1"));
    assert_eq!(get(&a, "eps"), Some("range:0.5..15"));
    assert!(get(&a, "distance_options.approx_k").is_some());
    // Field order: the graph first, the seed after the owners.
    let pos = |k: &str| a.entries().iter().position(|(x, _)| x == k).unwrap();
    assert!(pos("graph.sha256") < pos("eps") && pos("owners") < pos("seed"));
}

#[test]
fn a_changed_option_is_the_one_key_that_differs() {
    let d = tempfile::tempdir().unwrap();
    let g = graph_in(d.path(), "g.edges", "0 1\n1 2\n");
    let a = Fingerprint::simulate(&sim(&g)).unwrap();
    let mut c = sim(&g);
    c.seed = 2;
    assert_eq!(diff(&a, &Fingerprint::simulate(&c).unwrap()), ["seed"]);
    let mut c = sim(&g);
    c.owners = Owners::Count(100);
    assert_eq!(diff(&a, &Fingerprint::simulate(&c).unwrap()), ["owners"]);
    // Rows every peer computes and sends are part of the job.
    let mut c = sim(&g);
    c.responses = true;
    assert_eq!(diff(&a, &Fingerprint::simulate(&c).unwrap()), ["responses"]);
    let mut c = sim(&g);
    c.path_owners = 9;
    assert_eq!(
        diff(&a, &Fingerprint::simulate(&c).unwrap()),
        ["path_owners"]
    );
    // Another command over the same options.
    let u = UtilityConfig {
        sim: sim(&g),
        ..UtilityConfig::default()
    };
    let fu = Fingerprint::utility(&u).unwrap();
    assert_eq!(get(&fu, "command"), Some("utility"));
    assert_eq!(get(&fu, "sim.seed"), Some("1"));
    assert_eq!(get(&fu, "sim.graph.sha256"), get(&a, "graph.sha256"));
}

#[test]
fn input_files_count_by_content_not_by_path() {
    let d = tempfile::tempdir().unwrap();
    let g = graph_in(d.path(), "g.edges", "0 1\n1 2\n");
    let copy = graph_in(d.path(), "copy.edges", "0 1\n1 2\n");
    let a = Fingerprint::simulate(&sim(&g)).unwrap();
    assert_eq!(a, Fingerprint::simulate(&sim(&copy)).unwrap());
    assert_eq!(
        get(&a, "graph.sha256"),
        Some(hash::file_digest("graph", &g).unwrap().as_str())
    );
    std::fs::write(&g, "0 1\n1 3\n").unwrap();
    let b = Fingerprint::simulate(&sim(&g)).unwrap();
    assert_eq!(diff(&a, &b), ["graph.sha256"]);

    // Every other input file: nodes, subgraph, values, coalition.
    let nodes = graph_in(d.path(), "nodes", "0\n1\n2\n3\n");
    let sub = graph_in(d.path(), "sub", "0\n1\n");
    let vals = graph_in(d.path(), "vals.csv", "node,v1\n0,1\n");
    let ids = graph_in(d.path(), "ids", "1\n");
    let full = |g: &Path| {
        let mut c = sim(g);
        c.nodes = Some(nodes.clone());
        c.view = Some(GraphView::subgraph(&sub));
        c.values = ValueSpec::File(vals.clone());
        CollusionConfig {
            sim: c,
            coalitions: vec![Coalition::far(2.0).unwrap(), Coalition::file(&ids).unwrap()],
            ..CollusionConfig::default()
        }
    };
    let before = Fingerprint::collude(&full(&g)).unwrap();
    for (file, key) in [
        (&nodes, "nodes.sha256"),
        (&sub, "view.sha256"),
        (&vals, "values.sha256"),
        (&ids, "coalitions.1.sha256"),
    ] {
        let old = std::fs::read(file).unwrap();
        std::fs::write(file, [&old[..], b"9\n"].concat()).unwrap();
        let after = Fingerprint::collude(&full(&g)).unwrap();
        assert_eq!(diff(&before, &after), [key], "{key}");
        std::fs::write(file, old).unwrap();
    }
    assert_eq!(get(&before, "view"), Some("subgraph"));
    assert_eq!(get(&before, "values"), Some("file"));
    assert_eq!(get(&before, "coalitions.0"), Some("far:min-d=2"));
    // No path is compared, except a file coalition's label (it is output).
    let dir = d.path().to_string_lossy().into_owned();
    for (k, v) in before.entries() {
        assert!(!v.contains(&dir) || k == "coalitions.1", "{k} = {v}");
    }
    assert_eq!(
        get(&before, "coalitions.1"),
        Some(format!("file:{}", ids.display()).as_str())
    );
}

#[test]
fn auto_values_depend_on_the_coordinates_beside_the_graph() {
    let d = tempfile::tempdir().unwrap();
    let g = graph_in(d.path(), "g.edges", "0 1\n");
    let mut c = sim(&g);
    c.values = ValueSpec::Auto;
    let without = Fingerprint::simulate(&c).unwrap();
    assert_eq!(get(&without, "values.coords.sha256"), Some(hash::ABSENT));
    std::fs::write(coords_path(&g), "node,x,y\n0,0,0\n1,1,1\n").unwrap();
    let with = Fingerprint::simulate(&c).unwrap();
    assert_eq!(diff(&without, &with), ["values.coords.sha256"]);
    // In 1-D `auto` never reads them.
    c.dim = 1;
    assert_eq!(
        get(&Fingerprint::simulate(&c).unwrap(), "values.coords.sha256"),
        None
    );
}

#[test]
fn a_path_that_is_not_a_regular_file_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let e = Fingerprint::simulate(&sim(d.path()))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("`graph` ") && e.contains("not a regular file"),
        "{e}"
    );
}

#[test]
fn a_missing_file_is_a_value_not_an_error() {
    // Peers then compare it: one that has the file and one that has not
    // differ, by name; the run itself reports the missing file.
    let d = tempfile::tempdir().unwrap();
    let f = Fingerprint::simulate(&sim(&d.path().join("nope.edges"))).unwrap();
    assert_eq!(get(&f, "graph.sha256"), Some(hash::ABSENT));
}
