//! Value models with structure (issue 27): private values that depend on the
//! network, so that a global estimate has something clustered to find.
//!
//! | spec | values |
//! |---|---|
//! | `infection:seeds=K,frac=P` | bits: round(P·N) nodes set to 1, grown by breadth-first search from K seed nodes |
//! | `sir:seeds=K,beta=B,gamma=G` | bits: the ever-infected set of one discrete-time SIR run from K seed nodes |
//! | `smooth:sd=S,steps=T` | reals: i.i.d. N(0, 1) averaged T times over closed neighbourhoods, rescaled to standard deviation S |
//!
//! Each model is drawn once per run from the run's seed (one generator,
//! `rng_for(seed, 0, 0, Purpose::ValueModel)`), so every replicate and every
//! owner sees the same values. The two bit models need `dim` = 1. Spreading
//! follows arcs: on a directed graph a node passes infection (and smoothing
//! reads values) along its out-arcs.
//!
//! * **infection**: K distinct seeds drawn uniformly; a multi-source
//!   breadth-first search adds whole layers while they fit, and the nodes of
//!   the layer that would overflow round(P·N) are taken in an order drawn
//!   from the seed. When the seeds' components run out first, min(K, left)
//!   new seeds are drawn uniformly among the nodes not reached yet, and the
//!   search goes on from them.
//! * **sir**: at every step each infectious node infects each susceptible
//!   neighbour with probability B, then recovers with probability G; nodes
//!   infected at a step are infectious from the next. Simulated in its exact
//!   percolation form (Kenah & Robins, *Phys. Rev. E* 76, 036113, 2007): node
//!   u stays infectious T_u ~ Geometric(G) ≥ 1 steps, and transmits to a
//!   neighbour that is still susceptible with probability 1 − (1 − B)^T_u
//!   independently per neighbour; the ever-infected set is what these open
//!   arcs reach from the seeds. Same law, O(N + E) time whatever B and G
//!   (a step-by-step run could take ~1/G or ~1/B steps).
//! * **smooth**: per coordinate, x ← (x_v + Σ_{u ∈ N(v)} x_u)/(1 + |N(v)|)
//!   T times, then x ← x·S/sd(x) with sd the population standard deviation
//!   over the N nodes (so exactly S up to rounding; the mean stays near 0).

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::rng::{PrivRng, Purpose, rng_for};
use crate::util::fmt_f64;
use rand::RngExt;
use rayon::prelude::*;

/// Largest `steps` of `smooth` (each step reads every arc once).
pub const MAX_SMOOTH_STEPS: u32 = 1000;

/// A value model drawn on the graph (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueModel {
    /// `infection:seeds=K,frac=P`: round(P·N) ones grown by BFS from K seeds.
    Infection {
        /// Seed nodes K (≥ 1, at most the graph's nodes).
        seeds: u64,
        /// Fraction P of nodes set to 1 (0 ≤ P ≤ 1).
        frac: f64,
    },
    /// `sir:seeds=K,beta=B,gamma=G`: the ever-infected set of one SIR run.
    Sir {
        /// Initially infected nodes K (≥ 1, at most the graph's nodes).
        seeds: u64,
        /// Infection probability per step and susceptible neighbour (0 ≤ B ≤ 1).
        beta: f64,
        /// Recovery probability per step (0 < G ≤ 1).
        gamma: f64,
    },
    /// `smooth:sd=S,steps=T`: normal values smoothed over neighbourhoods.
    Smooth {
        /// Final standard deviation S (≥ 0).
        sd: f64,
        /// Averaging steps T (0..=`MAX_SMOOTH_STEPS`).
        steps: u32,
    },
}

fn bad(spec: &str, expected: impl Into<String>) -> Error {
    Error::param("values", spec, expected)
}

const INFECTION: &str = "infection:seeds=K,frac=P with an integer K ≥ 1 and 0 ≤ P ≤ 1";
const SIR: &str = "sir:seeds=K,beta=B,gamma=G with an integer K ≥ 1, 0 ≤ B ≤ 1 and 0 < G ≤ 1";

fn smooth_expected() -> String {
    format!("smooth:sd=S,steps=T with a finite S ≥ 0 and an integer T in 0..={MAX_SMOOTH_STEPS}")
}

