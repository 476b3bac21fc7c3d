//! Answering from a release store, and how long it takes.
//!
//! `cargo run --release --example store_answer -- STORE.db [CALLS]` opens a
//! store made by `privdiffuse evolve` (as a writer: a pair whose level rose
//! would be released) and asks `CALLS` (default 2,000) random (owner,
//! recipient) pairs, each owner different from the one before, three ways:
//! * **new pair**: the first call for the pair, its owner's distances at
//!   START and now searched (two BFS on facebook with hop);
//! * **another recipient of the same owner**: a pair never asked, the
//!   owner's distances already searched;
//! * **pair asked again**: the same pair at once (answer already released).
//!
//! and prints the p50/p99/max latency of each, wall clock and the calling
//! thread's CPU time (on a shared machine a call preempted by other work
//! shows a scheduler quantum, ~4 ms, in its wall time; its CPU time does
//! not). Every call is timed; the first call of the run, which loads the
//! graphs, values and ids, is reported apart.

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
    let mut last = u32::MAX;
    while pairs.len() < calls {
        let o = owners[next(owners.len())];
        let (r, r2) = (next(ids.len()) as u32, next(ids.len()) as u32);
        if o != r && o != r2 && r != r2 && o != last {
            let l = |i: u32| ids.label(i).to_string();
            pairs.push((l(o), l(r), l(r2)));
            last = o;
        }
    }
    let report = |name: &str, t: Vec<(f64, f64)>, released: usize| {
        let q = |k: usize| {
            let mut v: Vec<f64> = t.iter().map(|p| if k == 0 { p.0 } else { p.1 }).collect();
            v.sort_by(f64::total_cmp);
            let at = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize] * 1e3;
            format!(
                "p50 {:.3} p99 {:.3} max {:.3} ms",
                at(0.5),
                at(0.99),
                at(1.0)
            )
        };
        println!(
            "{name}: {} calls ({released} released)\n  wall {}\n  cpu  {}",
            t.len(),
            q(0),
            q(1)
        );
    };
    // Loads the graphs, values and ids once.
    let t = Instant::now();
    let first = store.answer(&pairs[0].0, &pairs[0].1);
    println!(
        "first call (loads the store's graphs): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    first?;
    let mut times = [Vec::new(), Vec::new(), Vec::new()];
    let mut released = [0usize; 3];
    let mut errors = 0usize;
    for (o, r, r2) in &pairs[1..] {
        for (k, rec) in [r, r2, r2].into_iter().enumerate() {
            let (t, c) = (Instant::now(), thread_cpu());
            let a = store.answer(o, rec);
            times[k].push((t.elapsed().as_secs_f64(), thread_cpu() - c));
            match a {
                Ok(a) => released[k] += a.released as usize,
                // An unreachable pair never released: refused, also timed.
                Err(_) => errors += (k == 0) as usize,
            }
        }
    }
    let [a, b, c] = times;
    report("new pair, owner's distances searched", a, released[0]);
    report("another recipient of the same owner", b, released[1]);
    report("pair asked again (already released)", c, released[2]);
    println!("(refused: {errors} never-released unreachable pairs)");
    Ok(())
}

/// CPU seconds of the calling thread.
fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}
