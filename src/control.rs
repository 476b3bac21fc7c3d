//! Observing and stopping long calls: a cancellation token and a progress
//! callback, so that the faces (the command line's progress bar and Ctrl-C,
//! Python's KeyboardInterrupt) need nothing from the engines but this value.
//!
//! Engines check the token at least once per chunk of owners (64) or per
//! sweep point and return [`Error::Cancelled`]; outputs staged so far are
//! removed as the call unwinds.
//!
//! ```
//! use privdiffuse::{CancelToken, Control, Error, Graph, Owners, Simulation};
//! use std::sync::{Arc, Mutex};
//! # fn main() -> Result<(), Error> {
//! let g = Graph::load("data/geometric150.edges")?;
//! let token = CancelToken::new();
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let log = seen.clone();
//! let control = Control::new()
//!     .with_cancel(token.clone())
//!     .with_progress(move |p| log.lock().unwrap().push((p.done, p.total, p.unit)));
//! let sim = Simulation::new(&g).owners(Owners::All).control(control);
//! sim.run()?;
//! // Progress arrived per batch of owners, ending at all 150.
//! assert_eq!(seen.lock().unwrap().iter().map(|p| p.0).max(), Some(150));
//! assert!(seen.lock().unwrap().iter().all(|&(_, total, unit)| total == 150 && unit == "owners"));
//! // Cancelled (e.g. from another thread, or a signal handler): the call
//! // returns `Error::Cancelled` at its next check.
//! token.cancel();
//! assert!(matches!(sim.run(), Err(Error::Cancelled)));
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag shared between the caller and a running call; [`CancelToken::cancel`]
/// makes the call return [`Error::Cancelled`] at its next check.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every call holding this token to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// How far a long call has come: `done` of `total` units (owners, points).
/// `total == 0` announces a phase without a count ([`Control::phase`]), named
/// by `unit`; it lasts until the next report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// What is counted ("owners", "points"), or the phase that began
    /// ("preparing distances") when `total` is 0.
    pub unit: &'static str,
    /// Units finished.
    pub done: u64,
    /// Units in all.
    pub total: u64,
    /// The call's own estimate of the seconds left, when it has one (a
    /// sweep learns it from its finished points, which differ in cost).
    pub seconds_left: Option<f64>,
}

type ProgressFn = dyn Fn(Progress) + Send + Sync;

/// A cancellation token and an optional progress callback, passed to every
/// long call. `Control::default()` never cancels and reports nothing.
#[derive(Clone, Default)]
pub struct Control {
    cancel: CancelToken,
    progress: Option<Arc<ProgressFn>>,
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.cancel.is_cancelled())
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl Control {
    /// No cancellation, no progress reports.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stops the call when `token` is cancelled.
    pub fn with_cancel(mut self, token: CancelToken) -> Self {
        self.cancel = token;
        self
    }

    /// Calls `f` as work completes (from worker threads; keep it cheap).
    pub fn with_progress(mut self, f: impl Fn(Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(f));
        self
    }

    /// The token this control watches.
    pub fn token(&self) -> &CancelToken {
        &self.cancel
    }

    /// `Err(Error::Cancelled)` once the token is cancelled.
    pub fn check(&self) -> Result<()> {
        if self.cancel.is_cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    /// Reports `done` of `total` units.
    pub fn report(&self, unit: &'static str, done: u64, total: u64) {
        if let Some(f) = &self.progress {
            f(Progress {
                unit,
                done,
                total,
                seconds_left: None,
            });
        }
    }

    /// Reports `done` of `total` units with an estimate of the seconds left.
    pub fn report_left(&self, unit: &'static str, done: u64, total: u64, seconds_left: f64) {
        if let Some(f) = &self.progress {
            f(Progress {
                unit,
                done,
                total,
                seconds_left: Some(seconds_left),
            });
        }
    }

    /// Announces a phase without a count (`what`: "loading the graph",
    /// "preparing distances", "writing outputs"), so that an observer can
    /// show that the call is busy and with what; counted work that follows
    /// starts from it. Reported as `Progress { unit: what, done: 0, total: 0, .. }`.
    pub fn phase(&self, what: &'static str) {
        self.report(what, 0, 0);
    }
}
