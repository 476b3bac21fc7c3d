//! Progress bars on standard error: drawn only on a terminal, never with
//! `--quiet`, and only once a run has lasted a second.

use crate::{Control, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// A progress bar that stays invisible for the first second, so short runs
/// print nothing.
pub struct DelayedBar {
    bar: ProgressBar,
    start: Instant,
    shown: AtomicBool,
    enabled: bool,
}

impl DelayedBar {
    /// Sets the position; draws from the first call after one second.
    pub fn set_position(&self, pos: u64) {
        if self.enabled
            && !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed().as_secs_f64() >= 1.0
        {
            self.shown.store(true, Ordering::Relaxed);
            self.bar
                .set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
        }
        self.bar.set_position(pos);
    }

    /// Removes the bar.
    pub fn finish_and_clear(&self) {
        self.bar.finish_and_clear();
    }
}

/// A bar over `len` items; never drawn unless `enabled` and stderr is a
/// terminal, and only after one second.
pub fn bar(len: u64, unit: &str, enabled: bool) -> DelayedBar {
    let enabled = enabled && std::io::stderr().is_terminal();
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    let style = ProgressStyle::with_template(&format!(
        "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{per_sec}}, ETA {{eta}})"
    ))
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    pb.set_style(style);
    DelayedBar {
        bar: pb,
        start: Instant::now(),
        shown: AtomicBool::new(false),
        enabled,
    }
}

/// A [`Control`] whose progress reports draw a [`DelayedBar`] (created at the
/// first report, cleared when the work is done); a silent one when `enabled`
/// is false (`--quiet`).
pub fn control(enabled: bool) -> Control {
    if !enabled {
        return Control::new();
    }
    let bar: Mutex<Option<DelayedBar>> = Mutex::new(None);
    Control::new().with_progress(move |p: Progress| {
        let Ok(mut slot) = bar.lock() else { return };
        let b = slot.get_or_insert_with(|| self::bar(p.total, p.unit, true));
        b.set_position(p.done);
        if p.done >= p.total {
            b.finish_and_clear();
        }
    })
}
