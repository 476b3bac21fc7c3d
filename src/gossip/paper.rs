//! The accounting of the `totilas/muffliato` code, memo (8), with t₀ = 0 and
//! the `P_t` of the gossip actually run (memo §3's recommendation):
//! `S_{u→v} = Σ_{t<T} Σ_{w∈N(v)} (P_t)_{wu}² / ‖P_t e_w‖²`, in units of the
//! local level `αΔ²/(2σ²)`, uncapped (the cap (9) is applied when rows are
//! made). For one source u and every observer v at once, memo (10):
//! `z_t = P_t e_u` by the recursion, `R = Σ_t z_t∘z_t / D_t`, `S = A R` —
//! T sparse products per source after the norms `D_t` (see
//! [`Spectrum::message_norms`](super::spectrum::Spectrum::message_norms)).
//!
//! (8) sums per-message losses of correlated messages: it is *not* a bound
//! on the exact loss (11) (memo §3, §6); it is reported as the reference
//! code's accounting, beside the exact one.

use super::iteration::Recursion;
use super::metropolis::Metropolis;

/// (8) for given sources, the message norms computed once.
pub struct PaperAccounting<'a> {
    w: &'a Metropolis,
    rec: Recursion,
    steps: u64,
    /// `D_t(w)`, row t at `[t·n, (t+1)·n)`, t = 0..T−1 (at least).
    norms: &'a [f64],
}

/// Scratch of one worker.
#[derive(Default)]
pub struct PaperScratch {
    z: Vec<f64>,
    prev: Vec<f64>,
    next: Vec<f64>,
    r: Vec<f64>,
}

impl<'a> PaperAccounting<'a> {
    /// (8) with `steps` = T messages per neighbour; `norms` has at least T
    /// rows of n.
    pub fn new(w: &'a Metropolis, rec: Recursion, steps: u64, norms: &'a [f64]) -> Self {
        debug_assert!(norms.len() >= steps as usize * w.n());
        PaperAccounting {
            w,
            rec,
            steps,
            norms,
        }
    }

    /// `S_{u→v}` for every v (entry u itself is meaningless and left as
    /// computed).
    pub fn source(&self, u: u32, s: &mut PaperScratch, out: &mut Vec<f64>) {
        let n = self.w.n();
        s.z.clear();
        s.z.resize(n, 0.0);
        s.z[u as usize] = 1.0;
        s.r.clear();
        s.r.resize(n, 0.0);
        let norms = self.norms;
        let r = &mut s.r;
        self.rec.walk(
            self.w,
            self.steps,
            &mut s.z,
            &mut s.prev,
            &mut s.next,
            |t, z| {
                let d = &norms[t as usize * n..(t as usize + 1) * n];
                for ((ri, zi), di) in r.iter_mut().zip(z).zip(d) {
                    *ri += zi * zi / di;
                }
            },
        );
        out.clear();
        out.resize(n, 0.0);
        self.w.adjacency_sum(r, out);
    }
}
