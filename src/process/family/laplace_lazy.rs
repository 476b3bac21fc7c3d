//! [`LazyLaplace`]: a Laplace path materialised lazily, as a gradual
//! release's requests at levels in any order need it (memo §3 cases i–iii):
//! a lookup inside the materialised range, the backward jump walk below it,
//! the latent forward step above it (memo §1a, §2.4). The first point is
//! v = √s·Z with s from its prior (memo §1b).

use crate::error::Result;
use crate::limits;
use crate::process::forward::{forward_latent, latent_posterior, latent_prior};
use crate::process::laplace::std_normal;
use crate::process::path::{NoisePath, Norm};
use crate::process::sampler::walk_down;
use rand::Rng;

/// A Laplace path over the levels released so far (process levels ε/Δ),
/// with the latent variance at its top: one per coordinate (ℓ1), one in
/// total (ℓ2), or none (unknown: drawn from its posterior when first
/// needed, memo §2.4).
#[derive(Clone, Debug, PartialEq)]
pub struct LazyLaplace {
    path: NoisePath,
    top_latent: Vec<f64>,
}

impl LazyLaplace {
    /// A path from its stored parts (checked by the caller: a valid path,
    /// and `top_latent` of the norm's length or empty).
    pub fn from_parts(path: NoisePath, top_latent: Vec<f64>) -> LazyLaplace {
        LazyLaplace { path, top_latent }
    }

    /// The path materialised so far.
    pub fn path(&self) -> &NoisePath {
        &self.path
    }

    /// The latent variance(s) at the top (empty: unknown).
    pub fn top_latent(&self) -> &[f64] {
        &self.top_latent
    }

    /// The first point at process level `q` (memo §1b): the path and its
    /// value there.
    pub fn first<R: Rng + ?Sized>(
        norm: Norm,
        n: usize,
        q: f64,
        rng: &mut R,
    ) -> Result<(LazyLaplace, Vec<f64>)> {
        let mut v = vec![0.0; n];
        let latent: Vec<f64> = match norm {
            Norm::L1 => v
                .iter_mut()
                .map(|x| {
                    let s = latent_prior(q, 1, rng);
                    *x = s.sqrt() * std_normal(rng);
                    s
                })
                .collect(),
            Norm::L2 => {
                let s = latent_prior(q, n, rng);
                for x in v.iter_mut() {
                    *x = s.sqrt() * std_normal(rng);
                }
                vec![s]
            }
        };
        let path = NoisePath::from_parts(n, vec![q], v.clone(), q)?;
        Ok((
            LazyLaplace {
                path,
                top_latent: latent,
            },
            v,
        ))
    }

