#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::graph::{LoadOptions, load_graph};

// The edge-list loader on a plain file. The first byte chooses directed or
// not and whether the input also serves as a --nodes file.
fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let path = common::file("g.edges", body);
    let mut opts = LoadOptions {
        directed: flags & 1 == 1,
        ..LoadOptions::default()
    };
    if flags & 2 == 2 {
        opts.nodes_file = Some(common::file("nodes.txt", body));
    }
    match load_graph(&path, &opts) {
        Ok(g) => {
            assert_eq!(g.offsets().len(), g.n() + 1);
            let _ = g.dropped().warning();
            for (u, v, w) in g.edges() {
                assert!((u as usize) < g.n() && (v as usize) < g.n() && w.is_finite());
            }
        }
        Err(e) => common::show(&e),
    }
});
