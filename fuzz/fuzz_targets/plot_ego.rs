#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::io::plot::{data, ego};

// ego.csv through the table reader, the layout and the ego figure's loader.
fuzz_target!(|data: &[u8]| {
    let d = common::dir("run");
    let p = common::file("run/ego.csv", data);
    match data::read_ego(&p) {
        Ok(rows) => {
            if rows.len() <= 100_000 {
                let _ = ego::layout(&rows);
            }
        }
        Err(e) => common::show(&e),
    }
    if let Err(e) = ego::load(&d, None, false) {
        common::show(&e);
    }
});
