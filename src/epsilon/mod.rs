//! Privacy maps `ε(d)`: how the privacy level against a recipient falls with
//! its distance `d` from the owner. Built by constructors or parsed from the
//! spec grammar (`FromStr`; `Display` gives the canonical spec back):
//!
//! | constructor | spec | map |
//! |---|---|---|
//! | [`EpsilonMap::exp`]`(a, b)` | `exp:a=4,b=3.3` | `ε = e^(a − b·d)` |
//! | [`EpsilonMap::recip`]`(c)` | `recip:c=1` | `ε = c / d` |
//! | [`EpsilonMap::power`]`(c, p)` | `power:c=2,p=1.5` | `ε = c · d^(−p)` |
//! | [`EpsilonMap::table`]`(&[(d, ε)], beyond)` | `table:1=15,2=5,3=1.5,*=0.5` | ε of the largest key ≤ d; below the smallest key, that key's ε; `*` = ε beyond the largest key |
//! | [`EpsilonMap::range`]`(lo, hi)` | `range:0.5..15` | exponential from the smallest observed distance → `hi` to the largest → `lo` |
//!
//! Every map is validated when built: positive, finite and non-increasing in
//! distance. Optional clamps ([`EpsilonMap::with_clamp`], parameters `eps_min`
//! and `eps_max`) bound the result.
//!
//! A `range` map is a request, not yet a function of distance: it
//! [`needs_resolution`](EpsilonMap::needs_resolution), and a run
//! [`resolve`](EpsilonMap::resolve)s it once on the smallest and largest
//! distance its owners observe (it evaluates to NaN until then).

use crate::error::{Error, Result};
use std::fmt;

/// The shape of a privacy map before clamping.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Exp {
        a: f64,
        b: f64,
    },
    Recip {
        c: f64,
    },
    Power {
        c: f64,
        p: f64,
    },
    Table {
        keys: Vec<f64>,
        eps: Vec<f64>,
        beyond: Option<f64>,
    },
    /// Unresolved `range:LO..HI`.
    Range {
        lo: f64,
        hi: f64,
    },
    /// `range:LO..HI` resolved on observed distances.
    Resolved(Span),
}

/// `range:LO..HI` resolved on observed distances `[d_min, d_max]`:
/// `ε = HI^(1−t)·LO^t`, `t = (d − d_min)/(d_max − d_min)` (exact endpoints).
/// Its laws (before clamping) are written here, once.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Span {
    lo: f64,
    hi: f64,
    d_min: f64,
    d_max: f64,
}

impl Span {
    /// The equivalent `exp:a=..,b=..` parameters.
    fn exp_params(&self) -> (f64, f64) {
        let b = if self.d_max > self.d_min {
            self.ln_ratio() / (self.d_max - self.d_min)
        } else {
            0.0
        };
        (self.hi.ln() + b * self.d_min, b)
    }

    /// ln(HI) − ln(LO), as every law here computes it.
    fn ln_ratio(&self) -> f64 {
        self.hi.ln() - self.lo.ln()
    }

    /// Whether the observed distances are one point (ε is HI throughout).
    fn flat(&self) -> bool {
        self.d_max <= self.d_min
    }

    /// ε(d), HI up to `d_min` and LO from `d_max` on.
    fn eps(&self, d: f64) -> f64 {
        if d <= self.d_min || self.flat() {
            self.hi
        } else if d >= self.d_max {
            self.lo
        } else {
            let t = (d - self.d_min) / (self.d_max - self.d_min);
            self.hi.powf(1.0 - t) * self.lo.powf(t)
        }
    }

    /// `|d ln ε(d) / dd|`: constant inside `[d_min, d_max]`, 0 outside.
    fn log_slope(&self, d: f64) -> f64 {
        if d < self.d_min || d > self.d_max || self.flat() {
            0.0
        } else {
            self.ln_ratio() / (self.d_max - self.d_min)
        }
    }

    /// The distance at which ε equals `eps` (`l` = ln `eps`), the nearest
    /// end outside the range.
    fn distance_at(&self, eps: f64, l: f64) -> f64 {
        if eps >= self.hi || self.flat() {
            self.d_min
        } else if eps <= self.lo {
            self.d_max
        } else {
            self.d_min + (self.hi.ln() - l) / self.ln_ratio() * (self.d_max - self.d_min)
        }
    }
}

