//! The rows `simulate` produces, one type per output file: the engine hands
//! them to its sinks, [`crate::io`] writes them as CSV and the figures read
//! them back with the same types (see [`crate::util::table`]);
//! [`SimOutput::rows`](super::SimOutput::rows) keeps them in memory.
//! Field names are the columns; floats are written in shortest round-trip
//! form; an empty cell is a `None`. Numbers are finite except where a row
//! type lists them ([`CsvRow::INFINITE`]: `inf` for unreachable members,
//! [`CsvRow::UNDEFINED`]: `NaN` for a standard error from one owner); the
//! writers refuse, and the figures' readers reject, anything else.
//!
//! | file | row | written by |
//! |---|---|---|
//! | `by_distance.csv` | [`ByDistanceRow`] | per mechanism and distance bucket |
//! | `jumps.csv` | [`JumpRow`] | per jump of every correlated path |
//! | `owners.csv` | [`OwnerRow`] | per owner |
//! | `paths.csv` | [`PathRow`] | per breakpoint of the first owners' paths |
//! | `ego.csv` | [`EgoRow`] | per recipient of the recorded owners (`--ego-owners`), per replicate |
//! | `responses.csv` | [`ResponseRow`] | per answer (`--responses`) |

use crate::mechanism::Mechanism;
use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// A replicate cell: an empty one (a file written before replicates, read
/// with the column missing) is replicate 0.
fn empty_is_zero<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    Ok(Option::<u32>::deserialize(d)?.unwrap_or(0))
}

/// One row of `by_distance.csv`: one mechanism in one distance bucket.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ByDistanceRow {
    /// `correlated`, `independent` or `gaussian`.
    pub mechanism: String,
    /// Lower edge of the bucket (= upper for integer distances; `inf` for
    /// the unreachable bucket).
    pub distance_lo: f64,
    /// Upper edge.
    pub distance_hi: f64,
    /// Responses.
    pub count: u64,
    /// Mean ε.
    pub mean_eps: f64,
    /// Empirical MSE (before post-processing).
    pub mse: f64,
    /// Standard error of `mse` with each owner's replicate as a cluster (NaN
    /// with fewer than 2 such clusters).
    pub mse_se: f64,
    /// Mean theoretical MSE over the same responses.
    pub mse_theory: f64,
    /// Share of post-processed answers equal to u (columns present only with
    /// `--post`; every row of a file has both or neither).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub post_exact: Option<f64>,
    /// MSE after post-processing (with `--post`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub post_mse: Option<f64>,
    /// With `--post bit`: share of answers whose bits all equal the owner's
    /// (the rate of `correct` in ego.csv), over the bucket's answers.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub correct_rate: Option<f64>,
    /// With `--post bit`: the probability of a correct answer averaged over
    /// the bucket's answers, where the mechanism has a closed form
    /// (docs/simulate.md, "Correct bits"); an empty cell where it has none (the column is
    /// present exactly when `correct_rate` is: `Some(None)` is an empty
    /// cell; a file read back gives `None` for both).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub correct_theory: Option<Option<f64>>,
}

impl CsvRow for ByDistanceRow {
    const OPTIONAL: &'static [&'static str] =
        &["post_exact", "post_mse", "correct_rate", "correct_theory"];
    const INFINITE: &'static [&'static str] = &["distance_lo", "distance_hi"];
    const UNDEFINED: &'static [&'static str] = &["mse_se"];
}

/// One row of `jumps.csv`: a jump of an owner's correlated path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JumpRow {
    /// Owner id (original node id).
    pub owner: String,
    /// Replicate (0-based; files written before replicates read as 0).
    #[serde(default, deserialize_with = "empty_is_zero")]
    pub replicate: u32,
    /// Level of the jump (× the sensitivity: the ε of the answers).
    pub eps: f64,
    /// Distance at which ε(d) equals the jump's level.
    pub distance: f64,
    /// Size of the jump (norm of the added noise).
    pub jump_norm: f64,
}

impl CsvRow for JumpRow {
    const OPTIONAL: &'static [&'static str] = &["replicate"];
    /// A level below the map's range (unreachable members at `eps_min`).
    const INFINITE: &'static [&'static str] = &["distance"];
}

/// One row of `owners.csv`: the range one owner's path covers. An owner
/// without recipients has empty distance and level cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OwnerRow {
    /// Owner id.
    pub owner: String,
    /// Replicate (one row per owner and replicate).
    #[serde(default, deserialize_with = "empty_is_zero")]
    pub replicate: u32,
    /// Recipients answered.
    pub recipients: u64,
    /// Smallest recipient distance.
    pub distance_min: Option<f64>,
    /// Largest recipient distance.
    pub distance_max: Option<f64>,
    /// ε at `distance_max` (bottom of the path).
    pub eps_lo: Option<f64>,
    /// ε at `distance_min` (top of the path).
    pub eps_hi: Option<f64>,
    /// Jumps of the sampled path.
    pub jumps: u64,
    /// Expected jumps, λ·ln(eps_hi/eps_lo).
    pub jumps_expected: f64,
}

