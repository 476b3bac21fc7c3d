//! The rows of the files `relay` writes, one type per file (written and read
//! back with [`crate::util::table`]).
//!
//! | file | row | one per |
//! |---|---|---|
//! | `relay.csv` | [`RelayRow`] | owner and untrimmed fraction (owner order, then fractions as given) |
//! | `relay_by_distance.csv` | [`RelayByDistanceRow`] | fraction and distance bucket |

use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// One row of `relay.csv`: one owner's diffusion under one untrimmed
/// fraction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelayRow {
    /// Owner id (original node id).
    pub owner: String,
    /// Fraction of the nodes that forward without trimming.
    pub untrimmed: f64,
    /// Round in which the last recipient first holds its level (hop: the
    /// owner's eccentricity); 0 without recipients.
    pub rounds: u32,
    /// Messages sent: every node that comes to hold its level forwards once
    /// to each of its (out-)neighbours, the owner in round 0.
    pub messages: u64,
    /// Accounted bytes of those messages: 8 per message plus 8 + 8n per
    /// breakpoint carried.
    pub bytes: u64,
    /// Members the owner reaches (the owner excluded).
    pub recipients: u64,
    /// Recipients whose read-out equals `simulate`'s answer bit for bit.
    pub identical: u64,
    /// Largest `eps_learned / eps(d)` over the recipients (1 when every relay
    /// trims); empty without recipients.
    pub eps_learned_excess_max: Option<f64>,
}

impl CsvRow for RelayRow {}

/// One row of `relay_by_distance.csv`: the recipients of every owner in one
/// distance bucket, under one untrimmed fraction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RelayByDistanceRow {
    /// Fraction of the nodes that forward without trimming.
    pub untrimmed: f64,
    /// Lower edge of the bucket (= upper for hop distances).
    pub distance_lo: f64,
    /// Upper edge.
    pub distance_hi: f64,
    /// Recipients (owner–recipient pairs) in the bucket.
    pub recipients: u64,
    /// Mean of `eps_learned / eps(d)`: the privacy level a recipient
    /// actually got relative to its own (1 when every relay trims).
    pub eps_learned_ratio_mean: f64,
    /// Largest `eps_learned / eps(d)` in the bucket.
    pub eps_learned_ratio_max: f64,
}

impl CsvRow for RelayByDistanceRow {}
