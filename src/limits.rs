//! Bounds from one place: every size a user controls is checked here, against
//! a documented cap or against an estimate of the memory it needs, *before*
//! anything is allocated, and every privacy level against the range in which
//! the statistics of a run stay finite. A refused size gives
//! [`Error::Budget`] naming the parameter, its value, the estimate and the
//! budget — never an allocation abort, a panic or a swapping machine; a
//! refused level gives [`Error::Parameter`] naming the distance where it
//! occurs.
//!
//! # The memory budget
//! The default budget is the smallest of
//! * ¾ of the machine's physical memory (`MemTotal` in `/proc/meminfo`);
//! * what the process's address-space limit leaves (`ulimit -v`, `RLIMIT_AS`,
//!   minus the address space already mapped, with a quarter kept back for the
//!   allocator's arenas and thread stacks);
//! * what the cgroup's `memory.max` leaves (containers, systemd slices: the
//!   process's own cgroup and every ancestor, cgroup v2; or v1's
//!   `memory.limit_in_bytes`),
//!
//! so that a run under a ulimit or in a container is refused up front instead
//! of aborting midway. [`set_memory_budget`] (the command line's
//! `--memory-budget SIZE`, e.g. `800M`, `2G`) overrides it. Where none of these
//! can be read (not Linux), the budget is 8 GiB.
//!
//! # Table of caps
//! `t` is the number of worker threads (rayon's pool: `threads`, default all
//! cores), `N` the nodes and `M` the edges of the graph, `n` the dimension
//! (`dim`). Estimates are in bytes and deliberately generous (they include
//! `Vec` growth); a value whose estimate exceeds the budget is refused with
//! `NAME = VALUE needs about X of memory, over the budget of Y (source); …`.
//!
//! | parameter | cap or estimate | where |
//! |---|---|---|
//! | `threads` | 1 ..= [`MAX_THREADS_PER_CORE`] × cores (`invalid --threads`) | CLI, before any pool is built |
//! | `memory_budget` | ≥ 1 byte; `1500000000`, `800M`, `1.5G` (powers of 1024) | CLI |
//! | `dim` | 1 ..= 1000 ([`crate::process::MAX_DIM`]) | every model |
//! | `bins` | [`bins_bytes`]: (bins + 1) · 2 · (80 · mechanisms · (4t + 1) + 192 · t) | simulate/collude, continuous distances |
//! | `approx_k` | [`sketch_bytes`]: 4 · k · N + 416 · N · t + k | resistance-approx |
//! | `distance` = resistance | [`dense_resistance_bytes`]: 8 · Σ n_c² + 16 · max n_c² (n_c: component sizes), besides the cap `resistance_cap` | resistance |
//! | `coalition` (sybil `m`, random/nearest `m`) | [`coalition_bytes`]: t · m · (320 + 32 n), m = min(m, N − 1) except sybil | collude |
//! | `trials` | 1 ..= 2³¹ − 1, and [`trials_bytes`]: 48 · trials · t (collude; relax streams its rows) | collude, relax |
//! | path memory (`dim` × ε range) | [`path_bytes`] · t: 2 · B · (8n + 8) per path, B = rate · ln(ε_hi/ε_lo) + 8√(·) + 8 breakpoints (rate 2n ℓ1, n + 1 ℓ2); simulate adds the jumps.csv rows of the 64 · 4t owners in flight, 64 bytes per breakpoint (checked per owner) | simulate, collude, path |
//! | `samples` (path) | 1 ..= 2³¹ − 1 ([`crate::paths::MAX_SAMPLES`]); 32 chunks of max(1 MiB, one sample's CSV), rows and text, + t paths; the projected CSV within the free space where it goes ([`crate::io::paths`]) | path |
//! | `eps` (relax, [`GradualRelease`](crate::GradualRelease)) | each extension of the noise path: its new and its extended breakpoints, [`path_bytes`] each | relax |
//! | `n`, `m`, `k`, `edges`, `radius` (generate) | n ≤ 2³² − 2, edges ≤ 2³² − 1 and [`graph_bytes`] 40 · N + 48 · M plus: er 24 · M, ba 8 · M, ws 24 · M + 8 · N, geometric 36 · N + 36 · M | generate |
//! | sweep points | ≤ 1,000,000 points, ranges ≤ 100,000 values, and [`sweep_bytes`]: points · (2 KiB + 64 · axes) | sweep |
//! | `width`, `height` (plot) | 100 ..= 10,000 pixels, and [`image_bytes`]: 7 · width · height | plot |
//! | edge lengths | weighted: w ≤ f64::MAX / (N − 1) (every path length finite); resistance: also w ≥ (N − 1) / f64::MAX (sums of conductances 1/w finite); resistance-approx: w in [[`APPROX_LENGTH_MIN`], [`APPROX_LENGTH_MAX`]] (the sketch stores √R as `f32`). The first edge outside is named by its ids | weighted and resistance distances |
//! | ε, ε/Δ | ε ∈ [[`EPS_MIN`], [`EPS_MAX`]], ε/Δ ∈ [[`LEVEL_MIN`], [`LEVEL_MAX`]] at every distance of the run (next section) | every mechanism |
//!
//! # The range of privacy levels
//! The noise of a Laplace mechanism at privacy level ε with sensitivity Δ has
//! scale Δ/ε, i.e. the process runs at level λ = ε/Δ. What a run sums is
//! bounded in λ:
//! * one answer's squared error ‖v‖² is at most about (n + 300)²/λ² ≤ 2·10⁶/λ²
//!   (n ≤ 1000; the Gamma(n) radius of the ℓ2 noise, or n Laplace
//!   coordinates, over at most 10²⁰ draws: tails of e^−46);
//! * an owner's sum over one bucket, S = Σ‖v‖², holds at most 2³² answers:
//!   S ≤ 9·10¹⁵/λ²;
//! * the owner-clustered standard error sums S² over at most 2³² owners, and
//!   r²·Σc² with r = S/c: both ≤ 2³²·(9·10¹⁵)²/λ⁴ ≈ 3·10⁴¹/λ⁴;
//!
//! so every sum stays below f64's 1.8·10³⁰⁸ when λ ≥ 10⁻⁶⁷. The accepted range
//! is λ ∈ [10⁻⁶⁰, 10⁶⁰] ([`LEVEL_MIN`], [`LEVEL_MAX`]), a margin of 10²⁸ on
//! λ⁴; at the top, squared errors ≥ 10⁻¹²⁰ and their squares stay normal
//! numbers. (`1e-90` overflowed Σ S² and printed `mse_se = 0`; `1e-60` is
//! fine.) ε itself is summed (`mean_eps`, over ≤ 2⁶⁴ answers; Σε and Σε² of a
//! coalition's members): ε ∈ [10⁻¹⁰⁰, 10¹⁰⁰] ([`EPS_MIN`], [`EPS_MAX`]) keeps
//! those finite and away from subnormals. The Gaussian mechanism's σ at λ is
//! at most √(2 ln(1.25/δ))/λ ≤ 39/λ for any δ > 0, inside the same bounds.
//! The checks run on the levels of the run — ε(d) at every distance d that
//! occurs, after the clamps — and name the first offending distance.
//!
//! Last, every data row is checked finite before its file is committed
//! ([`crate::util::table::CsvRow`] lists the columns documented to hold `inf`
//! or `NaN`), so no other overflow can reach a file silently.

