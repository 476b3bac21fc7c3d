//! Exact, mergeable counts of a relay run: per owner and fraction
//! ([`OwnerStats`]) and per fraction and distance bucket ([`BucketStats`]).
//! Every field is an integer sum, a maximum or an [`ExactSum`], so partial
//! counts made anywhere (threads, parts of the round exchange, processes)
//! merge into the same numbers whatever the order.

use super::exact::ExactSum;
use super::rows::{RelayByDistanceRow, RelayRow};
use crate::sim::Buckets;
use serde::{Deserialize, Serialize};

/// One owner's diffusion under one untrimmed fraction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnerStats {
    /// Messages sent.
    pub messages: u64,
    /// Their accounted bytes.
    pub bytes: u64,
    /// Latest round in which a recipient first held its level.
    pub rounds: u32,
    /// Members reached (the owner excluded).
    pub recipients: u64,
    /// Recipients that came to hold a signal reaching their own level.
    pub held: u64,
    /// Recipients whose read-out equals `simulate`'s answer bit for bit.
    pub identical: u64,
    /// Largest `eps_learned / eps(d)` over the recipients (0: none).
    pub excess_max: f64,
    /// Breakpoints of the owner's path (0: no path, no recipient).
    pub breakpoints: u64,
}

impl OwnerStats {
    /// Adds another part's counts of the same owner and fraction.
    pub fn merge(&mut self, o: &OwnerStats) {
        self.messages += o.messages;
        self.bytes += o.bytes;
        self.rounds = self.rounds.max(o.rounds);
        self.recipients += o.recipients;
        self.held += o.held;
        self.identical += o.identical;
        self.excess_max = self.excess_max.max(o.excess_max);
        self.breakpoints = self.breakpoints.max(o.breakpoints);
    }
}

/// Recipients of one distance bucket under one fraction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BucketStats {
    /// Recipients.
    pub recipients: u64,
    /// Σ eps_learned / eps(d), exactly.
    pub ratio_sum: ExactSum,
    /// Largest eps_learned / eps(d).
    pub ratio_max: f64,
}

impl BucketStats {
    /// Adds `count` recipients whose ratio is `ratio`.
    pub fn add(&mut self, ratio: f64, count: u64) {
        self.recipients += count;
        self.ratio_sum.add_n(ratio, count);
        self.ratio_max = self.ratio_max.max(ratio);
    }

    /// Adds another part's bucket.
    pub fn merge(&mut self, o: &BucketStats) {
        self.recipients += o.recipients;
        self.ratio_sum.merge(&o.ratio_sum);
        self.ratio_max = self.ratio_max.max(o.ratio_max);
    }
}

/// Counts of a whole run or of a part of it: `owners[p · F + f]` is owner
/// position p under fraction f; `buckets[f][b]` is bucket b under fraction f.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStats {
    /// Per owner (in plan order) and fraction, owner-major.
    pub owners: Vec<OwnerStats>,
    /// Per fraction, per distance bucket.
    pub buckets: Vec<Vec<BucketStats>>,
}

impl RunStats {
    /// Empty counts for `owners` owners and `fractions` fractions.
    pub fn new(owners: usize, fractions: usize) -> RunStats {
        RunStats {
            owners: vec![OwnerStats::default(); owners * fractions],
            buckets: vec![Vec::new(); fractions],
        }
    }

    /// Bucket `b` of fraction `f`, created on first use.
    pub fn bucket(&mut self, f: usize, b: usize) -> &mut BucketStats {
        let v = &mut self.buckets[f];
        if b >= v.len() {
            v.resize(b + 1, BucketStats::default());
        }
        &mut v[b]
    }

    /// Adds another part's counts (same owners, same fractions).
    pub fn merge(&mut self, o: &RunStats) {
        for (a, b) in self.owners.iter_mut().zip(&o.owners) {
            a.merge(b);
        }
        self.merge_buckets(o);
    }

    /// Appends the next chunk's owners and adds its buckets.
    pub fn append(&mut self, o: RunStats) {
        self.merge_buckets(&o);
        self.owners.extend(o.owners);
    }

    fn merge_buckets(&mut self, o: &RunStats) {
        for (f, bs) in o.buckets.iter().enumerate() {
            for (b, s) in bs.iter().enumerate() {
                if s.recipients > 0 {
                    self.bucket(f, b).merge(s);
                }
            }
        }
    }
}

