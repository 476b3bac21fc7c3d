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

/// One option of a point: key, slot, typed value and its text.
type Setting = (String, Slot, Value, String);

mod command;
mod keys;

pub use command::{COMMAND_KEYS, Command, CommandPoint, GossipPoint, UtilityPoint};
use command::{check_command_key, command_point};
use keys::*;

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
    /// The utility run, if `command = utility` (then no simulation runs).
    pub utility: Option<UtilityPoint>,
    /// The gossip run, if `command = gossip` (then no simulation runs).
    pub gossip: Option<GossipPoint>,
    /// The owners are `collude`'s default (20 sampled, every node on a
    /// smaller graph), since the grid names none and a coalition is set.
    pub owners_default: bool,
}

impl Grid {
    /// An empty grid (one point: the defaults).
    pub fn new() -> Grid {
        Grid::default()
    }

    /// Refuses a key given a second time, naming it as given (`owners`,
    /// or an alias) and what it already is.
    fn check_new_key(&self, canonical: &str, given: &str) -> Result<()> {
        let already = if self.base.iter().any(|(k, _)| k == canonical) {
            "a fixed [base] option"
        } else if self.axes.iter().any(|a| a.key == canonical) {
            "a grid axis"
        } else {
            return Ok(());
        };
        Err(Error::param(
            given,
            "(given twice)",
            format!("a key given once: {canonical} is already {already}"),
        ))
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
        let split_on_commas = values.len() > 1 && !list.contains('|');
        self.push_axis(canonical, values).map_err(|e| match e {
            // A spec cut in pieces by the list's commas: say the rule.
            Error::Parameter {
                name,
                value,
                expected,
            } if split_on_commas => Error::Parameter {
                name,
                value,
                expected: format!(
                    "{expected} — the list '{list}' was split on its commas; one value with \
                     commas ends in `|` ({key}={list}|), several are separated by `|`"
                ),
            },
            e => e,
        })
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
                let known = keys::known_keys(&defaults);
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                let hint = crate::util::suggest::did_you_mean(&a.key, &names);
                return Err(Error::param(
                    "sweep key",
                    &a.key,
                    format!(
                        "an option, or a template variable used as {{{}}} in a value{hint}; \
                         the options: {}",
                        a.key,
                        known.join(", ")
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
        let mut unused = UnusedKeys::default();
        for index in 0..n {
            let mut values = self.point_values(index);
            let settings = self.settings_at(index, &values, &typed_base, &typed_axes, &defaults)?;
            let mut obj = defaults.clone();
            let mut collude: Vec<(&'static str, &str)> = Vec::new();
            let mut command: Vec<(&'static str, &str)> = Vec::new();
            let mut sim = Map::new();
            for (_, slot, val, text) in &settings {
                match slot {
                    Slot::Sim(k) => {
                        sim.insert(k.clone(), val.clone());
                    }
                    Slot::Distance(k) => {
                        if let Some(Value::Object(d)) = obj.get_mut("distance_options") {
                            d.insert(k.clone(), val.clone());
                        }
                    }
                    Slot::Collude(c) if COMMAND_KEYS.contains(c) => {
                        command.push((c, text.as_str()))
                    }
                    Slot::Collude(c) => collude.push((c, text.as_str())),
                    Slot::Template => {}
                }
            }
            let point_command = command
                .iter()
                .find(|(k, _)| *k == "command")
                .map_or("simulate", |(_, v)| v.trim());
            // Without axes the one point is the whole configuration.
            let point = match describe(&self.axes, &values) {
                d if d.is_empty() => "(the base configuration)".to_string(),
                d => d,
            };
            let invalid = |e: &dyn std::fmt::Display| {
                Error::param(
                    "sweep point",
                    &point,
                    format!("a valid configuration ({e})"),
                )
            };
            crate::sim::config::resolve_noise_keys(&defaults, &mut sim, point_command)
                .map_err(|e| invalid(&e))?;
            obj.extend(sim);
            let mut config: SimConfig =
                serde_json::from_value(Value::Object(obj)).map_err(|e| invalid(&e))?;
            config.check()?;
            let collude = collude_point(&collude)?;
            let sim_keys: Vec<&str> = settings
                .iter()
                .filter_map(|(_, slot, _, _)| match slot {
                    Slot::Sim(k) => Some(k.as_str()),
                    _ => None,
                })
                .collect();
            let CommandPoint { utility, gossip } =
                command_point(&command, &config, collude.is_some(), &sim_keys)?;
            unused.note(&settings, &config, gossip.is_some());
            if gossip.is_some() {
                // Gossip values are one number per node: the point's own
                // (unused) simulation plan is built in one dimension too.
                config.dim = 1;
                config.norm = crate::process::Norm::L1;
            }
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
                utility,
                gossip,
                owners_default,
            });
        }
        unused.refuse()?;
        Ok(out)
    }

    /// Every option of point `index` (whose axis values are `values`) as
    /// (key, slot, typed value, text): the base's and the axes' values
    /// typed once (`typed_base`, `typed_axes`), placeholders filled and
    /// typed here.
    fn settings_at(
        &self,
        index: usize,
        values: &[String],
        typed_base: &[(Slot, Value)],
        typed_axes: &[Vec<(Slot, Value)>],
        defaults: &Map<String, Value>,
    ) -> Result<Vec<Setting>> {
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
        let mut settings: Vec<Setting> = Vec::new();
        let given = self
            .base
            .iter()
            .zip(typed_base)
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
                let (slot, val) = self.check_value(k, &filled, defaults).map_err(|e| {
                    at_template(e, &format!("{k}={text}"), &describe(&self.axes, values))
                })?;
                settings.push((k.to_string(), slot, val, filled));
            } else {
                settings.push((k.clone(), slot.clone(), val.clone(), text.clone()));
            }
        }
        Ok(settings)
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
                let mut one: Map<String, Value> = [(k.clone(), val.clone())].into_iter().collect();
                // Alone, with no command: the point's check names one.
                crate::sim::config::resolve_noise_keys(defaults, &mut one, "simulate")?;
                obj.extend(one);
                if ["noise", "granularity", "levels_per_doubling", "rng"].contains(&k.as_str()) {
                    // Checked alone in 1-D ℓ1 and as `discrete` (the default
                    // ℓ2 in 2-D has no discrete form; every point is checked
                    // whole before the first runs).
                    obj.insert("dim".into(), Value::from(1));
                    obj.insert("norm".into(), Value::from("l1"));
                    obj.entry("noise").and_modify(|n| {
                        if k != "noise" {
                            *n = Value::from("discrete");
                        }
                    });
                }
            }
            Slot::Distance(k) => {
                if let Some(Value::Object(d)) = obj.get_mut("distance_options") {
                    d.insert(k.clone(), val.clone());
                }
            }
            Slot::Collude(c) if COMMAND_KEYS.contains(c) => {
                check_command_key(c, text)?;
                return Ok((slot, val));
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

/// `delta` and `bins` given to a sweep whose points never use them (no
/// Gaussian mechanism and no gossip point; hop distances only): refused, as
/// the command line refuses the flags. A key some points use is kept for
/// those (a grid crossing `mechanism` with `delta`).
#[derive(Default)]
struct UnusedKeys {
    delta: Option<(String, bool)>,
    bins: Option<(String, bool)>,
}

impl UnusedKeys {
    /// Notes a point: the keys' texts and whether the point uses them.
    fn note(&mut self, settings: &[(String, Slot, Value, String)], c: &SimConfig, gossip: bool) {
        let uses_delta = c.mechanism == crate::mechanism::MechanismChoice::Gaussian || gossip;
        let uses_bins = c.distance != crate::distance::DistanceKind::Hop;
        for (_, slot, _, text) in settings {
            let (entry, used) = match slot {
                Slot::Sim(s) if s == "delta" => (&mut self.delta, uses_delta),
                Slot::Sim(s) if s == "bins" => (&mut self.bins, uses_bins),
                _ => continue,
            };
            let e = entry.get_or_insert_with(|| (text.clone(), false));
            e.1 |= used;
        }
    }

    /// The refusal of a key no point used.
    fn refuse(&self) -> Result<()> {
        use crate::sim::config::{BINS_UNUSED, DELTA_UNUSED};
        for (name, entry, why) in [
            ("delta", &self.delta, DELTA_UNUSED),
            ("bins", &self.bins, BINS_UNUSED),
        ] {
            if let Some((given, false)) = entry {
                return Err(Error::param(
                    name,
                    given,
                    format!("no `{name}` in this sweep: {why}, and no point uses it"),
                ));
            }
        }
        Ok(())
    }
}
