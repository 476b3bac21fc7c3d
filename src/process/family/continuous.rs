//! What the two continuous families ([`Laplace`](super::Laplace) and
//! [`Gaussian`](super::Gaussian)) do alike, written once: the secret is the
//! value itself (nothing rounded), an answer is value plus noise, and the
//! neighbour is u + Δ·e₁ answered as itself.

/// The secret as answered: `u` itself. Returns the rounding error's
/// square, 0.
pub(super) fn prepare(u: &[f64], secret: &mut Vec<f64>) -> f64 {
    secret.clear();
    secret.extend_from_slice(u);
    0.0
}

/// y = u + noise; returns ‖noise‖².
#[inline]
pub(super) fn answer(u: &[f64], noise: &[f64], y: &mut [f64]) -> f64 {
    for ((yi, ui), vi) in y.iter_mut().zip(u).zip(noise) {
        *yi = ui + vi;
    }
    noise.iter().map(|x| x * x).sum()
}

/// The neighbour u' = u + Δ·e₁ (`delta` = Δ), and its secret (itself).
pub(super) fn neighbour(u: &[f64], delta: f64, u1: &mut Vec<f64>, secret1: &mut Vec<f64>) {
    u1.clear();
    u1.extend_from_slice(u);
    u1[0] += delta;
    secret1.clone_from(u1);
}