use crate::error::{Error, Result};
use std::fmt::Display;
use std::sync::Mutex;
use std::sync::OnceLock;

/// Worker threads allowed per available core (`threads` is refused above
/// this many times `std::thread::available_parallelism`).
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Largest `replicates` of every command that repeats a run (simulate,
/// utility, gossip): each replicate adds its rows to the run's files.
pub const MAX_REPLICATES: usize = 100_000;

/// Most `u64` counts of owners' hop-level histograms a `simulate` plan keeps
/// from its pre-pass (a `range:` map) to answer owners that need no
/// per-recipient work without a second search (32 MiB; beyond it the owners
/// phase searches again). A relay's plan also keeps the out-degree sums per
/// hop: both count against this limit.
pub const LEVEL_CACHE_MAX: usize = 1 << 22;

/// Smallest process level ε/Δ accepted (see the module docs).
pub const LEVEL_MIN: f64 = 1e-60;
/// Largest process level ε/Δ accepted.
pub const LEVEL_MAX: f64 = 1e60;
/// Smallest privacy level ε accepted.
pub const EPS_MIN: f64 = 1e-100;
/// Largest privacy level ε accepted.
pub const EPS_MAX: f64 = 1e100;
/// Smallest edge length the `f32` resistance sketch represents safely
/// (resistances between 1e-60 and 1e60 keep √R inside f32's normal range).
pub const APPROX_LENGTH_MIN: f64 = 1e-30;
/// Largest edge length of the sketch (see [`APPROX_LENGTH_MIN`]).
pub const APPROX_LENGTH_MAX: f64 = 1e30;

/// Where a memory budget comes from (quoted in messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BudgetSource {
    /// ¾ of physical memory.
    PhysicalMemory,
    /// The address-space limit (`ulimit -v`).
    AddressSpaceLimit,
    /// The cgroup's `memory.max`.
    Cgroup,
    /// Set by the caller ([`set_memory_budget`], `--memory-budget`).
    Explicit,
    /// Nothing could be read; a fixed default.
    Fallback,
}

