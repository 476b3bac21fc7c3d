//! Coalition specifications (`--coalition SPEC`) and member selection.
//!
//! | spec | members (never the owner, never unreachable nodes) |
//! |---|---|
//! | `far:min-d=X` | every node at distance ≥ X — "a large group of distant users" |
//! | `band:d=X` | every node at distance X (exactly for integer distances, within ±width/2 for continuous ones) |
//! | `random:m=M[,min-d=X]` | M nodes drawn uniformly without replacement (seeded), optionally among those at distance ≥ X |
//! | `nearest:m=M` | the M closest nodes; ties broken by node index |
//! | `sybil:m=M,d=X` | M fake recipients, all at distance X (one distant adversary with many accounts) |
//! | `file:PATH` | the node ids listed in PATH, one per line (`#` starts a comment) |
//!
//! Members are listed by node index (sybils have no node). An empty coalition is
//! a valid result, to be reported, not an error.

use std::fmt;
use std::path::{Path, PathBuf};

use rand::RngExt;

use crate::graph::NodeIds;
use crate::rng::{Purpose, rng_for};
use crate::{Error, Result};

const KINDS: &str =
    "far:min-d=X, band:d=X, random:m=M[,min-d=X], nearest:m=M, sybil:m=M,d=X or file:PATH";

/// A parsed `--coalition` value.
#[derive(Clone, Debug, PartialEq)]
pub struct CoalitionSpec {
    text: String,
    kind: Kind,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Far {
        min_d: f64,
    },
    Band {
        d: f64,
    },
    Random {
        m: usize,
        min_d: Option<f64>,
    },
    Nearest {
        m: usize,
    },
    Sybil {
        m: usize,
        d: f64,
    },
    File {
        path: PathBuf,
        ids: Vec<(String, usize)>,
    },
}

/// One coalition member.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    /// Node index; `None` for a sybil account.
    pub node: Option<u32>,
    /// Distance from the owner.
    pub distance: f64,
}

/// The members selected for one owner.
#[derive(Clone, Debug, PartialEq)]
pub struct Coalition {
    /// The spec text it came from (for output files).
    pub label: String,
    /// Members, by node index (sybils in account order).
    pub members: Vec<Member>,
}

impl Coalition {
    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether nobody qualified.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
}

fn bad(spec: &str, expected: impl Into<String>) -> Error {
    Error::param("coalition spec", spec, expected)
}