/// A validated, non-increasing map from distance to privacy level.
///
/// ```
/// use privdiffuse::EpsilonMap;
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let exp = EpsilonMap::exp(3.0, 1.0)?; // e^(3 − d)
/// assert_eq!(exp.eps(1.0), 2f64.exp());
/// assert_eq!(EpsilonMap::recip(2.0)?.eps(4.0), 0.5); // 2/d
/// assert_eq!(EpsilonMap::power(2.0, 1.5)?.eps(4.0), 0.25); // 2·d^(−1.5)
///
/// // A step map: ε of the largest key ≤ d, `beyond` past the last key.
/// let table = EpsilonMap::table(&[(1.0, 15.0), (2.0, 5.0), (3.0, 1.5)], Some(0.5))?;
/// let at: Vec<f64> = [0.5, 1.0, 2.7, 3.0, 9.0].iter().map(|&d| table.eps(d)).collect();
/// assert_eq!(at, [15.0, 15.0, 5.0, 1.5, 0.5]);
///
/// // Every map is also a spec of the command line's grammar, and prints one.
/// assert_eq!("table:1=15,2=5,3=1.5,*=0.5".parse::<EpsilonMap>()?, table);
/// assert_eq!(exp.to_string(), "exp:a=3,b=1");
///
/// // Clamps bound the levels (`eps_min`, `eps_max`).
/// let clamped = exp.clone().with_clamp(Some(0.5), Some(10.0))?;
/// assert_eq!((clamped.eps(0.0), clamped.eps(9.0)), (10.0, 0.5));
///
/// // Invalid maps are refused when built, naming the parameter.
/// let err = EpsilonMap::exp(3.0, -1.0).unwrap_err(); // increasing with d
/// assert!(err.to_string().starts_with("invalid eps 'exp:a=3,b=-1'"), "{err}");
///
/// // `range` is resolved on the distances a run observes: hi at the
/// // nearest, lo at the farthest.
/// let range = EpsilonMap::range(0.5, 15.0)?;
/// assert!(range.needs_resolution());
/// let resolved = range.resolve(1.0, 9.0)?;
/// assert!((resolved.eps(1.0) - 15.0).abs() < 1e-12 && (resolved.eps(9.0) - 0.5).abs() < 1e-12);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct EpsilonMap {
    shape: Shape,
    eps_min: Option<f64>,
    eps_max: Option<f64>,
}

fn bad(spec: &str, expected: impl Into<String>) -> Error {
    Error::param("eps", spec, expected)
}

const GRAMMAR: &str = "one of exp:a=A,b=B | recip:c=C | power:c=C,p=P | \
                       table:D1=E1,D2=E2,...[,*=E] | range:LO..HI";

fn parse_num(spec: &str, key: &str, text: &str) -> Result<f64> {
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| bad(spec, format!("a number for '{key}', got '{text}'")))?;
    if !x.is_finite() {
        return Err(bad(
            spec,
            format!("a finite number for '{key}', got '{text}'"),
        ));
    }
    Ok(x)
}

/// Parses `k=v,k=v` with exactly the keys in `keys`, as numbers.
fn parse_kv(spec: &str, body: &str, keys: &[&str]) -> Result<Vec<f64>> {
    crate::util::spec::key_values(body, keys, |e| bad(spec, e))?
        .into_iter()
        .zip(keys)
        .map(|(v, k)| parse_num(spec, k, v))
        .collect()
}

impl EpsilonMap {
    fn of(shape: Shape, spec: &str) -> Result<EpsilonMap> {
        Ok(EpsilonMap {
            shape: validate(shape, spec)?,
            eps_min: None,
            eps_max: None,
        })
    }

    /// `ε(d) = e^(a − b·d)` (spec `exp:a=..,b=..`): `a` finite, `b` finite and ≥ 0.
    pub fn exp(a: f64, b: f64) -> Result<EpsilonMap> {
        let shape = Shape::Exp { a, b };
        EpsilonMap::of(shape.clone(), &spec_of(&shape))
    }

    /// `ε(d) = c / d` (spec `recip:c=..`): `c` finite and > 0.
    pub fn recip(c: f64) -> Result<EpsilonMap> {
        let shape = Shape::Recip { c };
        EpsilonMap::of(shape.clone(), &spec_of(&shape))
    }