impl Display for BudgetSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BudgetSource::PhysicalMemory => "¾ of physical memory",
            BudgetSource::AddressSpaceLimit => "the address-space limit, ulimit -v",
            BudgetSource::Cgroup => "the cgroup's memory.max",
            BudgetSource::Explicit => "set by `memory_budget`",
            BudgetSource::Fallback => "default",
        })
    }
}

/// A number of bytes a run may allocate, and where that number comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure comes from.
    pub source: BudgetSource,
}

impl MemoryBudget {
    /// Refuses `value` of `param` when `bytes` exceeds this budget (as
    /// `check_memory`, without reading the process-wide setting again: for
    /// checks inside a run's loops).
    pub fn check(&self, param: &str, value: impl Display, bytes: u64) -> Result<()> {
        self.check_with(param, value, bytes, "lower it, or raise `memory_budget`")
    }

    /// [`MemoryBudget::check`] with what to do instead as `hint`.
    pub fn check_with(
        &self,
        param: &str,
        value: impl Display,
        bytes: u64,
        hint: &str,
    ) -> Result<()> {
        if bytes <= self.bytes {
            return Ok(());
        }
        Err(Error::Budget {
            name: param.to_string(),
            value: value.to_string(),
            need: bytes,
            budget: self.bytes,
            origin: self.source.to_string(),
            hint: hint.into(),
        })
    }
}

static EXPLICIT: Mutex<Option<u64>> = Mutex::new(None);
static DETECTED: OnceLock<MemoryBudget> = OnceLock::new();

/// Sets the process-wide memory budget in bytes (`None`: back to the
/// detected default).
pub fn set_memory_budget(bytes: Option<u64>) {
    if let Ok(mut e) = EXPLICIT.lock() {
        *e = bytes;
    }
}

/// The budget in force: the one set by [`set_memory_budget`], else the
/// detected default (see the module docs).
pub fn memory_budget() -> MemoryBudget {
    if let Some(bytes) = EXPLICIT.lock().ok().and_then(|e| *e) {
        return MemoryBudget {
            bytes,
            source: BudgetSource::Explicit,
        };
    }
    *DETECTED.get_or_init(detect)
}

/// Refuses `value` of `param` when it needs more than the memory budget.
/// `bytes` is the caller's estimate of what the value makes it allocate.
pub fn check_memory(param: &str, value: impl Display, bytes: u64) -> Result<()> {
    memory_budget().check(param, value, bytes)
}

/// `a × b × c …` bytes with saturation, for estimates (a product that would
/// overflow `u64` is over any budget anyway).
pub fn bytes_of(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
}

/// `usize` → `u64` for estimates (saturating on exotic targets).
fn w(x: usize) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