/// `k=v,k=v` with exactly the keys in `keys` (any order, each once), as text.
fn pairs<'s>(spec: &str, body: &'s str, keys: &[&str]) -> Result<Vec<&'s str>> {
    let values = crate::util::spec::key_values(body, keys, |e| bad(spec, e))?;
    Ok(values.into_iter().map(str::trim).collect())
}

fn number(spec: &str, key: &str, text: &str) -> Result<f64> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(bad(
            spec,
            format!("a finite number for '{key}', got '{text}'"),
        )),
    }
}

fn integer(spec: &str, key: &str, text: &str) -> Result<u64> {
    text.parse::<u64>()
        .map_err(|_| bad(spec, format!("an integer ≥ 0 for '{key}', got '{text}'")))
}

impl ValueModel {
    /// The spec grammar of the models, for error messages.
    pub const GRAMMAR: &'static str =
        "infection:seeds=K,frac=P | sir:seeds=K,beta=B,gamma=G | smooth:sd=S,steps=T";

    /// Parses `spec` if its kind (before the colon) is a model's: `None` for
    /// other kinds, else the model or the error naming `values`.
    pub fn parse(spec: &str) -> Option<Result<ValueModel>> {
        let s = spec.trim();
        let (kind, body) = s.split_once(':').unwrap_or((s, ""));
        let model = match kind {
            "infection" => pairs(spec, body, &["seeds", "frac"]).and_then(|v| {
                Ok(ValueModel::Infection {
                    seeds: integer(spec, "seeds", v[0])?,
                    frac: number(spec, "frac", v[1])?,
                })
            }),
            "sir" => pairs(spec, body, &["seeds", "beta", "gamma"]).and_then(|v| {
                Ok(ValueModel::Sir {
                    seeds: integer(spec, "seeds", v[0])?,
                    beta: number(spec, "beta", v[1])?,
                    gamma: number(spec, "gamma", v[2])?,
                })
            }),
            "smooth" => pairs(spec, body, &["sd", "steps"]).and_then(|v| {
                let steps = integer(spec, "steps", v[1])?;
                Ok(ValueModel::Smooth {
                    sd: number(spec, "sd", v[0])?,
                    steps: u32::try_from(steps).map_err(|_| bad(spec, smooth_expected()))?,
                })
            }),
            _ => return None,
        };
        Some(model.and_then(|m| m.check_as(spec).map(|()| m)))
    }

    /// Checks the parameters' ranges (what needs no graph).
    pub fn check(&self) -> Result<()> {
        self.check_as(&self.to_string())
    }

    fn check_as(&self, spec: &str) -> Result<()> {
        let p01 = |x: f64| (0.0..=1.0).contains(&x);
        match *self {
            ValueModel::Infection { seeds, frac } if seeds == 0 || !p01(frac) => {
                Err(bad(spec, INFECTION))
            }
            ValueModel::Sir { seeds, beta, gamma }
                if seeds == 0 || !p01(beta) || !(gamma > 0.0 && gamma <= 1.0) =>
            {
                Err(bad(spec, SIR))
            }
            ValueModel::Smooth { sd, steps }
                if !(sd.is_finite() && sd >= 0.0) || steps > MAX_SMOOTH_STEPS =>
            {
                Err(bad(spec, smooth_expected()))
            }
            _ => Ok(()),
        }
    }

    /// Whether the model's values are bits (in {0, 1}, `dim` = 1 only).
    pub fn is_bits(&self) -> bool {
        !matches!(self, ValueModel::Smooth { .. })
    }

    /// Draws the values on `graph`: `n × dim` numbers, node-major. Refuses
    /// `dim` ≠ 1 for bit models and more seeds than nodes.
    pub fn draw(&self, graph: &Graph, dim: usize, seed: u64) -> Result<Vec<f64>> {
        self.check()?;
        let spec = self.to_string();
        let n = graph.n();
        if self.is_bits() && dim != 1 {
            return Err(bad(
                &spec,
                format!("`dim` = 1 (the model's values are bits), got `dim` = {dim}"),
            ));
        }
        let mut rng = rng_for(seed, 0, 0, Purpose::ValueModel);
        let bits = |set: Vec<bool>| set.into_iter().map(|b| f64::from(u8::from(b))).collect();
        match *self {
            ValueModel::Infection { seeds, frac } => {
                check_seeds(&spec, seeds, n)?;
                Ok(bits(
                    infection(graph, seeds as usize, frac, &mut rng).infected,
                ))
            }
            ValueModel::Sir { seeds, beta, gamma } => {
                check_seeds(&spec, seeds, n)?;
                let initial = draw_seeds(n, seeds as usize, &mut rng);
                Ok(bits(sir(graph, &initial, beta, gamma, &mut rng)))
            }
            ValueModel::Smooth { sd, steps } => {
                smooth(graph, dim, sd, steps, &mut rng).ok_or_else(|| {
                    bad(
                        &spec,
                        "a graph whose smoothed values vary (at least 2 nodes), or sd=0",
                    )
                })
            }
        }
    }
}