    /// `ε(d) = c · d^(−p)` (spec `power:c=..,p=..`): `c` > 0, `p` ≥ 0, both finite.
    pub fn power(c: f64, p: f64) -> Result<EpsilonMap> {
        let shape = Shape::Power { c, p };
        EpsilonMap::of(shape.clone(), &spec_of(&shape))
    }

    /// A step map (spec `table:1=15,2=5,*=0.5`): ε of the largest distance key
    /// ≤ d, the smallest key's ε below it and `beyond` (default: the last ε)
    /// past the largest key. Keys distinct and ≥ 0 (any order), ε > 0 and
    /// non-increasing in distance.
    pub fn table(entries: &[(f64, f64)], beyond: Option<f64>) -> Result<EpsilonMap> {
        let mut sorted = entries.to_vec();
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let shape = Shape::Table {
            keys: sorted.iter().map(|e| e.0).collect(),
            eps: sorted.iter().map(|e| e.1).collect(),
            beyond,
        };
        EpsilonMap::of(shape.clone(), &spec_of(&shape))
    }

    /// The request `range:LO..HI` (`0 < lo ≤ hi`): exponential from the smallest
    /// observed distance (ε = `hi`) to the largest (ε = `lo`). It
    /// [`needs_resolution`](EpsilonMap::needs_resolution) before it can be
    /// evaluated; a simulation resolves it on its owners' distances.
    pub fn range(lo: f64, hi: f64) -> Result<EpsilonMap> {
        let shape = Shape::Range { lo, hi };
        EpsilonMap::of(shape.clone(), &spec_of(&shape))
    }

    /// Parses and validates a spec (see the module docs for the grammar).
    pub fn parse(spec: &str) -> Result<EpsilonMap> {
        let s = spec.trim();
        let (kind, body) = s.split_once(':').ok_or_else(|| bad(spec, GRAMMAR))?;
        let shape = match kind.trim().to_ascii_lowercase().as_str() {
            "exp" => {
                let v = parse_kv(spec, body, &["a", "b"])?;
                Shape::Exp { a: v[0], b: v[1] }
            }
            "recip" => {
                let v = parse_kv(spec, body, &["c"])?;
                Shape::Recip { c: v[0] }
            }
            "power" => {
                let v = parse_kv(spec, body, &["c", "p"])?;
                Shape::Power { c: v[0], p: v[1] }
            }
            "table" => parse_table(spec, body)?,
            "range" => {
                let (lo, hi) = body
                    .split_once("..")
                    .ok_or_else(|| bad(spec, "range:LO..HI, e.g. range:0.5..15"))?;
                let lo = parse_num(spec, "LO", lo)?;
                let hi = parse_num(spec, "HI", hi)?;
                Shape::Range { lo, hi }
            }
            other => {
                let hint = crate::util::suggest::did_you_mean(
                    other,
                    &["exp", "recip", "power", "table", "range"],
                );
                return Err(bad(spec, format!("{GRAMMAR}{hint}")));
            }
        };
        EpsilonMap::of(shape, spec)
    }

    /// Adds clamps: `ε(d)` is bounded to `[eps_min, eps_max]` (each finite and
    /// > 0 when given, `eps_min ≤ eps_max`). Replaces any earlier clamps.
    pub fn with_clamp(mut self, eps_min: Option<f64>, eps_max: Option<f64>) -> Result<EpsilonMap> {
        for (name, v) in [("eps_min", eps_min), ("eps_max", eps_max)] {
            if let Some(x) = v
                && !(x.is_finite() && x > 0.0)
            {
                return Err(Error::param(name, x, "a finite number > 0"));
            }
        }
        if let (Some(lo), Some(hi)) = (eps_min, eps_max)
            && lo > hi
        {
            return Err(Error::param(
                "eps_min",
                lo,
                format!("a value ≤ `eps_max` ({hi})"),
            ));
        }
        self.eps_min = eps_min;
        self.eps_max = eps_max;
        Ok(self)
    }

    /// Lower clamp, if any.
    pub fn eps_min(&self) -> Option<f64> {
        self.eps_min
    }

    /// Upper clamp, if any.
    pub fn eps_max(&self) -> Option<f64> {
        self.eps_max
    }

    /// Whether this is an unresolved `range:` map (see [`EpsilonMap::resolve`]).
    pub fn needs_resolution(&self) -> bool {
        matches!(self.shape, Shape::Range { .. })
    }