impl CsvRow for OwnerRow {
    const OPTIONAL: &'static [&'static str] = &["replicate"];
    /// Unreachable members answered at `eps_min` are at distance `inf`.
    const INFINITE: &'static [&'static str] = &["distance_min", "distance_max"];
}

/// The four ends of an owner's path, when it has recipients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathRange {
    /// Smallest recipient distance.
    pub distance_min: f64,
    /// Largest recipient distance.
    pub distance_max: f64,
    /// ε at `distance_max`.
    pub eps_lo: f64,
    /// ε at `distance_min`.
    pub eps_hi: f64,
}

impl OwnerRow {
    /// The row of `owner` in `replicate` when it has no recipients: no
    /// path, so no range and no jumps.
    pub fn without_recipients(owner: String, replicate: u32) -> OwnerRow {
        OwnerRow {
            owner,
            replicate,
            recipients: 0,
            distance_min: None,
            distance_max: None,
            eps_lo: None,
            eps_hi: None,
            jumps: 0,
            jumps_expected: 0.0,
        }
    }

    /// The range the owner's path covers (`None`: no recipients).
    pub fn range(&self) -> Option<PathRange> {
        Some(PathRange {
            distance_min: self.distance_min?,
            distance_max: self.distance_max?,
            eps_lo: self.eps_lo?,
            eps_hi: self.eps_hi?,
        })
    }
}

/// One row of `paths.csv`: a breakpoint of an owner's path (the value holds
/// from this level up to the next row's), or for a Gaussian owner the
/// Brownian path at one level answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathRow {
    /// Owner id (`sample` in the CSV of `privdiffuse path`).
    pub owner: String,
    /// Replicate of the owner's path (`simulate`; the CSV of `privdiffuse
    /// path` has no such column).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub replicate: Option<u32>,
    /// Level ε (× the sensitivity).
    pub eps: f64,
    /// The path's value, columns `v1..vn`.
    pub v: Vec<f64>,
}

impl CsvRow for PathRow {
    const VECTOR: Option<&'static str> = Some("v");
    const OPTIONAL: &'static [&'static str] = &["replicate"];
}

/// One row of `ego.csv`: the answer of one recipient of a recorded owner
/// (`--ego-owners`, default the first owner) under the first mechanism.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EgoRow {
    /// Owner id (`simulate` always writes it; older files without the
    /// column read as `None`: their owner is the first of `owners.csv`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub owner: Option<String>,
    /// Replicate.
    #[serde(default, deserialize_with = "empty_is_zero")]
    pub replicate: u32,
    /// Recipient id.
    pub recipient: String,
    /// Distance from the owner.
    pub distance: f64,
    /// ε of the answer.
    pub eps: f64,
    /// Error of the answer, ‖raw − u‖ (before post-processing).
    pub error_norm: f64,
    /// With `--post bit`: 1 when every post-processed coordinate equals the
    /// owner's, else 0.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub correct: Option<u8>,
    /// The owner's value, the raw answer u + noise and the released answer
    /// y = post(raw), concatenated: columns `u1..un,raw1..rawn,y1..yn` (see
    /// [`EgoRow::u`], [`EgoRow::raw`], [`EgoRow::y`]); empty when read from a
    /// file written before these columns.
    #[serde(default)]
    pub values: Vec<f64>,
}

impl CsvRow for EgoRow {
    const VECTOR: Option<&'static str> = Some("values");
    const VECTOR_PARTS: &'static [&'static str] = &["u", "raw", "y"];
    const OPTIONAL: &'static [&'static str] = &["owner", "replicate", "correct", "values"];
    const INFINITE: &'static [&'static str] = &["distance"];
}

/// The three parts of a concatenated `u, raw, y` vector.
fn part(values: &[f64], k: usize) -> &[f64] {
    let n = values.len() / 3;
    &values[k * n..(k + 1) * n]
}

impl EgoRow {
    /// The owner's value u.
    pub fn u(&self) -> &[f64] {
        part(&self.values, 0)
    }
    /// The raw answer u + noise.
    pub fn raw(&self) -> &[f64] {
        part(&self.values, 1)
    }
    /// The released answer post(raw).
    pub fn y(&self) -> &[f64] {
        part(&self.values, 2)
    }
}

/// One row of `responses.csv`: the answer one recipient got from one owner
/// under one mechanism (after post-processing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResponseRow {
    /// Owner id.
    pub owner: String,
    /// Replicate.
    #[serde(default, deserialize_with = "empty_is_zero")]
    pub replicate: u32,
    /// Recipient id.
    pub recipient: String,
    /// Distance from the owner.
    pub distance: f64,
    /// ε of the answer.
    pub eps: f64,
    /// Mechanism.
    pub mechanism: Mechanism,
    /// The owner's value u, the raw answer u + noise and the released
    /// answer y = post(raw), concatenated: columns `u1..un,raw1..rawn,y1..yn`
    /// (see [`ResponseRow::u`], [`ResponseRow::raw`], [`ResponseRow::y`]).
    pub values: Vec<f64>,
}

