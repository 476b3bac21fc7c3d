#![no_main]
#[path = "common.rs"]
mod common;
use libfuzzer_sys::fuzz_target;
use privdiffuse::sweep::{PlotSpec, figure};

// A sweep CSV and the sweep figure's loader. The first line of the input is
// the plot spec: "X METRIC[,METRIC] [AT,..] [COL=VAL]", the rest the CSV.
fuzz_target!(|data: &[u8]| {
    let (spec, csv) = common::split(data, b"\n");
    let Ok(spec) = std::str::from_utf8(spec) else {
        return;
    };
    let mut w = spec.split(' ');
    let x = w.next().unwrap_or("eps").to_string();
    let metrics = w
        .next()
        .unwrap_or("mse")
        .split(',')
        .map(String::from)
        .collect();
    let at = w
        .next()
        .map(|a| a.split(',').filter_map(|t| t.parse().ok()).collect())
        .unwrap_or_default();
    let only = w
        .next()
        .and_then(|o| o.split_once('='))
        .map(|(a, b)| vec![(a.to_string(), b.to_string())])
        .unwrap_or_default();
    let spec = PlotSpec {
        x,
        metrics,
        at,
        only,
        log_x: false,
        per_seed: false,
    };
    let p = common::file("sweep.csv", csv);
    if let Err(e) = figure::load(&p, &spec) {
        common::show(&e);
    }
});