/// Worker threads of the current rayon pool (the `t` of the estimates).
pub fn pool_threads() -> u64 {
    w(rayon::current_num_threads().max(1))
}

/// Accumulators of `bins` distance buckets (+ the unreachable one) for
/// `mechanisms` mechanisms: 80-byte sums per bucket in every chunk table in
/// flight (4t chunks, plus the merged table) and 48-byte owner cells per
/// worker, doubled for `Vec` growth.
pub fn bins_bytes(bins: usize, mechanisms: usize, threads: u64) -> u64 {
    let per_bucket = bytes_of(&[80, w(mechanisms), 4 * threads + 1])
        .saturating_add(bytes_of(&[48, 4 * threads]));
    bytes_of(&[w(bins).saturating_add(1), 2, per_bucket])
}

/// The resistance sketch: k rows of N `f32` values, plus the
/// preconditioned-CG vectors of one block of 8 rows per thread (six vectors
/// of 8 `f64` per node, and the block's output).
pub fn sketch_bytes(k: usize, nodes: usize, threads: u64) -> u64 {
    bytes_of(&[4, w(k), w(nodes)])
        .saturating_add(bytes_of(&[416, w(nodes), threads]))
        .saturating_add(w(k))
}

/// The exact resistance route: one dense `n_c × n_c` inverse kept per
/// component, and a second matrix while the largest is factorised.
pub fn dense_resistance_bytes(component_sizes: impl Iterator<Item = usize>) -> u64 {
    let (mut sum, mut max) = (0u64, 0u64);
    for n in component_sizes.filter(|&n| n >= 2) {
        let sq = bytes_of(&[w(n), w(n)]);
        sum = sum.saturating_add(sq);
        max = max.max(sq);
    }
    bytes_of(&[8, sum]).saturating_add(bytes_of(&[16, max]))
}

/// Per-worker buffers of a coalition of `members` in dimension `dim`:
/// members, their levels, orders, estimator scratch (about 160 bytes) and
/// two `dim`-vectors per member (answers, unit noise), doubled for growth.
pub fn coalition_bytes(members: usize, dim: usize, threads: u64) -> u64 {
    let per_member = 320u64.saturating_add(bytes_of(&[32, w(dim)]));
    bytes_of(&[w(members), per_member, threads])
}

/// Per-worker trial buffers of `collude`: the losses and the attack's two
/// estimate lists, 8 bytes each per trial, doubled for growth.
pub fn trials_bytes(trials: usize, threads: u64) -> u64 {
    bytes_of(&[48, w(trials), threads])
}

/// Breakpoints of a lazy path over process levels `[lo, hi]` that a sample
/// stays below except with negligible probability: the Poisson mean
/// rate · ln(hi/lo), plus 8 standard deviations, plus 8. Saturates at
/// `u64::MAX` for a non-finite range.
pub fn path_breakpoints(rate: f64, lo: f64, hi: f64) -> u64 {
    let mean = rate * (hi.ln() - lo.ln()).max(0.0);
    let b = mean + 8.0 * mean.sqrt() + 8.0;
    if b.is_finite() && b < u64::MAX as f64 {
        b as u64
    } else {
        u64::MAX
    }
}

/// Memory of one sampled path of `breakpoints` breakpoints in dimension
/// `dim`: a level and `dim` values per breakpoint, doubled for growth.
pub fn path_bytes(breakpoints: u64, dim: usize) -> u64 {
    bytes_of(&[
        2,
        breakpoints,
        8u64.saturating_mul(w(dim).saturating_add(1)),
    ])
}

/// An edge list turned into a graph: the input pairs, the arcs with their
/// input order, the CSR targets (48 bytes per edge) and four `usize` arrays
/// per node (40 bytes per node with the component labels).
pub fn graph_bytes(nodes: u64, edges: u64) -> u64 {
    bytes_of(&[40, nodes]).saturating_add(bytes_of(&[48, edges]))
}

/// A sweep's points held before the first one runs: a typed configuration
/// (about 2 KiB with its specs and texts) and the values of every axis.
pub fn sweep_bytes(points: usize, axes: usize) -> u64 {
    bytes_of(&[w(points), 2048u64.saturating_add(bytes_of(&[64, w(axes)]))])
}

