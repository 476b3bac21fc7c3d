//! Bounds from one place: every size a user controls is checked here, against
//! a documented cap or against an estimate of the memory it needs, *before*
//! anything is allocated. A refused size gives [`Error::Budget`] naming the
//! parameter, its value, the estimate and the budget — never an allocation
//! abort, a panic or a swapping machine.
//!
//! # The memory budget
//! The default budget is the smallest of
//! * ¾ of the machine's physical memory (`MemTotal` in `/proc/meminfo`);
//! * what the process's address-space limit leaves (`ulimit -v`, `RLIMIT_AS`,
//!   minus the address space already mapped, with a quarter kept back for the
//!   allocator's arenas and thread stacks);
//! * what the cgroup's `memory.max` leaves (containers, systemd slices),
//!
//! so that a run under a ulimit or in a container is refused up front instead
//! of aborting midway. [`set_memory_budget`] (the command line's
//! `--memory-budget`) overrides it. Where none of these can be read (not
//! Linux), the budget is 8 GiB.
//!
//! # Caps that do not depend on memory
//! [`MAX_THREADS_PER_CORE`] × cores worker threads; the other caps live next to
//! their parameters and are listed in the crate's README (table of caps).

use crate::{Error, Result};
use std::fmt::Display;
use std::sync::Mutex;
use std::sync::OnceLock;

/// Worker threads allowed per available core (`threads` is refused above
/// this many times `std::thread::available_parallelism`).
pub const MAX_THREADS_PER_CORE: usize = 4;

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
    let budget = memory_budget();
    if bytes <= budget.bytes {
        return Ok(());
    }
    Err(Error::Budget {
        name: param.to_string(),
        value: value.to_string(),
        need: bytes,
        budget: budget.bytes,
        origin: budget.source.to_string(),
        hint: "lower it, or raise `memory_budget`".into(),
    })
}

/// `a × b × c …` bytes with saturation, for estimates (a product that would
/// overflow `u64` is over any budget anyway).
pub fn bytes_of(factors: &[u64]) -> u64 {
    factors.iter().fold(1u64, |acc, &f| acc.saturating_mul(f))
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

/// Bytes as a short human figure (`1.5 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if x >= 1e4 {
        format!("{x:.3e} {}", UNITS[u])
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
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

/// The soft `RLIMIT_AS` minus the address space mapped now, less a quarter
/// kept for allocator arenas and stacks; `None` when unlimited.
fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line["Max address space".len()..]
        .split_whitespace()
        .next()?;
    let limit: u64 = soft.parse().ok()?; // "unlimited" → None
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(limit.saturating_sub(used) / 4 * 3)
}

/// cgroup v2 `memory.max − memory.current` (v1 `memory.limit_in_bytes −
/// memory.usage_in_bytes`); `None` when unlimited or not in a cgroup.
fn cgroup_left() -> Option<u64> {
    let read = |p: &str| -> Option<u64> { std::fs::read_to_string(p).ok()?.trim().parse().ok() };
    let (max, current) = match read("/sys/fs/cgroup/memory.max") {
        Some(m) => (m, read("/sys/fs/cgroup/memory.current").unwrap_or(0)),
        None => (
            read("/sys/fs/cgroup/memory/memory.limit_in_bytes")?,
            read("/sys/fs/cgroup/memory/memory.usage_in_bytes").unwrap_or(0),
        ),
    };
    // cgroup v1 reports "no limit" as a huge page-aligned number.
    if max >= 1 << 60 {
        return None;
    }
    Some(max.saturating_sub(current))
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
    fn human_bytes_reads_well() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }
}
