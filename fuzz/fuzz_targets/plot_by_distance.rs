#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::io::plot::{data, error};

// by_distance.csv through the table reader and the error figure's loader
// (series, intervals, axis ranges).
fuzz_target!(|data: &[u8]| {
    let d = common::dir("run");
    let p = common::file("run/by_distance.csv", data);
    if let Err(e) = data::read_by_distance(&p) {
        common::show(&e);
    }
    match error::load(&p) {
        Ok(_) => {}
        Err(e) => common::show(&e),
    }
    let _ = error::load(&d);
});
