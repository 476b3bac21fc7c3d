//! The public bound of `noise = discrete` (issue 25): a value is rounded to
//! the grid only while |û| ≤ 2⁵² (answers exact in f64). Refusing a value
//! beyond that would depend on the secret, so the check is made first on
//! what is public: the range of the value model (`bits:` and the bit models
//! in {0, 1}, `uniform:a,b` within max(|a|, |b|), `const:x` at |x|,
//! `normal:m,s` within |m| + 40·s), against the grid's limit 2⁵²·γ, before
//! any value is drawn or read. Values without a public range (`file:`, the
//! Python door's given values, `coords`, `smooth:`) are the secret: one
//! beyond the limit is refused naming its owner and the limit, never the
//! value.

use crate::error::{Error, Result};
use crate::process::discrete::DiscreteNoise;
pub use crate::process::family::discrete::{grid_limit, round_secret};
use crate::value_models::ValueModel;
use crate::values::ValueSpec;

/// Standard deviations of a normal value model counted as its range (the
/// probability of a draw beyond is below 10⁻³⁴⁰).
const NORMAL_SDS: f64 = 40.0;

/// The largest |u| the spec can produce, when it is public; `None` for
/// values whose range is not known before they are read.
pub fn public_range(spec: &ValueSpec) -> Option<f64> {
    match spec {
        ValueSpec::Uniform { lo, hi } => Some(lo.abs().max(hi.abs())),
        ValueSpec::Const { x } => Some(x.abs()),
        ValueSpec::Bits { .. } => Some(1.0),
        ValueSpec::Normal { mean, sd } => Some(mean.abs() + NORMAL_SDS * sd.abs()),
        ValueSpec::Model(ValueModel::Infection { .. } | ValueModel::Sir { .. }) => Some(1.0),
        ValueSpec::Model(ValueModel::Smooth { .. })
        | ValueSpec::File(_)
        | ValueSpec::Coords
        | ValueSpec::Auto
        | ValueSpec::Given(_) => None,
    }
}

/// Checks the public range of `spec` against the grid (before any value is
/// drawn): refused naming `values`, the range and the limit, and the fix (a
/// coarser `granularity`).
pub fn check_public_range(spec: &ValueSpec, noise: &DiscreteNoise) -> Result<()> {
    let limit = grid_limit(noise);
    match public_range(spec) {
        Some(r) if r.is_nan() || r > limit => Err(Error::param(
            "values",
            spec,
            format!(
                "values within ±{limit} (2^52 steps of the grid {}) with `noise` = discrete{}; \
                 use a coarser `granularity`",
                noise.grid(),
                // `const:X`'s reach is X, every owner's secret.
                if matches!(spec, ValueSpec::Const { .. }) {
                    String::new()
                } else {
                    format!(": this model reaches ±{r}")
                }
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::discrete::Grid;
    use crate::process::family::Whose;

    #[test]
    fn public_ranges_are_checked_before_any_value() {
        let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 1).unwrap();
        let limit = grid_limit(&noise);
        assert_eq!(limit, 2f64.powi(42));
        for ok in [
            "uniform:0,1",
            "bits:0.3",
            "const:-4398046511104",
            "normal:0,1e9",
        ] {
            let spec: ValueSpec = ok.parse().unwrap();
            check_public_range(&spec, &noise).unwrap();
        }
        for bad in ["uniform:0,1e13", "const:4398046511105", "normal:0,2e11"] {
            let spec: ValueSpec = bad.parse().unwrap();
            let e = check_public_range(&spec, &noise).unwrap_err().to_string();
            assert!(e.contains("values") && e.contains("granularity"), "{e}");
            assert!(!e.contains('\n'));
        }
        // A coarser grid holds them.
        let coarse = DiscreteNoise::new(Grid::from_exponent(0).unwrap(), 32, 1.0, 1).unwrap();
        check_public_range(&"uniform:0,1e13".parse().unwrap(), &coarse).unwrap();
        // No public range: nothing checked here.
        for none in ["file:x.csv", "coords", "auto", "smooth:sd=1,steps=2"] {
            let spec: ValueSpec = none.parse().unwrap();
            assert_eq!(public_range(&spec), None, "{none}");
            check_public_range(&spec, &noise).unwrap();
        }
    }

    #[test]
    fn a_secret_beyond_the_grid_is_refused_without_its_value() {
        let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 2).unwrap();
        let mut out = [0i64; 2];
        round_secret(&noise, &[0.5, -3.0], &mut out, Whose::Owner("17")).unwrap();
        assert_eq!(out, [512, -3072]);
        let secret = 123456789012345.0;
        let e = round_secret(&noise, &[0.5, secret], &mut out, Whose::Owner("17"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("owner 17") && e.contains("granularity"), "{e}");
        assert!(
            !e.contains("123456789012345") && !e.contains("1.23456789"),
            "{e}"
        );
        let e = round_secret(&noise, &[f64::NAN, 0.0], &mut out, Whose::Owner("3"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("owner 3") && !e.contains("NaN"), "{e}");
    }
}
