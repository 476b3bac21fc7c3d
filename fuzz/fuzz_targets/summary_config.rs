#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::SimConfig;
use privdiffuse::sim::summary::SummaryFile;
use std::path::Path;

// summary.json as --config: the typed SimConfig it yields, checked and its
// privacy map built; also the plot layer's reading of the same file.
fuzz_target!(|data: &[u8]| {
    let path = common::file("summary.json", data);
    match SimConfig::from_summary(&path) {
        Ok(c) => {
            if let Err(e) = c.check() {
                common::show(&e);
            } else if let Err(e) = c.clamped_map() {
                common::show(&e);
            }
            let _ = c.default_out_dir();
        }
        Err(e) => common::show(&e),
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Err(e) = SummaryFile::parse(Path::new("summary.json"), s) {
            common::show(&e);
        }
    }
    let r = privdiffuse::io::plot::data::RunSummary::read(&path);
    if let Ok(r) = r {
        let _ = r.map();
        let _ = r.jump_rate();
        let _ = r.distance_label();
    }
});
