//! Reading the CSV and JSON files that `simulate` and `collude` write, with
//! errors that name the file, the line, the column and the offending text.
//! Columns are found by name (extra columns are ignored, so the writers may
//! grow); numbers are parsed as `f64` (`inf` and `NaN` are accepted and left to
//! the figures to skip).

use crate::epsilon::EpsilonMap;
use crate::process::Norm;
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One data row with its 1-based line, columns addressed by position in the
/// list of names the reader asked for.
pub(crate) struct Row<'a> {
    file: &'a Path,
    line: usize,
    rec: &'a csv::StringRecord,
    idx: &'a [usize],
    names: &'a [&'a str],
}

impl Row<'_> {
    /// 1-based line in the file.
    pub(crate) fn line(&self) -> usize {
        self.line
    }

    /// Text of requested column `k`.
    pub(crate) fn text(&self, k: usize) -> &str {
        self.rec.get(self.idx[k]).unwrap_or("")
    }

    /// Column `k` as a number.
    pub(crate) fn num(&self, k: usize) -> Result<f64> {
        let t = self.text(k);
        t.parse::<f64>().map_err(|_| {
            Error::input(
                self.file,
                self.line,
                format!("column '{}': expected a number, found '{t}'", self.names[k]),
            )
        })
    }

    /// Column `k` as a non-negative integer.
    pub(crate) fn count(&self, k: usize) -> Result<u64> {
        let t = self.text(k);
        t.parse::<u64>().map_err(|_| {
            Error::input(
                self.file,
                self.line,
                format!(
                    "column '{}': expected a non-negative integer, found '{t}'",
                    self.names[k]
                ),
            )
        })
    }

    /// An error about this row.
    pub(crate) fn error(&self, message: impl Into<String>) -> Error {
        Error::input(self.file, self.line, message)
    }
}

fn csv_error(file: &Path, e: csv::Error) -> Error {
    let line = e.position().map_or(0, |p| p.line() as usize);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => Error::io(file, io),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => Error::input(
            file,
            line,
            format!("expected {expected_len} fields (as in the header), found {len}"),
        ),
        csv::ErrorKind::Utf8 { err, .. } => {
            Error::input(file, line, format!("invalid UTF-8: {err}"))
        }
        other => Error::input(file, line, format!("malformed CSV: {other:?}")),
    }
}

/// Reads `file`, which must have the columns `names` (any order, extra
/// columns allowed), calling `each` per data row.
pub(crate) fn read_csv(
    file: &Path,
    names: &[&str],
    mut each: impl FnMut(&Row<'_>) -> Result<()>,
) -> Result<()> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_path(file)
        .map_err(|e| csv_error(file, e))?;
    let header = rdr.headers().map_err(|e| csv_error(file, e))?.clone();
    let idx = columns(file, &header, names)?;
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => return Ok(()),
            Ok(true) => {
                let line = rec.position().map_or(0, |p| p.line() as usize);
                each(&Row {
                    file,
                    line,
                    rec: &rec,
                    idx: &idx,
                    names,
                })?;
            }
            Err(e) => return Err(csv_error(file, e)),
        }
    }
}

fn columns(file: &Path, header: &csv::StringRecord, names: &[&str]) -> Result<Vec<usize>> {
    let mut idx = Vec::with_capacity(names.len());
    for name in names {
        match header.iter().position(|h| h == *name) {
            Some(i) => idx.push(i),
            None => {
                let found: Vec<&str> = header.iter().collect();
                return Err(Error::input(
                    file,
                    1,
                    format!(
                        "missing column '{name}': expected a header with {}, found '{}'",
                        names.join(","),
                        found.join(",")
                    ),
                ));
            }
        }
    }
    Ok(idx)
}

