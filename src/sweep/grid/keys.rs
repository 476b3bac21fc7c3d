use super::*;

/// How a key's text is typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ty {
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
pub(super) enum Slot {
    /// A top-level [`SimConfig`] field.
    Sim(String),
    /// A `distance_options` field.
    Distance(String),
    /// A collusion option, or a command key ([`COMMAND_KEYS`]).
    Collude(&'static str),
    /// A template variable: an axis that is not an option, whose values fill
    /// `{name}` placeholders in other values.
    Template,
}

pub(super) fn column_of(key: &str) -> String {
    if OUTPUT_COLUMNS.contains(&key) {
        format!("{key}_spec")
    } else {
        key.to_string()
    }
}

pub(super) fn normalise(key: &str) -> String {
    key.trim().replace('-', "_")
}

/// The canonical name and slot of a user key, or an error listing the keys.
pub(super) fn resolve_key(key: &str, defaults: &Map<String, Value>) -> Result<(String, Slot)> {
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
    if let Some(c) = COMMAND_KEYS.iter().find(|c| **c == k) {
        return Ok((c.to_string(), Slot::Collude(c)));
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
    let known = known_keys(defaults);
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    Err(Error::param(
        "sweep key",
        key,
        format!(
            "one of {}{}",
            known.join(", "),
            crate::util::suggest::did_you_mean(&k, &names)
        ),
    ))
}

/// Every key a sweep takes (options, distance options, collusion and
/// command keys), for messages.
pub(super) fn known_keys(defaults: &Map<String, Value>) -> Vec<String> {
    let mut known: Vec<String> = defaults
        .keys()
        .filter(|k| *k != "distance_options")
        .cloned()
        .collect();
    known.extend(DISTANCE_KEYS.iter().map(|s| s.to_string()));
    known.push("distance_options.seed".into());
    known.extend(COLLUDE_KEYS.iter().map(|s| s.to_string()));
    known.extend(COMMAND_KEYS.iter().map(|s| s.to_string()));
    known
}

/// Whether `key` can name a template variable: a letter or `_`, then
/// letters, digits or `_`.
pub(super) fn is_ident(key: &str) -> bool {
    let mut c = key.chars();
    matches!(c.next(), Some(a) if a.is_ascii_alphabetic() || a == '_')
        && c.all(|a| a.is_ascii_alphanumeric() || a == '_')
}

/// As [`resolve_key`] for an axis: a key that is not an option but a plain
/// name (`m`, `size`) is a template variable, filling `{m}` in other values.
pub(super) fn resolve_axis(key: &str, defaults: &Map<String, Value>) -> Result<(String, Slot)> {
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
pub(super) fn placeholders(key: &str, text: &str) -> Result<Vec<String>> {
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
pub(super) fn fill(text: &str, value: &dyn Fn(&str) -> Option<String>) -> String {
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
pub(super) fn spec_params(text: &str) -> Vec<(String, String)> {
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

pub(super) fn default_json() -> Map<String, Value> {
    match serde_json::to_value(SimConfig::default()) {
        Ok(Value::Object(mut m)) => {
            // Left out of a configuration without a view, but a key all the same.
            m.entry("view").or_insert(Value::Null);
            // Likewise left out when 1 (as `simulate --replicates`).
            m.entry("replicates").or_insert(Value::from(1));
            // And `header`, left out when `auto` (issue 33 item 12).
            m.entry("header").or_insert(Value::from("auto"));
            // The noise options, left out at their defaults (issue 25):
            // keys all the same (`noise = "discrete"` in [base] or [grid]).
            let noise = crate::process::discrete::NoiseOptions::default();
            for (k, v) in [
                ("noise", serde_json::to_value(noise.noise)),
                ("granularity", serde_json::to_value(noise.granularity)),
                (
                    "levels_per_doubling",
                    serde_json::to_value(noise.levels_per_doubling),
                ),
                ("rng", serde_json::to_value(noise.rng)),
            ] {
                if let Ok(v) = v {
                    m.entry(k).or_insert(v);
                }
            }
            m
        }
        _ => Map::new(),
    }
}

pub(super) fn ty_of(slot: &Slot, defaults: &Map<String, Value>) -> Ty {
    let v = match slot {
        Slot::Sim(k) => defaults.get(k),
        Slot::Distance(k) => defaults.get("distance_options").and_then(|d| d.get(k)),
        Slot::Collude(k) => {
            return match *k {
                "trials" | "access_radius" | "steps" => Ty::Int,
                "composition_delta" | "sigma" | "alpha" => Ty::Float,
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
pub(super) fn typed(key: &str, ty: Ty, text: &str) -> Result<Value> {
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
pub(super) fn split_values(key: &str, ty: Ty, list: &str) -> Result<Vec<String>> {
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
pub(super) const MAX_TOML_BYTES: u64 = 16 << 20;

/// The 1-based line of each key of the sweep file: `("", table)` for the
/// tables, `(table, key)` for the keys of `[base]` and `[grid]`.
pub(super) fn key_lines(text: &str) -> std::collections::HashMap<(&'static str, &str), usize> {
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
pub(super) fn toml_text(key: &str, v: &toml::Value) -> Result<String> {
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

/// What a serde message says was expected, in the words of a CLI message:
/// "unknown variant `l3`, expected `l1` or `l2`" → "`l1` or `l2`";
/// "invalid type: string \"abc\", expected f64" → "a number".
pub(super) fn serde_expectation(msg: &str) -> String {
    let msg = msg.split(" at line").next().unwrap_or(msg);
    // A value's own parser already said "invalid KEY 'V': expected …":
    // its expectation, once (issue 33 item 9).
    if let Some((_, wanted)) = msg
        .strip_prefix("invalid ")
        .and_then(|m| m.split_once("': expected "))
    {
        return wanted.to_string();
    }
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
pub(super) fn at_template(e: Error, template: &str, here: &str) -> Error {
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
pub(super) fn describe(axes: &[Axis], values: &[String]) -> String {
    axes.iter()
        .zip(values)
        .map(|(a, v)| format!("{}={v}", a.key))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses a spec-valued key on its own, so that its error is the spec's
/// (naming the key and value) rather than serde's.
pub(super) fn parse_spec(key: &str, text: &str) -> Result<()> {
    let t = text.trim();
    match key {
        "eps" => t.parse::<EpsilonMap>().map(drop),
        "values" => t.parse::<ValueSpec>().map(drop),
        "post" => t.parse::<Post>().map(drop),
        "owners" => t.parse::<Owners>().map(drop),
        "view" if t != "none" => t.parse::<crate::graph::GraphView>().map(drop),
        "header" => t.parse::<crate::graph::HeaderMode>().map(drop),
        _ => Ok(()),
    }
}

/// The collusion options of a point from its collude keys (None without a
/// `coalition`).
pub(super) fn collude_point(keys: &[(&'static str, &str)]) -> Result<Option<ColludePoint>> {
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
pub(super) fn rename(e: Error, key: &str, value: &str) -> Error {
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
