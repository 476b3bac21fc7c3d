//! Progress on standard error: drawn only on a terminal, never with
//! `--quiet`, and nothing for the first second, so short runs print nothing.
//!
//! A counted phase (owners, sweep points) draws a bar whose ETA is learned
//! from the units finished so far: the call's own estimate when it gives one
//! (a sweep fits its points' times to their work, `sweep::eta`), else the
//! time since the counted work began (the phase that announced it, else the
//! run's start) per finished unit, times the units left. A phase without a count ([`Control::phase`]: loading
//! the graph, preparing distances, writing, drawing figures) draws a spinner
//! with its name once it has lasted a second.

use crate::{Control, control::Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Nothing is drawn before a run (for a spinner: its phase) has lasted this long.
const QUIET_START: Duration = Duration::from_secs(1);

/// Seconds left when `done` of `total` units took `elapsed`: the mean time
/// per finished unit times the units left (`None` before the first unit).
pub fn eta(elapsed: Duration, done: u64, total: u64) -> Option<Duration> {
    if done == 0 {
        return None;
    }
    let left = total.saturating_sub(done);
    Some(elapsed.mul_f64(left as f64 / done as f64))
}

/// `1:05:03`, `4:07`, `12s`: a duration as the bar prints it.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s / 60) % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}:{sec:02}"),
        (h, m, sec) => format!("{h}:{m:02}:{sec:02}"),
    }
}

/// The spinner's line after `elapsed` in phase `name`: empty during the
/// first second, then a turning frame, the name and the time in the phase.
pub fn phase_line(name: &str, elapsed: Duration) -> String {
    if elapsed < QUIET_START {
        return String::new();
    }
    const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
    let frame = FRAMES[(elapsed.as_millis() / 125 % 4) as usize];
    format!("{frame} {name} ({})", clock(elapsed))
}

/// What is on screen now.
enum Shown {
    /// A phase without a count; its spinner draws itself (steady tick).
    Phase(ProgressBar),
    /// A counted phase of `unit`s, whose bar is revealed at the first report
    /// after the run's first second.
    Count {
        bar: ProgressBar,
        unit: &'static str,
        visible: bool,
    },
}

impl Shown {
    fn clear(&self) {
        match self {
            Shown::Phase(b) | Shown::Count { bar: b, .. } => b.finish_and_clear(),
        }
    }
}

/// The state behind a [`control`]'s progress callback; cleared when the last
/// clone of the control is dropped.
struct Screen {
    run_start: Instant,
    /// When the latest phase began: a counted phase's ETA counts from here.
    phase_start: Instant,
    /// The latest seconds-left estimate the call gave, and when.
    told: Arc<Mutex<Option<(f64, Instant)>>>,
    shown: Option<Shown>,
}

impl Screen {
    fn phase(&mut self, name: &'static str) {
        if let Some(s) = self.shown.take() {
            s.clear();
        }
        self.phase_start = Instant::now();
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(8));
        let style = ProgressStyle::with_template("{line}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .with_key(
                "line",
                move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&phase_line(name, s.elapsed()));
                },
            );
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(125));
        self.shown = Some(Shown::Phase(bar));
    }

    fn count(&mut self, unit: &'static str, done: u64, total: u64, seconds_left: Option<f64>) {
        let same = matches!(&self.shown, Some(Shown::Count { unit: u, .. }) if *u == unit);
        if !same {
            if let Some(s) = self.shown.take() {
                s.clear();
            }
            let began = self.phase_start;
            self.told = Arc::default();
            let told = self.told.clone();
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            let style = ProgressStyle::with_template(&format!(
                "{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit}, ETA {{eta_learned}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key(
                "eta_learned",
                move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                    // The call's own estimate when it gives one (learned from
                    // its finished units, counted down since), else ours.
                    let own =
                        told.lock()
                            .ok()
                            .and_then(|t| *t)
                            .map(|(left, at): (f64, Instant)| {
                                Duration::from_secs_f64(
                                    (left - at.elapsed().as_secs_f64()).max(0.0),
                                )
                            });
                    let text =
                        match own.or_else(|| eta(began.elapsed(), s.pos(), s.len().unwrap_or(0))) {
                            Some(left) => clock(left),
                            None => "…".into(),
                        };
                    let _ = w.write_str(&text);
                },
            )
            .progress_chars("=> ");
            bar.set_style(style);
            self.shown = Some(Shown::Count {
                bar,
                unit,
                visible: false,
            });
        }
        if let (Some(left), Ok(mut slot)) = (seconds_left, self.told.lock()) {
            *slot = Some((left, Instant::now()));
        }
        if let Some(Shown::Count { bar, visible, .. }) = &mut self.shown {
            if !*visible && self.run_start.elapsed() >= QUIET_START {
                *visible = true;
                bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
            }
            bar.set_position(done);
            if done >= total {
                bar.finish_and_clear();
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        if let Some(s) = self.shown.take() {
            s.clear();
        }
    }
}

/// A [`Control`] whose reports draw on standard error (see the module); a
/// silent one when `enabled` is false (`--quiet`) or standard error is not a
/// terminal. Drop every clone of it before printing the run's summary: the
/// last one clears the screen.
pub fn control(enabled: bool) -> Control {
    if !enabled || !std::io::stderr().is_terminal() {
        return Control::new();
    }
    let now = Instant::now();
    let screen = Mutex::new(Screen {
        run_start: now,
        phase_start: now,
        told: Arc::default(),
        shown: None,
    });
    Control::new().with_progress(move |p: Progress| {
        let Ok(mut s) = screen.lock() else { return };
        if p.total == 0 {
            s.phase(p.unit);
        } else {
            s.count(p.unit, p.done, p.total, p.seconds_left);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_is_the_mean_time_per_finished_unit_times_the_units_left() {
        let s = Duration::from_secs;
        assert_eq!(eta(s(5), 0, 90), None);
        // 7 points of 90 in 5.3 s: 83 more at 5.3/7 s each ≈ 63 s (the
        // issue's sweep took 68 s; a rate read from the last bursts said 12 s).
        let left = eta(Duration::from_secs_f64(5.3), 7, 90).unwrap();
        assert!(
            (left.as_secs_f64() - 5.3 / 7.0 * 83.0).abs() < 1e-9,
            "{left:?}"
        );
        assert_eq!(eta(s(10), 10, 10), Some(s(0)));
        assert_eq!(eta(s(10), 12, 10), Some(s(0)));
    }

    #[test]
    fn a_phase_shows_nothing_for_its_first_second_then_its_name_and_time() {
        assert_eq!(
            phase_line("preparing distances", Duration::from_millis(999)),
            ""
        );
        let l = phase_line("preparing distances", Duration::from_millis(4200));
        assert!(l.ends_with(" preparing distances (4s)"), "{l}");
        assert_eq!(clock(Duration::from_secs(65)), "1:05");
        assert_eq!(clock(Duration::from_secs(3723)), "1:02:03");
    }
}
