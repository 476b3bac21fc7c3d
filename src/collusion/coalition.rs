//! Coalitions ([`Coalition`], parameter `coalition`): which recipients
//! collude, as a spec (`FromStr` reads the grammar below, `Display` writes the
//! canonical spec) or a constructor, and who they are for a given owner
//! ([`Coalition::select`] → [`CoalitionMembers`]).
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

use crate::error::{Error, Result};
use crate::graph::NodeIds;
use crate::rng::{Purpose, rng_for_stream, splitmix64};

const KINDS: &str =
    "far:min-d=X, band:d=X, random:m=M[,min-d=X], nearest:m=M, sybil:m=M,d=X or file:PATH";

/// Which recipients collude: validated when built ([`Coalition::far`], …, or
/// parsed from a spec), resolved per owner by [`Coalition::select`].
#[derive(Clone, Debug, PartialEq)]
pub struct Coalition {
    /// The spec as written (trimmed), or the canonical spec when constructed:
    /// the label in output files.
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
pub struct CoalitionMembers {
    /// The spec text it came from (for output files).
    pub label: String,
    /// Members, by node index (sybils in account order).
    pub members: Vec<Member>,
}

impl CoalitionMembers {
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
    Error::param("coalition", spec, expected)
}

impl Coalition {
    fn of(kind: Kind) -> Result<Coalition> {
        let text = canonical(&kind);
        check_kind(&text, &kind)?;
        Ok(Coalition { text, kind })
    }

    /// Every node at distance ≥ `min_d` (spec `far:min-d=X`).
    pub fn far(min_d: f64) -> Result<Coalition> {
        Coalition::of(Kind::Far { min_d })
    }

    /// Every node at distance `d` (spec `band:d=X`; ±width/2 for continuous
    /// distances).
    pub fn band(d: f64) -> Result<Coalition> {
        Coalition::of(Kind::Band { d })
    }

    /// `m` ≥ 1 nodes drawn uniformly (seeded), optionally among those at
    /// distance ≥ `min_d` (spec `random:m=M[,min-d=X]`).
    pub fn random(m: usize, min_d: Option<f64>) -> Result<Coalition> {
        Coalition::of(Kind::Random { m, min_d })
    }

    /// The `m` ≥ 1 closest nodes, ties by node index (spec `nearest:m=M`).
    pub fn nearest(m: usize) -> Result<Coalition> {
        Coalition::of(Kind::Nearest { m })
    }

    /// `m` ≥ 1 fake accounts all at distance `d` (spec `sybil:m=M,d=X`).
    pub fn sybil(m: usize, d: f64) -> Result<Coalition> {
        Coalition::of(Kind::Sybil { m, d })
    }

    /// The node ids listed in a file, one per line, `#` comments (spec
    /// `file:PATH`); the file is read now, its ids resolved per graph.
    pub fn file(path: impl Into<PathBuf>) -> Result<Coalition> {
        let path = path.into();
        let ids = read_id_file(&path)?;
        Coalition::of(Kind::File { path, ids })
    }