/// `relay.csv` rows: owner-major, fractions in the given order.
pub fn owner_rows(stats: &RunStats, labels: &[String], fractions: &[f64]) -> Vec<RelayRow> {
    let nf = fractions.len();
    let mut rows = Vec::with_capacity(stats.owners.len());
    for (i, s) in stats.owners.iter().enumerate() {
        rows.push(RelayRow {
            owner: labels[i / nf].clone(),
            untrimmed: fractions[i % nf],
            rounds: s.rounds,
            messages: s.messages,
            bytes: s.bytes,
            recipients: s.recipients,
            identical: s.identical,
            eps_learned_excess_max: (s.recipients > 0).then_some(s.excess_max),
        });
    }
    rows
}

/// `relay_by_distance.csv` rows: fractions in the given order, buckets
/// ascending, empty buckets left out.
pub fn bucket_rows(
    stats: &RunStats,
    buckets: Buckets,
    fractions: &[f64],
) -> Vec<RelayByDistanceRow> {
    let mut rows = Vec::new();
    for (f, bs) in stats.buckets.iter().enumerate() {
        for (b, s) in bs.iter().enumerate() {
            if s.recipients == 0 {
                continue;
            }
            let (lo, hi) = buckets.edges(b);
            rows.push(RelayByDistanceRow {
                untrimmed: fractions[f],
                distance_lo: lo,
                distance_hi: hi,
                recipients: s.recipients,
                eps_learned_ratio_mean: s.ratio_sum.value() / s.recipients as f64,
                eps_learned_ratio_max: s.ratio_max,
            });
        }
    }
    rows
}

/// Totals of one fraction over every owner (in `summary.json`), next to
/// the central scheme's cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RelayTotal {
    /// The fraction.
    pub untrimmed: f64,
    /// Owners.
    pub owners: u64,
    /// Owner–recipient pairs.
    pub recipients: u64,
    /// Pairs whose read-out equals `simulate`'s answer bit for bit.
    pub identical: u64,
    /// Pairs whose recipient came to hold its own level.
    pub held: u64,
    /// Mean rounds per owner (owners with recipients).
    pub rounds_mean: f64,
    /// Most rounds of an owner.
    pub rounds_max: u32,
    /// Messages, all owners.
    pub messages: u64,
    /// Accounted bytes, all owners.
    pub bytes: u64,
    /// Mean messages per owner.
    pub messages_per_owner: f64,
    /// Mean bytes per owner.
    pub bytes_per_owner: f64,
    /// Mean breakpoints per path (owners with recipients).
    pub breakpoints_per_path: f64,
    /// The central scheme: one answer per recipient (= `recipients`).
    pub central_messages: u64,
    /// The central scheme's bytes: per answer 8 bytes of header plus the n
    /// values of the answer, 8 each: recipients × (8 + 8n).
    pub central_bytes: u64,
    /// Mean of eps_learned / eps(d) over all pairs (`null` without any).
    pub eps_learned_ratio_mean: Option<f64>,
    /// Largest eps_learned / eps(d) of any pair.
    pub eps_learned_excess_max: f64,
}

/// The totals of every fraction.
pub fn totals(stats: &RunStats, fractions: &[f64], dim: usize) -> Vec<RelayTotal> {
    let nf = fractions.len();
    (0..nf)
        .map(|f| {
            let per: Vec<&OwnerStats> = stats.owners.iter().skip(f).step_by(nf).collect();
            let owners = per.len() as u64;
            let with = per.iter().filter(|s| s.recipients > 0).count().max(1) as f64;
            let sum = |g: fn(&OwnerStats) -> u64| per.iter().map(|s| g(s)).sum::<u64>();
            let recipients = sum(|s| s.recipients);
            let mut ratio = ExactSum::new();
            for b in &stats.buckets[f] {
                ratio.merge(&b.ratio_sum);
            }
            let messages = sum(|s| s.messages);
            let bytes = sum(|s| s.bytes);
            RelayTotal {
                untrimmed: fractions[f],
                owners,
                recipients,
                identical: sum(|s| s.identical),
                held: sum(|s| s.held),
                rounds_mean: sum(|s| s.rounds as u64) as f64 / with,
                rounds_max: per.iter().map(|s| s.rounds).max().unwrap_or(0),
                messages,
                bytes,
                messages_per_owner: messages as f64 / owners.max(1) as f64,
                bytes_per_owner: bytes as f64 / owners.max(1) as f64,
                breakpoints_per_path: sum(|s| s.breakpoints) as f64 / with,
                central_messages: recipients,
                central_bytes: recipients.saturating_mul(8 + 8 * dim as u64),
                eps_learned_ratio_mean: (recipients > 0).then(|| ratio.value() / recipients as f64),
                eps_learned_excess_max: per.iter().map(|s| s.excess_max).fold(0.0, f64::max),
            }
        })
        .collect()
}
