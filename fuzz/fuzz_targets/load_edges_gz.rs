#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::graph::{LoadOptions, load_graph};
use std::io::Write;

// The edge-list loader on a .gz file: with the first byte even the rest is
// gzip-compressed first (a valid stream, so the loader's text parsing is
// reached); odd, the raw bytes are the .gz (corrupt streams, truncation).
fuzz_target!(|data: &[u8]| {
    let Some((&flags, body)) = data.split_first() else {
        return;
    };
    let bytes = if flags & 1 == 0 {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(body).unwrap();
        enc.finish().unwrap()
    } else {
        body.to_vec()
    };
    let path = common::file("g.edges.gz", &bytes);
    let opts = LoadOptions {
        directed: flags & 2 == 2,
        ..LoadOptions::default()
    };
    match load_graph(&path, &opts) {
        Ok(g) => assert_eq!(g.offsets().len(), g.n() + 1),
        Err(e) => common::show(&e),
    }
});
