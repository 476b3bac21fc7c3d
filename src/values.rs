//! Private values `u_i ∈ Rⁿ` of the data owners ([`ValueSpec`], parameter
//! `values`; `FromStr` reads the spec grammar, `Display` writes it back):
//!
//! | spec | values |
//! |---|---|
//! | `file:PATH` | CSV `node,v1..vn` (original ids; optional header); every node exactly once |
//! | `coords` | the `STEM.coords.csv` written next to a generated graph (`node,x,y`; n = 2) |
//! | `auto` | `coords` when that file exists and n = 2, else `uniform:0,1` |
//! | `uniform:LO,HI` | i.i.d. uniform coordinates |
//! | `normal:MEAN,SD` | i.i.d. Gaussian coordinates |
//! | `bits:P` | i.i.d. Bernoulli(P) coordinates in {0, 1} |
//! | `const:X` | every coordinate X |
//! | `infection:seeds=K,frac=P` | bits grown by BFS from K seeds ([`ValueModel`]) |
//! | `sir:seeds=K,beta=B,gamma=G` | bits: the ever-infected set of one SIR run ([`ValueModel`]) |
//! | `smooth:sd=S,steps=T` | normal values averaged T times over neighbourhoods ([`ValueModel`]) |
//!
//! Synthetic values of node `i` come from `rng_for(seed, i, 0, Purpose::Values)`,
//! so they do not depend on which owners are simulated or in what order. The
//! models drawn on the graph are drawn once, when the values are resolved
//! (see [`crate::value_models`]).

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::rng::{Purpose, rng_for};
use crate::util::fmt_f64;
pub use crate::value_models::ValueModel;
use rand::RngExt;
use std::path::{Path, PathBuf};

/// Where the owners' private values come from.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueSpec {
    /// CSV `node,v1..vn`.
    File(PathBuf),
    /// `STEM.coords.csv` beside the graph file.
    Coords,
    /// `coords` if available (and n = 2), else `uniform:0,1`.
    Auto,
    /// Uniform on `[lo, hi)`.
    Uniform {
        /// Lower end (included).
        lo: f64,
        /// Upper end (excluded).
        hi: f64,
    },
    /// Gaussian.
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        sd: f64,
    },
    /// Bernoulli(p) bits.
    Bits {
        /// Probability of a 1.
        p: f64,
    },
    /// A constant.
    Const {
        /// The value of every coordinate.
        x: f64,
    },
    /// Values given in memory (Python's `values=` array or dict): the
    /// `file:` table without a file, so that secrets never touch the disk.
    /// Its spec `given:NxD` names only the shape and cannot be read back.
    Given(GivenValues),
    /// A model drawn on the graph (`infection:`, `sir:`, `smooth:`).
    Model(ValueModel),
}

/// Values given in memory ([`ValueSpec::Given`]): `dim` numbers per node, in
/// the index order of the graph the run uses (as a `file:` table is stored
/// once read).
#[derive(Clone, Debug, PartialEq)]
pub struct GivenValues {
    dim: usize,
    values: std::sync::Arc<[f64]>,
}

impl GivenValues {
    /// `values` row-major, `dim` per node: refused unless `dim` ≥ 1 divides
    /// the length and every number is finite (parameter `values`; a number
    /// that is not is named by its row and column, counted from 0 as numpy
    /// does, never shown: a cell is a secret).
    pub fn new(values: Vec<f64>, dim: usize) -> Result<GivenValues> {
        if dim == 0 || !values.len().is_multiple_of(dim) {
            return Err(bad(
                &format!("{} numbers", values.len()),
                &format!("`dim` = {dim} numbers per node"),
            ));
        }
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            let (row, col) = (i / dim, i % dim);
            return Err(bad(
                &format!("(row {row}, column {col}: not shown)"),
                "finite numbers",
            ));
        }
        Ok(GivenValues {
            dim,
            values: values.into(),
        })
    }

    /// Numbers per node.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Nodes covered.
    pub fn nodes(&self) -> usize {
        self.values.len() / self.dim
    }

    /// The numbers, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.values
    }
}

fn bad(spec: &str, expected: &str) -> Error {
    Error::param("values", spec, expected)
}

