#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::ValueSpec;

// The --values grammar (uniform:, normal:, const:, coords, auto, FILE).
fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<ValueSpec>() {
        Ok(v) => {
            if let Err(e) = v.check() {
                common::show(&e);
            }
            let _ = format!("{v}");
        }
        Err(e) => common::show(&e),
    }
});
