//! `collude` under `noise = discrete` (issue 25 items 2–3), a child of
//! [`run`](super): members answer at their rungs (ε_j rounded down the
//! ladder, so units merge members on one rung), views are drawn in grid
//! integers (one chain per trial from the coalition's top rung down, or
//! fresh DL per member), and the audit is exact: the privacy loss between û
//! and û + Δ_Z·e₁ is a rational compared exactly with the bound (the largest
//! rung ε for the correlated chain, Σ ε_j for independent noise), with no
//! slack. The attack compares views under û and û + Δ_Z·e₁ (a shift of
//! Δ_Z·γ ≥ Δ in value units).

use super::*;
use crate::process::discrete::options::refuse_gaussian;
use crate::process::discrete::{
    DiscretePath, MemberView, NoiseRng, OsRng, PrivacyLoss, RngSource, Rung,
};
use crate::sim::DiscreteSim;

/// Per-worker buffers of the discrete views.
#[derive(Default)]
pub(super) struct DiscreteScratch {
    uhat: Vec<i64>,
    /// Members' rungs (ascending, with `eps`).
    rungs: Vec<Rung>,
    /// Members' answers û + X in grid steps (members × n).
    answers: Vec<i64>,
    x: Vec<i64>,
    path: DiscretePath,
}

/// After [`prepare_members`]: ε_j → the level of its rung, the attacker's
/// Laplace rates in value units (t_j/γ = ε_j/(Δ_Z·γ)) and the units of equal
/// rungs. A no-op under Laplace noise.
pub(super) fn prepare(plan: &Plan<'_>, s: &mut Scratch) -> Result<()> {
    let Some(d) = plan.discrete() else {
        return Ok(());
    };
    let noise = &d.noise;
    let ds = &mut s.disc;
    ds.rungs.clear();
    for e in s.eps.iter_mut() {
        let k = noise.rung_of(*e)?;
        ds.rungs.push(k);
        *e = noise.eps_of(k);
    }
    let scale = noise.delta_z() as f64 * noise.grid().value();
    s.rates.clear();
    s.rates.extend(s.eps.iter().map(|&e| e / scale));
    s.unit_start.clear();
    s.unit_eps.clear();
    for (j, &e) in s.eps.iter().enumerate() {
        if s.unit_eps.last() != Some(&e) {
            s.unit_start.push(j);
            s.unit_eps.push(e);
        }
    }
    s.unit_start.push(s.eps.len());
    Ok(())
}

/// |loss| > bound, exactly (cross-multiplied big integers).
fn exceeds(loss: &PrivacyLoss, bound: &PrivacyLoss) -> bool {
    let scale = |a: &PrivacyLoss, b: &PrivacyLoss| a.numer().magnitude() * b.denom();
    scale(loss, bound) > scale(bound, loss)
}

/// The generator of one trial: `rng_for_stream` or the operating system's.
fn generator(
    d: &DiscreteSim,
    seed: u64,
    owner: u32,
    trial: u64,
    purpose: Purpose,
    stream: u64,
) -> Result<NoiseRng> {
    Ok(match d.rng {
        RngSource::Seeded => NoiseRng::Seeded(rng_for_stream(
            seed,
            u64::from(owner),
            trial,
            purpose,
            stream,
        )),
        RngSource::Os => NoiseRng::Os(OsRng::new()?),
    })
}

/// row = û + x + shift·e₁ (saturating: beyond 2⁵³ the answer is refused
/// by [`Grid::value_of`](crate::process::discrete::Grid::value_of)).
fn fill(row: &mut [i64], uhat: &[i64], x: &[i64], shift: i64) {
    for (i, ((r, &u), &v)) in row.iter_mut().zip(uhat).zip(x).enumerate() {
        *r = u
            .saturating_add(v)
            .saturating_add(if i == 0 { shift } else { 0 });
    }
}

/// One view in grid integers into `s.disc.answers`, and its values
/// (exact multiples of γ) into `s.answers`.
fn draw(
    d: &DiscreteSim,
    plan: &Plan<'_>,
    s: &mut Scratch,
    mech: Mechanism,
    owner: u32,
    (trial, stream): (u64, u64),
    under_u1: bool,
) -> Result<()> {
    let noise = &d.noise;
    let n = noise.dim();
    let m = s.members.len();
    let seed = plan.config().seed;
    let ds = &mut s.disc;
    ds.answers.resize(m * n, 0);
    ds.x.resize(n, 0);
    let shift = if under_u1 { noise.delta_z() as i64 } else { 0 };
    if mech == Mechanism::Correlated {
        let (top, bottom) = (ds.rungs[m - 1], ds.rungs[0]);
        let mut rng = generator(d, seed, owner, trial, Purpose::Path, stream)?;
        noise.sample_path_into(top, bottom, &mut rng, &mut ds.path)?;
        for j in 0..m {
            let x = ds.path.value_at(ds.rungs[j]).unwrap_or(&ds.x);
            fill(&mut ds.answers[j * n..(j + 1) * n], &ds.uhat, x, shift);
        }
    } else {
        let mut rng = generator(d, seed, owner, trial, Purpose::Independent, stream)?;
        for j in 0..m {
            noise.sample_fresh_into(ds.rungs[j], &mut rng, &mut ds.x)?;
            fill(&mut ds.answers[j * n..(j + 1) * n], &ds.uhat, &ds.x, shift);
        }
    }
    s.answers.resize(m * n, 0.0);
    for (y, &a) in s.answers.iter_mut().zip(&ds.answers) {
        *y = noise.grid().value_of(i128::from(a))?;
    }
    Ok(())
}

