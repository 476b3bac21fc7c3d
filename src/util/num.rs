//! Numbers in CSV files are printed in Rust's shortest round-trip form: parsing a
//! printed value gives back the same `f64`, bit for bit.

use std::fmt::Write as _;

/// Appends `x` in shortest round-trip form (`{}` of `f64`; `inf`, `-inf`, `NaN`
/// for non-finite values).
#[inline]
pub fn write_f64(out: &mut String, x: f64) {
    // `Display` for f64 prints the shortest decimal that parses back exactly.
    let _ = write!(out, "{x}");
}

/// `x` in shortest round-trip form.
pub fn fmt_f64(x: f64) -> String {
    let mut s = String::new();
    write_f64(&mut s, x);
    s
}

/// A short human-readable number for tick labels and notes.
pub fn short(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let a = x.abs();
    if !(1e-3..1e5).contains(&a) {
        return format!("{x:.2e}");
    }
    let digits = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Bytes as a short human figure (`1.5 GiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if x >= 1e4 {
        format!("{x:.3e} {}", UNITS[u])
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trips(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assume!(x.is_finite());
            let back: f64 = fmt_f64(x).parse().unwrap();
            prop_assert_eq!(back.to_bits(), x.to_bits());
        }
    }

    #[test]
    fn short_forms() {
        assert_eq!(fmt_f64(0.1), "0.1");
        assert_eq!(fmt_f64(15.0), "15");
        assert_eq!(fmt_f64(-2.5), "-2.5");
    }
}