impl CsvRow for ResponseRow {
    const VECTOR: Option<&'static str> = Some("values");
    const VECTOR_PARTS: &'static [&'static str] = &["u", "raw", "y"];
    const OPTIONAL: &'static [&'static str] = &["replicate"];
    const INFINITE: &'static [&'static str] = &["distance"];
}

impl ResponseRow {
    /// The owner's value u.
    pub fn u(&self) -> &[f64] {
        part(&self.values, 0)
    }
    /// The raw answer u + noise.
    pub fn raw(&self) -> &[f64] {
        part(&self.values, 1)
    }
    /// The released answer post(raw).
    pub fn y(&self) -> &[f64] {
        part(&self.values, 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::table::{Reader, Writer, columns};

    fn round_trip<T: CsvRow + PartialEq + std::fmt::Debug>(
        name: &str,
        n: usize,
        leave_out: &[&str],
        rows: &[T],
        text: &str,
    ) {
        let mut w = Writer::with_header(Vec::new(), columns::<T>(n, leave_out)).unwrap();
        for r in rows {
            w.row(r).unwrap();
        }
        let written = String::from_utf8(w.into_inner().unwrap()).unwrap();
        assert_eq!(written, text, "{name}");
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(format!("{name}.csv"));
        std::fs::write(&p, &written).unwrap();
        let mut back = Vec::new();
        Reader::open(&p)
            .unwrap()
            .rows(&[], |_, r: T| {
                back.push(r);
                Ok::<_, crate::error::Error>(())
            })
            .unwrap();
        std::fs::remove_file(&p).unwrap();
        assert_eq!(back, rows, "{name}");
    }

    #[test]
    fn every_file_keeps_its_text() {
        let bd = |post: Option<f64>| ByDistanceRow {
            mechanism: "correlated".into(),
            distance_lo: 1.0,
            distance_hi: 1.0,
            count: 40,
            mean_eps: 15.0,
            mse: 0.0000001,
            mse_se: 0.25,
            mse_theory: 1e21,
            post_exact: post,
            post_mse: post,
            correct_rate: None,
            correct_theory: None,
        };
        round_trip(
            "by_distance",
            0,
            &["post_exact", "post_mse", "correct_rate", "correct_theory"],
            &[bd(None)],
            "mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory\n\
             correlated,1,1,40,15,0.0000001,0.25,1000000000000000000000\n",
        );
        round_trip(
            "by_distance_post",
            0,
            &["correct_rate", "correct_theory"],
            &[bd(Some(0.5))],
            "mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory,post_exact,post_mse\n\
             correlated,1,1,40,15,0.0000001,0.25,1000000000000000000000,0.5,0.5\n",
        );
        round_trip(
            "jumps",
            0,
            &[],
            &[JumpRow {
                owner: "7".into(),
                replicate: 1,
                eps: 2.5,
                distance: f64::INFINITY,
                jump_norm: 3.0,
            }],
            "owner,replicate,eps,distance,jump_norm\n7,1,2.5,inf,3\n",
        );
        round_trip(
            "owners",
            0,
            &[],
            &[
                OwnerRow::without_recipients("3".into(), 0),
                OwnerRow {
                    owner: "4".into(),
                    replicate: 2,
                    recipients: 2,
                    distance_min: Some(1.0),
                    distance_max: Some(f64::INFINITY),
                    eps_lo: Some(0.1),
                    eps_hi: Some(4.5),
                    jumps: 3,
                    jumps_expected: 7.25,
                },
            ],
            "owner,replicate,recipients,distance_min,distance_max,eps_lo,eps_hi,jumps,jumps_expected\n\
             3,0,0,,,,,0,0\n4,2,2,1,inf,0.1,4.5,3,7.25\n",
        );
        round_trip(
            "paths",
            2,
            &[],
            &[PathRow {
                owner: "0".into(),
                replicate: Some(3),
                eps: 0.5,
                v: vec![-1.25, 2.0],
            }],
            "owner,replicate,eps,v1,v2\n0,3,0.5,-1.25,2\n",
        );
        round_trip(
            "ego",
            1,
            &[],
            &[EgoRow {
                owner: Some("5".into()),
                replicate: 0,
                recipient: "12".into(),
                distance: 2.0,
                eps: 1.5,
                error_norm: 0.125,
                correct: Some(1),
                values: vec![1.0, 1.125, 1.0],
            }],
            "owner,replicate,recipient,distance,eps,error_norm,correct,u1,raw1,y1\n\
             5,0,12,2,1.5,0.125,1,1,1.125,1\n",
        );
        round_trip(
            "responses",
            1,
            &[],
            &[ResponseRow {
                owner: "0".into(),
                replicate: 0,
                recipient: "1".into(),
                distance: 2.0,
                eps: 2.0,
                mechanism: Mechanism::Correlated,
                values: vec![0.5, 0.25, 0.25],
            }],
            "owner,replicate,recipient,distance,eps,mechanism,u1,raw1,y1\n0,0,1,2,2,correlated,0.5,0.25,0.25\n",
        );
    }
}