    /// Parses a spec (see the module table). `file:` reads the id list now;
    /// ids are resolved against the graph in [`Coalition::select`].
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
            return Ok(Coalition {
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
                    format!(
                        "a known kind: {KINDS} (got kind '{kind}'){}",
                        crate::util::suggest::did_you_mean(
                            &kind,
                            &["far", "band", "random", "nearest", "sybil", "file"]
                        )
                    ),
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
        Ok(Coalition { text, kind })
    }

    /// The spec as written (trimmed), or the canonical spec of a constructed
    /// coalition: its label in output files and `summary.json`.
    pub fn label(&self) -> &str {
        &self.text
    }

    /// The number of members the spec states (`m` of `random:`, `nearest:`
    /// and `sybil:`, the ids of `file:`), or `None` when the graph decides
    /// (`far:`, `band:`). An upper bound: an owner may have fewer candidates.
    pub fn members_hint(&self) -> Option<usize> {
        match &self.kind {
            Kind::Random { m, .. } | Kind::Nearest { m } | Kind::Sybil { m, .. } => Some(*m),
            Kind::File { ids, .. } => Some(ids.len()),
            Kind::Far { .. } | Kind::Band { .. } => None,
        }
    }

    /// The key of this coalition's random streams (member selection of
    /// `random:`, every trial's noise): a stable 64-bit hash of the canonical
    /// spec ([`Display`](fmt::Display): `random:m=10,min-d=2` however it was
    /// spelled) — FNV-1a 64 (offset basis `0xcbf29ce484222325`, prime
    /// `0x100000001b3`) over its UTF-8 bytes, then the `splitmix64`
    /// finaliser. Both are fixed integer arithmetic, so the key, and every
    /// number drawn under it, is the same on every platform and Rust version
    /// (unlike `std`'s `DefaultHasher`). A coalition's draws therefore depend on
    /// its spec, the owner, the trial and the seed, never on its position in
    /// a list of coalitions.
    ///
    /// ```
    /// use privdiffuse::Coalition;
    /// let a: Coalition = "random:m=10".parse()?;
    /// let b: Coalition = " random: m = 10 ".parse()?;
    /// assert_eq!(a.stream_key(), b.stream_key());
    /// assert_ne!(a.stream_key(), "random:m=20".parse::<Coalition>()?.stream_key());
    /// # Ok::<(), privdiffuse::Error>(())
    /// ```
    pub fn stream_key(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in canonical(&self.kind).bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        splitmix64(h)
    }

    /// Selects the members for `owner`. `dist[v]` is the distance from the
    /// owner to node v (∞ if unreachable), one entry per node of `ids`.
    /// `band_width`: `None` for integer distances (band = exact match),
    /// `Some(w)` for continuous ones (band = |d_v − X| ≤ w/2). `random` draws
    /// from `rng_for_stream(seed, owner, 0, Purpose::Coalition,
    /// self.stream_key())`: the members depend on the spec, the owner and the
    /// seed, never on the other coalitions of a run or their order.
    pub fn select(
        &self,
        owner: u32,
        dist: &[f64],
        band_width: Option<f64>,
        ids: &NodeIds,
        seed: u64,
    ) -> Result<CoalitionMembers> {
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
                let mut rng = rng_for_stream(
                    seed,
                    u64::from(owner),
                    0,
                    Purpose::Coalition,
                    self.stream_key(),
                );
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
        Ok(CoalitionMembers {
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

impl Coalition {
    /// The size a coalition asks for, when its spec sets one: `m` for
    /// `sybil` (its accounts are not nodes: `m` is the size), `min(m,
    /// others)` for `random` and `nearest` when the owner has `others` other
    /// nodes; `None` for the kinds whose size only the distances decide. For
    /// memory estimates made before selection (see `crate::limits`).
    pub fn requested_size(&self, others: usize) -> Option<usize> {
        match &self.kind {
            Kind::Sybil { m, .. } => Some(*m),
            Kind::Random { m, .. } | Kind::Nearest { m } => Some((*m).min(others)),
            Kind::File { .. } | Kind::Far { .. } | Kind::Band { .. } => None,
        }
    }

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

/// The canonical spec: the kind, then its keys in the grammar's order.
fn canonical(kind: &Kind) -> String {
    use crate::util::fmt_f64 as f;
    match kind {
        Kind::Far { min_d } => format!("far:min-d={}", f(*min_d)),
        Kind::Band { d } => format!("band:d={}", f(*d)),
        Kind::Random { m, min_d: None } => format!("random:m={m}"),
        Kind::Random { m, min_d: Some(x) } => format!("random:m={m},min-d={}", f(*x)),
        Kind::Nearest { m } => format!("nearest:m={m}"),
        Kind::Sybil { m, d } => format!("sybil:m={m},d={}", f(*d)),
        Kind::File { path, .. } => format!("file:{}", path.display()),
    }
}

/// The checks of a constructed coalition (the parser makes the same ones).
fn check_kind(spec: &str, kind: &Kind) -> Result<()> {
    let dist = |key: &str, x: f64| {
        if x.is_finite() && x >= 0.0 {
            Ok(())
        } else {
            Err(bad(spec, format!("{key} a finite distance ≥ 0, got '{x}'")))
        }
    };
    let count = |m: usize| {
        if m >= 1 {
            Ok(())
        } else {
            Err(bad(spec, format!("m a whole number ≥ 1, got '{m}'")))
        }
    };
    match kind {
        Kind::Far { min_d } => dist("min-d", *min_d),
        Kind::Band { d } => dist("d", *d),
        Kind::Random { m, min_d } => {
            count(*m)?;
            min_d.map_or(Ok(()), |x| dist("min-d", x))
        }
        Kind::Nearest { m } => count(*m),
        Kind::Sybil { m, d } => {
            count(*m)?;
            dist("d", *d)
        }
        Kind::File { path, .. } if path.as_os_str().is_empty() => {
            Err(bad(spec, "file:PATH with a non-empty path"))
        }
        Kind::File { .. } => Ok(()),
    }
}

impl fmt::Display for Coalition {
    /// The canonical spec (`far:min-d=4`), whatever spacing it was written with.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&canonical(&self.kind))
    }
}

impl std::str::FromStr for Coalition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Coalition::parse(s)
    }
}

/// `summary.json` records a coalition as its label (the spec as written), as
/// it always did; reading it back parses the spec again.
impl serde::Serialize for Coalition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> serde::Deserialize<'de> for Coalition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        Coalition::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Reads a member-id file: one id per line, `#` to end of line is a comment,
/// blank lines ignored. Keeps the 1-based line number for error messages.
fn read_id_file(path: &Path) -> Result<Vec<(String, usize)>> {
    let mut lines = crate::util::lines::TextLines::open(path)?;
    let mut ids = Vec::new();
    let mut bytes = 0u64;
    while let Some((line_no, line)) = lines.next_line()? {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.split_whitespace().nth(1).is_some() {
            return Err(Error::input(
                path,
                line_no,
                format!(
                    "expected one node id per line, got '{}'",
                    crate::util::lines::one_line(line)
                ),
            ));
        }
        ids.push((line.to_string(), line_no));
        // The list, its strings and the members they become.
        bytes += line.len() as u64 + 48;
        if ids.len() % (1 << 16) == 0 {
            crate::limits::check_memory(
                "coalition",
                format!(
                    "file:{} ({} ids by line {line_no})",
                    path.display(),
                    ids.len()
                ),
                bytes,
            )?;
        }
    }
    Ok(ids)
}
