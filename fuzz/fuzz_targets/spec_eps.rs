#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::EpsilonMap;

// The --eps grammar (exp:, recip:, power:, table:, range:, clamps), then the
// map evaluated, inverted and written back as a spec that parses again.
fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match s.parse::<EpsilonMap>() {
        Ok(m) => {
            let m = if m.needs_resolution() {
                match m.resolve(1.0, 9.0) {
                    Ok(m) => m,
                    Err(e) => return common::show(&e),
                }
            } else {
                m
            };
            for d in [0.0, 0.5, 1.0, 2.0, 3.0, 10.0, 1e6, f64::INFINITY] {
                let e = m.eps(d);
                let _ = m.ln_eps(d);
                let _ = m.log_slope(d);
                if e.is_finite() && e > 0.0 {
                    let _ = m.distance_at(e);
                }
            }
            let spec = m.spec();
            if let Err(e) = spec.parse::<EpsilonMap>() {
                panic!("spec {spec:?} of {s:?} does not parse back: {e}");
            }
        }
        Err(e) => common::show(&e),
    }
});
