//! The sweep's grid: keys, value lists, the cartesian product, and one
//! validated [`SimConfig`] per point.
//!
//! Every value is kept as the text the user gave (it becomes the key's column
//! in the CSV) and typed by the key: the key's type is read off the default
//! configuration serialised to JSON (integer, number, boolean, spec string,
//! optional), the text is converted accordingly, and serde then parses it into
//! the typed [`SimConfig`] (specs such as `eps` through their `FromStr`) — so a
//! sweep accepts exactly what `simulate --config` accepts. Each value is
//! checked as it is added to the grid, so a bad spec fails before anything
//! runs; [`Grid::points`] builds every point's configuration.

use crate::collusion::run::MAX_TRIALS;
use crate::collusion::{Coalition, CollusionOptions, Estimator};
use crate::collusion::{DEFAULT_COMPOSITION_DELTA, DEFAULT_OWNERS, DEFAULT_TRIALS};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::post::Post;
use crate::sim::{Owners, SimConfig};
use crate::values::ValueSpec;
use serde_json::{Map, Value};
use std::path::Path;

/// Largest number of values an `A..B` range may expand to.
pub const MAX_RANGE: u64 = 100_000;

/// Largest number of points of one sweep.
pub const MAX_POINTS: usize = 1_000_000;

/// The sub-keys of `distance_options`, accepted bare (`approx_k`) or dotted
/// (`distance_options.approx_k`). Its `seed` is only accepted dotted (or as
/// `distance_seed`), since `seed` is the simulation's master seed.
const DISTANCE_KEYS: [&str; 3] = ["resistance_cap", "approx_k", "approx_tol"];

/// Keys of the collusion evaluation (run when `coalition` is given).
pub const COLLUDE_KEYS: [&str; 4] = ["coalition", "estimators", "trials", "composition_delta"];

/// Output columns that a grid key's column must not shadow: a grid key with
/// one of these names gets the column `<key>_spec` instead.
pub const OUTPUT_COLUMNS: [&str; 7] = [
    "mechanism",
    "estimator",
    "coalition",
    "metric",
    "distance_lo",
    "distance_hi",
    "value",
];

/// How a key's text is typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Bool,
    Int,
    Float,
    Str,
    /// Default `null`: `none` → null, a number → number, else a string.
    Optional,
    /// A template variable: text (integer ranges `A..B` expand).
    Template,
}

/// Where a key lives.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    /// A top-level [`SimConfig`] field.
    Sim(String),
    /// A `distance_options` field.
    Distance(String),
    /// A collusion option.
    Collude(&'static str),
    /// A template variable: an axis that is not an option, whose values fill
    /// `{name}` placeholders in other values.
    Template,
}

/// One grid key: its canonical name and the values of its axis, as given.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    /// Canonical key (`eps_min`, `approx_k`, `distance_options.seed`, `coalition`).
    pub key: String,
    /// Values in the order given (duplicates rejected).
    pub values: Vec<String>,
}

impl Axis {
    /// The key's column header in the sweep CSV (`<key>_spec` when the key is
    /// also an output column, e.g. `mechanism_spec`).
    pub fn column(&self) -> String {
        column_of(&self.key)
    }
}

fn column_of(key: &str) -> String {
    if OUTPUT_COLUMNS.contains(&key) {
        format!("{key}_spec")
    } else {
        key.to_string()
    }
}

/// A parsed sweep: fixed options and the axes (first axis outermost).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Grid {
    /// Fixed options `(canonical key, value text)`, in the order given.
    pub base: Vec<(String, String)>,
    /// The axes, in the order given.
    pub axes: Vec<Axis>,
}

/// Collusion options of one point (present when `coalition` is set).
#[derive(Clone, Debug)]
pub struct ColludePoint {
    /// The runner's options.
    pub options: CollusionOptions,
}

/// One point of the grid: its index in grid order, its key values (one per
/// axis, then one per derived `KEY.PARAM` column, as [`Grid::columns`]), and
/// the validated configuration.
#[derive(Clone, Debug)]
pub struct Point {
    /// Index in grid order (row-major, first axis outermost).
    pub index: usize,
    /// One value text per axis.
    pub values: Vec<String>,
    /// The simulation configuration.
    pub config: SimConfig,
    /// The collusion evaluation, if any.
    pub collude: Option<ColludePoint>,
    /// The owners are `collude`'s default (20 sampled, every node on a
    /// smaller graph), since the grid names none and a coalition is set.
    pub owners_default: bool,
}

fn normalise(key: &str) -> String {
    key.trim().replace('-', "_")
}