    /// Resolves a `range:LO..HI` map on the observed distance extremes (the
    /// smallest distance maps to exactly HI, the largest to exactly LO); other
    /// maps are returned unchanged.
    pub fn resolve(&self, d_min: f64, d_max: f64) -> Result<EpsilonMap> {
        let Shape::Range { lo, hi } = self.shape else {
            return Ok(self.clone());
        };
        if !(d_min.is_finite() && d_max.is_finite() && d_min >= 0.0 && d_max >= d_min) {
            return Err(Error::param(
                "observed distance range",
                format!("{d_min}..{d_max}"),
                "finite distances (are any recipients reachable?)",
            ));
        }
        let map = EpsilonMap {
            shape: Shape::Resolved(Span {
                lo,
                hi,
                d_min,
                d_max,
            }),
            eps_min: self.eps_min,
            eps_max: self.eps_max,
        };
        // Distances so close (sub-normal edge lengths) that the slope
        // ln(hi/lo)/(d_max − d_min) overflows: no finite map to record.
        if let Some((a, b)) = map.exp_params()
            && !(a.is_finite() && b.is_finite())
        {
            return Err(Error::param(
                "eps",
                self.spec(),
                format!(
                    "a map that resolves to finite exp:a,b over the observed distances \
                     {d_min:e}..{d_max:e} (here b = ln({hi}/{lo})/(d_max − d_min) = {b}): \
                     rescale the edge lengths or give an explicit map such as exp:a=A,b=B"
                ),
            ));
        }
        Ok(map)
    }

    /// For a resolved range: the equivalent `exp:a=..,b=..` parameters.
    pub fn exp_params(&self) -> Option<(f64, f64)> {
        match self.shape {
            Shape::Exp { a, b } => Some((a, b)),
            Shape::Resolved(span) => Some(span.exp_params()),
            _ => None,
        }
    }

    fn clamp(&self, e: f64) -> f64 {
        let e = self.eps_max.map_or(e, |m| e.min(m));
        self.eps_min.map_or(e, |m| e.max(m))
    }

    /// `ε(d)` for a recipient at distance `d > 0` (clamped). NaN for an
    /// unresolved `range:` map.
    pub fn eps(&self, d: f64) -> f64 {
        let e = match &self.shape {
            Shape::Exp { a, b } => (a - b * d).exp(),
            Shape::Recip { c } => c / d,
            Shape::Power { c, p } => c * d.powf(-p),
            Shape::Table { keys, eps, beyond } => table_eps(keys, eps, *beyond, d),
            Shape::Range { .. } => f64::NAN,
            Shape::Resolved(span) => span.eps(d),
        };
        self.clamp(e)
    }

    /// `ln ε(d)` of the continuous version of the map, used to place jumps in
    /// distance: for tables, ln ε is interpolated linearly between neighbouring
    /// keys (the `*` level sits one unit beyond the largest key).
    pub fn ln_eps(&self, d: f64) -> f64 {
        match &self.shape {
            Shape::Table { keys, eps, beyond } => {
                let (k, e) = table_knots(keys, eps, *beyond);
                let l = interp(&k, &e, d);
                let l = self.eps_max.map_or(l, |m| l.min(m.ln()));
                self.eps_min.map_or(l, |m| l.max(m.ln()))
            }
            _ => self.eps(d).ln(),
        }
    }

    /// `|d ln ε(d) / dd|`: jumps of a path fall at rate λ·log_slope(d) per unit
    /// distance (λ = 2n for ℓ1, n + 1 for ℓ2). Zero where clamped or flat.
    pub fn log_slope(&self, d: f64) -> f64 {
        let raw = match &self.shape {
            Shape::Exp { b, .. } => *b,
            Shape::Recip { .. } => 1.0 / d,
            Shape::Power { p, .. } => p / d,
            Shape::Range { .. } => f64::NAN,
            Shape::Resolved(span) => span.log_slope(d),
            Shape::Table { keys, eps, beyond } => {
                let (k, e) = table_knots(keys, eps, *beyond);
                let i = k.partition_point(|&x| x <= d);
                if i == 0 || i >= k.len() {
                    0.0
                } else {
                    ((e[i - 1] - e[i]) / (k[i] - k[i - 1])).abs()
                }
            }
        };
        // Inside a clamp the map is flat.
        let l = self.ln_eps(d);
        let clamped =
            self.eps_min.is_some_and(|m| l <= m.ln()) || self.eps_max.is_some_and(|m| l >= m.ln());
        if clamped { 0.0 } else { raw }
    }

