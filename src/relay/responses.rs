//! `relay --responses` (issue 33 item 13): every recipient's answer as the
//! relay gives it — read from the signal the recipient holds at the end of
//! the diffusion, not recomputed from the owner's whole path — in the rows
//! of `simulate`'s `responses.csv` ([`ResponseRow`]), so that the relay's
//! claim that its answers are the central scheme's (`identical`) can be
//! checked: the file is byte for byte `simulate --mechanism correlated
//! --responses` with the same seed and options.
//!
//! The answers are those of the first untrimmed fraction (untrimmed relays
//! leak more, they do not change what a recipient reads at its own level).
//! Each owner is diffused again with the per-owner engine and its recipients
//! recorded ([`RelayPlan::trace`]'s machinery), owners in output order,
//! recipients in node order, as `simulate` writes them.

use super::plan::RelayPlan;
use super::run::{RelayEngine, Worker};
use super::signal::{Diffusion, Signal};
use super::stats::{OwnerStats, RunStats};
use super::trace::TraceSink;
use crate::control::Control;
use crate::error::Result;
use crate::mechanism::Mechanism;
use crate::process::family::{NoiseFamily, Visit};
use crate::sim::ResponseRow;
use crate::sink::RecordSink;
use rayon::prelude::*;

/// Owners diffused at once per thread before their rows are handed over
/// (bounds the rows in memory: owners × recipients).
const OWNERS_PER_THREAD: usize = 4;

impl RelayPlan<'_> {
    /// Every owner's answers, as `responses.csv` rows, into `sink` (see the
    /// module documentation). Checks `control` between groups of owners.
    pub fn responses_into(
        &self,
        sink: &mut dyn RecordSink<ResponseRow>,
        control: &Control,
    ) -> Result<()> {
        struct Rows<'x, 'a, 's> {
            plan: &'x RelayPlan<'a>,
            sink: &'s mut dyn RecordSink<ResponseRow>,
            control: &'x Control,
        }
        impl Visit for Rows<'_, '_, '_> {
            type Out = Result<()>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Result<()> {
                let d = Diffusion {
                    plan: self.plan,
                    fam,
                };
                d.responses_into(self.sink, self.control)
            }
        }
        self.sim().noise().visit(Rows {
            plan: self,
            sink,
            control,
        })
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    fn responses_into(
        &self,
        sink: &mut dyn RecordSink<ResponseRow>,
        control: &Control,
    ) -> Result<()> {
        let group = OWNERS_PER_THREAD * rayon::current_num_threads().max(1);
        for owners in self.owners().chunks(group) {
            control.check()?;
            let rows: Vec<Vec<ResponseRow>> = owners
                .par_iter()
                .map_init(
                    || Worker::new(RelayEngine::Sweep),
                    |w, &o| self.owner_responses(w, o),
                )
                .collect::<Result<_>>()?;
            for r in rows {
                sink.record_all(r)?;
            }
        }
        Ok(())
    }

    /// One owner's rows: each recipient that holds its level, its read-out.
    fn owner_responses(&self, w: &mut Worker<Signal<F>>, owner: u32) -> Result<Vec<ResponseRow>> {
        let relays = self.relays_of(owner);
        let mut stats = [OwnerStats::default()];
        let mut run = RunStats::new(0, 1);
        let mut sink = TraceSink::default();
        self.owner(
            w,
            owner,
            &relays[..1],
            &mut stats,
            &mut run,
            Some(&mut sink),
        )?;
        let label = self.graph().ids().label(owner).to_string();
        let u = &sink.value;
        let mut nodes = sink.nodes;
        nodes.sort_unstable_by_key(|n| n.node);
        let mut rows = Vec::with_capacity(nodes.len());
        for n in nodes {
            let Some(y) = n.answer else { continue };
            let mut values = Vec::with_capacity(3 * y.len());
            values.extend_from_slice(u);
            // No post-processing in the relay: the released answer is the
            // raw one.
            values.extend_from_slice(&y);
            values.extend_from_slice(&y);
            rows.push(ResponseRow {
                owner: label.clone(),
                replicate: self.replicate(),
                recipient: n.id,
                distance: n.distance,
                // The level answered (the rung's ε under `noise =
                // discrete`), as `simulate` records it.
                eps: self.fam.eps_used(n.eps, self.fam.level(n.eps)?),
                mechanism: Mechanism::Correlated,
                values,
            });
        }
        Ok(rows)
    }
}