/// The canonical name and slot of a user key, or an error listing the keys.
fn resolve_key(key: &str, defaults: &Map<String, Value>) -> Result<(String, Slot)> {
    let k = normalise(key);
    if k == "distance_options.seed" || k == "distance_seed" {
        return Ok((
            "distance_options.seed".into(),
            Slot::Distance("seed".into()),
        ));
    }
    let bare = k.strip_prefix("distance_options.").unwrap_or(&k);
    if DISTANCE_KEYS.contains(&bare) {
        return Ok((bare.to_string(), Slot::Distance(bare.to_string())));
    }
    if let Some(c) = COLLUDE_KEYS
        .iter()
        .find(|c| **c == k || k == "coalitions" && **c == "coalition")
    {
        return Ok((c.to_string(), Slot::Collude(c)));
    }
    if k != "distance_options" && defaults.contains_key(&k) {
        return Ok((k.clone(), Slot::Sim(k)));
    }
    let mut known: Vec<String> = defaults
        .keys()
        .filter(|k| *k != "distance_options")
        .cloned()
        .collect();
    known.extend(DISTANCE_KEYS.iter().map(|s| s.to_string()));
    known.push("distance_options.seed".into());
    known.extend(COLLUDE_KEYS.iter().map(|s| s.to_string()));
    Err(Error::param(
        "sweep key",
        key,
        format!("one of {}", known.join(", ")),
    ))
}

/// Whether `key` can name a template variable: a letter or `_`, then
/// letters, digits or `_`.
fn is_ident(key: &str) -> bool {
    let mut c = key.chars();
    matches!(c.next(), Some(a) if a.is_ascii_alphabetic() || a == '_')
        && c.all(|a| a.is_ascii_alphanumeric() || a == '_')
}

/// As [`resolve_key`] for an axis: a key that is not an option but a plain
/// name (`m`, `size`) is a template variable, filling `{m}` in other values.
fn resolve_axis(key: &str, defaults: &Map<String, Value>) -> Result<(String, Slot)> {
    match resolve_key(key, defaults) {
        Ok(r) => Ok(r),
        Err(e @ Error::Unsupported(_)) => Err(e),
        Err(e) => {
            let k = key.trim();
            if is_ident(k) {
                Ok((k.to_string(), Slot::Template))
            } else {
                Err(e)
            }
        }
    }
}

/// The `{name}` placeholders of `text`, or an error for an unclosed one.
fn placeholders(key: &str, text: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        let Some(j) = after.find('}') else {
            return Err(Error::param(
                key,
                text,
                "`{name}` placeholders closed by `}` (name: a grid axis)",
            ));
        };
        out.push(after[..j].trim().to_string());
        rest = &after[j + 1..];
    }
    Ok(out)
}

