//! The grid γ = 2^k of a discrete release and the exact maps between values
//! and grid integers (memo §1).

use super::rational::scale_pow2;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Largest |û| accepted when rounding a value to the grid: 2⁵², half of
/// f64's exactness range, so that û + X stays below 2⁵³ unless the noise
/// exceeds 2⁵² (probability below e^{−2¹²} at the smallest allowed rate 2⁻⁴⁰).
pub const MAX_GRID_VALUE: i64 = 1 << 52;

/// A grid γ = 2^k (k from −1022 to 1023: normal f64 powers of two). Written
/// `2^-10`; parses `2^-10`, `2^3` or a decimal such as `0.0009765625`; any
/// value that is not a power of two is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "GridText", into = "String")]
pub struct Grid {
    exponent: i32,
}

impl Default for Grid {
    /// 2⁻¹⁰, the default of the issue.
    fn default() -> Self {
        Grid { exponent: -10 }
    }
}

const EXPECTED: &str = "a power of two, written 2^-10 or 0.0009765625 (2^-1022 to 2^1023)";

impl Grid {
    /// γ = 2^`exponent`.
    pub fn from_exponent(exponent: i32) -> Result<Grid> {
        if (-1022..=1023).contains(&exponent) {
            Ok(Grid { exponent })
        } else {
            Err(Error::param(
                "granularity",
                format!("2^{exponent}"),
                EXPECTED,
            ))
        }
    }

    /// γ from its value, which must be a normal power of two.
    pub fn from_value(gamma: f64) -> Result<Grid> {
        let bits = gamma.to_bits();
        if gamma.is_normal() && gamma > 0.0 && bits & ((1 << 52) - 1) == 0 {
            Grid::from_exponent(((bits >> 52) & 0x7ff) as i32 - 1023)
        } else {
            Err(Error::param("granularity", gamma, EXPECTED))
        }
    }

    /// k of γ = 2^k.
    pub fn exponent(&self) -> i32 {
        self.exponent
    }

    /// γ.
    pub fn value(&self) -> f64 {
        scale_pow2(1.0, i64::from(self.exponent))
    }

    /// û = ⌊u/γ + ½⌋ (rounding half up), exactly: u/γ is exact (a power of
    /// two), and the half is compared with the exact fractional part rather
    /// than added (v + ½ can round in f64). Values with |û| > `MAX_GRID_VALUE`
    /// are refused, naming `value`.
    pub fn round(&self, u: f64) -> Result<i64> {
        let limit = MAX_GRID_VALUE as f64;
        let refuse = || {
            Error::param(
                "value",
                u,
                format!(
                    "a finite value within ±{} (2^52 grid steps, so that answers stay exact in f64)",
                    scale_pow2(limit, i64::from(self.exponent))
                ),
            )
        };
        if !u.is_finite() {
            return Err(refuse());
        }
        let v = scale_pow2(u, -i64::from(self.exponent));
        // A subnormal v (inexact) is far below ½ and rounds to 0 either way.
        let w = v.abs();
        if w > limit + 1.0 {
            return Err(refuse());
        }
        let f = w.floor();
        // Exact: w and f are multiples of ulp(w) ≤ 1 and differ by < 1.
        let r = w - f;
        let magnitude = f as i64;
        let uhat = if v >= 0.0 {
            magnitude + i64::from(r >= 0.5)
        } else {
            // ⌊−w + ½⌋ = −⌈w − ½⌉ = −(f + [r > ½]).
            -(magnitude + i64::from(r > 0.5))
        };
        if uhat.abs() > MAX_GRID_VALUE {
            return Err(refuse());
        }
        Ok(uhat)
    }

