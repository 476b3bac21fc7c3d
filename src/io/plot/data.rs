//! Reading the CSV and JSON files that `simulate` and `collude` write, with
//! errors that name the file, the line, the column and the offending text.
//! Each file is read as the row type its writer serialises ([`crate::sim::rows`],
//! [`crate::collusion::rows`]) through [`crate::util::table`]: columns are
//! found by name (extra columns are ignored, so the writers may grow); numbers
//! are parsed as `f64`. `inf` and `NaN` are accepted only in the columns the
//! row type documents them for ([`CsvRow::INFINITE`], [`CsvRow::UNDEFINED`],
//! left to the figures to skip), and finite numbers only within ±[`DRAWABLE`]:
//! anything else is an error naming the file, the line and the column.
//!
//! Every row is returned, of every owner and replicate (`--replicates`):
//! the figures choose what they draw and say what they leave out. A file of
//! more than [`MAX_ROWS`] rows is refused.

pub use crate::collusion::rows::CoalitionRow;
pub use crate::sim::rows::{ByDistanceRow, EgoRow, JumpRow, OwnerRow, PathRow};

use crate::distance::DistanceKind;
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::io::summary::{ConfigEcho, SummaryFile};
use crate::util::table::{CsvRow, Reader};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use crate::io::figure_input::{DRAWABLE, MAX_ROWS, resolve_recorded};

/// Most replicates a figure draws (one colour each); the legend says how
/// many it leaves out.
pub const MAX_REPLICATES: usize = 8;

/// Opens a figure's input: lines of at most 1 MiB, the file at most a
/// quarter of the memory budget (its rows are held in memory) and
/// [`MAX_ROWS`] rows.
pub(crate) fn open(file: &Path) -> Result<Reader> {
    Ok(
        Reader::open_limited(file, crate::limits::memory_budget().bytes / 4)?
            .at_most(MAX_ROWS, crate::io::figure_input::ROW_CAP_REASON),
    )
}

/// Every row of `file` as a `T`.
fn read_all<T: CsvRow>(file: &Path) -> Result<Vec<T>> {
    let mut out = Vec::new();
    open(file)?.within(DRAWABLE).rows(&[], |_, row| {
        out.push(row);
        Ok::<_, Error>(())
    })?;
    Ok(out)
}

/// The distinct values of `reps` in order of first appearance (the
/// replicates of a file, as its writer wrote them).
pub fn replicates(reps: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for r in reps {
        if !out.contains(&r) {
            out.push(r);
        }
    }
    out
}

/// Reads `by_distance.csv`.
pub fn read_by_distance(file: &Path) -> Result<Vec<ByDistanceRow>> {
    read_all(file)
}

/// Reads `jumps.csv`: the jumps of every owner and replicate.
pub fn read_jumps(file: &Path) -> Result<Vec<JumpRow>> {
    read_all(file)
}

/// Reads `owners.csv`: one row per owner and replicate.
pub fn read_owners(file: &Path) -> Result<Vec<OwnerRow>> {
    read_all(file)
}

/// One path of a `paths.csv` (owner and replicate) or `privdiffuse path`
/// CSV (sample): breakpoints in ascending ε, row `i`'s value holding on
/// `[eps[i], eps[i+1])`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSeries {
    /// Owner or sample id.
    pub id: String,
    /// Replicate of the owner's path (`paths.csv`; `None` in a file
    /// without the column).
    pub replicate: Option<u32>,
    /// Levels, ascending.
    pub eps: Vec<f64>,
    /// Values, `dim` per level, row-major.
    pub values: Vec<f64>,
    /// 1-based line of the first row (for messages).
    pub first_line: usize,
}

impl PathSeries {
    /// Value of row `i`.
    pub fn value(&self, i: usize, dim: usize) -> &[f64] {
        &self.values[i * dim..(i + 1) * dim]
    }
}

/// The paths of one file, in order of first appearance.
#[derive(Clone, Debug, PartialEq)]
pub struct PathTable {
    /// Name of the id column (`owner` or `sample`).
    pub id_column: String,
    /// Dimension n (columns `v1..vn`).
    pub dim: usize,
    /// The paths: one per id, or per owner and replicate.
    pub series: Vec<PathSeries>,
}

impl PathTable {
    /// The replicates of the file, in order of first appearance (empty
    /// without a `replicate` column).
    pub fn replicates(&self) -> Vec<u32> {
        replicates(self.series.iter().filter_map(|s| s.replicate))
    }

    /// What a path is called in legends: `owner 7`, or `owner 7 ·
    /// replicate 1` when the file holds several replicates.
    pub fn label(&self, s: &PathSeries) -> String {
        match s.replicate {
            Some(r) if self.replicates().len() > 1 => {
                format!("{} {} · replicate {r}", self.id_column, s.id)
            }
            _ => format!("{} {}", self.id_column, s.id),
        }
    }
}

