//! Averages over owners (or any sample): the mean and the median of `f64`s,
//! written once for the pooled collusion summary and the sweep's metrics.

/// Arithmetic mean; `NaN` for no values.
pub fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut k) = (0.0, 0usize);
    for x in xs {
        s += x;
        k += 1;
    }
    if k == 0 { f64::NAN } else { s / k as f64 }
}

/// Median (the mean of the two middle values for an even count), in IEEE
/// total order (`NaN`s sort last); `NaN` for no values.
pub fn median(mut xs: Vec<f64>) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(f64::total_cmp);
    let k = xs.len();
    if k % 2 == 1 {
        xs[k / 2]
    } else {
        0.5 * (xs[k / 2 - 1] + xs[k / 2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_median_of_small_samples() {
        assert!(mean(std::iter::empty()).is_nan());
        assert!(median(vec![]).is_nan());
        assert_eq!(mean([1.0, 2.0, 6.0].into_iter()), 3.0);
        assert_eq!(median(vec![6.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![6.0, 1.0, 2.0, 40.0]), 4.0);
        // One large value moves the mean, not the median.
        assert_eq!(median(vec![1.0, 1.0, 1.0, 1.0, 100.0]), 1.0);
    }
}