    /// ⌈x/γ⌉ for a finite x > 0, exactly, or `None` beyond 2⁵³.
    pub fn steps_ceil(&self, x: f64) -> Option<u64> {
        if !(x.is_finite() && x > 0.0) {
            return None;
        }
        if x <= self.value() {
            return Some(1);
        }
        // x/γ > 1: exact (no underflow), possibly infinite.
        let c = scale_pow2(x, -i64::from(self.exponent)).ceil();
        (c <= (1u64 << 53) as f64).then_some(c as u64)
    }

    /// n·γ for a grid integer n (û + X), exact while |n| < 2⁵³ (checked: an
    /// [`Error::Numerical`] beyond).
    #[inline]
    pub fn value_of(&self, grid_integer: i128) -> Result<f64> {
        if grid_integer.unsigned_abs() >= 1 << 53 {
            return Err(inexact(grid_integer));
        }
        // |n| < 2⁵³: the i64 conversion is exact and much cheaper than i128's.
        let x = grid_integer as i64 as f64;
        let y = if (-1000..=1000).contains(&self.exponent) {
            // scale_pow2's one step, without its loops.
            x * f64::from_bits(((1023 + self.exponent) as u64) << 52)
        } else {
            scale_pow2(x, i64::from(self.exponent))
        };
        if y.is_finite() {
            Ok(y)
        } else {
            Err(Error::Numerical(format!(
                "a discrete answer overflowed: {grid_integer}·2^{}",
                self.exponent
            )))
        }
    }
}

/// The error of [`Grid::value_of`] beyond 2⁵³, out of the per-answer path.
#[cold]
fn inexact(grid_integer: i128) -> Error {
    Error::Numerical(format!(
        "a discrete answer left f64's exactness range (|û + X| = {} ≥ 2^53 grid steps)",
        grid_integer.unsigned_abs()
    ))
}

impl std::str::FromStr for Grid {
    type Err = Error;
    fn from_str(s: &str) -> Result<Grid> {
        let t = s.trim();
        if let Some(k) = t.strip_prefix("2^") {
            let k: i32 = k
                .trim()
                .parse()
                .map_err(|_| Error::param("granularity", s, EXPECTED))?;
            return Grid::from_exponent(k);
        }
        match t.parse::<f64>() {
            Ok(g) => Grid::from_value(g).map_err(|_| Error::param("granularity", s, EXPECTED)),
            Err(_) => Err(Error::param("granularity", s, EXPECTED)),
        }
    }
}

impl std::fmt::Display for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "2^{}", self.exponent)
    }
}

impl TryFrom<String> for Grid {
    type Error = Error;
    fn try_from(s: String) -> Result<Grid> {
        s.parse()
    }
}

/// What a configuration may hold for a grid: its text (`2^-10`) or its
/// value as a number (`0.0009765625`, e.g. a Python float).
#[derive(Deserialize)]
#[serde(untagged)]
enum GridText {
    Text(String),
    Number(f64),
}

impl TryFrom<GridText> for Grid {
    type Error = Error;
    fn try_from(g: GridText) -> Result<Grid> {
        match g {
            GridText::Text(s) => s.parse(),
            GridText::Number(x) => Grid::from_value(x),
        }
    }
}

impl From<Grid> for String {
    fn from(g: Grid) -> String {
        g.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_powers_of_two_only() {
        let g: Grid = "2^-10".parse().unwrap();
        assert_eq!(g, Grid::default());
        assert_eq!("0.0009765625".parse::<Grid>().unwrap(), g);
        assert_eq!(" 2^3 ".parse::<Grid>().unwrap().value(), 8.0);
        assert_eq!("1".parse::<Grid>().unwrap().exponent(), 0);
        assert_eq!(g.to_string(), "2^-10");
        assert_eq!(g.to_string().parse::<Grid>().unwrap(), g);
        for bad in [
            "0.001", "3", "0", "-0.5", "2^", "2^x", "2^-1075", "2^1024", "nan", "inf", "",
        ] {
            let e = bad.parse::<Grid>().unwrap_err().to_string();
            assert!(
                e.contains("granularity") && e.contains("power of two"),
                "{bad}: {e}"
            );
        }
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, "\"2^-10\"");
        assert_eq!(serde_json::from_str::<Grid>(&json).unwrap(), g);
        assert!(serde_json::from_str::<Grid>("\"0.3\"").is_err());
        // A number (a Python float through the door) is its value.
        assert_eq!(
            serde_json::from_str::<Grid>("0.0009765625").unwrap(),
            Grid::default()
        );
        let e = serde_json::from_str::<Grid>("0.3").unwrap_err().to_string();
        assert!(
            e.contains("granularity") && e.contains("power of two"),
            "{e}"
        );
    }