    /// The distance at which (the continuous version of) ε equals `eps`: the
    /// inverse of [`EpsilonMap::ln_eps`]. Used to report where a jump sits.
    /// Levels outside the map's range give the nearest end (or ±∞).
    pub fn distance_at(&self, eps: f64) -> f64 {
        let l = eps.ln();
        match &self.shape {
            Shape::Exp { a, b } => {
                if *b > 0.0 {
                    (a - l) / b
                } else {
                    0.0
                }
            }
            Shape::Recip { c } => c / eps,
            Shape::Power { c, p } => {
                if *p > 0.0 {
                    (c / eps).powf(1.0 / p)
                } else {
                    0.0
                }
            }
            Shape::Range { .. } => f64::NAN,
            Shape::Resolved(span) => span.distance_at(eps, l),
            Shape::Table {
                keys,
                eps: es,
                beyond,
            } => {
                let (k, e) = table_knots(keys, es, *beyond);
                // ln ε is non-increasing along the knots: find the segment.
                if l >= e[0] {
                    return k[0];
                }
                if l <= e[e.len() - 1] {
                    return k[k.len() - 1];
                }
                let i = e.partition_point(|&x| x > l); // first knot with ln ε ≤ l
                let (k0, k1, e0, e1) = (k[i - 1], k[i], e[i - 1], e[i]);
                if e0 == e1 {
                    k0
                } else {
                    k0 + (e0 - l) / (e0 - e1) * (k1 - k0)
                }
            }
        }
    }

    /// A canonical spec that parses back to the same map (clamps excluded).
    /// A resolved range prints as its equivalent `exp:` form.
    pub fn spec(&self) -> String {
        match &self.shape {
            Shape::Resolved(_) => {
                let (a, b) = self.exp_params().unwrap_or((f64::NAN, f64::NAN));
                spec_of(&Shape::Exp { a, b })
            }
            shape => spec_of(shape),
        }
    }
}

/// The spec of a shape (a resolved range has none of its own).
fn spec_of(shape: &Shape) -> String {
    use crate::util::fmt_f64 as f;
    match shape {
        Shape::Exp { a, b } => format!("exp:a={},b={}", f(*a), f(*b)),
        Shape::Recip { c } => format!("recip:c={}", f(*c)),
        Shape::Power { c, p } => format!("power:c={},p={}", f(*c), f(*p)),
        Shape::Table { keys, eps, beyond } => {
            let parts: Vec<String> = keys
                .iter()
                .zip(eps)
                .map(|(k, e)| format!("{}={}", f(*k), f(*e)))
                .chain(beyond.map(|b| format!("*={}", f(b))))
                .collect();
            format!("table:{}", parts.join(","))
        }
        Shape::Range { lo, hi } => format!("range:{}..{}", f(*lo), f(*hi)),
        Shape::Resolved(Span { lo, hi, .. }) => format!("range:{}..{}", f(*lo), f(*hi)),
    }
}

/// Checks a shape (finite, positive, non-increasing); `spec` is the text an
/// error names.
fn validate(shape: Shape, spec: &str) -> Result<Shape> {
    let finite = |key: &str, x: f64| -> Result<()> {
        if x.is_finite() {
            Ok(())
        } else {
            Err(bad(spec, format!("a finite number for '{key}', got '{x}'")))
        }
    };
    match &shape {
        Shape::Exp { a, b } => {
            finite("a", *a)?;
            finite("b", *b)?;
            if *b < 0.0 {
                return Err(bad(spec, "b ≥ 0 (ε must not increase with distance)"));
            }
        }
        Shape::Recip { c } => {
            finite("c", *c)?;
            if *c <= 0.0 {
                return Err(bad(spec, "c > 0"));
            }
        }
        Shape::Power { c, p } => {
            finite("c", *c)?;
            finite("p", *p)?;
            if *c <= 0.0 {
                return Err(bad(spec, "c > 0"));
            }
            if *p < 0.0 {
                return Err(bad(spec, "p ≥ 0 (ε must not increase with distance)"));
            }
        }
        Shape::Range { lo, hi } | Shape::Resolved(Span { lo, hi, .. }) => {
            finite("LO", *lo)?;
            finite("HI", *hi)?;
            if !(*lo > 0.0 && hi >= lo) {
                return Err(bad(spec, "0 < LO ≤ HI"));
            }
        }
        Shape::Table { keys, eps, beyond } => check_table(spec, keys, eps, *beyond)?,
    }
    Ok(shape)
}

