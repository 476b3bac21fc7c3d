#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::io::plot::{data, jumps};

// A run directory for the jumps figure: jumps.csv, then after a line
// "----" owners.csv, then after another "----" summary.json (each optional).
fuzz_target!(|data: &[u8]| {
    let d = common::dir("run");
    let (j, rest) = common::split(data, b"\n----\n");
    let (o, s) = common::split(rest, b"\n----\n");
    let jp = common::file("run/jumps.csv", j);
    if !o.is_empty() {
        common::file("run/owners.csv", o);
    }
    if !s.is_empty() {
        common::file("run/summary.json", s);
    }
    if let Err(e) = data::read_jumps(&jp) {
        common::show(&e);
    }
    for only in [None, Some("0")] {
        if let Err(e) = jumps::load(&d, only) {
            common::show(&e);
        }
    }
    if let Err(e) = jumps::load_histogram(&d) {
        common::show(&e);
    }
});