    #[test]
    fn rounds_half_up_exactly() {
        let g = Grid::from_exponent(0).unwrap();
        for (u, want) in [
            (0.5, 1),
            (-0.5, 0),
            (1.5, 2),
            (-1.5, -1),
            (2.5, 3),
            (-2.5, -2),
            (-2.6, -3),
            (0.49999999999999994, 0), // v + ½ would round to 1 in f64
            (-0.49999999999999994, 0),
            (-0.3, 0),
            (-0.7, -1),
            (4503599627370495.5, 4503599627370496),
            (0.0, 0),
            (-0.0, 0),
            (1e-310, 0),
        ] {
            assert_eq!(g.round(u).unwrap(), want, "u = {u}");
        }
        let fine = Grid::default();
        assert_eq!(fine.round(1.0).unwrap(), 1024);
        assert_eq!(fine.round(0.00048828125).unwrap(), 1); // exactly half a step
        assert_eq!(fine.round(-0.00048828125).unwrap(), 0);
        // Every rounding is within half a step and ties go up.
        for i in -2000..2000 {
            let u = i as f64 * 0.000123;
            let h = fine.round(u).unwrap();
            let err = h as f64 * fine.value() - u;
            assert!(
                err > -fine.value() / 2.0 - 1e-18 && err <= fine.value() / 2.0,
                "{u}"
            );
        }
        assert!(g.round(4503599627370497.0).is_err());
        assert!(g.round(f64::NAN).is_err());
        let e = fine.round(1e300).unwrap_err().to_string();
        assert!(e.contains("invalid value") && e.contains("2^52"), "{e}");
    }

    #[test]
    fn ceilings_and_answers_are_exact() {
        let g = Grid::default();
        assert_eq!(g.steps_ceil(1.0), Some(1024));
        assert_eq!(g.steps_ceil(1.0 + 1e-15), Some(1025));
        assert_eq!(g.steps_ceil(1e-300), Some(1));
        assert_eq!(g.steps_ceil(1e300), None);
        assert_eq!(g.steps_ceil(0.0), None);
        assert_eq!(g.value_of(3).unwrap(), 3.0 / 1024.0);
        assert_eq!(
            g.value_of(-(1 << 53) + 1).unwrap(),
            -(((1u64 << 53) - 1) as f64) / 1024.0
        );
        assert!(g.value_of(1 << 53).is_err());
        assert!(
            Grid::from_exponent(1023)
                .unwrap()
                .value_of(1 << 20)
                .is_err()
        );
    }

    /// The one-multiplication path of `value_of` equals `scale_pow2` of the
    /// exact integer, at every exponent (subnormal results included).
    #[test]
    fn answers_equal_the_scaled_integer_at_every_exponent() {
        let ns: [i128; 6] = [0, 1, -3, 12345, (1 << 53) - 1, -(1 << 52) - 7];
        for e in -1022..=1023 {
            let g = Grid::from_exponent(e).unwrap();
            for n in ns {
                let want = scale_pow2(n as f64, i64::from(e));
                match g.value_of(n) {
                    Ok(y) => assert_eq!(y.to_bits(), want.to_bits(), "{n}·2^{e}"),
                    Err(_) => assert!(!want.is_finite(), "{n}·2^{e}"),
                }
            }
        }
    }
}