/// Reads a path CSV: `owner,replicate,eps,v1..vn` (`paths.csv`; `replicate`
/// optional) or `sample,eps,v1..vn` (`privdiffuse path`), as [`PathRow`]s,
/// one series per owner and replicate. Levels must ascend within each path.
pub fn read_paths(file: &Path) -> Result<PathTable> {
    let reader = open(file)?.within(DRAWABLE);
    let id_column = if reader.has("owner") {
        "owner"
    } else {
        "sample"
    };
    let dim = reader.vector_width("v");
    if dim == 0 {
        return Err(Error::input(
            file,
            1,
            format!(
                "expected a header 'sample,eps,v1..vn' or 'owner,eps,v1..vn', found '{}'",
                reader.header().iter().collect::<Vec<_>>().join(",")
            ),
        ));
    }
    let mut series: Vec<PathSeries> = Vec::new();
    let mut index: HashMap<(String, Option<u32>), usize> = HashMap::new();
    reader.rows(&[("owner", id_column)], |line, row: PathRow| {
        let error = |message: String| Error::input(file, line, message);
        let id = row.owner;
        let key = (id, row.replicate);
        let k = match index.get(&key) {
            Some(&k) => k,
            None => {
                series.push(PathSeries {
                    id: key.0.clone(),
                    replicate: key.1,
                    eps: Vec::new(),
                    values: Vec::new(),
                    first_line: line,
                });
                index.insert(key.clone(), series.len() - 1);
                series.len() - 1
            }
        };
        let id = &key.0;
        let eps = row.eps;
        if !(eps.is_finite() && eps > 0.0) {
            return Err(error(format!(
                "column 'eps': expected a level > 0, found '{eps}'"
            )));
        }
        let s = &mut series[k];
        if let Some(&last) = s.eps.last()
            && eps <= last
        {
            let of = match key.1 {
                Some(r) => format!("{id_column} '{id}' (replicate {r})"),
                None => format!("{id_column} '{id}'"),
            };
            return Err(error(format!(
                "levels of {of} must ascend: {eps} after {last}"
            )));
        }
        s.eps.push(eps);
        s.values.extend_from_slice(&row.v);
        Ok(())
    })?;
    Ok(PathTable {
        id_column: id_column.to_string(),
        dim,
        series,
    })
}

/// Reads `ego.csv` (`recipient,distance,eps,error_norm`, optional `owner`).
pub fn read_ego(file: &Path) -> Result<Vec<EgoRow>> {
    read_all(file)
}

/// Reads `relay_by_distance.csv`.
pub fn read_relay_by_distance(file: &Path) -> Result<Vec<crate::relay::RelayByDistanceRow>> {
    read_all(file)
}

/// Reads `timeline.csv` (what `evolve` writes).
#[cfg(feature = "store")]
pub fn read_timeline(file: &Path) -> Result<Vec<crate::store::TimelineRow>> {
    read_all(file)
}

/// Reads `utility.csv` as the rows a utility run produces.
pub fn read_utility(file: &Path) -> Result<Vec<crate::utility::UtilityRow>> {
    read_all(file)
}

/// One row of gossip's `privacy_by_distance.csv` as the file spells it (the
/// [`crate::gossip::Stats`] of a row written flat).
#[derive(serde::Serialize, serde::Deserialize)]
struct PrivacyByDistanceCsvRow {
    distance: u32,
    pairs: u64,
    pairs_paper: u64,
    pairs_exact: u64,
    rdp_paper_mean: Option<f64>,
    rdp_paper_median: Option<f64>,
    rdp_paper_max: Option<f64>,
    rdp_exact_mean: Option<f64>,
    rdp_exact_median: Option<f64>,
    rdp_exact_max: Option<f64>,
    eps_paper_mean: Option<f64>,
    eps_paper_median: Option<f64>,
    eps_paper_max: Option<f64>,
    eps_exact_mean: Option<f64>,
    eps_exact_median: Option<f64>,
    eps_exact_max: Option<f64>,
}

impl CsvRow for PrivacyByDistanceCsvRow {}

/// Reads gossip's `privacy_by_distance.csv` as the rows the run produced.
pub fn read_privacy_by_distance(file: &Path) -> Result<Vec<crate::gossip::PrivacyByDistanceRow>> {
    use crate::gossip::Stats;
    let stats = |mean, median, max| Stats { mean, median, max };
    Ok(read_all::<PrivacyByDistanceCsvRow>(file)?
        .into_iter()
        .map(|r| crate::gossip::PrivacyByDistanceRow {
            distance: r.distance,
            pairs: r.pairs,
            pairs_paper: r.pairs_paper,
            pairs_exact: r.pairs_exact,
            rdp_paper: stats(r.rdp_paper_mean, r.rdp_paper_median, r.rdp_paper_max),
            rdp_exact: stats(r.rdp_exact_mean, r.rdp_exact_median, r.rdp_exact_max),
            eps_paper: stats(r.eps_paper_mean, r.eps_paper_median, r.eps_paper_max),
            eps_exact: stats(r.eps_exact_mean, r.eps_exact_median, r.eps_exact_max),
        })
        .collect())
}

