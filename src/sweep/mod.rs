//! Parameter sweeps (`privdiffuse sweep`): a grid of simulations (and
//! collusion evaluations) run in parallel into one long-format CSV.
//!
//! * [`Grid`] — `--set KEY=V1,V2,...` axes or a TOML file with `[base]` and
//!   `[grid]`; the sweep is the cartesian product, **first axis outermost**
//!   (point index = row-major index, the last axis varies fastest).
//! * [`run_points`] — validates every point, loads each graph once, prepares
//!   each (graph, distance kind, options) once and shares it across points,
//!   and runs the points in parallel, handing each point's typed rows to a
//!   [`PointSink`]; [`estimate`] is the dry run's calibrated estimate.
//! * The files ([`crate::io::run_sweep`]): `FILE` (the CSV) appears only when
//!   every point is done, in grid order, atomically: a sweep that is
//!   interrupted or fails never leaves a `FILE` that looks complete.
//! * Progress and resume: each finished point's rows are appended at once
//!   (flushed) to the side file `STEM.progress` (STEM = `FILE` without its
//!   extension, as for `STEM.timings.csv`), followed by a line
//!   `# done,INDEX,ROWS,SECONDS`; its first line is a fingerprint of the grid,
//!   its second the CSV header (so `grep -v '^#'` gives a CSV of the points
//!   so far). `--resume` keeps a point only if its rows are followed by its
//!   entry (ROWS lines with its key values); a point cut off mid-write is
//!   dropped and recomputed. When every point is done `FILE` is written, the
//!   timings go to `STEM.timings.csv` and the progress file is removed — so
//!   the final CSV is a pure function of the grid and seeds, byte for byte,
//!   whatever the thread count or the interruptions. The progress file is
//!   what an interrupted (or failed) sweep leaves, and all it leaves.
//! * Existing outputs: an explicitly named `FILE`
//!   that exists, or its timings, figures or progress file, is refused unless
//!   `force` (or `resume`, which continues from the progress file); a new
//!   `FILE` is claimed at once, so that two sweeps into it cannot both run.
//!   The default output is replaced.
//!
//! CSV columns: the grid keys (in axis order; a key that is also an output
//! column is written `<key>_spec`, e.g. `mechanism_spec`), then a [`SweepRow`]:
//! `mechanism,estimator,coalition,metric,distance_lo,distance_hi,value`.
//! Metrics: see [`metrics`].

pub mod eta;
pub mod grid;
pub mod metrics;
pub mod rows;
pub mod run;

pub use grid::{Axis, ColludePoint, Grid, Point};
pub use metrics::point_rows;
pub use rows::SweepRow;
pub use run::{Estimate, PointEstimate, PointSink, RunStats, TAIL_COLUMNS, estimate, run_points};