/// `text` with each `{name}` replaced by `value(name)`.
fn fill(text: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) => {
                let name = after[..j].trim();
                match value(name) {
                    Some(v) => out.push_str(&v),
                    None => out.push_str(&rest[i..i + j + 2]),
                }
                rest = &after[j + 1..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// The numeric `name=value` parameters of a spec (`exp:a=3,b=1` → a, b;
/// `random:m=10,min-d=2` → m, min_d); none for a text without `:` or for
/// several `;`-joined specs. Names use `_` for `-`.
fn spec_params(text: &str) -> Vec<(String, String)> {
    let Some((_, rest)) = text.split_once(':') else {
        return Vec::new();
    };
    if text.contains(';') {
        return Vec::new();
    }
    rest.split(',')
        .filter_map(|item| item.split_once('='))
        .map(|(k, v)| (k.trim().replace('-', "_"), v.trim().to_string()))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

fn default_json() -> Map<String, Value> {
    match serde_json::to_value(SimConfig::default()) {
        Ok(Value::Object(mut m)) => {
            // Left out of a configuration without a view, but a key all the same.
            m.entry("view").or_insert(Value::Null);
            // Likewise left out when 1 (as `simulate --replicates`).
            m.entry("replicates").or_insert(Value::from(1));
            m
        }
        _ => Map::new(),
    }
}

fn ty_of(slot: &Slot, defaults: &Map<String, Value>) -> Ty {
    let v = match slot {
        Slot::Sim(k) => defaults.get(k),
        Slot::Distance(k) => defaults.get("distance_options").and_then(|d| d.get(k)),
        Slot::Collude(k) => {
            return match *k {
                "trials" => Ty::Int,
                "composition_delta" => Ty::Float,
                _ => Ty::Str,
            };
        }
        Slot::Template => return Ty::Template,
    };
    match v {
        Some(Value::Bool(_)) => Ty::Bool,
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Ty::Int,
        Some(Value::Number(_)) => Ty::Float,
        Some(Value::Null) | None => Ty::Optional,
        _ => Ty::Str,
    }
}

/// Types `text` for `key`.
fn typed(key: &str, ty: Ty, text: &str) -> Result<Value> {
    let t = text.trim();
    match ty {
        Ty::Bool => match t {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(Error::param(key, text, "true or false")),
        },
        Ty::Int => t
            .parse::<u64>()
            .map(Value::from)
            .map_err(|_| Error::param(key, text, "a whole number (or a range A..B)")),
        Ty::Float => match t.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(Value::from(x)),
            _ => Err(Error::param(key, text, "a finite number")),
        },
        Ty::Str | Ty::Template => Ok(Value::String(t.to_string())),
        Ty::Optional => {
            if t == "none" {
                Ok(Value::Null)
            } else if let Ok(x) = t.parse::<f64>() {
                if x.is_finite() {
                    Ok(Value::from(x))
                } else {
                    Err(Error::param(key, text, "a finite number or none"))
                }
            } else {
                Ok(Value::String(t.to_string()))
            }
        }
    }
}

/// Splits one `--set` value list: on `|` when one is present, otherwise on
/// `,` — unless the list holds a `{name}` placeholder, which keeps it whole;
/// empty items (e.g. from a trailing `|`) are dropped; `A..B` expands to the
/// integers A, A+1, …, B for integer keys (and template variables).
fn split_values(key: &str, ty: Ty, list: &str) -> Result<Vec<String>> {
    let items: Vec<&str> = if list.contains('|') {
        list.split('|').collect()
    } else if list.contains('{') {
        vec![list]
    } else {
        list.split(',').collect()
    };
    let mut out = Vec::new();
    for item in items.into_iter().map(str::trim).filter(|s| !s.is_empty()) {
        let int_range = |s: &str| {
            s.split_once("..").is_some_and(|(a, b)| {
                a.trim().parse::<u64>().is_ok() && b.trim().parse::<u64>().is_ok()
            })
        };
        if (ty == Ty::Int || ty == Ty::Template && int_range(item))
            && let Some((a, b)) = item.split_once("..")
        {
            let bad = || {
                Error::param(
                    key,
                    item,
                    format!(
                        "an inclusive integer range A..B with A ≤ B, at most {MAX_RANGE} values"
                    ),
                )
            };
            let a: u64 = a.trim().parse().map_err(|_| bad())?;
            let b: u64 = b.trim().parse().map_err(|_| bad())?;
            if a > b || b - a >= MAX_RANGE {
                return Err(bad());
            }
            out.extend((a..=b).map(|v| v.to_string()));
        } else if item.contains("..") && matches!(ty, Ty::Float | Ty::Optional) {
            return Err(Error::param(
                key,
                item,
                "a list of numbers (ranges A..B are for integer keys)",
            ));
        } else {
            out.push(item.to_string());
        }
    }
    if out.is_empty() {
        return Err(Error::param(key, list, "a non-empty list of values"));
    }
    Ok(out)
}

/// The largest sweep file read (far above any grid a person writes).
const MAX_TOML_BYTES: u64 = 16 << 20;

/// The 1-based line of each key of the sweep file: `("", table)` for the
/// tables, `(table, key)` for the keys of `[base]` and `[grid]`.
fn key_lines(text: &str) -> std::collections::HashMap<(&'static str, &str), usize> {
    let mut out = std::collections::HashMap::new();
    let Ok(doc) = toml::de::DeTable::parse(text) else {
        return out;
    };
    let line = |span: std::ops::Range<usize>| crate::util::lines::line_of_offset(text, span.start);
    for (name, value) in doc.get_ref() {
        let table: &'static str = match name.get_ref().as_ref() {
            "base" => "base",
            "grid" => "grid",
            _ => "",
        };
        // Borrowed from `text` unless the key was quoted with escapes.
        if let std::borrow::Cow::Borrowed(n) = name.get_ref() {
            out.insert(("", *n), line(name.span()));
        }
        if let (toml::de::DeValue::Table(t), false) = (value.get_ref(), table.is_empty()) {
            for (k, _) in t {
                if let std::borrow::Cow::Borrowed(k2) = k.get_ref() {
                    out.insert((table, *k2), line(k.span()));
                }
            }
        }
    }
    out
}

/// TOML value → the text a user would have typed.
fn toml_text(key: &str, v: &toml::Value) -> Result<String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(x) => Ok(format!("{x}")),
        toml::Value::Boolean(b) => Ok(b.to_string()),
        other => Err(Error::param(
            key,
            other.to_string(),
            "a string, number or boolean",
        )),
    }
}