/// Reads gossip's `two_schools.csv` as the rows the run produced.
pub fn read_two_schools(file: &Path) -> Result<Vec<crate::gossip::TwoSchoolsRow>> {
    read_all(file)
}

/// Reads `coalition.csv`.
pub fn read_coalition(file: &Path) -> Result<Vec<CoalitionRow>> {
    read_all(file)
}

/// `summary.json` of the run being drawn: the typed [`SummaryFile`] and the
/// file it came from (for messages).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// The file it came from.
    pub file: PathBuf,
    /// Its contents.
    pub summary: SummaryFile,
}

impl RunSummary {
    /// Reads `summary.json`.
    pub fn read(file: &Path) -> Result<RunSummary> {
        Ok(RunSummary {
            file: file.to_path_buf(),
            summary: SummaryFile::read(file)?,
        })
    }

    /// The recorded configuration.
    pub fn config(&self) -> &ConfigEcho {
        &self.summary.config
    }

    /// The privacy map of the run (spec plus clamps), if recorded.
    pub fn map(&self) -> Result<Option<EpsilonMap>> {
        let Some(eps_map) = &self.summary.eps_map else {
            return Ok(None);
        };
        let c = self.config();
        let map = EpsilonMap::parse(&eps_map.spec)
            .and_then(|m| m.with_clamp(c.eps_min, c.eps_max))
            .map_err(|e| Error::input(&self.file, 0, format!("eps_map.spec: {e}")))?;
        if map.needs_resolution() {
            return Ok(None);
        }
        Ok(Some(map))
    }

    /// Jump rate λ per unit of ln ε: 2n (ℓ1) or n + 1 (ℓ2).
    pub fn jump_rate(&self) -> Option<f64> {
        let c = self.config();
        Some(c.norm?.jump_rate(c.dim?))
    }

    /// Whether distances are whole numbers (hops): their axes get whole
    /// ticks.
    pub fn whole_distances(&self) -> bool {
        self.config().distance == Some(DistanceKind::Hop)
    }

    /// Axis text for distances, with the unit of the distance kind.
    pub fn distance_label(&self) -> String {
        distance_label(self.config().distance.map(DistanceKind::as_str))
    }
}

/// Axis text for distances of kind `kind` (None: unitless).
pub fn distance_label(kind: Option<&str>) -> String {
    match kind {
        Some("hop") => "distance d from the owner (hops)".into(),
        Some("weighted") => "distance d from the owner (path length)".into(),
        Some("resistance") | Some("resistance-approx") => {
            "distance d from the owner (effective resistance, Ω)".into()
        }
        _ => "distance d from the owner".into(),
    }
}

/// Reads `summary.json` beside the other inputs when it exists.
pub fn read_summary_if_present(dir: &Path) -> Result<Option<RunSummary>> {
    let p = dir.join("summary.json");
    if p.exists() {
        RunSummary::read(&p).map(Some)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `name` holding `text` in a fresh folder, removed when the guard drops.
    fn file(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(name);
        std::fs::write(&p, text).unwrap();
        (d, p)
    }

    #[test]
    fn owners_without_recipients_have_no_range() {
        let (_d, p) = file(
            "owners.csv",
            "owner,recipients,distance_min,distance_max,eps_lo,eps_hi,jumps,jumps_expected\n\
             3,0,,,,,0,0\n4,2,1,inf,0.1,4.5,3,7.25\n",
        );
        let o = read_owners(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        assert_eq!(o[0].range(), None);
        assert_eq!(o[1].range().map(|r| r.distance_max), Some(f64::INFINITY));
    }

    #[test]
    fn path_files_of_both_kinds() {
        let (_d, p) = file("p.csv", "sample,eps,v1,v2\n0,0.5,1,2\n0,1,3,4\n1,0.5,5,6\n");
        let t = read_paths(&p).unwrap();
        assert_eq!(
            (t.id_column.as_str(), t.dim, t.series.len()),
            ("sample", 2, 2)
        );
        assert_eq!(t.series[0].values, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(t.series[1].first_line, 4);
        std::fs::write(&p, "owner,eps,v1\n7,1,0\n7,0.5,0\n").unwrap();
        let m = read_paths(&p).unwrap_err().to_string();
        assert!(
            m.ends_with(":3: levels of owner '7' must ascend: 0.5 after 1"),
            "{m}"
        );
        std::fs::write(&p, "owner,eps\n").unwrap();
        let m = read_paths(&p).unwrap_err().to_string();
        assert!(m.contains("expected a header 'sample,eps,v1..vn'"), "{m}");
        std::fs::remove_file(&p).unwrap();
    }
}