/// A row of `by_distance.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct BucketRow {
    /// `correlated`, `independent` or `gaussian`.
    pub mechanism: String,
    /// Lower edge of the distance bucket (= upper for hop distances).
    pub distance_lo: f64,
    /// Upper edge of the distance bucket.
    pub distance_hi: f64,
    /// Responses in the bucket.
    pub count: u64,
    /// Mean ε of the responses.
    pub mean_eps: f64,
    /// Empirical MSE.
    pub mse: f64,
    /// Standard error of `mse` (owners as clusters).
    pub mse_se: f64,
    /// Theoretical MSE.
    pub mse_theory: f64,
}

/// Reads `by_distance.csv`.
pub fn read_by_distance(file: &Path) -> Result<Vec<BucketRow>> {
    const C: [&str; 8] = [
        "mechanism",
        "distance_lo",
        "distance_hi",
        "count",
        "mean_eps",
        "mse",
        "mse_se",
        "mse_theory",
    ];
    let mut out = Vec::new();
    read_csv(file, &C, |r| {
        out.push(BucketRow {
            mechanism: r.text(0).to_string(),
            distance_lo: r.num(1)?,
            distance_hi: r.num(2)?,
            count: r.count(3)?,
            mean_eps: r.num(4)?,
            mse: r.num(5)?,
            mse_se: r.num(6)?,
            mse_theory: r.num(7)?,
        });
        Ok(())
    })?;
    Ok(out)
}

/// A row of `jumps.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct JumpRow {
    /// Owner id (original node id).
    pub owner: String,
    /// Level of the jump.
    pub eps: f64,
    /// Distance at which ε(d) equals the jump's level.
    pub distance: f64,
    /// Size of the jump.
    pub jump_norm: f64,
}

/// Reads `jumps.csv`.
pub fn read_jumps(file: &Path) -> Result<Vec<JumpRow>> {
    let mut out = Vec::new();
    read_csv(file, &["owner", "eps", "distance", "jump_norm"], |r| {
        out.push(JumpRow {
            owner: r.text(0).to_string(),
            eps: r.num(1)?,
            distance: r.num(2)?,
            jump_norm: r.num(3)?,
        });
        Ok(())
    })?;
    Ok(out)
}

/// A row of `owners.csv`: the range one owner's path covers.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerRow {
    /// Owner id.
    pub owner: String,
    /// Recipients answered.
    pub recipients: u64,
    /// Smallest recipient distance.
    pub distance_min: f64,
    /// Largest recipient distance.
    pub distance_max: f64,
    /// ε at `distance_max` (bottom of the path).
    pub eps_lo: f64,
    /// ε at `distance_min` (top of the path).
    pub eps_hi: f64,
    /// Jumps of the sampled path.
    pub jumps: u64,
    /// Expected jumps, λ·ln(eps_hi/eps_lo).
    pub jumps_expected: f64,
}

/// Reads `owners.csv`.
pub fn read_owners(file: &Path) -> Result<Vec<OwnerRow>> {
    const C: [&str; 8] = [
        "owner",
        "recipients",
        "distance_min",
        "distance_max",
        "eps_lo",
        "eps_hi",
        "jumps",
        "jumps_expected",
    ];
    let mut out = Vec::new();
    read_csv(file, &C, |r| {
        out.push(OwnerRow {
            owner: r.text(0).to_string(),
            recipients: r.count(1)?,
            distance_min: r.num(2)?,
            distance_max: r.num(3)?,
            eps_lo: r.num(4)?,
            eps_hi: r.num(5)?,
            jumps: r.count(6)?,
            jumps_expected: r.num(7)?,
        });
        Ok(())
    })?;
    Ok(out)
}

/// One path of a `paths.csv` (owner) or `privdiffuse path` CSV (sample):
/// breakpoints in ascending ε, row `i`'s value holding on `[eps[i], eps[i+1])`.
#[derive(Clone, Debug, PartialEq)]
pub struct PathSeries {
    /// Owner or sample id.
    pub id: String,
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
    /// The paths.
    pub series: Vec<PathSeries>,
}

