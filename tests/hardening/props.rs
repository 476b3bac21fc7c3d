//! "Never panics" properties over the entry points the fuzz targets cover
//! (`fuzz/README.md`), for CI on the stable toolchain: every spec grammar,
//! the edge-list loader (plain and gzip), the sweep TOML, `summary.json` as a
//! configuration, the relax state file and the plot CSV readers. Inputs are
//! random text biased towards each grammar's own tokens and mutations of real
//! files; the property is that each call returns (`Ok` or `Err`) instead of
//! panicking. Cases are few (fast in debug builds); the fuzz targets run the
//! long searches.

use crate::support::scratch::scratch;
use privdiffuse::io::plot::{coalition, data, ego, error, jumps, path};
use privdiffuse::io::{PlotSpec, sweep_figure as figure};
use privdiffuse::{
    Coalition, EpsilonMap, GradualRelease, Graph, Grid, LoadOptions, Owners, Post, ValueSpec,
};
use proptest::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};

fn cfg() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// Tokens the grammars and files are made of: numbers that break
/// arithmetic, separators, keys.
const TOKENS: &[&str] = &[
    "exp:",
    "recip:",
    "power:",
    "table:",
    "range:",
    "a=",
    "b=",
    "c=",
    "p=",
    "*=",
    "1=",
    "2=",
    "uniform:",
    "normal:",
    "const:",
    "infection:",
    "sir:",
    "smooth:",
    "seeds=",
    "frac=",
    "beta=",
    "gamma=",
    "sd=",
    "steps=",
    "file:",
    "coords",
    "auto",
    "clamp:",
    "bit",
    "round",
    "none",
    "far:",
    "band:",
    "random:",
    "nearest:",
    "sybil:",
    "m=",
    "d=",
    "min-d=",
    "all",
    ",",
    ";",
    ":",
    "=",
    "|",
    "..",
    " ",
    "\t",
    "\n",
    "\r",
    "0",
    "1",
    "-1",
    "01",
    "2",
    "17",
    "1e308",
    "-1e308",
    "5e-324",
    "1e-320",
    "NaN",
    "inf",
    "-inf",
    "18446744073709551615",
    "9223372036854775808",
    "4294967296",
    "0.5",
    "1e-90",
    "é",
    "\u{2028}",
    "\"",
    "[",
    "]",
    "{",
    "}",
    "#",
];

/// Text made of grammar tokens and a few arbitrary characters.
fn tokens() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(TOKENS).prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
        ],
        0..24,
    )
    .prop_map(|v| v.concat())
}

/// `text` with a few bytes replaced, inserted or removed (positions and
/// bytes drawn), so that the result stays close to a real file.
fn mutated(text: &'static str) -> impl Strategy<Value = Vec<u8>> {
    let n = text.len().max(1);
    prop::collection::vec(
        (0..n, any::<u8>(), 0..3u8, prop::sample::select(TOKENS)),
        0..6,
    )
    .prop_map(move |edits| {
        let mut b = text.as_bytes().to_vec();
        for (at, byte, op, tok) in edits {
            let at = at.min(b.len());
            match op {
                0 if at < b.len() => b[at] = byte,
                1 => b.splice(at..at, tok.bytes()).for_each(drop),
                _ if at < b.len() => {
                    let end = (at + 4).min(b.len());
                    b.drain(at..end);
                }
                _ => b.push(byte),
            }
        }
        b
    })
}

