#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::GradualRelease;

// The relax state file (JSON): loaded, validated, then one more release
// requested at a lower privacy level and the state written back and re-read.
fuzz_target!(|data: &[u8]| {
    let path = common::file("state.json", data);
    match GradualRelease::load(&path) {
        Ok(mut g) => {
            let eps = g.privacy_level().map_or(1.0, |e| e * 2.0);
            if eps.is_finite() && g.dim() <= 4096 {
                if let Err(e) = g.release(eps) {
                    common::show(&e);
                }
            }
            let text = g.to_json().unwrap();
            if let Err(e) = GradualRelease::from_json(&text, &path) {
                panic!("state does not read back: {e}");
            }
        }
        Err(e) => common::show(&e),
    }
});
