#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::values::{ValueSpec, Values};
use privdiffuse::Graph;
use std::path::Path;
use std::sync::OnceLock;

// The --values grammar (uniform:, normal:, const:, coords, auto, FILE, and
// the models infection:, sir:, smooth:), written back as a spec that parses
// to the same value; a model is then drawn on the karate graph in 1 and 2
// dimensions (a bit model refuses 2).
fuzz_target!(|data: &[u8]| {
    static G: OnceLock<Graph> = OnceLock::new();
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<ValueSpec>() {
        Ok(v) => {
            if let Err(e) = v.check() {
                common::show(&e);
            }
            let spec = format!("{v}");
            match spec.parse::<ValueSpec>() {
                Ok(w) => assert_eq!(w, v, "{spec:?} of {s:?} parses to another spec"),
                Err(e) => panic!("spec {spec:?} of {s:?} does not parse back: {e}"),
            }
            if let ValueSpec::Model(_) = v {
                let g = G.get_or_init(|| {
                    let p = common::file("karate.edges", include_bytes!("../../data/karate.edges"));
                    Graph::load(p).unwrap()
                });
                for dim in [1, 2] {
                    match Values::resolve(&v, g, Path::new("karate.edges"), dim, 7) {
                        Ok(vals) => {
                            let mut x = vec![0.0; dim];
                            for j in 0..g.n() as u32 {
                                vals.value(j, &mut x);
                                assert!(x.iter().all(|t| t.is_finite()), "{spec}: {x:?}");
                            }
                        }
                        Err(e) => common::show(&e),
                    }
                }
            }
        }
        Err(e) => common::show(&e),
    }
});
