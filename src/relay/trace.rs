//! [`RelayTrace`]: one owner's diffusion message by message and node by
//! node — what the engines do, recorded for inspection and tests.

use super::stats::OwnerStats;

/// One message: a reference to the owner's path and a trim level.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// Round in which it is delivered (the owner's own messages: round 1).
    pub round: u32,
    /// Sender (node index).
    pub from: u32,
    /// Receiver (node index).
    pub to: u32,
    /// Trim level: the message carries {V_ε : ε ≤ trim}.
    pub trim: f64,
    /// Breakpoints of the owner's path it carries (those the trim reaches:
    /// the first `breakpoints` of [`RelayTrace::path`]).
    pub breakpoints: usize,
    /// Accounted bytes ([`message_bytes`](super::signal::message_bytes)).
    pub bytes: u64,
}

/// A recipient at the end of the diffusion.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeState {
    /// Node index.
    pub node: u32,
    /// Original node id.
    pub id: String,
    /// Distance from the owner.
    pub distance: f64,
    /// Its own privacy level ε(d).
    pub eps: f64,
    /// Whether it forwards untrimmed.
    pub untrimmed: bool,
    /// Round in which it first held a signal reaching its own level.
    pub hold_round: Option<u32>,
    /// The largest trim level among the messages it received (its learned
    /// ε); `None` if it received none.
    pub eps_learned: Option<f64>,
    /// Its read-out at ε(d) from the signal it holds (u + V, or (û + X)·γ;
    /// `None` if it never held its level).
    pub answer: Option<Vec<f64>>,
    /// Whether `answer` equals `simulate`'s answer bit for bit.
    pub identical: bool,
}

/// One owner's diffusion under one set of untrimmed relays.
#[derive(Clone, Debug, PartialEq)]
pub struct RelayTrace {
    /// Owner (node index).
    pub owner: u32,
    /// The owner's value u.
    pub value: Vec<f64>,
    /// The owner's path as `simulate` samples it (under either noise),
    /// by its breakpoints ascending.
    pub path: Vec<Breakpoint>,
    /// Every message, in the order sent (round by round).
    pub messages: Vec<Message>,
    /// Every recipient, in node order.
    pub nodes: Vec<NodeState>,
    /// The owner's row of `relay.csv` under these relays.
    pub stats: OwnerStats,
}

/// One breakpoint of an owner's path: the privacy level from which its
/// value holds (the level ε/Δ times Δ; the rung's ε) and the noise in
/// value units (V; X·γ).
#[derive(Clone, Debug, PartialEq)]
pub struct Breakpoint {
    /// Privacy level.
    pub eps: f64,
    /// The noise there.
    pub noise: Vec<f64>,
}

/// What an engine records while tracing (one fraction).
#[derive(Default)]
pub(crate) struct TraceSink {
    pub messages: Vec<Message>,
    pub nodes: Vec<NodeState>,
    pub path: Vec<Breakpoint>,
    pub value: Vec<f64>,
}