const GRAMMAR: &str = "one of file:PATH | coords | auto | uniform:LO,HI | normal:MEAN,SD | bits:P | const:X \
     | infection:seeds=K,frac=P | sir:seeds=K,beta=B,gamma=G | smooth:sd=S,steps=T";

fn nums(spec: &str, body: &str, k: usize, expected: &str) -> Result<Vec<f64>> {
    let v: Vec<f64> = body
        .split(',')
        .map(|t| t.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| bad(spec, expected))?;
    if v.len() != k || v.iter().any(|x| !x.is_finite()) {
        return Err(bad(spec, expected));
    }
    Ok(v)
}

impl std::str::FromStr for ValueSpec {
    type Err = Error;
    fn from_str(spec: &str) -> Result<ValueSpec> {
        if let Some(model) = ValueModel::parse(spec) {
            return model.map(ValueSpec::Model);
        }
        let s = spec.trim();
        let (kind, body) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "file" if !body.is_empty() => Ok(ValueSpec::File(PathBuf::from(body))),
            "coords" if body.is_empty() => Ok(ValueSpec::Coords),
            "auto" if body.is_empty() => Ok(ValueSpec::Auto),
            "uniform" => {
                let v = nums(spec, body, 2, UNIFORM)?;
                if !uniform_ok(v[0], v[1]) {
                    return Err(bad(spec, UNIFORM));
                }
                Ok(ValueSpec::Uniform { lo: v[0], hi: v[1] })
            }
            "normal" => {
                let v = nums(spec, body, 2, "normal:MEAN,SD with SD ≥ 0")?;
                if v[1] < 0.0 {
                    return Err(bad(spec, "normal:MEAN,SD with SD ≥ 0"));
                }
                Ok(ValueSpec::Normal {
                    mean: v[0],
                    sd: v[1],
                })
            }
            "bits" => {
                let v = nums(spec, body, 1, "bits:P with 0 ≤ P ≤ 1")?;
                if !(0.0..=1.0).contains(&v[0]) {
                    return Err(bad(spec, "bits:P with 0 ≤ P ≤ 1"));
                }
                Ok(ValueSpec::Bits { p: v[0] })
            }
            "const" => Ok(ValueSpec::Const {
                x: nums(spec, body, 1, "const:X with a finite X")?[0],
            }),
            "given" => Err(bad(
                spec,
                "a spec that can be read back: values given in memory are not recorded \
                 (give them again, or write them to a file:PATH)",
            )),
            other => {
                let hint = crate::util::suggest::did_you_mean(
                    other,
                    &[
                        "file",
                        "coords",
                        "auto",
                        "uniform",
                        "normal",
                        "bits",
                        "const",
                        "infection",
                        "sir",
                        "smooth",
                    ],
                );
                Err(bad(spec, &format!("{GRAMMAR}{hint}")))
            }
        }
    }
}

/// What `uniform:` takes: the draw `lo + (hi − lo)·U` stays finite.
const UNIFORM: &str = "uniform:LO,HI with finite LO < HI and a finite width HI − LO";

/// Whether `uniform:lo,hi` draws finite values only: `uniform:-1e308,1e308`
/// has an infinite width, and every value it drew was ±inf (`evolve`
/// stored them; issue 32 item 5).
fn uniform_ok(lo: f64, hi: f64) -> bool {
    lo.is_finite() && hi.is_finite() && lo < hi && (hi - lo).is_finite()
}

impl ValueSpec {
    /// Checks a spec built from its variants (the parser makes the same
    /// checks): finite numbers, `lo < hi`, `sd ≥ 0`, `0 ≤ p ≤ 1`, a path.
    pub fn check(&self) -> Result<()> {
        let finite = |xs: &[f64]| xs.iter().all(|x| x.is_finite());
        let spec = self.to_string();
        match *self {
            ValueSpec::File(ref p) if p.as_os_str().is_empty() => Err(bad(&spec, GRAMMAR)),
            ValueSpec::Uniform { lo, hi } if !uniform_ok(lo, hi) => Err(bad(&spec, UNIFORM)),
            ValueSpec::Normal { mean, sd } if !(finite(&[mean, sd]) && sd >= 0.0) => {
                Err(bad(&spec, "normal:MEAN,SD with SD ≥ 0"))
            }
            ValueSpec::Bits { p } if !(0.0..=1.0).contains(&p) => {
                Err(bad(&spec, "bits:P with 0 ≤ P ≤ 1"))
            }
            ValueSpec::Const { x } if !x.is_finite() => Err(bad(&spec, "const:X with a finite X")),
            ValueSpec::Model(ref m) => m.check(),
            _ => Ok(()),
        }
    }
}

