#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::io::plot::{coalition, data};

// coalition.csv through the table reader, the aggregation and the loader.
fuzz_target!(|data: &[u8]| {
    let _ = common::dir("run");
    let p = common::file("run/coalition.csv", data);
    match data::read_coalition(&p) {
        Ok(rows) => {
            let _ = coalition::aggregate(&rows);
        }
        Err(e) => common::show(&e),
    }
    if let Err(e) = coalition::load(&p) {
        common::show(&e);
    }
});