/// A figure of `width × height` pixels: the RGBA canvas resvg renders
/// into (4 bytes a pixel; made RGB in place) and the encoded PNG (at most
/// the 3 bytes of its pixels).
pub fn image_bytes(width: u32, height: u32) -> u64 {
    bytes_of(&[7, u64::from(width), u64::from(height)])
}

/// The most worker threads a call may ask for.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    MAX_THREADS_PER_CORE * cores
}

/// Refuses a thread count of 0 or above [`max_threads`].
pub fn check_threads(threads: usize) -> Result<()> {
    let max = max_threads();
    if threads == 0 || threads > max {
        return Err(Error::param(
            "threads",
            threads,
            format!(
                "1 to {max} ({MAX_THREADS_PER_CORE} per core; results do not depend on the count)"
            ),
        ));
    }
    Ok(())
}

/// Whether privacy level `eps` with sensitivity `sensitivity` lies in the
/// range every command answers at (the module docs, "The range of privacy
/// levels"): ε in [[`EPS_MIN`], [`EPS_MAX`]] and ε/Δ in [[`LEVEL_MIN`],
/// [`LEVEL_MAX`]] — so not 0, not underflowed, not NaN. The one rule of
/// every command (issue 33 item 5): a level outside is refused when the
/// graph already has its distance ([`level_error`] says why), and gets no
/// answer — skipped and counted — when a later change of the graph creates
/// it (`evolve`).
#[inline]
pub fn level_in_range(eps: f64, sensitivity: f64) -> bool {
    (EPS_MIN..=EPS_MAX).contains(&eps) && (LEVEL_MIN..=LEVEL_MAX).contains(&(eps / sensitivity))
}

/// Why privacy level `eps` at `where_` (e.g. `distance 3`) with sensitivity
/// `sensitivity` is outside the accepted range, as the parameter error to
/// report (`None`: inside). `spec` is the privacy map's spec. ε itself
/// outside [[`EPS_MIN`], [`EPS_MAX`]] names `eps`; ε/Δ outside
/// [[`LEVEL_MIN`], [`LEVEL_MAX`]] names `sensitivity` when Δ ≠ 1 (and ε is
/// fine on its own), else `eps`.
pub fn level_error(spec: &str, eps: f64, where_: &str, sensitivity: f64) -> Option<Error> {
    let f = fmt_num;
    let spec = readable(spec);
    let spec = spec.as_str();
    if !(eps.is_finite() && eps > 0.0) {
        return Some(Error::param(
            "eps",
            spec,
            format!(
                "a finite ε > 0 at every distance, got ε = {eps} at {where_} (clamp with `eps_max`/`eps_min`)"
            ),
        ));
    }
    if !(EPS_MIN..=EPS_MAX).contains(&eps) {
        return Some(Error::param(
            "eps",
            spec,
            format!(
                "ε within [{}, {}] at every distance of the run (beyond, sums of ε overflow or vanish), \
                 got ε = {} at {where_} (clamp with `eps_max`/`eps_min`)",
                f(EPS_MIN),
                f(EPS_MAX),
                f(eps)
            ),
        ));
    }
    let level = eps / sensitivity;
    if level_in_range(eps, sensitivity) {
        return None;
    }
    let expected = format!(
        "ε/Δ within [{}, {}] at every distance of the run (beyond, squared errors \
         overflow or vanish), got ε = {} at {where_}, ε/Δ = {}",
        f(LEVEL_MIN),
        f(LEVEL_MAX),
        f(eps),
        f(level)
    );
    Some(if sensitivity != 1.0 {
        Error::param("sensitivity", f(sensitivity), expected)
    } else {
        Error::param(
            "eps",
            spec,
            format!("{expected} (clamp with `eps_max`/`eps_min`)"),
        )
    })
}

pub use crate::util::num::fmt_num;

