//! The shrinkage sums under `noise = discrete` with raw answers: the
//! independent answers are the discrete engine's fresh draws (each drawn
//! once, shared with the plain independent mean), given to the visit instead
//! of drawn here.

use super::{ShrinkScratch, ShrinkSums, overflow};
use crate::distance::SubsetSums;
use crate::error::Result;
use crate::utility::UtilityPlan;

impl ShrinkScratch {
    /// [`visit`](ShrinkScratch::visit) for raw answers whose independent
    /// answers are given: `answers` holds the visit's `c` answers, `dim` each,
    /// in owner-bit order (summed in that order: each visit's sums are one
    /// term, rounded once).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn visit_answers(
        &mut self,
        plan: &UtilityPlan<'_>,
        sums: &mut ShrinkSums,
        v: usize,
        level: u32,
        mask: u64,
        corr: &[SubsetSums<i128>],
        answers: &[f64],
    ) -> Result<()> {
        let Some(sp) = plan.shrinkage().filter(|_| self.on) else {
            return Ok(());
        };
        let l = level as usize - 1;
        let cs = sums.cstride();
        sums.counts[v * cs + l] += mask.count_ones();
        let dim = sp.dim;
        let base = v * sums.sstride();
        let (lsum, sq) = (base + l * 2 * dim, base + sp.levels * 2 * dim);
        for (d, (t, q)) in corr.iter().zip(&self.sq_tables).enumerate().take(dim) {
            sums.sums[lsum + d] += t.sum(mask);
            sums.sums[sq + d] += q.sum(mask);
        }
        for d in 0..dim {
            let (mut s1, mut s2) = (0.0, 0.0);
            for y in answers.iter().skip(d).step_by(dim) {
                s1 += y;
                let z = (y - sp.centre[d]) * sp.inv_unit;
                s2 += z * z;
            }
            sums.sums[lsum + dim + d] += plan.fix_value(s1)?;
            sums.sums[sq + dim + d] += sp.fx_sq.to_fixed(s2).ok_or_else(|| overflow(s2))?;
        }
        Ok(())
    }
}
