#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::io::plot::{data, path};

// paths.csv (or a `privdiffuse path` CSV) through the table reader and the
// path figure's loader.
fuzz_target!(|data: &[u8]| {
    let _ = common::dir("run");
    let p = common::file("run/paths.csv", data);
    if let Err(e) = data::read_paths(&p) {
        common::show(&e);
    }
    if let Err(e) = path::load(&p) {
        common::show(&e);
    }
});
