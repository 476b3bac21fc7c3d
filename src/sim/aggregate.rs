//! Streaming aggregation of squared errors per mechanism and distance bucket.
//!
//! Answers of one owner share one path, so they are not independent: the
//! standard error of a bucket's MSE treats each owner's replicate (one path,
//! one realisation of the mechanism) as a cluster; the replicates of one
//! owner are independent of each other. For the ratio
//! estimator R = ΣS_o / Σc_o (S_o: owner o's sum of squared errors in the
//! bucket, c_o its count), Var R ≈ K/(K−1) · Σ_o (S_o − R c_o)² / (Σ c_o)²,
//! computed from the running sums ΣS², ΣSc, Σc².

/// Running sums for one (mechanism, bucket).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BucketAcc {
    /// Responses.
    pub count: u64,
    /// Clusters (owner × replicate) with at least one response here.
    pub owners: u64,
    /// Σ ε over responses.
    pub sum_eps: f64,
    /// Σ ‖y − u‖² over responses.
    pub sum_sq: f64,
    /// Σ theoretical E‖y − u‖² over responses.
    pub sum_theory: f64,
    /// Σ_o S_o².
    pub sum_s2: f64,
    /// Σ_o S_o·c_o.
    pub sum_sc: f64,
    /// Σ_o c_o².
    pub sum_c2: f64,
    /// Post-processed answers equal to u (all coordinates).
    pub post_exact: u64,
    /// Σ ‖post(y) − u‖².
    pub post_sq: f64,
    /// Σ probability of a correct `bit` answer, over answers that have one.
    pub correct_theory: f64,
    /// Answers without a closed-form probability of a correct bit.
    pub correct_undefined: u64,
}

impl BucketAcc {
    /// Adds another accumulator (merge in a fixed order for reproducibility).
    pub fn merge(&mut self, o: &BucketAcc) {
        self.count += o.count;
        self.owners += o.owners;
        self.sum_eps += o.sum_eps;
        self.sum_sq += o.sum_sq;
        self.sum_theory += o.sum_theory;
        self.sum_s2 += o.sum_s2;
        self.sum_sc += o.sum_sc;
        self.sum_c2 += o.sum_c2;
        self.post_exact += o.post_exact;
        self.post_sq += o.post_sq;
        self.correct_theory += o.correct_theory;
        self.correct_undefined += o.correct_undefined;
    }

    /// Empirical MSE.
    pub fn mse(&self) -> f64 {
        self.sum_sq / self.count as f64
    }

    /// Cluster (owner × replicate) standard error of [`BucketAcc::mse`] (NaN
    /// with < 2 clusters).
    pub fn mse_se(&self) -> f64 {
        if self.owners < 2 {
            return f64::NAN;
        }
        let c = self.count as f64;
        let r = self.mse();
        let k = self.owners as f64;
        let ss = (self.sum_s2 - 2.0 * r * self.sum_sc + r * r * self.sum_c2).max(0.0);
        (k / (k - 1.0) * ss).sqrt() / c
    }
}

/// One owner's contribution to one bucket, folded into a [`BucketAcc`] at the
/// end of the owner.
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnerCell {
    /// Responses.
    pub count: u64,
    /// Σ ε.
    pub sum_eps: f64,
    /// Σ squared error.
    pub sum_sq: f64,
    /// Σ theory.
    pub sum_theory: f64,
    /// Post-processed exact answers.
    pub post_exact: u64,
    /// Σ post-processed squared error.
    pub post_sq: f64,
    /// Σ probability of a correct `bit` answer.
    pub correct_theory: f64,
    /// Answers without such a probability.
    pub correct_undefined: u64,
}

/// One owner's cells, per bucket, and the buckets it touched: folding and
/// clearing cost what the owner touched, not the table.
#[derive(Clone, Debug, Default)]
pub struct OwnerCells {
    cells: Vec<OwnerCell>,
    touched: Vec<usize>,
}

impl OwnerCells {
    /// No cell (also after a worker's owner failed half-way).
    pub fn clear(&mut self) {
        self.cells.clear();
        self.touched.clear();
    }