impl Grid {
    /// An empty grid (one point: the defaults).
    pub fn new() -> Grid {
        Grid::default()
    }

    fn check_new_key(&self, canonical: &str, given: &str) -> Result<()> {
        if self.base.iter().any(|(k, _)| k == canonical) {
            return Err(Error::param(
                given,
                canonical,
                "a key given once: it is already a fixed [base] option",
            ));
        }
        if self.axes.iter().any(|a| a.key == canonical) {
            return Err(Error::param(
                given,
                canonical,
                "a key given once: it is already a grid axis",
            ));
        }
        Ok(())
    }

    /// Adds an axis from a `KEY=V1,V2,...` argument (see the module doc for
    /// the list syntax).
    pub fn add_set(&mut self, arg: &str) -> Result<()> {
        let Some((key, list)) = arg.split_once('=') else {
            return Err(Error::param(
                "set",
                arg,
                "KEY=V1,V2,... (e.g. dim=1,2 or seed=1..5 or eps=exp:a=4,b=1|exp:a=4,b=2)",
            ));
        };
        self.add_axis(key, list)
    }

    /// Adds an axis `key` with the value list `list` (split as in `--set`);
    /// every value is parsed and checked now.
    pub fn add_axis(&mut self, key: &str, list: &str) -> Result<()> {
        let defaults = default_json();
        let (canonical, slot) = resolve_axis(key, &defaults)?;
        self.check_new_key(&canonical, key)?;
        let values = split_values(&canonical, ty_of(&slot, &defaults), list)?;
        self.push_axis(canonical, values)
    }

    fn push_axis(&mut self, key: String, values: Vec<String>) -> Result<()> {
        if values.is_empty() {
            return Err(Error::param(&key, "[]", "a non-empty list of values"));
        }
        let defaults = default_json();
        // A set, not a scan of the earlier values: a range of 100,000 values
        // took 70 s quadratically.
        let mut seen = std::collections::HashSet::with_capacity(values.len());
        for v in &values {
            if !seen.insert(v.trim()) {
                return Err(Error::param(
                    &key,
                    v,
                    "distinct values (this one is listed twice)",
                ));
            }
            if v.contains(['\n', '\r']) {
                return Err(Error::param(&key, v, "a value on one line"));
            }
            self.check_value(&key, v, &defaults)?;
        }
        self.axes.push(Axis { key, values });
        Ok(())
    }

    /// Adds a fixed option (parsed and checked now).
    pub fn add_base(&mut self, key: &str, value: &str) -> Result<()> {
        let defaults = default_json();
        let (canonical, _) = resolve_key(key, &defaults)?;
        self.check_new_key(&canonical, key)?;
        self.check_value(&canonical, value, &defaults)?;
        self.base.push((canonical, value.to_string()));
        Ok(())
    }

    /// Reads a sweep file: a `[base]` table of fixed options and a `[grid]`
    /// table of lists (a TOML array, or a string split as in `--set`).
    /// Axes follow the file's order of keys. Errors name the file and the
    /// line of the offending key (or of the syntax error); the file may be
    /// at most 16 MiB.
    pub fn from_toml(path: &Path) -> Result<Grid> {
        let text = crate::util::lines::read_text(path, MAX_TOML_BYTES)?;
        Grid::from_toml_located(&text).map_err(|(e, line)| match (e, line) {
            (e, Some(line)) => Error::input(path, line, e.to_string()),
            (e @ Error::Parameter { .. }, None) => e,
            (other, None) => Error::input(path, 1, other.to_string()),
        })
    }

    /// As [`Grid::from_toml`], from the file's text.
    pub fn from_toml_str(text: &str) -> Result<Grid> {
        Grid::from_toml_located(text).map_err(|(e, line)| match (e, line) {
            (Error::Unsupported(m), Some(line)) => Error::Unsupported(format!("line {line}: {m}")),
            (e, _) => e,
        })
    }