impl CoalitionSpec {
    /// Parses a spec (see the module table). `file:` reads the id list now;
    /// ids are resolved against the graph in [`CoalitionSpec::select`].
    pub fn parse(spec: &str) -> Result<Self> {
        let text = spec.trim().to_string();
        let Some((kind, rest)) = text.split_once(':') else {
            return Err(bad(spec, format!("KIND:PARAMS, one of {KINDS}")));
        };
        let kind = kind.trim().to_ascii_lowercase();
        if kind == "file" {
            let path = PathBuf::from(rest.trim());
            if rest.trim().is_empty() {
                return Err(bad(spec, "file:PATH with a non-empty path"));
            }
            let ids = read_id_file(&path)?;
            return Ok(CoalitionSpec {
                text,
                kind: Kind::File { path, ids },
            });
        }
        let allowed: &[&str] = match kind.as_str() {
            "far" => &["min-d"],
            "band" => &["d"],
            "random" => &["m", "min-d"],
            "nearest" => &["m"],
            "sybil" => &["m", "d"],
            _ => {
                return Err(bad(
                    spec,
                    format!("a known kind: {KINDS} (got kind '{kind}')"),
                ));
            }
        };
        let mut vals: Vec<(&str, &str)> = Vec::new();
        for item in rest.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((k, v)) = item.split_once('=') else {
                return Err(bad(spec, format!("KEY=VALUE items, got '{item}'")));
            };
            let (k, v) = (k.trim(), v.trim());
            let Some(&key) = allowed.iter().find(|a| **a == k) else {
                return Err(bad(
                    spec,
                    format!(
                        "keys {} for kind '{kind}' (unknown key '{k}')",
                        allowed.join(", ")
                    ),
                ));
            };
            if vals.iter().any(|(x, _)| *x == key) {
                return Err(bad(spec, format!("key '{key}' given once")));
            }
            vals.push((key, v));
        }
        let get = |key: &str| vals.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        let need =
            |key: &str| get(key).ok_or_else(|| bad(spec, format!("key '{key}' for kind '{kind}'")));
        let dist = |key: &str, v: &str| -> Result<f64> {
            match v.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(bad(spec, format!("{key} a finite distance ≥ 0, got '{v}'"))),
            }
        };
        let count = |v: &str| -> Result<usize> {
            match v.parse::<usize>() {
                Ok(m) if m >= 1 => Ok(m),
                _ => Err(bad(spec, format!("m a whole number ≥ 1, got '{v}'"))),
            }
        };
        let kind = match kind.as_str() {
            "far" => Kind::Far {
                min_d: dist("min-d", need("min-d")?)?,
            },
            "band" => Kind::Band {
                d: dist("d", need("d")?)?,
            },
            "random" => Kind::Random {
                m: count(need("m")?)?,
                min_d: get("min-d").map(|v| dist("min-d", v)).transpose()?,
            },
            "nearest" => Kind::Nearest {
                m: count(need("m")?)?,
            },
            _ => Kind::Sybil {
                m: count(need("m")?)?,
                d: dist("d", need("d")?)?,
            },
        };
        Ok(CoalitionSpec { text, kind })
    }

    /// The spec as written (trimmed); used as the coalition label.
    pub fn label(&self) -> &str {
        &self.text
    }

    /// Selects the members for `owner`. `dist[v]` is the distance from the
    /// owner to node v (∞ if unreachable), one entry per node of `ids`.
    /// `band_width`: `None` for integer distances (band = exact match),
    /// `Some(w)` for continuous ones (band = |d_v − X| ≤ w/2). `random` draws
    /// from `rng_for(seed, owner, 0, Purpose::Coalition)`.
    pub fn select(
        &self,
        owner: u32,
        dist: &[f64],
        band_width: Option<f64>,
        ids: &NodeIds,
        seed: u64,
    ) -> Result<Coalition> {
        if dist.len() != ids.len() {
            return Err(Error::param(
                "distance row",
                format!("{} entries", dist.len()),
                format!("one per node ({})", ids.len()),
            ));
        }
        if owner as usize >= dist.len() {
            return Err(Error::param(
                "owner index",
                owner,
                format!("< {}", dist.len()),
            ));
        }
        if let Some(w) = band_width
            && !(w.is_finite() && w >= 0.0)
        {
            return Err(Error::param("band width", w, "a finite number ≥ 0"));
        }
        let eligible = |v: usize| v != owner as usize && dist[v].is_finite();
        let member = |v: usize| Member {
            node: Some(v as u32),
            distance: dist[v],
        };
        let members: Vec<Member> = match &self.kind {
            Kind::Far { min_d } => (0..dist.len())
                .filter(|&v| eligible(v) && dist[v] >= *min_d)
                .map(member)
                .collect(),
            Kind::Band { d } => {
                let hit = |x: f64| match band_width {
                    None => x == *d,
                    Some(w) => (x - d).abs() <= 0.5 * w,
                };
                (0..dist.len())
                    .filter(|&v| eligible(v) && hit(dist[v]))
                    .map(member)
                    .collect()
            }
            Kind::Random { m, min_d } => {
                let mut pool: Vec<u32> = (0..dist.len())
                    .filter(|&v| eligible(v) && min_d.is_none_or(|x| dist[v] >= x))
                    .map(|v| v as u32)
                    .collect();
                let k = (*m).min(pool.len());
                let mut rng = rng_for(seed, u64::from(owner), 0, Purpose::Coalition);
                // Partial Fisher–Yates: the first k entries are a uniform k-subset.
                for i in 0..k {
                    let j = rng.random_range(i..pool.len());
                    pool.swap(i, j);
                }
                pool.truncate(k);
                pool.sort_unstable();
                pool.into_iter().map(|v| member(v as usize)).collect()
            }
            Kind::Nearest { m } => {
                let mut pool: Vec<u32> = (0..dist.len())
                    .filter(|&v| eligible(v))
                    .map(|v| v as u32)
                    .collect();
                let by_dist = |a: &u32, b: &u32| {
                    dist[*a as usize]
                        .total_cmp(&dist[*b as usize])
                        .then(a.cmp(b))
                };
                if *m < pool.len() {
                    pool.select_nth_unstable_by(*m, by_dist);
                    pool.truncate(*m);
                }
                pool.sort_unstable();
                pool.into_iter().map(|v| member(v as usize)).collect()
            }
            Kind::Sybil { m, d } => vec![
                Member {
                    node: None,
                    distance: *d,
                };
                *m
            ],
            Kind::File { path, ids: list } => {
                let mut nodes = resolve_file_ids(path, list, ids)?;
                nodes.sort_unstable();
                nodes.dedup();
                nodes
                    .into_iter()
                    .filter(|&v| eligible(v as usize))
                    .map(|v| member(v as usize))
                    .collect()
            }
        };
        Ok(Coalition {
            label: self.text.clone(),
            members,
        })
    }
}

/// Maps a coalition file's ids to node indices; unknown ids are an input error
/// naming the file, the first offending line and up to five ids.
fn resolve_file_ids(path: &Path, list: &[(String, usize)], ids: &NodeIds) -> Result<Vec<u32>> {
    let mut nodes = Vec::with_capacity(list.len());
    let mut unknown: Vec<&(String, usize)> = Vec::new();
    for entry in list {
        match ids.index_of(&entry.0) {
            Some(v) => nodes.push(v),
            None => unknown.push(entry),
        }
    }
    if let Some(first) = unknown.first() {
        let shown: Vec<String> = unknown
            .iter()
            .take(5)
            .map(|(s, l)| format!("'{s}' (line {l})"))
            .collect();
        let more = if unknown.len() > 5 {
            format!(" and {} more", unknown.len() - 5)
        } else {
            String::new()
        };
        return Err(Error::input(
            path,
            first.1,
            format!(
                "{} unknown node id(s) in coalition file: {}{more}; expected ids of the graph",
                unknown.len(),
                shown.join(", ")
            ),
        ));
    }
    Ok(nodes)
}

impl CoalitionSpec {
    /// Checks everything about the spec that depends on the graph but not on
    /// the owner (today: that a `file:` list names only nodes of the graph), so
    /// a run can fail before it writes anything.
    pub fn check(&self, ids: &NodeIds) -> Result<()> {
        match &self.kind {
            Kind::File { path, ids: list } => resolve_file_ids(path, list, ids).map(|_| ()),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for CoalitionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::str::FromStr for CoalitionSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        CoalitionSpec::parse(s)
    }
}

/// Reads a member-id file: one id per line, `#` to end of line is a comment,
/// blank lines ignored. Keeps the 1-based line number for error messages.
fn read_id_file(path: &Path) -> Result<Vec<(String, usize)>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut ids = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.split_whitespace().nth(1).is_some() {
            return Err(Error::input(
                path,
                i + 1,
                format!("expected one node id per line, got '{line}'"),
            ));
        }
        ids.push((line.to_string(), i + 1));
    }
    Ok(ids)
}