impl std::fmt::Display for ValueSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueSpec::File(p) => write!(f, "file:{}", p.display()),
            ValueSpec::Coords => f.write_str("coords"),
            ValueSpec::Auto => f.write_str("auto"),
            ValueSpec::Uniform { lo, hi } => write!(f, "uniform:{},{}", fmt_f64(*lo), fmt_f64(*hi)),
            ValueSpec::Normal { mean, sd } => {
                write!(f, "normal:{},{}", fmt_f64(*mean), fmt_f64(*sd))
            }
            ValueSpec::Bits { p } => write!(f, "bits:{}", fmt_f64(*p)),
            ValueSpec::Const { x } => write!(f, "const:{}", fmt_f64(*x)),
            ValueSpec::Given(v) => write!(f, "given:{}x{}", v.nodes(), v.dim()),
            ValueSpec::Model(m) => m.fmt(f),
        }
    }
}

// `summary.json` records the values as their spec.
crate::util::spec::serde_as_spec!(ValueSpec);

/// The coordinates file written next to a generated graph: `STEM.coords.csv`.
pub fn coords_path(graph_path: &Path) -> PathBuf {
    graph_path.with_extension("coords.csv")
}

/// The owners' private values, ready to query.
#[derive(Clone, Debug)]
pub struct Values {
    dim: usize,
    spec: ValueSpec,
    table: Option<Vec<f64>>,
    seed: u64,
}

