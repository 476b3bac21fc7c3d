//! Answering from a release store, and how long it takes.
//!
//! `cargo run --release --example store_answer -- STORE.db [CALLS]` opens a
//! store made by `privdiffuse evolve` (as a writer: a pair whose level rose
//! would be released), asks `CALLS` (default 2,000) random (owner,
//! recipient) pairs twice — first with a new owner each time (the owner's
//! distances at START and now are searched), then again with the owner's
//! distances cached — and prints the p50/p99/max latency of each.

use privdiffuse::Store;
use std::time::Instant;

fn main() -> Result<(), privdiffuse::Error> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "release.db".into());
    let calls: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mut store = Store::open_writer(&path)?;
    let ids = store.node_ids()?;
    let owners = store.owners()?;
    // A fixed sequence of pairs (xorshift).
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as usize
    };
    let mut pairs = Vec::new();
    while pairs.len() < calls {
        let o = owners[next(owners.len())];
        let r = next(ids.len()) as u32;
        if o != r {
            pairs.push((ids.label(o).to_string(), ids.label(r).to_string()));
        }
    }
    let report = |name: &str, mut t: Vec<f64>, released: usize| {
        t.sort_by(f64::total_cmp);
        let q = |p: f64| t[((t.len() - 1) as f64 * p).round() as usize] * 1e3;
        println!(
            "{name}: {} calls, p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms ({released} released)",
            t.len(),
            q(0.5),
            q(0.99),
            q(1.0)
        );
    };
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let (mut new_cold, mut new_warm) = (0, 0);
    for (o, r) in &pairs {
        let t = Instant::now();
        let a = store.answer(o, r);
        cold.push(t.elapsed().as_secs_f64());
        new_cold += a.is_ok_and(|a| a.released) as usize;
        let t = Instant::now();
        let a = store.answer(o, r);
        warm.push(t.elapsed().as_secs_f64());
        new_warm += a.is_ok_and(|a| a.released) as usize;
    }
    report("new owner (distances searched)", cold, new_cold);
    report("same owner again (cached)", warm, new_warm);
    Ok(())
}