/// Reads a path CSV: `owner,eps,v1..vn` (`paths.csv`) or `sample,eps,v1..vn`
/// (`privdiffuse path`). Levels must ascend within each path.
pub fn read_paths(file: &Path) -> Result<PathTable> {
    // Peek at the header to learn n and the id column.
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_path(file)
        .map_err(|e| csv_error(file, e))?;
    let header = rdr.headers().map_err(|e| csv_error(file, e))?.clone();
    drop(rdr);
    let id_column = if header.iter().any(|h| h == "owner") {
        "owner"
    } else {
        "sample"
    };
    let mut dim = 0;
    while header.iter().any(|h| h == format!("v{}", dim + 1)) {
        dim += 1;
    }
    if dim == 0 {
        return Err(Error::input(
            file,
            1,
            format!(
                "expected a header 'sample,eps,v1..vn' or 'owner,eps,v1..vn', found '{}'",
                header.iter().collect::<Vec<_>>().join(",")
            ),
        ));
    }
    let vnames: Vec<String> = (1..=dim).map(|i| format!("v{i}")).collect();
    let mut names: Vec<&str> = vec![id_column, "eps"];
    names.extend(vnames.iter().map(String::as_str));
    let mut series: Vec<PathSeries> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    read_csv(file, &names, |r| {
        let id = r.text(0);
        let k = match index.get(id) {
            Some(&k) => k,
            None => {
                index.insert(id.to_string(), series.len());
                series.push(PathSeries {
                    id: id.to_string(),
                    eps: Vec::new(),
                    values: Vec::new(),
                    first_line: r.line(),
                });
                series.len() - 1
            }
        };
        let eps = r.num(1)?;
        if !(eps.is_finite() && eps > 0.0) {
            return Err(r.error(format!("column 'eps': expected a level > 0, found '{eps}'")));
        }
        let s = &mut series[k];
        if let Some(&last) = s.eps.last() {
            if eps <= last {
                return Err(r.error(format!(
                    "levels of {id_column} '{id}' must ascend: {eps} after {last}"
                )));
            }
        }
        s.eps.push(eps);
        for j in 0..dim {
            s.values.push(r.num(2 + j)?);
        }
        Ok(())
    })?;
    Ok(PathTable {
        id_column: id_column.to_string(),
        dim,
        series,
    })
}

/// A row of `ego.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct EgoRow {
    /// Owner id, when the file has an `owner` column (otherwise the first
    /// owner of `owners.csv`).
    pub owner: Option<String>,
    /// Recipient id.
    pub recipient: String,
    /// Distance from the owner.
    pub distance: f64,
    /// ε of the answer.
    pub eps: f64,
    /// Error of the answer, ‖y − u‖.
    pub error_norm: f64,
}

/// Reads `ego.csv` (`recipient,distance,eps,error_norm`, optional `owner`).
pub fn read_ego(file: &Path) -> Result<Vec<EgoRow>> {
    let has_owner = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_path(file)
        .and_then(|mut r| r.headers().map(|h| h.iter().any(|c| c == "owner")))
        .map_err(|e| csv_error(file, e))?;
    let mut names = vec!["recipient", "distance", "eps", "error_norm"];
    if has_owner {
        names.push("owner");
    }
    let mut out = Vec::new();
    read_csv(file, &names, |r| {
        out.push(EgoRow {
            owner: has_owner.then(|| r.text(4).to_string()),
            recipient: r.text(0).to_string(),
            distance: r.num(1)?,
            eps: r.num(2)?,
            error_norm: r.num(3)?,
        });
        Ok(())
    })?;
    Ok(out)
}

/// A row of `coalition.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct CoalitionRow {
    /// Owner id.
    pub owner: String,
    /// Coalition spec label (e.g. `far:min-d=3`).
    pub coalition: String,
    /// Members.
    pub size: u64,
    /// Largest member ε.
    pub eps_max: f64,
    /// Sum of member ε.
    pub eps_sum: f64,
    /// Mechanism.
    pub mechanism: String,
    /// Estimator.
    pub estimator: String,
    /// MSE of the estimator.
    pub mse: f64,
    /// MSE(best member) / MSE(estimator).
    pub gain: f64,
    /// Lower end of the 95% interval of `gain`.
    pub gain_lo: f64,
    /// Upper end of the 95% interval of `gain`.
    pub gain_hi: f64,
    /// Share of trials where the estimate beats the best member.
    pub win_rate: f64,
}