    /// Adds `count` identical answers of squared error `sq` at level `eps`
    /// (expected squared error `theory`) to bucket `b`, with `post` =
    /// (post(y), u) when the answers are post-processed; returns the cell.
    #[inline]
    pub fn add(
        &mut self,
        b: usize,
        count: u64,
        eps: f64,
        sq: f64,
        theory: f64,
        post: Option<(&[f64], &[f64])>,
    ) -> &mut OwnerCell {
        if b >= self.cells.len() {
            self.cells.resize(b + 1, OwnerCell::default());
        }
        let cell = &mut self.cells[b];
        if cell.count == 0 {
            self.touched.push(b);
        }
        let c = count as f64;
        cell.count += count;
        cell.sum_eps += c * eps;
        cell.sum_sq += c * sq;
        cell.sum_theory += c * theory;
        if let Some((p, u)) = post {
            let psq: f64 = p.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
            if p == u {
                cell.post_exact += count;
            }
            cell.post_sq += c * psq;
        }
        cell
    }

    /// Folds every touched cell into `table` and clears it.
    pub fn fold_into(&mut self, table: &mut Table) {
        for &b in &self.touched {
            self.cells[b].fold_into(table.at(b));
            self.cells[b] = OwnerCell::default();
        }
        self.touched.clear();
    }
}

impl OwnerCell {
    /// Adds `count` answers' probability `p` of a correct bit (NaN: none known).
    #[inline]
    pub fn add_correct(&mut self, count: u64, p: f64) {
        if p.is_nan() {
            self.correct_undefined += count;
        } else {
            self.correct_theory += count as f64 * p;
        }
    }

    /// Folds this owner's cell into the bucket.
    pub fn fold_into(&self, acc: &mut BucketAcc) {
        if self.count == 0 {
            return;
        }
        let c = self.count as f64;
        acc.count += self.count;
        acc.owners += 1;
        acc.sum_eps += self.sum_eps;
        acc.sum_sq += self.sum_sq;
        acc.sum_theory += self.sum_theory;
        acc.sum_s2 += self.sum_sq * self.sum_sq;
        acc.sum_sc += self.sum_sq * c;
        acc.sum_c2 += c * c;
        acc.post_exact += self.post_exact;
        acc.post_sq += self.post_sq;
        acc.correct_theory += self.correct_theory;
        acc.correct_undefined += self.correct_undefined;
    }
}

/// Accumulators for every bucket of one mechanism; grows as buckets appear.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Table {
    /// Per bucket index.
    pub buckets: Vec<BucketAcc>,
}

impl Table {
    /// Mutable accumulator of bucket `b`, growing the table if needed.
    pub fn at(&mut self, b: usize) -> &mut BucketAcc {
        if b >= self.buckets.len() {
            self.buckets.resize(b + 1, BucketAcc::default());
        }
        &mut self.buckets[b]
    }

    /// Adds another table bucket by bucket.
    pub fn merge(&mut self, o: &Table) {
        for (b, acc) in o.buckets.iter().enumerate() {
            self.at(b).merge(acc);
        }
    }

    /// Sum over all buckets.
    pub fn total(&self) -> BucketAcc {
        let mut t = BucketAcc::default();
        for b in &self.buckets {
            t.merge(b);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clustered_se_matches_direct_formula() {
        // Three owners with (S, c) = (2, 1), (9, 3), (1, 2).
        let mut acc = BucketAcc::default();
        for (s, c) in [(2.0, 1), (9.0, 3), (1.0, 2)] {
            OwnerCell {
                count: c,
                sum_sq: s,
                ..Default::default()
            }
            .fold_into(&mut acc);
        }
        let r: f64 = 12.0 / 6.0;
        let direct: f64 = [(2.0, 1.0), (9.0, 3.0), (1.0, 2.0)]
            .iter()
            .map(|(s, c): &(f64, f64)| (s - r * c).powi(2))
            .sum();
        let expect = (1.5 * direct).sqrt() / 6.0;
        assert_eq!(acc.mse(), 2.0);
        assert!((acc.mse_se() - expect).abs() < 1e-12);
    }
}