fn check_seeds(spec: &str, seeds: u64, n: usize) -> Result<()> {
    if seeds > n as u64 {
        return Err(bad(
            spec,
            format!("seeds=K at most the graph's {n} nodes, got {seeds}"),
        ));
    }
    Ok(())
}

impl std::fmt::Display for ValueModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            ValueModel::Infection { seeds, frac } => {
                write!(f, "infection:seeds={seeds},frac={}", fmt_f64(frac))
            }
            ValueModel::Sir { seeds, beta, gamma } => write!(
                f,
                "sir:seeds={seeds},beta={},gamma={}",
                fmt_f64(beta),
                fmt_f64(gamma)
            ),
            ValueModel::Smooth { sd, steps } => {
                write!(f, "smooth:sd={},steps={steps}", fmt_f64(sd))
            }
        }
    }
}

/// Uniform draws without replacement from `0..n`, skipping nodes already
/// reached: a Fisher–Yates shuffle carried out lazily, one position per
/// draw. Every node before the cursor was reached when it was passed (and
/// reached nodes stay reached), so the next unreached node in this uniform
/// order is uniform among the unreached nodes; all draws together cost O(n).
struct LazyShuffle {
    perm: Vec<u32>,
    next: usize,
}

impl LazyShuffle {
    fn new(n: usize) -> LazyShuffle {
        LazyShuffle {
            perm: (0..n as u32).collect(),
            next: 0,
        }
    }

    fn next_unreached(&mut self, reached: &[bool], rng: &mut PrivRng) -> Option<u32> {
        let n = self.perm.len();
        while self.next < n {
            let j = rng.random_range(self.next..n);
            self.perm.swap(self.next, j);
            let v = self.perm[self.next];
            self.next += 1;
            if !reached[v as usize] {
                return Some(v);
            }
        }
        None
    }
}

/// `k` distinct nodes of `0..n`, uniformly, in a uniform order.
fn draw_seeds(n: usize, k: usize, rng: &mut PrivRng) -> Vec<u32> {
    let none = vec![false; n];
    let mut draw = LazyShuffle::new(n);
    (0..k.min(n))
        .filter_map(|_| draw.next_unreached(&none, rng))
        .collect()
}

fn shuffle(xs: &mut [u32], rng: &mut PrivRng) {
    for i in (1..xs.len()).rev() {
        let j = rng.random_range(0..=i);
        xs.swap(i, j);
    }
}

/// An infection grown by [`infection`]: the set, and every seed in the
/// order drawn (the first min(K, N) are the initial ones, later ones were
/// drawn when the search ran out).
pub(crate) struct Outbreak {
    pub infected: Vec<bool>,
    #[cfg_attr(not(test), allow(dead_code))] // checked by the tests
    pub seeds: Vec<u32>,
}