/// [`run_mechanism`] under `noise = discrete`: the same trials, estimators
/// and attack, with exact losses.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_mechanism(
    plan: &Plan<'_>,
    d: &DiscreteSim,
    opts: &CollusionOptions,
    s: &mut Scratch,
    owner: u32,
    stream: u64,
    mech: Mechanism,
    acc: &Accounting,
) -> Result<MechanismResult> {
    let noise = &d.noise;
    let n = noise.dim();
    if mech == Mechanism::Gaussian {
        return Err(refuse_gaussian(
            "mechanism",
            "gaussian",
            "correlated, independent or both",
        ));
    }
    s.disc.uhat.resize(n, 0);
    let who = plan.graph().ids().label(owner).to_string();
    crate::sim::discrete_bound::round_secret(noise, &s.u, &mut s.disc.uhat, &who)?;
    let (eps_bound, eps_advanced) = match mech {
        Mechanism::Correlated => (acc.eps_max, None),
        _ => (acc.eps_sum, Some(acc.eps_advanced)),
    };
    let mut panel = EstimatorPanel::with_scale(&opts.estimators, gain_scale(noise.grid()));
    let pitman_in_panel = opts.estimators.contains(&Estimator::Pitman);
    let trials = opts.trials as u64;
    s.losses.clear();
    s.est_u.clear();
    s.est_u1.clear();
    let mut exceeded = 0u64;
    // The exact bound: the loss of the view whose every answer is û (each
    // term then reaches t_j·Δ_Z), i.e. ε* (correlated) or Σ ε_j exactly,
    // where `acc` holds them rounded to f64.
    let ds = &s.disc;
    let at_uhat: Vec<MemberView<'_>> = ds
        .rungs
        .iter()
        .map(|&rung| MemberView {
            rung,
            answer: &ds.uhat,
        })
        .collect();
    let bound = if mech == Mechanism::Correlated {
        noise.correlated_loss(&ds.uhat, &at_uhat)?
    } else {
        noise.independent_loss(&ds.uhat, &at_uhat)?
    };
    drop(at_uhat);
    let mut views: Vec<(Rung, usize)> = Vec::new();
    for t in 1..=trials {
        let t0 = Instant::now();
        draw(d, plan, s, mech, owner, (t, stream), false)?;
        let t1 = Instant::now();
        let model = MemberNoise::Laplace { rates: &s.rates };
        let view = View::new(&s.answers, n, model)?;
        panel.push(&view, &s.u);
        let p = match panel
            .last_estimate(Estimator::Pitman)
            .filter(|_| pitman_in_panel)
        {
            Some(e) => e[0],
            None => {
                s.col.clear();
                s.col.extend(s.answers.iter().step_by(n));
                let col = View::new(&s.col, 1, model)?;
                estimate(Estimator::Pitman, &col, &mut s.est, &mut s.one[..1]);
                s.one[0]
            }
        };
        s.est_u.push(p);
        let t2 = Instant::now();
        let ds = &s.disc;
        views.clear();
        views.extend(ds.rungs.iter().enumerate().map(|(j, &k)| (k, j)));
        let members: Vec<MemberView<'_>> = views
            .iter()
            .map(|&(rung, j)| MemberView {
                rung,
                answer: &ds.answers[j * n..(j + 1) * n],
            })
            .collect();
        let loss = if mech == Mechanism::Correlated {
            noise.correlated_loss(&ds.uhat, &members)?
        } else {
            noise.independent_loss(&ds.uhat, &members)?
        };
        // Exact: |L| against the bound, no slack.
        let over = exceeds(&loss, &bound);
        exceeded += u64::from(over);
        s.losses.push(loss.to_f64());
        let t3 = Instant::now();
        s.times.sample_s += secs(t1 - t0);
        s.times.estimate_s += secs(t2 - t1);
        s.times.audit_s += secs(t3 - t2);
    }
    let ta = Instant::now();
    for t in trials + 1..=2 * trials {
        draw(d, plan, s, mech, owner, (t, stream), true)?;
        s.col.clear();
        s.col.extend(s.answers.iter().step_by(n));
        let model = MemberNoise::Laplace { rates: &s.rates };
        let view = View::new(&s.col, 1, model)?;
        estimate(Estimator::Pitman, &view, &mut s.est, &mut s.one[..1]);
        s.est_u1.push(s.one[0]);
    }
    s.times.attack_s += secs(ta.elapsed());
    let g = noise.grid().value();
    let u0 = s.disc.uhat[0] as f64 * g;
    let shift = noise.delta_z() as f64 * g;
    let distinguishing = distinguishing_lower_bound(&s.est_u, &s.est_u1, u0, shift);
    Ok(MechanismResult {
        mechanism: mech,
        estimators: panel.summaries(),
        audit: Some(AuditResult {
            eps_bound,
            eps_advanced,
            sigma_min: None,
            loss: LossSummary::from_samples(&mut s.losses),
            bound_exceeded: exceeded,
            chain_disagreement: None,
            distinguishing,
        }),
    })
}

/// The unit of the squared errors a coalition's gain accumulates on grid
/// γ = 2^e (issue 33 item 8). An answer's squared error is at most about
/// (2^53·γ)² = 2^(106+2e), and a rounding-only one about u² (u of order 1);
/// their co-moments are summed over up to 2^31 trials. Divided by
/// 2^(2e−374) the largest is at most 2^480, so its square times 2^31 stays
/// below 2^991, while u² becomes 2^(374−2e) ≥ 2^−426 (e ≤ 400), whose
/// square is still a normal number. Grids up to 2^187 need no unit (1: the
/// exact bits of every grid the command took before).
fn gain_scale(grid: crate::process::discrete::Grid) -> f64 {
    let e = grid.exponent();
    if e > 187 { 2f64.powi(2 * e - 374) } else { 1.0 }
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod tests;
