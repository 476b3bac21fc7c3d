#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::Post;

// The --post grammar, then the post-processing applied to a few vectors.
fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<Post>() {
        Ok(p) => {
            if let Err(e) = p.check() {
                return common::show(&e);
            }
            for v in [
                vec![0.5],
                vec![-1e308, 2.0, f64::NAN],
                vec![1.0, 2.0, 3.0, 4.0],
            ] {
                let mut y = v.clone();
                p.apply(&mut y);
            }
            let _ = format!("{p}");
        }
        Err(e) => common::show(&e),
    }
});
