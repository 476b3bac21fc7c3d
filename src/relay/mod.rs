//! The decentralised protocol (thesis §3.3.1, issue 26): no trusted centre,
//! each owner's signal passed on between friends, each relay trimming it to
//! what its neighbours may learn — `privdiffuse relay`.
//!
//! # The model
//!
//! * Every node knows its own distance d_j to the owner (the thesis assumes
//!   the privacy levels are known) — hop or weighted shortest-path length;
//!   resistance distances are refused (not path metrics: no local protocol
//!   passes a signal along them).
//! * The owner samples her path `{V_ε}` once, down to the smallest ε her
//!   farthest recipient needs and up to the largest her nearest needs: the
//!   very path `simulate` samples for her with the same seed and options
//!   ([`RelayPlan`] resolves the run through the simulation's own plan and
//!   draws with `simulate`'s generator, range and sampler).
//! * A *signal trimmed at t* is `{V_ε : ε ≤ t}`: the path's breakpoints at
//!   levels ≤ t/Δ. A message is a reference to the owner's path plus a trim
//!   level (copies of the path are not paid for); its accounted size is
//!   8 bytes of header plus 8 + 8n bytes per breakpoint carried (a level and
//!   n values; [`message_bytes`]; 4 + 8n for the discrete chain's rungs).
//! * Synchronous rounds: the owner sends in round 1 the signal trimmed at
//!   ε(w_ok) to each (out-)neighbour k (hop: ε(1)). A node *holds its level*
//!   once the richest trim it has received is ≥ ε(d_j); it forwards once, in
//!   the round after, to each of its (out-)neighbours k — including the one
//!   it heard from — the signal trimmed at ε(d_j + w_jk) (hop: ε(d_j + 1)).
//!   A message crosses one edge per round whatever its length, so on
//!   weighted graphs a node may hear early along a long path and hold its
//!   level only later along a shortest one.
//! * Untrimmed relays (`untrimmed` fractions F): for each owner the first
//!   round(F·N) nodes of one permutation drawn from the seed, the owner
//!   skipped (so the sets of one run are nested), forward instead the
//!   richest signal they have received up to and including the round in
//!   which they first hold their level. The owner always trims.
//! * Every recipient reads its answer u + V at ε(d_j) from the richest
//!   signal it holds.
//! * Under `noise = discrete` (issue 25) the path is the owner's integer
//!   chain on the ladder, as `simulate --noise discrete` draws it; messages
//!   carry its integer breakpoints at rungs with ε ≤ trim and the read-out is
//!   (û + X)·γ at the rung of ε(d_j). The engines are written once over the
//!   noise family ([`Signal`]), chosen once in [`RelayPlan::run_on`].
//!
//! # What is counted ([`RelayRow`], [`RelayByDistanceRow`])
//!
//! * `rounds`: the round in which the last recipient first holds its level
//!   (hop: the owner's eccentricity).
//! * `messages`, `bytes`: every message sent (each node that holds its level
//!   forwards once to each neighbour, so messages = Σ out-degrees of the
//!   reached nodes ≤ 2|E|) and its accounted size.
//! * `eps_learned` of a recipient: the largest trim among all messages it
//!   receives, in any round — what it could learn; relative to its own
//!   ε(d_j) it is 1 when every relay trims. The owner is no recipient and
//!   has no learned ε (she holds her own path).
//! * `identical`: recipients whose read-out — from the breakpoints their
//!   signal carries — equals `simulate`'s answer (the whole path read at
//!   ε(d_j)) bit for bit. Untrimmed relays leak more; they do not change
//!   answers.
//!
//! # Engines
//!
//! * hop distances, every relay trimming: 64 owners at once, their counts
//!   read off the 64-source level search (`batch.rs`: the rounds in closed
//!   form); with untrimmed relays, one breadth-first sweep per owner, each
//!   arc visited once carrying its one message (`hop.rs`);
//! * weighted distances: round by round per owner (`flood.rs`);
//! * the partitioned round exchange ([`job`]): nodes in parts, messages
//!   routed between parts each round on an executor of
//!   [`crate::exec::rounds`] — in this process or, with the
//!   `distributed` feature, as a timely dataflow over a cluster (always
//!   there: [`RelayPlan::run_on`] over several peers).
//!
//! All give the same counts, exactly ([`stats`]: integer sums, maxima and
//! [`ExactSum`]s), checked against each other by the tests
//! ([`RelayEngine`] picks one).
//!
//! Entry points: [`Relay`] (the builder, in memory), [`RelayPlan::run_on`]
//! (on any [`RoundExecutor`](crate::exec::RoundExecutor)),
//! [`RelayPlan::responses_into`] (every recipient's read-out, as
//! `simulate`'s `responses.csv` rows); the command's files are written by
//! [`crate::io::relay`]. No file is read or written here.

mod batch;
mod builder;
pub mod config;
pub mod exact;
mod flood;
mod hop;
pub mod job;
mod levels;
pub mod plan;
mod responses;
pub mod rows;
mod run;
pub mod signal;
pub mod stats;
pub mod summary;
pub mod trace;

pub use builder::{Relay, RelayOutput, Untrimmed};
pub use config::{RelayConfig, UntrimmedOrder};
pub use exact::ExactSum;
pub use plan::{RelayPlan, Relays};
pub use rows::{RelayByDistanceRow, RelayRow};
pub use run::RelayEngine;
pub use signal::{Signal, message_bytes};
pub use stats::{OwnerStats, RelayTotal, RunStats};
pub use summary::{RelaySummary, summarize};
pub use trace::{Breakpoint, Message, NodeState, RelayTrace};

#[cfg(test)]
mod discrete_tests;
#[cfg(test)]
mod tests;
