#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::{Coalition, Graph};
use std::sync::OnceLock;

// The --coalition grammar (far:, band:, random:, nearest:, sybil:, file:),
// checked against the karate graph and selected for owner 0 with hop-like
// distances. A file: spec reads the scratch file "members.txt", which holds
// the input after the first newline.
fuzz_target!(|data: &[u8]| {
    static G: OnceLock<Graph> = OnceLock::new();
    let g = G.get_or_init(|| {
        let p = common::file("karate.edges", include_bytes!("../../data/karate.edges"));
        Graph::load(p).unwrap()
    });
    let (spec, rest) = common::split(data, b"\n");
    let Ok(s) = std::str::from_utf8(spec) else {
        return;
    };
    let members = common::file("members.txt", rest);
    let s = s.replace("@MEMBERS", &members.display().to_string());
    match s.parse::<Coalition>() {
        Ok(c) => {
            let _ = format!("{c}");
            if let Err(e) = c.check(g.ids()) {
                return common::show(&e);
            }
            // The builder refuses sizes beyond the memory budget before
            // selecting (limits::check_memory); mirror that here.
            if c.requested_size(g.n() - 1).is_some_and(|m| m > 100_000) {
                return;
            }
            let dist: Vec<f64> = (0..g.n()).map(|v| (v % 5) as f64).collect();
            for bw in [None, Some(0.5)] {
                match c.select(0, &dist, bw, g.ids(), 7) {
                    Ok(m) => assert!(m.len() <= 100_000),
                    Err(e) => common::show(&e),
                }
            }
        }
        Err(e) => common::show(&e),
    }
});