/// Reads `coalition.csv`.
pub fn read_coalition(file: &Path) -> Result<Vec<CoalitionRow>> {
    const C: [&str; 12] = [
        "owner",
        "coalition",
        "size",
        "eps_max",
        "eps_sum",
        "mechanism",
        "estimator",
        "mse",
        "gain",
        "gain_lo",
        "gain_hi",
        "win_rate",
    ];
    let mut out = Vec::new();
    read_csv(file, &C, |r| {
        out.push(CoalitionRow {
            owner: r.text(0).to_string(),
            coalition: r.text(1).to_string(),
            size: r.count(2)?,
            eps_max: r.num(3)?,
            eps_sum: r.num(4)?,
            mechanism: r.text(5).to_string(),
            estimator: r.text(6).to_string(),
            mse: r.num(7)?,
            gain: r.num(8)?,
            gain_lo: r.num(9)?,
            gain_hi: r.num(10)?,
            win_rate: r.num(11)?,
        });
        Ok(())
    })?;
    Ok(out)
}

/// What the figures need from `summary.json` (every field optional: the file
/// is read as loose JSON, extra fields are ignored).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    /// The file it came from.
    pub file: PathBuf,
    /// `eps_map.spec`: the resolved privacy map.
    pub eps_spec: Option<String>,
    /// `config.eps_min` clamp.
    pub eps_min: Option<f64>,
    /// `config.eps_max` clamp.
    pub eps_max: Option<f64>,
    /// `config.dim`.
    pub dim: Option<usize>,
    /// `config.norm`.
    pub norm: Option<Norm>,
    /// `config.distance` (`hop`, `weighted`, `resistance`, ...).
    pub distance: Option<String>,
    /// `config.sensitivity` Δ: answers carry noise of scale Δ/ε.
    pub sensitivity: Option<f64>,
}

impl RunSummary {
    /// Reads `summary.json`.
    pub fn read(file: &Path) -> Result<RunSummary> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::io(file, e))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Error::input(file, e.line(), format!("invalid JSON: {e}")))?;
        let config = &v["config"];
        let num = |x: &serde_json::Value| x.as_f64();
        let norm = match config["norm"].as_str() {
            Some(s) => Some(s.parse::<Norm>().map_err(|_| {
                Error::input(
                    file,
                    0,
                    format!("config.norm: expected l1 or l2, found '{s}'"),
                )
            })?),
            None => None,
        };
        Ok(RunSummary {
            file: file.to_path_buf(),
            eps_spec: v["eps_map"]["spec"].as_str().map(String::from),
            eps_min: num(&config["eps_min"]),
            eps_max: num(&config["eps_max"]),
            dim: config["dim"].as_u64().map(|d| d as usize),
            norm,
            distance: config["distance"].as_str().map(String::from),
            sensitivity: num(&config["sensitivity"]),
        })
    }

    /// The privacy map of the run (spec plus clamps), if recorded.
    pub fn map(&self) -> Result<Option<EpsilonMap>> {
        let Some(spec) = &self.eps_spec else {
            return Ok(None);
        };
        let map = EpsilonMap::parse(spec)
            .and_then(|m| m.with_clamp(self.eps_min, self.eps_max))
            .map_err(|e| Error::input(&self.file, 0, format!("eps_map.spec: {e}")))?;
        if map.needs_resolution() {
            return Ok(None);
        }
        Ok(Some(map))
    }

    /// Jump rate λ per unit of ln ε: 2n (ℓ1) or n + 1 (ℓ2).
    pub fn jump_rate(&self) -> Option<f64> {
        Some(self.norm?.jump_rate(self.dim?))
    }

    /// Axis text for distances, with the unit of the distance kind.
    pub fn distance_label(&self) -> String {
        distance_label(self.distance.as_deref())
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
