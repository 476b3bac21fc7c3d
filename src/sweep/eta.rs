//! The time a sweep has left, learned from its finished points.
//!
//! Points of one grid differ in cost (a coalition of 200 members pools
//! twenty times the answers of one of 10), so a rate of points per second
//! read from the first, cheap points is optimistic. Each point's time is
//! modelled as `a·answers + b·pooled`: `answers` = owners × (nodes − 1) ×
//! mechanisms (× replicates for utility points), `pooled` = owners ×
//! mechanisms × trials × coalition members summed over its coalitions
//! (collusion points; a coalition's stated `m`, else every other node). `a`
//! and `b ≥ 0` are fitted by least squares to the seconds of the points
//! finished so far; the time left is the fit summed over the points not
//! finished, divided by the threads running them.

use super::grid::Point;
use crate::sim::Plan;
use std::sync::Mutex;

/// What a point computes, in the model's two kinds of work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Answers drawn.
    pub answers: f64,
    /// Answers pooled by coalitions over all trials.
    pub pooled: f64,
}

/// The work of `point` on its `plan`.
pub fn work(plan: &Plan<'_>, point: &Point) -> Work {
    let owners = plan.owners().len() as f64;
    let nodes = plan.graph().n() as f64;
    let mechanisms = plan.mechanisms().len() as f64;
    let replicates = point
        .utility
        .as_ref()
        .map_or(1.0, |u| u.config.replicates.max(1) as f64);
    let pooled = point.collude.as_ref().map_or(0.0, |cp| {
        let members: f64 = cp
            .options
            .coalitions
            .iter()
            .map(|c| c.members_hint().map_or(nodes - 1.0, |m| m as f64))
            .sum();
        owners * mechanisms * cp.options.trials as f64 * members
    });
    Work {
        answers: owners * (nodes - 1.0).max(1.0) * mechanisms * replicates,
        pooled,
    }
}

/// Sums of the least-squares fit of seconds to work.
#[derive(Default)]
struct Fit {
    aa: f64,
    ab: f64,
    bb: f64,
    at: f64,
    bt: f64,
}

impl Fit {
    fn add(&mut self, w: Work, t: f64) {
        self.aa += w.answers * w.answers;
        self.ab += w.answers * w.pooled;
        self.bb += w.pooled * w.pooled;
        self.at += w.answers * t;
        self.bt += w.pooled * t;
    }

    /// Seconds per answer and per pooled answer, both ≥ 0 (a non-negative
    /// least-squares fit of two coefficients: the full solution when both
    /// come out ≥ 0 and the two kinds of work are not proportional, else the
    /// better one-coefficient fit).
    fn coefficients(&self) -> (f64, f64) {
        let det = self.aa * self.bb - self.ab * self.ab;
        if det > 1e-9 * self.aa * self.bb {
            let a = (self.at * self.bb - self.bt * self.ab) / det;
            let b = (self.bt * self.aa - self.at * self.ab) / det;
            if a >= 0.0 && b >= 0.0 {
                return (a, b);
            }
        }
        let only_a = if self.aa > 0.0 {
            (self.at / self.aa).max(0.0)
        } else {
            0.0
        };
        let only_b = if self.bb > 0.0 {
            (self.bt / self.bb).max(0.0)
        } else {
            0.0
        };
        // Residual sums of squares less Σt² (common to both): −c²·Σx².
        if only_a * only_a * self.aa >= only_b * only_b * self.bb {
            (only_a, 0.0)
        } else {
            (0.0, only_b)
        }
    }
}

/// Learns point times as they finish and predicts the seconds left.
pub struct Eta {
    threads: f64,
    state: Mutex<(Fit, Work)>,
}

impl Eta {
    /// Before any point of `works` has finished, on `threads` threads.
    pub fn new(works: &[Work], threads: usize) -> Self {
        let left = works.iter().fold(Work::default(), |s, w| Work {
            answers: s.answers + w.answers,
            pooled: s.pooled + w.pooled,
        });
        Eta {
            threads: threads.max(1) as f64,
            state: Mutex::new((Fit::default(), left)),
        }
    }

    /// A point of `work` finished in `seconds`: the seconds the points not
    /// yet finished should take.
    pub fn finished(&self, work: Work, seconds: f64) -> Option<f64> {
        let mut s = self.state.lock().ok()?;
        let (fit, left) = &mut *s;
        fit.add(work, seconds);
        left.answers = (left.answers - work.answers).max(0.0);
        left.pooled = (left.pooled - work.pooled).max(0.0);
        let (a, b) = fit.coefficients();
        Some((a * left.answers + b * left.pooled) / self.threads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(answers: f64, pooled: f64) -> Work {
        Work { answers, pooled }
    }

    #[test]
    fn the_fit_recovers_exact_costs_and_stays_non_negative() {
        let mut f = Fit::default();
        for (x, y) in [(1e7, 2e5), (1e7, 5e5), (2e7, 1e6), (1e7, 8e6)] {
            f.add(w(x, y), 3e-8 * x + 5e-7 * y);
        }
        let (a, b) = f.coefficients();
        assert!(
            (a - 3e-8).abs() < 1e-15 && (b - 5e-7).abs() < 1e-13,
            "{a} {b}"
        );
        // No pooled work (simulation points): the time per answer alone.
        let mut f = Fit::default();
        f.add(w(1e6, 0.0), 2.0);
        f.add(w(3e6, 0.0), 6.0);
        assert_eq!(f.coefficients(), (2e-6, 0.0));
        // Time falling with pooled work would need b < 0: one coefficient.
        let mut f = Fit::default();
        f.add(w(1.0, 1.0), 2.0);
        f.add(w(1.0, 2.0), 1.0);
        let (a, b) = f.coefficients();
        assert!(a >= 0.0 && b >= 0.0, "{a} {b}");
    }

    #[test]
    fn growing_coalitions_make_no_optimistic_eta() {
        // The coalition-size sweep on Facebook (examples/sweeps/coalition_size.toml,
        // 18 sizes m × 5 seeds, 20 owners, 2 mechanisms, 1,000 trials):
        // measured seconds per point ≈ 0.3 + 0.045·m (its timings file). After
        // the 8 cheapest points (m = 2, 3 and part of 5), the learned time
        // left is the true one within 5 %; a rate of points per second
        // read from those points says a fifth of it.
        let sizes = [
            2, 3, 5, 8, 10, 13, 16, 20, 25, 32, 40, 50, 63, 80, 100, 126, 160, 200,
        ];
        let (owners, nodes, mech, trials) = (20.0, 4039.0, 2.0, 1000.0);
        let works: Vec<(Work, f64)> = sizes
            .iter()
            .flat_map(|&m| {
                let m = m as f64;
                let work = w(owners * (nodes - 1.0) * mech, owners * mech * trials * m);
                std::iter::repeat_n((work, 0.3 + 0.045 * m), 5)
            })
            .collect();
        let eta = Eta::new(&works.iter().map(|x| x.0).collect::<Vec<_>>(), 1);
        let mut left = None;
        for &(work, t) in &works[..8] {
            left = eta.finished(work, t);
        }
        let truth: f64 = works[8..].iter().map(|x| x.1).sum();
        let learned = left.unwrap();
        assert!((learned / truth - 1.0).abs() < 0.05, "{learned} vs {truth}");
        let rate: f64 = works[..8].iter().map(|x| x.1).sum::<f64>() / 8.0 * 82.0;
        assert!(rate < truth / 4.0, "{rate} vs {truth}");
    }
}