    /// The grid, or an error and the 1-based line it is about.
    #[allow(clippy::result_large_err)] // once per sweep file
    fn from_toml_located(text: &str) -> std::result::Result<Grid, (Error, Option<usize>)> {
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e.span().map(|s| s.start);
            let line = at.map(|a| crate::util::lines::line_of_offset(text, a));
            let column = at.map_or(String::new(), |a| {
                let start = text[..a.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
                format!(
                    " (column {})",
                    text[start..a.min(text.len())].chars().count() + 1
                )
            });
            let message = e.message().trim().replace('\n', "; ");
            (
                Error::Unsupported(format!("not valid TOML: {message}{column}")),
                line,
            )
        })?;
        let lines = key_lines(text);
        let mut g = Grid::new();
        for (name, _) in doc.iter() {
            if name != "base" && name != "grid" {
                return Err((
                    Error::param(
                        "sweep file table",
                        name,
                        "only [base] (fixed options) and [grid] (lists)",
                    ),
                    lines.get(&("", name.as_str())).copied(),
                ));
            }
        }
        let defaults = default_json();
        if let Some(base) = doc.get("base") {
            let t = base.as_table().ok_or_else(|| {
                (
                    Error::param("base", base.to_string(), "a table [base] of key = value"),
                    lines.get(&("", "base")).copied(),
                )
            })?;
            for (k, v) in t {
                let at = |e| (e, lines.get(&("base", k.as_str())).copied());
                (|| -> Result<()> {
                    if k.replace('-', "_") == "coalition" || k == "coalitions" {
                        // Several coalitions evaluated at every point: `;`-joined.
                        if let toml::Value::Array(a) = v {
                            let specs: Result<Vec<String>> =
                                a.iter().map(|x| toml_text(k, x)).collect();
                            return g.add_base(k, &specs?.join(";"));
                        }
                    }
                    g.add_base(k, &toml_text(k, v)?)
                })()
                .map_err(at)?;
            }
        }
        if let Some(grid) = doc.get("grid") {
            let t = grid.as_table().ok_or_else(|| {
                (
                    Error::param("grid", grid.to_string(), "a table [grid] of key = [values]"),
                    lines.get(&("", "grid")).copied(),
                )
            })?;
            for (k, v) in t {
                let at = |e| (e, lines.get(&("grid", k.as_str())).copied());
                (|| -> Result<()> {
                    match v {
                        toml::Value::Array(a) => {
                            let (canonical, slot) = resolve_axis(k, &defaults)?;
                            g.check_new_key(&canonical, k)?;
                            if a.is_empty() {
                                return Err(Error::param(k, "[]", "a non-empty list of values"));
                            }
                            let ty = ty_of(&slot, &defaults);
                            let mut vals = Vec::new();
                            for x in a {
                                let s = toml_text(k, x)?;
                                // A string item may itself be a range ("1..5").
                                if ty == Ty::Int && matches!(x, toml::Value::String(_)) {
                                    vals.extend(split_values(&canonical, ty, &s)?);
                                } else {
                                    vals.push(s);
                                }
                            }
                            g.push_axis(canonical, vals)?;
                        }
                        toml::Value::String(s) => g.add_axis(k, s)?,
                        other => {
                            return Err(Error::param(
                                k,
                                other.to_string(),
                                "a list of values in [grid] (fixed options go in [base])",
                            ));
                        }
                    }
                    Ok(())
                })()
                .map_err(at)?;
            }
        }
        Ok(g)
    }

    /// Number of points (product of the axis lengths; 1 for no axes).
    pub fn len(&self) -> usize {
        self.axes
            .iter()
            .fold(1usize, |n, a| n.saturating_mul(a.values.len()))
    }

    /// Whether the grid has no point (never: an empty grid is one point).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column headers of the grid keys: the axes in order, then one
    /// numeric `KEY.PARAM` column per spec parameter that varies over the
    /// points (see [`Grid::derived`]).
    pub fn columns(&self) -> Vec<String> {
        let mut c: Vec<String> = self.axes.iter().map(Axis::column).collect();
        c.extend(self.derived().into_iter().map(|(name, _)| name));
        c
    }

    /// Checks the templates: every `{name}` names a grid axis, and every
    /// template variable (an axis that is not an option) is used in a value.
    pub fn check_templates(&self) -> Result<()> {
        let axis_keys: Vec<&str> = self.axes.iter().map(|a| a.key.as_str()).collect();
        let mut used: Vec<String> = Vec::new();
        let values = self
            .base
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .chain(
                self.axes
                    .iter()
                    .flat_map(|a| a.values.iter().map(move |v| (a.key.as_str(), v.as_str()))),
            );
        for (k, v) in values {
            for name in placeholders(k, v)? {
                if !axis_keys.contains(&name.as_str()) || name == k {
                    return Err(Error::param(
                        k,
                        v,
                        format!(
                            "placeholders naming another grid axis ({{{name}}} is not one of: {})",
                            axis_keys.join(", ")
                        ),
                    ));
                }
                used.push(name);
            }
        }
        let defaults = default_json();
        for a in &self.axes {
            if matches!(resolve_axis(&a.key, &defaults), Ok((_, Slot::Template)))
                && !used.contains(&a.key)
            {
                // Not an option, and no value uses it: most likely a typo.
                let e = resolve_key(&a.key, &defaults)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                return Err(Error::param(
                    "sweep key",
                    &a.key,
                    format!(
                        "an option, or a template variable used as {{{}}} in a value; {e}",
                        a.key
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The keys of the template variables (axes that are not options).
    fn template_keys(&self) -> Vec<String> {
        let defaults = default_json();
        self.axes
            .iter()
            .filter(|a| matches!(resolve_axis(&a.key, &defaults), Ok((_, Slot::Template))))
            .map(|a| a.key.clone())
            .collect()
    }

    /// The `(key, text)` of every fixed option and axis at point `index`,
    /// placeholders filled (template variables left out).
    pub fn filled(&self, index: usize) -> Vec<(String, String)> {
        self.filled_with(index, &self.template_keys())
    }

    fn filled_with(&self, index: usize, templates: &[String]) -> Vec<(String, String)> {
        let values = self.point_values(index);
        let lookup = |name: &str| {
            self.axes
                .iter()
                .position(|a| a.key == name)
                .map(|i| values[i].trim().to_string())
        };
        self.base
            .iter()
            .map(|(k, v)| (k, v))
            .chain(self.axes.iter().map(|a| &a.key).zip(values.iter()))
            .filter(|(k, _)| !templates.contains(k))
            .map(|(k, v)| (k.clone(), fill(v, &lookup)))
            .collect()
    }

    /// The numeric `KEY.PARAM` columns: every parameter of a spec-valued key
    /// (`eps.b` of `exp:a=3,b=1`, `coalition.m` of `random:m=10`) whose text
    /// varies over the points and is a number wherever present. Each is its
    /// name and one value per point (empty where the spec has no such
    /// parameter).
    pub fn derived(&self) -> Vec<(String, Vec<String>)> {
        let n = self.len();
        if n < 2 {
            return Vec::new();
        }
        let mut names: Vec<String> = Vec::new();
        let mut cols: Vec<Vec<String>> = Vec::new();
        let templates = self.template_keys();
        for index in 0..n {
            for (k, text) in self.filled_with(index, &templates) {
                for (p, v) in spec_params(&text) {
                    let name = format!("{k}.{p}");
                    let i = match names.iter().position(|x| *x == name) {
                        Some(i) => i,
                        None => {
                            names.push(name);
                            cols.push(vec![String::new(); n]);
                            names.len() - 1
                        }
                    };
                    cols[i][index] = v;
                }
            }
        }
        names
            .into_iter()
            .zip(cols)
            .filter(|(_, c)| {
                c.iter().any(|v| *v != c[0])
                    && c.iter()
                        .all(|v| v.is_empty() || v.parse::<f64>().is_ok_and(f64::is_finite))
            })
            .collect()
    }

    /// The values of point `index` (row-major: the last axis varies fastest).
    pub fn point_values(&self, mut index: usize) -> Vec<String> {
        let mut out = vec![String::new(); self.axes.len()];
        for (i, a) in self.axes.iter().enumerate().rev() {
            out[i] = a.values[index % a.values.len()].clone();
            index /= a.values.len();
        }
        out
    }

    /// Builds and validates every point's configuration before anything runs:
    /// each value is typed and parsed on its own (so the error names its key
    /// and value), then each point's overlay of defaults + base + point values
    /// is deserialised into a typed [`SimConfig`] and given the checks that
    /// need no graph ([`SimConfig::check`]) and the collusion options'.
    pub fn points(&self) -> Result<Vec<Point>> {
        let n = self.len();
        if n > MAX_POINTS {
            return Err(Error::param(
                "sweep grid",
                n,
                format!("at most {MAX_POINTS} points"),
            ));
        }
        crate::limits::check_memory(
            "sweep grid",
            format!("{n} points"),
            crate::limits::sweep_bytes(n, self.axes.len()),
        )?;
        self.check_templates()?;
        let defaults = default_json();
        // Type and check every value once (those with placeholders at each
        // point, once filled).
        let mut typed_base = Vec::new();
        for (k, v) in &self.base {
            typed_base.push(self.check_value(k, v, &defaults)?);
        }
        let mut typed_axes: Vec<Vec<(Slot, Value)>> = Vec::new();
        for a in &self.axes {
            let mut vals = Vec::new();
            for v in &a.values {
                vals.push(self.check_value(&a.key, v, &defaults)?);
            }
            typed_axes.push(vals);
        }
        let derived = self.derived();
        let owners_given = self.base.iter().any(|(k, _)| k == "owners")
            || self.axes.iter().any(|a| a.key == "owners");
        let mut out = Vec::with_capacity(n);
        for index in 0..n {
            let mut values = self.point_values(index);
            let lookup = |name: &str| {
                self.axes
                    .iter()
                    .position(|a| a.key == name)
                    .map(|i| values[i].trim().to_string())
            };
            let mut picks = vec![0usize; self.axes.len()];
            let mut rem = index;
            for (i, a) in self.axes.iter().enumerate().rev() {
                picks[i] = rem % a.values.len();
                rem /= a.values.len();
            }
            // (key, slot, typed value, text) of every option at this point.
            let mut settings: Vec<(String, Slot, Value, String)> = Vec::new();
            let given = self
                .base
                .iter()
                .zip(&typed_base)
                .map(|((k, v), t)| (k, v, t))
                .chain(
                    self.axes
                        .iter()
                        .enumerate()
                        .map(|(i, a)| (&a.key, &a.values[picks[i]], &typed_axes[i][picks[i]])),
                );
            for (k, text, (slot, val)) in given {
                if *slot == Slot::Template {
                    continue;
                }
                if text.contains('{') {
                    let filled = fill(text, &lookup);
                    let (slot, val) = self.check_value(k, &filled, &defaults).map_err(|e| {
                        at_template(e, &format!("{k}={text}"), &describe(&self.axes, &values))
                    })?;
                    settings.push((k.clone(), slot, val, filled));
                } else {
                    settings.push((k.clone(), slot.clone(), val.clone(), text.clone()));
                }
            }
            let mut obj = defaults.clone();
            let mut collude: Vec<(&'static str, &str)> = Vec::new();
            for (_, slot, val, text) in &settings {
                match slot {
                    Slot::Sim(k) => {
                        obj.insert(k.clone(), val.clone());
                    }
                    Slot::Distance(k) => {
                        if let Some(Value::Object(d)) = obj.get_mut("distance_options") {
                            d.insert(k.clone(), val.clone());
                        }
                    }
                    Slot::Collude(c) => collude.push((c, text.as_str())),
                    Slot::Template => {}
                }
            }
            let mut config: SimConfig =
                serde_json::from_value(Value::Object(obj)).map_err(|e| {
                    Error::param(
                        "sweep point",
                        describe(&self.axes, &values),
                        format!("a valid configuration ({e})"),
                    )
                })?;
            config.check()?;
            let collude = collude_point(&collude)?;
            // As `collude`: 20 sampled owners unless the grid says otherwise.
            let owners_default = collude.is_some() && !owners_given;
            if owners_default {
                config.owners = Owners::Count(DEFAULT_OWNERS);
            }
            values.extend(derived.iter().map(|(_, col)| col[index].clone()));
            out.push(Point {
                index,
                values,
                config,
                collude,
                owners_default,
            });
        }
        Ok(out)
    }

    /// Types `text` for `key` and checks it alone against the defaults.
    fn check_value(
        &self,
        key: &str,
        text: &str,
        defaults: &Map<String, Value>,
    ) -> Result<(Slot, Value)> {
        let (_, slot) = resolve_axis(key, defaults)?;
        if slot == Slot::Template {
            return Ok((slot, Value::String(text.trim().to_string())));
        }
        if !placeholders(key, text)?.is_empty() {
            // Checked at each point, once its placeholders are filled.
            return Ok((slot, Value::Null));
        }
        let ty = ty_of(&slot, defaults);
        let val = typed(key, ty, text)?;
        if let Slot::Sim(k) = &slot {
            parse_spec(k, text)?;
        }
        let mut obj = defaults.clone();
        match &slot {
            Slot::Sim(k) => {
                obj.insert(k.clone(), val.clone());
            }
            Slot::Distance(k) => {
                if let Some(Value::Object(d)) = obj.get_mut("distance_options") {
                    d.insert(k.clone(), val.clone());
                }
            }
            Slot::Collude(c) => {
                collude_point(&[(c, text)])?;
                return Ok((slot, val));
            }
            Slot::Template => return Ok((slot, val)),
        }
        let cfg: SimConfig = serde_json::from_value(Value::Object(obj))
            .map_err(|e| Error::param(key, text, serde_expectation(&e.to_string())))?;
        // Checks that concern this key alone.
        cfg.check().map_err(|e| match e {
            Error::Parameter {
                name,
                value,
                expected,
            } if name != key => Error::param(key, text, format!("{expected} ({name} '{value}')")),
            other => other,
        })?;
        Ok((slot, val))
    }
}

/// What a serde message says was expected, in the words of a CLI message:
/// "unknown variant `l3`, expected `l1` or `l2`" → "`l1` or `l2`";
/// "invalid type: string \"abc\", expected f64" → "a number".
fn serde_expectation(msg: &str) -> String {
    let msg = msg.split(" at line").next().unwrap_or(msg);
    let Some((_, wanted)) = msg.rsplit_once(", expected ") else {
        return msg.to_string();
    };
    match wanted.trim() {
        "f64" | "f32" => "a number".to_string(),
        "u64" | "u32" | "usize" | "u16" | "u8" => "a whole number".to_string(),
        "a boolean" | "bool" => "true or false".to_string(),
        w => w.to_string(),
    }
}

/// Names the templated value and the point in an error about its filled text.
fn at_template(e: Error, template: &str, here: &str) -> Error {
    match e {
        Error::Parameter {
            name,
            value,
            expected,
        } => Error::param(
            name,
            value,
            format!("{expected} [from {template} at {here}]"),
        ),
        Error::Unsupported(m) => Error::Unsupported(format!("{m} [from {template} at {here}]")),
        other => other,
    }
}

/// `key=value, key=value` of a point, for messages.
fn describe(axes: &[Axis], values: &[String]) -> String {
    axes.iter()
        .zip(values)
        .map(|(a, v)| format!("{}={v}", a.key))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses a spec-valued key on its own, so that its error is the spec's
/// (naming the key and value) rather than serde's.
fn parse_spec(key: &str, text: &str) -> Result<()> {
    let t = text.trim();
    match key {
        "eps" => t.parse::<EpsilonMap>().map(drop),
        "values" => t.parse::<ValueSpec>().map(drop),
        "post" => t.parse::<Post>().map(drop),
        "owners" => t.parse::<Owners>().map(drop),
        "view" if t != "none" => t.parse::<crate::graph::GraphView>().map(drop),
        _ => Ok(()),
    }
}

/// The collusion options of a point from its collude keys (None without a
/// `coalition`).
fn collude_point(keys: &[(&'static str, &str)]) -> Result<Option<ColludePoint>> {
    let get = |k: &str| keys.iter().rev().find(|(c, _)| *c == k).map(|(_, v)| *v);
    let mut coalitions = Vec::new();
    if let Some(spec) = get("coalition") {
        for s in spec.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            coalitions.push(Coalition::parse(s).map_err(|e| rename(e, "coalition", spec))?);
        }
        if coalitions.is_empty() {
            return Err(Error::param(
                "coalition",
                spec,
                "one or more coalition specs, `;`-separated",
            ));
        }
    }
    let estimators = match get("estimators") {
        Some(s) => Estimator::parse_list(s).map_err(|e| rename(e, "estimators", s))?,
        None => Estimator::ALL.to_vec(),
    };
    let trials = match get("trials") {
        Some(s) => s
            .trim()
            .parse::<usize>()
            .map_err(|_| Error::param("trials", s, "a whole number ≥ 1"))?,
        None => DEFAULT_TRIALS,
    };
    let composition_delta = match get("composition_delta") {
        Some(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| Error::param("composition_delta", s, "a number in (0, 1)"))?,
        None => DEFAULT_COMPOSITION_DELTA,
    };
    let options = CollusionOptions {
        coalitions,
        estimators,
        trials,
        composition_delta,
    };
    if options.trials == 0 || options.trials > MAX_TRIALS {
        return Err(Error::param(
            "trials",
            options.trials,
            format!("a whole number in 1..={MAX_TRIALS}"),
        ));
    }
    if !(options.composition_delta > 0.0 && options.composition_delta < 1.0) {
        return Err(Error::param(
            "composition_delta",
            options.composition_delta,
            "a number in (0, 1)",
        ));
    }
    if options.coalitions.is_empty() {
        return Ok(None);
    }
    options.validate().map_err(|e| rename(e, "", ""))?;
    Ok(Some(ColludePoint { options }))
}

/// Renames a parameter error to the sweep key and value (keeps the message).
fn rename(e: Error, key: &str, value: &str) -> Error {
    match e {
        Error::Parameter {
            name,
            value: v,
            expected,
        } => {
            let name = if key.is_empty() {
                name.trim_start_matches('-').replace('-', "_")
            } else {
                key.to_string()
            };
            let value = if value.is_empty() {
                v
            } else {
                value.to_string()
            };
            Error::param(name, value, expected)
        }
        other => other,
    }
}