/// `infection:seeds=K,frac=P` (see the module docs).
pub(crate) fn infection(g: &Graph, k: usize, frac: f64, rng: &mut PrivRng) -> Outbreak {
    let n = g.n();
    let target = ((frac * n as f64).round() as usize).min(n);
    let mut infected = vec![false; n];
    // Reached: in a layer so far (all reached nodes are infected until the
    // last layer is cut).
    let mut reached = vec![false; n];
    let mut draw = LazyShuffle::new(n);
    let mut seeds = Vec::new();
    let mut new_seeds = |reached: &mut [bool], seeds: &mut Vec<u32>, rng: &mut PrivRng| {
        let mut layer = Vec::new();
        while layer.len() < k {
            let Some(v) = draw.next_unreached(reached, rng) else {
                break;
            };
            reached[v as usize] = true;
            layer.push(v);
            seeds.push(v);
        }
        layer
    };
    let mut layer = new_seeds(&mut reached, &mut seeds, rng);
    let mut count = 0usize;
    let mut next = Vec::new();
    while count < target {
        if count + layer.len() > target {
            // The last layer: its nodes in a drawn order.
            shuffle(&mut layer, rng);
            for &v in &layer[..target - count] {
                infected[v as usize] = true;
            }
            break;
        }
        for &v in &layer {
            infected[v as usize] = true;
        }
        count += layer.len();
        if count == target {
            break;
        }
        next.clear();
        for &u in &layer {
            for &v in g.neighbors(u) {
                if !reached[v as usize] {
                    reached[v as usize] = true;
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            // The seeds' components are used up (count < target ≤ n, and
            // every reached node is infected, so unreached nodes remain).
            next = new_seeds(&mut reached, &mut seeds, rng);
        }
        std::mem::swap(&mut layer, &mut next);
    }
    Outbreak { infected, seeds }
}

/// The ever-infected set of one discrete-time SIR run from `seeds` (see the
/// module docs for the percolation form simulated).
pub(crate) fn sir(g: &Graph, seeds: &[u32], beta: f64, gamma: f64, rng: &mut PrivRng) -> Vec<bool> {
    let mut infected = vec![false; g.n()];
    let mut queue: Vec<u32> = Vec::with_capacity(seeds.len());
    for &s in seeds {
        if !infected[s as usize] {
            infected[s as usize] = true;
            queue.push(s);
        }
    }
    // ln(1 − B) and ln(1 − G): T = 1 + ⌊ln U / ln(1 − G)⌋ for U uniform on
    // (0, 1], and 1 − (1 − B)^T = −expm1(T·ln(1 − B)).
    let log_stay = (-gamma).ln_1p();
    let log_miss = (-beta).ln_1p();
    let mut h = 0;
    while h < queue.len() {
        let u = queue[h];
        h += 1;
        let t = if gamma >= 1.0 {
            1.0
        } else {
            let uu = 1.0 - rng.random::<f64>();
            1.0 + (uu.ln() / log_stay).floor()
        };
        let p_open = -(t * log_miss).exp_m1();
        for &v in g.neighbors(u) {
            if !infected[v as usize] && rng.random::<f64>() < p_open {
                infected[v as usize] = true;
                queue.push(v);
            }
        }
    }
    infected
}

/// `smooth:sd=S,steps=T` on `dim` coordinates (node-major); `None` when the
/// smoothed values do not vary (fewer than 2 nodes) and S > 0.
pub(crate) fn smooth(
    g: &Graph,
    dim: usize,
    sd: f64,
    steps: u32,
    rng: &mut PrivRng,
) -> Option<Vec<f64>> {
    let n = g.n();
    let mut x: Vec<f64> = (0..n * dim)
        .map(|_| crate::process::laplace::std_normal(rng))
        .collect();
    let mut y = vec![0.0; n * dim];
    for _ in 0..steps {
        // Each node's average in a fixed order: the same numbers on any
        // number of threads.
        y.par_chunks_mut(dim.max(1))
            .enumerate()
            .for_each(|(v, out)| {
                let mut cnt = 1.0;
                out.copy_from_slice(&x[v * dim..(v + 1) * dim]);
                for &u in g.neighbors(v as u32) {
                    if u as usize == v {
                        continue;
                    }
                    cnt += 1.0;
                    for (o, xu) in out.iter_mut().zip(&x[u as usize * dim..]) {
                        *o += xu;
                    }
                }
                for o in out.iter_mut() {
                    *o /= cnt;
                }
            });
        std::mem::swap(&mut x, &mut y);
    }
    if sd == 0.0 {
        return Some(vec![0.0; n * dim]);
    }
    for d in 0..dim {
        let col = || x.iter().skip(d).step_by(dim);
        let mean = col().sum::<f64>() / n as f64;
        let var = col().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
        let s = var.sqrt();
        if !(s > 0.0 && s.is_finite()) {
            return None;
        }
        let factor = sd / s;
        for v in x.iter_mut().skip(d).step_by(dim) {
            *v *= factor;
        }
    }
    Some(x)
}

#[cfg(test)]
mod tests;