fn karate() -> &'static Graph {
    static G: std::sync::OnceLock<Graph> = std::sync::OnceLock::new();
    G.get_or_init(|| Graph::load(repo("data/karate.edges")).unwrap())
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn spec_grammars_never_panic(s in tokens()) {
        if let Ok(m) = s.parse::<EpsilonMap>() {
            let m = if m.needs_resolution() { m.resolve(1.0, 9.0).ok() } else { Some(m) };
            if let Some(m) = m {
                for d in [0.0, 1.0, 2.5, 1e6, f64::INFINITY] {
                    let e = m.eps(d);
                    let _ = (m.ln_eps(d), m.log_slope(d));
                    if e.is_finite() && e > 0.0 {
                        let _ = m.distance_at(e);
                    }
                }
                let spec = m.spec();
                prop_assert!(spec.parse::<EpsilonMap>().is_ok(), "{spec:?} from {s:?}");
            }
        }
        if let Ok(v) = s.parse::<ValueSpec>() {
            let _ = (v.check(), v.to_string());
            prop_assert_eq!(v.to_string().parse::<ValueSpec>().ok(), Some(v.clone()));
            if let ValueSpec::Model(_) = v {
                let g = karate();
                let _ = privdiffuse::values::Values::resolve(&v, g, Path::new("k.edges"), 1, 3);
            }
        }
        if let Ok(p) = s.parse::<Post>()
            && p.check().is_ok()
        {
            let mut y = [0.5, -1e308, f64::NAN];
            p.apply(&mut y);
        }
        if let Ok(o) = s.parse::<Owners>() {
            let _ = o.check();
        }
        if let Ok(c) = s.parse::<Coalition>() {
            let g = karate();
            let _ = c.to_string();
            if c.check(g.ids()).is_ok() && c.requested_size(g.n() - 1).is_none_or(|m| m <= 10_000) {
                let dist: Vec<f64> = (0..g.n()).map(|v| (v % 5) as f64).collect();
                let _ = c.select(0, &dist, None, g.ids(), 1);
                let _ = c.select(0, &dist, Some(0.5), g.ids(), 1);
            }
        }
    }

    #[test]
    fn edge_list_loader_never_panics(
        body in prop_oneof![
            mutated(include_str!("../../data/karate.edges")),
            tokens().prop_map(String::into_bytes),
        ],
        directed: bool,
        gz: bool,
    ) {
        let dir = scratch("load");
        let opts = LoadOptions { directed, ..LoadOptions::default() };
        let p = if gz {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&body).unwrap();
            let p = dir.join("g.edges.gz");
            std::fs::write(&p, e.finish().unwrap()).unwrap();
            p
        } else {
            let p = dir.join("g.edges");
            std::fs::write(&p, &body).unwrap();
            p
        };
        if let Ok(g) = Graph::load_with(&p, &opts) {
            prop_assert_eq!(g.offsets().len(), g.n() + 1);
        }
        // The raw bytes as a .gz: corrupt streams.
        let raw = dir.join("raw.edges.gz");
        std::fs::write(&raw, &body).unwrap();
        let _ = Graph::load_with(&raw, &opts);
    }

    #[test]
    fn sweep_toml_never_panics(text in prop_oneof![
        mutated(include_str!("../../examples/sweeps/decay.toml")),
        mutated(include_str!("../../examples/sweeps/dimension.toml")),
    ]) {
        let Ok(s) = String::from_utf8(text) else { return Ok(()) };
        if let Ok(g) = Grid::from_toml_str(&s)
            && g.len() <= 10_000
            && let Ok(p) = g.points()
        {
            prop_assert_eq!(p.len(), g.len());
        }
    }

    #[test]
    fn summary_and_state_never_panic(
        summary in mutated(include_str!("../../results/geometric150/summary.json")),
        state in mutated(STATE),
    ) {
        let dir = scratch("json");
        let p = dir.join("summary.json");
        std::fs::write(&p, &summary).unwrap();
        if let Ok(c) = privdiffuse::io::sim_config_from_summary(&p)
            && c.check().is_ok()
        {
            let _ = c.clamped_map();
        }
        if let Ok(r) = data::RunSummary::read(&p) {
            let _ = (r.map(), r.jump_rate());
        }
        let p = dir.join("state.json");
        std::fs::write(&p, &state).unwrap();
        if let Ok(mut g) = GradualRelease::load(&p) {
            let e = g.privacy_level().map_or(1.0, |e| e * 2.0);
            if e.is_finite() {
                let _ = g.release(e);
            }
        }
    }

    #[test]
    fn plot_readers_never_panic(
        by_distance in mutated(include_str!("../../results/geometric150/by_distance.csv")),
        ego_csv in mutated(include_str!("../../results/geometric150/ego.csv")),
        paths in mutated(include_str!("../../results/geometric150/paths.csv")),
        sweep in mutated(SWEEP_CSV),
        coal in mutated(COALITION_CSV),
        jumps_csv in mutated(JUMPS_CSV),
    ) {
        let dir = scratch("plot");
        let w = |name: &str, b: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, b).unwrap();
            p
        };
        let _ = error::load(&w("by_distance.csv", &by_distance));
        w("ego.csv", &ego_csv);
        if let Ok(rows) = data::read_ego(&dir.join("ego.csv")) {
            let _ = ego::layout(&rows);
        }
        let _ = ego::load(&dir, None, false);
        let _ = path::load(&w("paths.csv", &paths));
        let _ = coalition::load(&w("coalition.csv", &coal));
        w("jumps.csv", &jumps_csv);
        w("owners.csv", include_bytes!("../../results/geometric150/owners.csv"));
        let _ = jumps::load(&dir, None);
        let _ = jumps::load_histogram(&dir);
        let spec = PlotSpec {
            x: "eps".into(),
            metrics: vec!["mse".into(), "gain".into()],
            at: vec![1.0, 3.0],
            only: vec![],
            log_x: false,
            per_seed: false,
        };
        let _ = figure::load(&w("sweep.csv", &sweep), &spec);
    }
}

/// A relax state file as `privdiffuse relax --state` writes it.
const STATE: &str = include_str!("../../fuzz/corpus/relax_state/laplace.json");
/// The first lines of real outputs (the whole files would slow the cases).
const SWEEP_CSV: &str = include_str!("../../results/sweeps/decay.csv");
const COALITION_CSV: &str = include_str!("../../fuzz/corpus/plot_coalition/coalition.csv");
const JUMPS_CSV: &str = include_str!("../../fuzz/corpus/plot_jumps/jumps_only");