/// A spec for a message, its long numbers in exponent form: canonical specs
/// print numbers in full (`table:1=0.000…0001`, 90 zeros), messages
/// `table:1=1e-90`.
pub fn readable(spec: &str) -> String {
    let mut out = String::with_capacity(spec.len());
    let mut num = String::new();
    let flush = |num: &mut String, out: &mut String| {
        match num.parse::<f64>() {
            Ok(x) if num.len() > 16 => out.push_str(&fmt_num(x)),
            _ => out.push_str(num),
        }
        num.clear();
    };
    for c in spec.chars() {
        if c.is_ascii_digit() || c == '.' {
            num.push(c);
        } else {
            flush(&mut num, &mut out);
            out.push(c);
        }
    }
    flush(&mut num, &mut out);
    out
}

/// Parses a size such as `1500000000`, `1.5G`, `800M`, `2GiB`, `512k`
/// (powers of 1024).
pub fn parse_size(text: &str) -> Result<u64> {
    let t = text.trim();
    let bad = || {
        Error::param(
            "memory_budget",
            text,
            "a size in bytes, e.g. 1500000000, 800M, 1.5G",
        )
    };
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num.parse().map_err(|_| bad())?;
    let mult = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1u64,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let bytes = x * mult as f64;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

const FALLBACK: u64 = 8 << 30;

fn detect() -> MemoryBudget {
    let mut best = MemoryBudget {
        bytes: FALLBACK,
        source: BudgetSource::Fallback,
    };
    let mut consider = |bytes: Option<u64>, source: BudgetSource| {
        if let Some(b) = bytes
            && (best.source == BudgetSource::Fallback || b < best.bytes)
        {
            best = MemoryBudget { bytes: b, source };
        }
    };
    consider(
        physical_memory().map(|m| m / 4 * 3),
        BudgetSource::PhysicalMemory,
    );
    consider(address_space_left(), BudgetSource::AddressSpaceLimit);
    consider(cgroup_left(), BudgetSource::Cgroup);
    best
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemTotal:")
}

/// `NAME: 1234 kB` → bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// Under an address-space limit (`ulimit -v`), makes the allocator fit it:
/// glibc gives every thread that allocates an arena reserving 64 MiB of
/// address space, which `ulimit -v` counts although nothing is used — two
/// worker threads took 128 MiB of a 250 MB limit and a later 8 MB
/// allocation aborted the process. One arena for all threads costs nothing
/// measurable here (the hot paths allocate per chunk, not per answer).
/// Without a limit, or off glibc, it does nothing. Call it first thing in a
/// process (the command line and the Python module do).
pub fn fit_address_space_limit() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if address_space_limit().is_some() {
        // SAFETY: mallopt only changes allocator tuning; M_ARENA_MAX = 1 is
        // a documented value.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

thread_local! {
    /// Depth of [`fallible`] sections on this thread.
    static FALLIBLE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f`, whose allocations may fail and are handled (`try_reserve`):
/// an allocator that ends the process when memory runs out (the command
/// line's, see `main.rs`) lets these fail instead.
pub fn fallible<T>(f: impl FnOnce() -> T) -> T {
    FALLIBLE.with(|c| c.set(c.get() + 1));
    let out = f();
    FALLIBLE.with(|c| c.set(c.get() - 1));
    out
}

/// Whether the calling thread is inside [`fallible`]: read by an allocator,
/// so it never allocates (a constant-initialised thread local).
pub fn in_fallible() -> bool {
    FALLIBLE.try_with(|c| c.get() > 0).unwrap_or(false)
}

/// The soft address-space limit (`ulimit -v`) in bytes, if any.
pub fn address_space_limit_bytes() -> Option<u64> {
    address_space_limit()
}

/// Whether the process runs under an address-space limit (`ulimit -v`):
/// then work that reserves address space per thread (faer's scratch) runs
/// on one thread.
pub fn address_space_limited() -> bool {
    address_space_limit().is_some()
}

/// The soft `RLIMIT_AS` in bytes; `None` when unlimited or unreadable.
fn address_space_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    soft.parse().ok() // "unlimited" → None
}

/// Address space a worker thread maps beyond its allocations: its stack
/// (2 MiB for Rust's threads) and a guard page, rounded up.
const THREAD_ADDRESS_SPACE: u64 = 4 << 20;

/// The soft `RLIMIT_AS` minus the address space mapped now and the stacks of
/// the worker threads still to start, less a quarter kept for the
/// allocator's own overhead; `None` when unlimited.
fn address_space_left() -> Option<u64> {
    let limit = address_space_limit()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:").unwrap_or(0);
    let threads = bytes_of(&[pool_threads() + 1, THREAD_ADDRESS_SPACE]);
    Some(limit.saturating_sub(used).saturating_sub(threads) / 4 * 3)
}

/// What the memory cgroups leave: `memory.max − memory.current` (cgroup v2)
/// or `memory.limit_in_bytes − memory.usage_in_bytes` (v1) of the process's
/// own cgroup (from `/proc/self/cgroup`) and of each ancestor up to the
/// mount's root, the smallest. `None` when unlimited or not in a cgroup.
fn cgroup_left() -> Option<u64> {
    let table = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    // `0::PATH` is the v2 hierarchy; `N:memory:PATH` (or `N:a,memory:PATH`) v1's.
    let path_of = |pred: &dyn Fn(&str) -> bool| -> String {
        table
            .lines()
            .find_map(|l| {
                let mut parts = l.splitn(3, ':');
                let (_, ctl, path) = (parts.next()?, parts.next()?, parts.next()?);
                pred(ctl).then(|| path.trim().to_string())
            })
            .unwrap_or_default()
    };
    let v2 = path_of(&|c| c.is_empty());
    let v1 = path_of(&|c| c.split(',').any(|x| x == "memory"));
    [
        walk_cgroup("/sys/fs/cgroup", &v2, "memory.max", "memory.current"),
        walk_cgroup(
            "/sys/fs/cgroup/memory",
            &v1,
            "memory.limit_in_bytes",
            "memory.usage_in_bytes",
        ),
    ]
    .into_iter()
    .flatten()
    .min()
}

/// The smallest `max − (current − inactive page cache)` over the cgroup `path` under `mount` and its
/// ancestors. Unlimited levels (v2 `max`, which does not parse; v1's huge
/// page-aligned number) are skipped; a path that is not visible (another
/// namespace's) falls back to the mount's root.
fn walk_cgroup(mount: &str, path: &str, max_file: &str, current_file: &str) -> Option<u64> {
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let mut dir = path.trim_end_matches('/').to_string();
    if !std::path::Path::new(&format!("{mount}{dir}")).exists() {
        dir.clear();
    }
    let mut best: Option<u64> = None;
    loop {
        let base = format!("{mount}{dir}");
        if let Some(max) = read(&format!("{base}/{max_file}")).filter(|&m| m < 1 << 60) {
            // Reclaimable page cache counts as free (as `docker stats` does).
            let cache = std::fs::read_to_string(format!("{base}/memory.stat"))
                .ok()
                .and_then(|t| {
                    t.lines().find_map(|l| {
                        let (k, v) = l.split_once(' ')?;
                        matches!(k, "inactive_file" | "total_inactive_file")
                            .then(|| v.trim().parse::<u64>().ok())?
                    })
                })
                .unwrap_or(0);
            let current = read(&format!("{base}/{current_file}")).unwrap_or(0);
            let left = max.saturating_sub(current.saturating_sub(cache));
            best = Some(best.map_or(left, |b| b.min(left)));
        }
        match dir.rfind('/') {
            Some(i) => dir.truncate(i),
            None => break,
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("1500000000").unwrap(), 1_500_000_000);
        assert_eq!(parse_size("800M").unwrap(), 800 << 20);
        assert_eq!(parse_size("1.5G").unwrap(), 3 << 29);
        assert_eq!(parse_size("2GiB").unwrap(), 2 << 30);
        for bad in ["", "G", "-1", "1Q", "nan", "1e400", "0"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn detected_budget_is_positive_and_below_physical_memory() {
        let b = detect();
        assert!(b.bytes > 0);
        if let Some(p) = physical_memory() {
            assert!(b.bytes <= p, "{b:?} vs {p}");
        }
    }

    #[test]
    fn products_saturate_and_threads_are_capped() {
        assert_eq!(bytes_of(&[u64::MAX, 2]), u64::MAX);
        assert_eq!(bytes_of(&[3, 4, 5]), 60);
        assert!(check_threads(0).is_err());
        assert!(check_threads(1).is_ok());
        assert!(check_threads(max_threads() + 1).is_err());
    }

    #[test]
    fn levels_inside_the_range_pass_and_outside_name_the_culprit() {
        let at = "distance 3";
        for (eps, delta) in [
            (1.0, 1.0),
            (1e-60, 1.0),
            (1e60, 1.0),
            (1e-100, 1e-40),
            (15.0, 2.0),
        ] {
            assert!(level_error("s", eps, at, delta).is_none(), "{eps} {delta}");
        }
        let name = |eps: f64, delta: f64| match level_error("s", eps, at, delta) {
            Some(Error::Parameter { name, expected, .. }) => {
                assert!(expected.contains("at distance 3"), "{expected}");
                name
            }
            other => panic!("{other:?}"),
        };
        // ε itself out of range, or not a level: the map.
        for eps in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-101, 1e101] {
            assert_eq!(name(eps, 1.0), "eps", "{eps}");
        }
        // ε fine, ε/Δ not: the sensitivity, unless it is 1.
        assert_eq!(name(1e-90, 1.0), "eps");
        assert_eq!(name(15.0, 1e308), "sensitivity");
        assert_eq!(name(15.0, 1e-308), "sensitivity");
        // The derivation's worst case at the smallest level: 2³² owners of
        // 2³² answers each of squared error 2·10⁶/λ² — Σ S² stays finite.
        let s = 2f64.powi(32) * 2e6 / (LEVEL_MIN * LEVEL_MIN);
        assert!((2f64.powi(32) * s * s).is_finite());
        assert!(!(2f64.powi(32) * (s * 1e15) * (s * 1e15)).is_finite());
    }

    #[test]
    fn estimates_saturate_instead_of_overflowing() {
        let t = 8;
        assert_eq!(bins_bytes(usize::MAX, 2, t), u64::MAX);
        assert_eq!(sketch_bytes(usize::MAX, 34, t), u64::MAX);
        assert_eq!(coalition_bytes(usize::MAX, 1000, t), u64::MAX);
        assert_eq!(trials_bytes(usize::MAX, t), u64::MAX);
        assert_eq!(path_breakpoints(2.0, 1e-300, f64::INFINITY), u64::MAX);
        assert_eq!(path_breakpoints(2.0, 1.0, 1.0), 8);
        assert_eq!(dense_resistance_bytes([34, 1, 0].into_iter()), 24 * 34 * 34);
        // What the sizes needed, in the model's words.
        assert!(bins_bytes(1_000_000_000, 2, 2) > 1 << 40);
        assert!(sketch_bytes(50_000_000, 34, 2) > 6 << 30);
        assert!(coalition_bytes(100_000_000, 2, 2) > 70 << 30);
        assert!(graph_bytes(1_000_000_000, 10) > 37 << 30);
        // Ordinary runs stay far below any budget.
        assert!(bins_bytes(20, 2, 8) < 1 << 20);
        assert!(sketch_bytes(400, 4039, 8) < 20 << 20);
    }

    #[test]
    fn messages_show_numbers_compactly() {
        assert_eq!(fmt_num(15.0), "15");
        assert_eq!(fmt_num(1e-90), "1e-90");
        assert_eq!(fmt_num(15.0 / 1e-308), "inf");
        assert_eq!(fmt_num(3.6271722970495225e-305), "3.6271722970495225e-305");
        let long = format!("table:1=0.{}1,*=0.5", "0".repeat(89));
        assert_eq!(readable(&long), "table:1=1e-90,*=0.5");
        assert_eq!(readable("exp:a=-700,b=1"), "exp:a=-700,b=1");
    }

    #[test]
    fn human_bytes_reads_well() {
        assert_eq!(crate::util::num::human_bytes(512), "512 B");
        assert_eq!(crate::util::num::human_bytes(3 << 29), "1.5 GiB");
    }
}
