//! The data behind figure 1b agree with the theory: jump locations of paths
//! drawn by the real sampler, mapped to distance through an `exp:a,b` map and
//! binned exactly as the figure bins them, fit the expected counts
//! Σ_owners λ·|Δ ln ε| per bin (chi-square, fixed seed); a deliberately wrong
//! rate or slope is rejected, so the test has power.

use super::common::{A, B, sample_owners, scratch, write_jump_files};
use privdiffuse::io::plot::jumps::{chi_square, expected_jump_counts, gamma_q, load_histogram};
use privdiffuse::process::Norm;

fn pearson(obs: &[f64], exp: &[f64]) -> (f64, usize) {
    // Every bin expects hundreds here, so no pooling is needed.
    assert!(exp.iter().all(|&e| e >= 5.0), "{exp:?}");
    let stat = obs
        .iter()
        .zip(exp)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    (stat, obs.len())
}

#[test]
fn jump_histogram_matches_theory_and_rejects_wrong_rates() {
    // Owners per case: enough that the wrong laws below shift χ² far beyond
    // chance (non-centrality grows linearly with the number of jumps).
    for (dim, norm, owners, seed) in [(2, Norm::L2, 1500, 2024u64), (1, Norm::L1, 4000, 77)] {
        let rate = norm.jump_rate(dim);
        let dir = scratch(&format!("stats-{norm}{dim}"));
        let own = sample_owners(owners, dim, norm, seed);
        write_jump_files(&dir, &own, dim, norm);

        let h = load_histogram(&dir).unwrap();
        assert_eq!(h.rate, Some(rate));
        let ranges: Vec<(f64, f64)> = own.iter().map(|o| (o.d_min, o.d_max)).collect();
        let n_jumps: f64 = h.counts.iter().sum();
        let total: usize = own.iter().map(|o| o.path.num_jumps()).sum();
        assert_eq!(n_jumps as usize, total, "every jump lands in a bin");
        // Σ expected = Σ owners λ·b·(d_max − d_min) exactly (exp map).
        let want_total: f64 = ranges.iter().map(|(a, z)| rate * B * (z - a)).sum();
        let got_total: f64 = h.expected.iter().sum();
        assert!((got_total - want_total).abs() < 1e-9 * want_total);

        // Chi-square of the figure's counts against its expected counts,
        // computed here from scratch and by the library (which pools small
        // bins; none are small here, so both agree).
        let (stat, df) = pearson(&h.counts, &h.expected);
        let p = gamma_q(df as f64 / 2.0, stat / 2.0);
        let lib = chi_square(&h.counts, &h.expected);
        assert_eq!(lib.df, df);
        assert!((lib.statistic - stat).abs() < 1e-9 * stat.max(1.0));
        eprintln!("{norm} n={dim}: {n_jumps} jumps, {df} bins, χ² = {stat:.1}, p = {p:.3}");
        assert!(
            p > 1e-4,
            "{norm} n={dim}: {n_jumps} jumps in {df} bins, χ² = {stat:.1}, p = {p:.2e}"
        );

        // Power: the wrong rate λ + 1 and a wrong slope b' = 1.1·b must be
        // rejected by the same test on the same counts.
        let ln_true = |d: f64| A - B * d;
        let ln_wrong = |d: f64| A - 1.1 * B * d;
        for (what, exp) in [
            (
                "rate λ+1",
                expected_jump_counts(&h.edges, &ranges, rate + 1.0, &ln_true),
            ),
            (
                "slope 1.1·b",
                expected_jump_counts(&h.edges, &ranges, rate, &ln_wrong),
            ),
        ] {
            let (stat, df) = pearson(&h.counts, &exp);
            let p = gamma_q(df as f64 / 2.0, stat / 2.0);
            eprintln!("  wrong {what}: χ² = {stat:.1}, p = {p:.1e}");
            assert!(
                p < 1e-6,
                "{norm} n={dim}: wrong {what} not rejected: p = {p:.2e}"
            );
        }

        // Without summary.json the figure interpolates ln ε through the
        // (distance, ε) pairs in the data and takes λ from owners.csv: exact
        // for an exp map.
        std::fs::remove_file(dir.join("summary.json")).unwrap();
        let h2 = load_histogram(&dir).unwrap();
        assert_eq!(h2.edges, h.edges);
        assert!((h2.rate.unwrap() - rate).abs() < 1e-12);
        for (a, b) in h2.expected.iter().zip(&h.expected) {
            assert!((a - b).abs() < 1e-9 * b.max(1.0), "{a} vs {b}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