impl Values {
    /// Resolves a spec against a graph: loads files, draws the models on the
    /// graph, checks the dimension, and turns `auto` into `coords` or
    /// `uniform:0,1`.
    pub fn resolve(
        spec: &ValueSpec,
        graph: &Graph,
        graph_path: &Path,
        dim: usize,
        seed: u64,
    ) -> Result<Values> {
        let spec = match spec {
            ValueSpec::Auto => {
                if dim == 2 && coords_path(graph_path).exists() {
                    ValueSpec::Coords
                } else {
                    ValueSpec::Uniform { lo: 0.0, hi: 1.0 }
                }
            }
            s => s.clone(),
        };
        let table = match &spec {
            ValueSpec::File(p) => Some(load_table(p, graph, dim)?),
            ValueSpec::Coords => {
                if dim != 2 {
                    return Err(Error::param(
                        "values",
                        "coords",
                        format!("`dim` = 2 (node coordinates are 2-D), got `dim` = {dim}"),
                    ));
                }
                let p = coords_path(graph_path);
                if !p.exists() {
                    return Err(Error::param(
                        "values",
                        "coords",
                        format!(
                            "a coordinates file {} next to the graph (written by `privdiffuse generate geometric`)",
                            p.display()
                        ),
                    ));
                }
                Some(load_table(&p, graph, 2)?)
            }
            ValueSpec::Given(v) => {
                if v.dim() != dim || v.nodes() != graph.n() {
                    return Err(bad(
                        &spec.to_string(),
                        &format!(
                            "{} nodes × `dim` = {dim} numbers (one row per node of the graph run on)",
                            graph.n()
                        ),
                    ));
                }
                Some(v.as_slice().to_vec())
            }
            ValueSpec::Model(m) => Some(m.draw(graph, dim, seed)?),
            _ => None,
        };
        Ok(Values {
            dim,
            spec,
            table,
            seed,
        })
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The resolved spec (never `auto`).
    pub fn spec(&self) -> &ValueSpec {
        &self.spec
    }

    /// Writes `u_node` into `out` (`out.len()` = n).
    pub fn value(&self, node: u32, out: &mut [f64]) {
        if let Some(t) = &self.table {
            out.copy_from_slice(&t[node as usize * self.dim..(node as usize + 1) * self.dim]);
            return;
        }
        let mut rng = rng_for(self.seed, node as u64, 0, Purpose::Values);
        for x in out.iter_mut() {
            *x = match self.spec {
                ValueSpec::Uniform { lo, hi } => lo + (hi - lo) * rng.random::<f64>(),
                ValueSpec::Normal { mean, sd } => {
                    mean + sd * crate::process::laplace::std_normal(&mut rng)
                }
                ValueSpec::Bits { p } => {
                    if rng.random::<f64>() < p {
                        1.0
                    } else {
                        0.0
                    }
                }
                ValueSpec::Const { x } => x,
                // Tables are handled above; Auto is resolved in `resolve`.
                ValueSpec::File(_)
                | ValueSpec::Coords
                | ValueSpec::Auto
                | ValueSpec::Given(_)
                | ValueSpec::Model(_) => f64::NAN,
            };
        }
    }
}

/// Reads `node,v1..vn` for every node of `graph` (original ids). For a view
/// of a graph (`--ego`, `--subgraph`) the file may list the whole graph's
/// nodes: those outside the view are skipped.
fn load_table(path: &Path, graph: &Graph, dim: usize) -> Result<Vec<f64>> {
    let mut lines = crate::util::lines::TextLines::open(path)?;
    let n = graph.n();
    let mut table = vec![f64::NAN; n * dim];
    let mut seen = vec![false; n];
    // How many ids were unknown (never which: see the message).
    let mut unknown_count = 0usize;
    // The line that names the node column: the header, or else the first
    // line with an unknown id (never "line 0").
    let mut header_line: Option<usize> = None;
    let mut first_unknown = 0usize;
    let mut rows = 0usize;
    while let Some((line_no, raw)) = lines.next_line()? {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        // A first line whose values are not numbers is a header.
        if rows == 0 && fields.len() > 1 && fields[1].parse::<f64>().is_err() {
            rows += 1;
            header_line = Some(line_no);
            continue;
        }
        rows += 1;
        if fields.len() != dim + 1 {
            return Err(Error::input(
                path,
                line_no,
                // Never the line itself: its cells are secrets (issue 32
                // item 5); the file, line and column say where to look (the
                // first cell too many, or the first one missing).
                format!(
                    "column {}: expected {} columns (node,v1..v{dim}) for `dim` = {dim}, found {}",
                    fields.len().min(dim + 1) + 1,
                    dim + 1,
                    fields.len()
                ),
            ));
        }
        let Some(node) = graph.ids().index_of(fields[0]) else {
            if unknown_count == 0 {
                first_unknown = line_no;
            }
            unknown_count += 1;
            continue;
        };
        if seen[node as usize] {
            return Err(Error::input(
                path,
                line_no,
                // The line, not the id: with its columns swapped the
                // first column holds the secrets.
                "a node listed a second time (the id is not shown; the first column must hold \
                 the graph's node ids)"
                    .to_string(),
            ));
        }
        seen[node as usize] = true;
        for (k, f) in fields[1..].iter().enumerate() {
            let x: f64 = f
                .parse()
                .ok()
                .filter(|x: &f64| x.is_finite())
                .ok_or_else(|| {
                    Error::input(
                        path,
                        line_no,
                        // The column, never the cell (a secret).
                        format!(
                            "column {} (v{}): expected a finite number (the cell is not shown)",
                            k + 2,
                            k + 1
                        ),
                    )
                })?;
            table[node as usize * dim + k] = x;
        }
    }
    if unknown_count > 0 && graph.view_of().is_none() {
        let column = match header_line {
            Some(_) => "the header's first column must hold the graph's node ids",
            None => "the first column must hold the graph's node ids",
        };
        return Err(Error::input(
            path,
            header_line.unwrap_or(first_unknown),
            // Lines, not the cells: with the columns swapped the first
            // column holds the secrets.
            format!("{unknown_count} node(s) not in the graph ({column})"),
        ));
    }
    let missing: Vec<String> = (0..n as u32)
        .filter(|&i| !seen[i as usize])
        .take(5)
        .map(|i| graph.ids().label(i).to_string())
        .collect();
    if !missing.is_empty() {
        let count = seen.iter().filter(|s| !**s).count();
        return Err(Error::input(
            path,
            0,
            format!(
                "{count} graph node(s) have no value, e.g. {}",
                missing.join(", ")
            ),
        ));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::NodeIds;

    #[test]
    fn parses_specs() {
        for s in [
            "coords",
            "auto",
            "uniform:0,1",
            "normal:0,2",
            "bits:0.3",
            "const:1.5",
            "file:x.csv",
        ] {
            let v: ValueSpec = s.parse().unwrap();
            assert_eq!(v.to_string(), s);
        }
        for s in [
            "uniform:1,0",
            "normal:0,-1",
            "bits:2",
            "const:x",
            "foo",
            "uniform:0",
            "file:",
        ] {
            assert!(s.parse::<ValueSpec>().is_err(), "{s}");
        }
    }

    #[test]
    fn given_values_are_the_table_of_the_graph_run_on() {
        let g = Graph::from_edges(
            NodeIds::integers(vec![5, 7, 9]),
            &[(0, 1), (1, 2)],
            None,
            false,
        )
        .unwrap();
        let given = GivenValues::new(vec![1.0, 2.0, 3.0], 1).unwrap();
        let spec = ValueSpec::Given(given.clone());
        assert_eq!(spec.to_string(), "given:3x1");
        assert!("given:3x1".parse::<ValueSpec>().is_err());
        let v = Values::resolve(&spec, &g, Path::new(""), 1, 0).unwrap();
        let mut out = [0.0];
        v.value(2, &mut out);
        assert_eq!(out, [3.0]);
        // Another dimension or node count is refused, naming `values`.
        for (dim, given) in [
            (2, given.clone()),
            (1, GivenValues::new(vec![1.0, 2.0], 1).unwrap()),
        ] {
            let e =
                Values::resolve(&ValueSpec::Given(given), &g, Path::new(""), dim, 0).unwrap_err();
            assert!(e.to_string().contains("values"), "{e}");
        }
        assert!(GivenValues::new(vec![1.0, f64::NAN], 1).is_err());
        assert!(GivenValues::new(vec![1.0, 2.0, 3.0], 2).is_err());
    }

    #[test]
    fn synthetic_values_are_per_node_and_reproducible() {
        let g = Graph::from_index_edges(3, &[(0, 1)], None, false).unwrap();
        let v =
            Values::resolve(&"bits:0.5".parse().unwrap(), &g, Path::new("x.edges"), 4, 9).unwrap();
        let (mut a, mut b) = ([0.0; 4], [0.0; 4]);
        v.value(2, &mut a);
        v.value(2, &mut b);
        assert_eq!(a, b);
        assert!(a.iter().all(|x| *x == 0.0 || *x == 1.0));
    }

    #[test]
    fn file_errors_list_missing_and_extra_nodes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let g = Graph::from_index_edges(3, &[(0, 1), (1, 2)], None, false).unwrap();
        let f = dir.join("v.csv");
        std::fs::write(&f, "node,v1\n0,1.5\n1,2\n7,3\n").unwrap();
        let e = Values::resolve(&ValueSpec::File(f.clone()), &g, &f, 1, 0)
            .unwrap_err()
            .to_string();
        // How many, never which (with its columns swapped a file's first
        // column holds the secrets).
        let tail = e.rsplit("v.csv").next().unwrap();
        assert!(
            tail.contains("1 node(s) not in the graph") && !tail.contains('7'),
            "{e}"
        );
        std::fs::write(&f, "0,1.5\n1,2\n").unwrap();
        let e = Values::resolve(&ValueSpec::File(f.clone()), &g, &f, 1, 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no value") && e.contains('2'), "{e}");
        std::fs::write(&f, "0,1.5\n1,2\n2,x\n").unwrap();
        let e = Values::resolve(&ValueSpec::File(f.clone()), &g, &f, 1, 0)
            .unwrap_err()
            .to_string();
        // File, line and column; never the cell.
        assert!(e.contains(":3:") && e.contains("column 2 (v1)"), "{e}");
        assert!(!e.contains("'x'"), "{e}");
        std::fs::write(&f, "0,1.5\n1,2\n2,3\n").unwrap();
        let v = Values::resolve(&ValueSpec::File(f.clone()), &g, &f, 1, 0).unwrap();
        let mut out = [0.0];
        v.value(2, &mut out);
        assert_eq!(out, [3.0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
