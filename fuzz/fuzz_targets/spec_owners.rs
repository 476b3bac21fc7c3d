#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::Owners;

// The --owners grammar (all, N, ID,ID,...) and its graph-free check.
fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<Owners>() {
        Ok(o) => {
            if let Err(e) = o.check() {
                common::show(&e);
            }
        }
        Err(e) => common::show(&e),
    }
});
