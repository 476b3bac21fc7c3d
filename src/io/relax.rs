//! The files and text of `privdiffuse relax`: the CSV `trial,step,eps,y1..yn`
//! of a [`ReleaseTrials`] run, the state file it resumes and updates, the
//! accuracy table and the privacy accounting.
//!
//! **The state is updated by one run at a time** (issue 23.A1): a
//! [`StateFile`] holds an OS lock on `STATE.lock` (a lock on the state
//! itself would be lost when the new state is renamed over it) from before
//! the state is read until the new one is in place, and removes it with the
//! lock; a second run fails at once with `STATE is in use by another run`.
//! And an answer is shown only once it is recorded: with a state, the rows
//! are written after the new state is committed, so no answer can be
//! printed that a later run would not find — the same secret is never
//! released twice with different noise.

use super::stream::{CsvStream, OutFile};
use crate::error::{Error, Result};
use crate::limits::fmt_num;
use crate::process::{GradualRelease, ReleaseNoise};
use crate::release::{Accounting, ReleaseOutput, ReleaseRow, ReleaseTrials};
use crate::util::Existing;
use crate::util::lock::{FileLock, LockError};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A `relax` state file opened for update: locked from the read to the
/// rename of the new state (see the module documentation).
#[derive(Debug)]
pub struct StateFile {
    path: PathBuf,
    loaded: Option<GradualRelease>,
    _lock: FileLock,
}

impl StateFile {
    /// Takes the writer's lock of `path` (failing at once when another run
    /// holds it) and loads the state if the file exists.
    pub fn open(path: &Path) -> Result<StateFile> {
        let lock = FileLock::acquire(path).map_err(|e| match e {
            LockError::InUse { path } => Error::OutputExists {
                path,
                message: "is in use by another run".into(),
                another_run: true,
            },
            LockError::Io(e) => e.into(),
        })?;
        let loaded = if path.exists() {
            Some(GradualRelease::load(path)?)
        } else {
            None
        };
        Ok(StateFile {
            path: path.to_path_buf(),
            loaded,
            _lock: lock,
        })
    }

    /// The state file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The release stored there (`None`: a new state).
    pub fn release(&self) -> Option<&GradualRelease> {
        self.loaded.as_ref()
    }

    /// Saves `release` as the new state (replacing the one read; a new
    /// state file must still be new), then gives up the lock.
    pub fn save(self, release: &GradualRelease) -> Result<()> {
        let existing = if self.loaded.is_some() {
            Existing::Replace
        } else {
            Existing::Refuse
        };
        super::save_release_with(release, &self.path, existing)
    }
}

/// Runs `run`, writing its rows as CSV to `out` (standard output when
/// `None` or `-`; an existing file refused unless `force`). With `state`
/// (one trial), the last release is saved there first and the rows are
/// written only once it is.
pub fn write_releases(
    run: &ReleaseTrials,
    out: Option<&Path>,
    force: bool,
    state: Option<StateFile>,
) -> Result<ReleaseOutput> {
    run.validate()?;
    let mut dest = OutFile::open(out, force, None)?;
    let name = dest.name();
    let n = run.template().dim();
    let mut rows = CsvStream::<_, ReleaseRow>::new(&mut dest, name, "a release", n)?;
    let done = match state {
        None => run.run_into(&mut rows)?,
        Some(state) => {
            let (kept, done) = run.run()?;
            state.save(done.release())?;
            crate::sink::RecordSink::record_all(&mut rows, kept)?;
            done
        }
    };
    rows.into_inner()?;
    dest.finish()?;
    Ok(done)
}

/// The accuracy table `relax --trials` prints, ending with the accounting
/// line ([`accounting_line`]).
pub fn accuracy_table(out: &ReleaseOutput) -> String {
    let g = out.release();
    let (mech, n, sens, seed) = (g.mechanism(), g.dim(), g.sensitivity(), g.seed());
    let trials = out.trials();
    let m = out.accuracy().len();
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# gradual release: {mech}, n = {n}, sensitivity {sens}, {trials} trials, seed {seed}"
    );
    let _ = writeln!(
        t,
        "{:>4} {:>8} {:>12} {:>12} {:>7} {:>12} {:>12} {:>10}",
        "step", "eps", "mse", "optimum", "ratio", "comp_mse", "comp_theory", "comp_ratio"
    );
    for a in out.accuracy() {
        let _ = write!(
            t,
            "{:>4} {:>8} {:>12.6} {:>12.6} {:>7.4}",
            a.step, a.eps, a.mse, a.optimum, a.ratio
        );
        match (a.comp_mse, a.comp_theory, a.comp_ratio) {
            (Some(c), Some(th), Some(r)) => {
                let _ = writeln!(t, " {c:>12.6} {th:>12.6} {r:>10.4}");
            }
            _ => {
                let _ = writeln!(t, " {:>12} {:>12} {:>10}", "-", "-", "-");
            }
        }
    }
    t.push_str(
        "# mse: mean ‖y − u‖² of the lazy release; optimum: a single release at that ε; \
comp: fresh noise with ε_i − ε_(i−1) per step, inverse-variance weighted",
    );
    if let ReleaseNoise::Gaussian { .. } = mech {
        let _ = write!(t, " (δ/{m} per step)");
    }
    t.push('\n');
    if let ReleaseNoise::Discrete { .. } = mech {
        t.push_str(
            "# discrete: eps is the rung answered (the largest ≤ the request, the top above \
eps_max); optimum: the discrete law's MSE there plus the rounding of u to the grid; no \
composition baseline (its budgets fall between rungs)\n",
        );
    } else if !out.has_composition() {
        t.push_str("# composition baseline shown only for strictly increasing levels\n");
    }
    t.push_str(&accounting_line(out.accounting(), true));
    t.push('\n');
    t
}

/// One line: the level at which a trial's released set (or, for one
/// release, everything it answered) is private — max ε for the lazy path,
/// the sum of the budgets where the baseline used fresh noise, e.g.
/// `# privacy: each trial's answers together are 4-DP (max ε: one lazy path
/// over 4 levels); the composition baseline's are 4-DP (Σ of its fresh
/// budgets ε_i − ε_(i−1))`; `(ε, δ)-DP` for the Gaussian mechanism.
pub fn accounting_line(a: &Accounting, per_trial: bool) -> String {
    let level = |eps: f64, delta: Option<f64>| match delta {
        Some(d) => format!("({}, {})", fmt_num(eps), fmt_num(d)),
        None => fmt_num(eps),
    };
    let whose = if per_trial {
        "each trial's answers together are"
    } else {
        "everything released is"
    };
    let mut s = format!(
        "# privacy: {whose} {}-DP (max ε: one lazy path over {} level{})",
        level(a.eps, a.delta),
        a.levels,
        if a.levels == 1 { "" } else { "s" }
    );
    match a.composition_eps {
        Some(c) => {
            let _ = write!(
                s,
                "; the composition baseline's are {}-DP (Σ of its fresh budgets ε_i − ε_(i−1))",
                level(c, a.composition_delta)
            );
        }
        None if a.levels > 1 => {
            let _ = write!(
                s,
                "; fresh noise at each level would be {}-DP (Σ ε)",
                level(a.fresh_sum, a.delta.map(|d| d * a.levels as f64))
            );
        }
        None => {}
    }
    s
}