    /// `V_q` at process level `q` (the request `eps` over the sensitivity
    /// Δ), extending the path as needed (memo §3 cases i–iii). An extension
    /// whose projected size exceeds the memory budget is refused before
    /// anything is drawn or allocated ([`extension_bytes`]).
    pub fn noise_at<R: Rng + ?Sized>(
        &mut self,
        norm: Norm,
        q: f64,
        eps: f64,
        sensitivity: f64,
        rng: &mut R,
    ) -> Result<Vec<f64>> {
        let LazyLaplace { path, top_latent } = self;
        let n = path.dim();
        if path.contains(q) {
            return Ok(path.value_at(q).to_vec());
        }
        let need = extension_bytes(norm, n, path, q);
        limits::memory_budget().check_with(
            "eps",
            format!(
                "{e} (the noise path extended from [{}, {}] to ε = {e}, n = {n})",
                limits::fmt_num(path.eps_lo() * sensitivity),
                limits::fmt_num(path.eps_hi() * sensitivity),
                e = limits::fmt_num(eps),
            ),
            need,
            "request levels within a narrower range, lower the dimension, or raise `memory_budget`",
        )?;
        let lo = path.eps_lo();
        let hi = path.eps_hi();
        let mut levels: Vec<f64>;
        let mut values: Vec<f64>;
        let new_hi;
        if q < lo {
            // Backward: continue the jump walk below the bottom (memo §1a).
            let mut v = path.value(0).to_vec();
            let mut jl = Vec::new();
            let mut jv = Vec::new();
            walk_down(norm, lo, q, &mut v, rng, |e, w| {
                jl.push(e);
                jv.extend_from_slice(w);
            });
            let k = jl.len();
            // Ascending: [q, e_k, …, e_1, old levels[1..]] with values
            // [w_k, …, w_1, old rows]: w_j holds on [e_{j+1}, e_j).
            levels = Vec::with_capacity(k + path.len());
            values = Vec::with_capacity((k + path.len()) * n);
            levels.push(q);
            for j in (0..k).rev() {
                values.extend_from_slice(&jv[j * n..(j + 1) * n]);
                if j > 0 {
                    levels.push(jl[j]);
                }
            }
            if k > 0 {
                levels.push(jl[0]);
            }
            levels.extend_from_slice(&path.levels()[1..]);
            values.extend_from_slice(path.values());
            new_hi = hi;
        } else {
            // Forward: latent-variance step from the top state (memo §2.4).
            let top = path.value(path.len() - 1).to_vec();
            levels = path.levels().to_vec();
            values = path.values().to_vec();
            match norm {
                Norm::L2 => {
                    let mut s = match top_latent.first() {
                        Some(&s) => s,
                        None => latent_posterior(hi, Norm::L2.norm_of(&top), rng),
                    };
                    let mut v = top;
                    forward_latent(hi, &mut s, &mut v, q, rng, |e, w| {
                        levels.push(e);
                        values.extend_from_slice(w);
                    });
                    *top_latent = vec![s];
                }
                Norm::L1 => {
                    // n independent 1-D processes, each with its own latent;
                    // merge their jumps in ascending ε.
                    if top_latent.len() != n {
                        *top_latent = top
                            .iter()
                            .map(|x| latent_posterior(hi, x.abs(), rng))
                            .collect();
                    }
                    let mut jumps: Vec<(f64, usize, f64)> = Vec::new();
                    for (i, s) in top_latent.iter_mut().enumerate() {
                        let mut v = [top[i]];
                        forward_latent(hi, s, &mut v, q, rng, |e, w| jumps.push((e, i, w[0])));
                    }
                    jumps.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let mut v = top;
                    for (e, i, x) in jumps {
                        v[i] = x;
                        levels.push(e);
                        values.extend_from_slice(&v);
                    }
                }
            }
            new_hi = q;
        }
        dedup_levels(&mut levels, &mut values, n);
        *path = NoisePath::from_parts(n, levels, values, new_hi)?;
        Ok(path.value_at(q).to_vec())
    }
}

/// Memory of extending `path` (dimension `n`) to process level `q` outside
/// its range: the new breakpoints as they are drawn (with `Vec` growth) and
/// the extended path built from the old one, whose breakpoints are projected
/// with [`limits::path_breakpoints`] (a bound a sample stays below except with
/// negligible probability). The reproducer of issue 23.B1 (n = 1000, ℓ1,
/// ε = 1 then 1e−60) needs about 4.5 GB here and allocated 4.19 GB before.
pub fn extension_bytes(norm: Norm, n: usize, path: &NoisePath, q: f64) -> u64 {
    let (a, b) = if q < path.eps_lo() {
        (q, path.eps_lo())
    } else {
        (path.eps_hi(), q)
    };
    let new = limits::path_breakpoints(norm.jump_rate(n), a, b);
    let total = new.saturating_add(path.len() as u64);
    // ℓ1's forward step also keeps (level, coordinate, value) per jump.
    let jumps = limits::bytes_of(&[new, 24]);
    limits::path_bytes(new, n)
        .saturating_add(limits::path_bytes(total, n))
        .saturating_add(jumps)
}

/// Removes rows on empty intervals: for equal consecutive levels (a jump gap
/// that rounded to zero) the later row wins.
fn dedup_levels(levels: &mut Vec<f64>, values: &mut Vec<f64>, n: usize) {
    if levels.windows(2).all(|w| w[0] < w[1]) {
        return;
    }
    let mut kl = Vec::with_capacity(levels.len());
    let mut kv = Vec::with_capacity(values.len());
    for i in 0..levels.len() {
        if i + 1 < levels.len() && levels[i + 1] <= levels[i] {
            continue;
        }
        kl.push(levels[i]);
        kv.extend_from_slice(&values[i * n..(i + 1) * n]);
    }
    *levels = kl;
    *values = kv;
}
