//! What every figure reads, whether drawn by `plot` or by the run that
//! wrote the files: how many rows ([`MAX_ROWS`]), which numbers
//! ([`DRAWABLE`]), and where a file that `summary.json` names is found
//! ([`resolve_recorded`]). Without the `plots` feature too, since the sweep
//! figure's data are built there.

use std::path::{Path, PathBuf};

/// Most data rows a figure reads of one file; a longer file is refused at
/// its first row beyond, naming the file and that line.
///
/// Why 2²² = 4,194,304: reading and drawing cost 1.3–5 µs of CPU per row in
/// the release build (2-core VM, 1 M-row files: `jumps.csv` 1.3 s, a path
/// CSV 1.5 s, `by_distance.csv` 3.7 s, `ego.csv` 5.1 s), so at the cap a
/// figure takes at most ≈ 20 s of CPU instead of growing without bound
/// (only the memory budget limited it before). The largest files of the
/// runs the guides in docs/ document fit with room: the 3 M-row CSV of `path
/// --samples 1000000 --at 0.5,1,15`, the ≈ 1 M-row `ego.csv` of the 1 M-node
/// scale run, `jumps.csv` of every owner of `facebook_combined` (≈ 7
/// jumps per path at n = 1: 4,039 owners × K replicates × 7 rows). A run
/// whose file is longer still gets its data files; `simulate` and `collude`
/// then skip that figure.
pub const MAX_ROWS: usize = 1 << 22;

/// The end of the message of a file over [`MAX_ROWS`].
pub(crate) const ROW_CAP_REASON: &str =
    "a figure reads at most this many rows of a file (draw a smaller run, or a part of the file)";

/// Largest magnitude of a number a figure reads: beyond, an axis's width
/// overflows and plotters cannot place the point (it looped forever on
/// `1e308` in `ego.csv`).
pub const DRAWABLE: f64 = 1e300;

/// Whether `file` has at most `max` lines after its header (counted as
/// line breaks, without parsing: a quoted line break counts too, so a file
/// near the cap may be judged longer than it is).
#[cfg(feature = "plots")]
pub(crate) fn rows_within(file: &Path, max: usize) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(file) else {
        return true;
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut lines = 0usize;
    loop {
        match f.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => {
                lines += memchr::memchr_iter(b'\n', &buf[..n]).count();
                // The header's line and the rows' lines.
                if lines > max + 1 {
                    return false;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}

/// Where a file that the `summary.json` in `dir` names (the graph, a node
/// list, a subgraph) is found. `summary.json` records the path as given to
/// the run, relative to the directory the run was started in, so a committed
/// run drawn from elsewhere would not find it: a relative path that does not
/// exist from the current directory is looked up from `dir`, then from each
/// directory above it, nearest first (`results/thesis/fig7` finds
/// `data/facebook_ego0.edges` at the repository's root). Unchanged when
/// absolute, found where it is, or found nowhere (the error then names it
/// as recorded).
pub fn resolve_recorded(path: &Path, dir: &Path) -> PathBuf {
    if path.as_os_str().is_empty() || path.is_absolute() || path.exists() {
        return path.to_path_buf();
    }
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .map(|a| a.join(path))
        .find(|p| p.is_file())
        .unwrap_or_else(|| path.to_path_buf())
}
