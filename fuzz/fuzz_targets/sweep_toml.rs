#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::Grid;

// The sweep TOML ([base], [grid], [collude], [plot]…), then its points
// expanded when there are not too many (run_sweep refuses large grids up
// front through the memory budget).
fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    match Grid::from_toml_str(s) {
        Ok(g) => {
            let _ = g.columns();
            if g.len() <= 10_000 {
                match g.points() {
                    Ok(p) => assert_eq!(p.len(), g.len()),
                    Err(e) => common::show(&e),
                }
                if !g.is_empty() {
                    let _ = g.point_values(g.len() - 1);
                }
            }
        }
        Err(e) => common::show(&e),
    }
});