/// Table entries sorted by distance: at least one, distances finite, ≥ 0 and
/// distinct, ε finite, > 0 and non-increasing (the `*` level included).
fn check_table(spec: &str, keys: &[f64], eps: &[f64], beyond: Option<f64>) -> Result<()> {
    if keys.is_empty() {
        return Err(bad(
            spec,
            "at least one DISTANCE=EPS entry, e.g. table:1=15,2=5,*=0.5",
        ));
    }
    for (d, e) in keys.iter().zip(eps) {
        if !(d.is_finite() && *d >= 0.0) {
            return Err(bad(spec, format!("distances ≥ 0, got '{d}={e}'")));
        }
        if !(e.is_finite() && *e > 0.0) {
            return Err(bad(spec, format!("ε > 0, got '{d}={e}'")));
        }
    }
    if let Some(b) = beyond.filter(|b| !(b.is_finite() && *b > 0.0)) {
        return Err(bad(spec, format!("ε > 0, got '*={b}'")));
    }
    for (k, e) in keys.windows(2).zip(eps.windows(2)) {
        if k[0] == k[1] {
            return Err(bad(spec, format!("each distance once, got {} twice", k[0])));
        }
        if e[1] > e[0] {
            return Err(bad(
                spec,
                format!(
                    "ε non-increasing in distance, but {}={} is followed by {}={}",
                    k[0], e[0], k[1], e[1]
                ),
            ));
        }
    }
    if let (Some(b), Some(k), Some(e)) = (beyond, keys.last(), eps.last())
        && b > *e
    {
        return Err(bad(
            spec,
            format!("ε non-increasing in distance, but {k}={e} is followed by *={b}"),
        ));
    }
    Ok(())
}

fn parse_table(spec: &str, body: &str) -> Result<Shape> {
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    let mut beyond = None;
    for part in body.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| bad(spec, format!("DISTANCE=EPS pairs, got '{part}'")))?;
        let e = parse_num(spec, k.trim(), v)?;
        if e <= 0.0 {
            return Err(bad(spec, format!("ε > 0, got '{}'", part.trim())));
        }
        if k.trim() == "*" {
            if beyond.is_some() {
                return Err(bad(spec, "at most one '*' entry"));
            }
            beyond = Some(e);
        } else {
            let d = parse_num(spec, "distance", k)?;
            if d < 0.0 {
                return Err(bad(spec, format!("distances ≥ 0, got '{}'", part.trim())));
            }
            pairs.push((d, e));
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(Shape::Table {
        keys: pairs.iter().map(|p| p.0).collect(),
        eps: pairs.iter().map(|p| p.1).collect(),
        beyond,
    })
}

fn table_eps(keys: &[f64], eps: &[f64], beyond: Option<f64>, d: f64) -> f64 {
    let i = keys.partition_point(|&k| k <= d);
    if i == 0 {
        eps[0]
    } else if i == keys.len() && d > keys[i - 1] {
        beyond.unwrap_or(eps[i - 1])
    } else {
        eps[i - 1]
    }
}

/// Knots `(distance, ln ε)` of the interpolated table.
fn table_knots(keys: &[f64], eps: &[f64], beyond: Option<f64>) -> (Vec<f64>, Vec<f64>) {
    let mut k = keys.to_vec();
    let mut e: Vec<f64> = eps.iter().map(|x| x.ln()).collect();
    if let Some(b) = beyond {
        k.push(keys[keys.len() - 1] + 1.0);
        e.push(b.ln());
    }
    (k, e)
}

fn interp(k: &[f64], e: &[f64], d: f64) -> f64 {
    let i = k.partition_point(|&x| x <= d);
    if i == 0 {
        e[0]
    } else if i >= k.len() {
        e[k.len() - 1]
    } else {
        let t = (d - k[i - 1]) / (k[i] - k[i - 1]);
        e[i - 1] + t * (e[i] - e[i - 1])
    }
}

impl std::str::FromStr for EpsilonMap {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        EpsilonMap::parse(s)
    }
}

impl fmt::Display for EpsilonMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.spec())
    }
}

// `summary.json` records the map as its spec (clamps are separate keys).
crate::util::spec::serde_as_spec!(EpsilonMap);

#[cfg(test)]
mod tests;
