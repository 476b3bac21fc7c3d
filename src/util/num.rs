//! Numbers in CSV files are printed in Rust's shortest round-trip form: parsing a
//! printed value gives back the same `f64`, bit for bit.

use std::fmt::Write as _;

/// Appends `x` in shortest round-trip form (`{}` of `f64`; `inf`, `-inf`, `NaN`
/// for non-finite values).
///
/// The same bytes as `Display`, faster (every CSV number goes through here;
/// a 1 M-row `ego.csv` has 6 M of them): for 1e−5 ≤ |x| < 1e16 `ryu`
/// prints the shortest digits (shortest, and closest to `x` among the
/// shortest, as `Display`'s Grisu/Dragon) in `Display`'s layout, except
/// that it writes an integer with a trailing `.0`; other magnitudes it
/// writes with an exponent. The two also differ on an exact tie between two
/// shortest candidates (ryu rounds half to even, `Display` half up), which
/// needs an `x` whose exact decimal expansion has at most 18 significant
/// digits: a multiple of 2^−25 (`may_tie`; integers, halves, …). Those,
/// and every form with an exponent, are left to `Display`. Tested against
/// `Display` on random bit patterns of every exponent.
///
/// A non-zero integer below 2^53 in magnitude (a hop distance, a count)
/// is written as the integer: `Display` prints its exact digits (every
/// integer of that range is an `f64`, so no shorter decimal parses back
/// to it), and `itoa` prints them without the float formatter.
#[inline]
pub fn write_f64(out: &mut String, x: f64) {
    if x.fract() == 0.0 && x != 0.0 && x.abs() < EXACT_INTEGERS {
        out.push_str(itoa::Buffer::new().format(x as i64));
        return;
    }
    if !may_tie(x) {
        let mut buf = ryu::Buffer::new();
        let s = buf.format_finite(x);
        // An exponent is at most `e-324`: its `e` is among the last 5 bytes.
        if !s.as_bytes().iter().rev().take(5).any(|&b| b == b'e') {
            out.push_str(s);
            return;
        }
    }
    // `Display` for f64 prints the shortest decimal that parses back exactly.
    let _ = write!(out, "{x}");
}

/// The numbers last written by [`write_f64`], by their bits, with their
/// text: rows of correlated answers repeat a level's ε, error and answer for
/// every recipient at that level, so a 1 M-row `ego.csv` writes a few dozen
/// distinct numbers 5 M times. A slot per hash of the bits (64, overwritten
/// on collision); the same bytes as [`write_f64`] by construction.
#[derive(Clone, Default)]
pub struct NumMemo {
    slots: Option<Box<[MemoSlot; MEMO_SLOTS]>>,
}

const MEMO_SLOTS: usize = 64;
/// The longest text kept (ryu's forms are at most 24 bytes).
const MEMO_TEXT: usize = 24;

#[derive(Clone, Copy)]
struct MemoSlot {
    bits: u64,
    /// 0: empty.
    len: u8,
    text: [u8; MEMO_TEXT],
}

impl NumMemo {
    /// Appends `x` as [`write_f64`] does.
    #[inline]
    pub fn write(&mut self, out: &mut String, x: f64) {
        let slots = self.slots.get_or_insert_with(|| {
            Box::new(
                [MemoSlot {
                    bits: 0,
                    len: 0,
                    text: [0; MEMO_TEXT],
                }; MEMO_SLOTS],
            )
        });
        let bits = x.to_bits();
        let slot = &mut slots[(bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize];
        if slot.len > 0
            && slot.bits == bits
            && let Ok(text) = std::str::from_utf8(&slot.text[..usize::from(slot.len)])
        {
            out.push_str(text);
            return;
        }
        let start = out.len();
        write_f64(out, x);
        let text = &out.as_bytes()[start..];
        if text.len() <= MEMO_TEXT {
            slot.bits = bits;
            slot.len = text.len() as u8;
            slot.text[..text.len()].copy_from_slice(text);
        }
    }
}

impl std::fmt::Debug for NumMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NumMemo")
    }
}

/// 2^53: every integer of smaller magnitude is an `f64`.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Whether `x` is zero, not finite, or a multiple of 2^−25. Otherwise
/// x = m·2^e with m odd and e ≤ −26, whose exact decimal expansion
/// m·5^−e·10^e has at least 19 significant digits (5^26 > 10^18): no
/// shortest form (≤ 17 digits) can then tie.
#[inline]
fn may_tie(x: f64) -> bool {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if field == 0x7ff || (field == 0 && frac == 0) {
        return true;
    }
    let (m, e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), field - 1075)
    };
    e + m.trailing_zeros() as i32 >= -25
}

/// `x` in shortest round-trip form.
pub fn fmt_f64(x: f64) -> String {
    let mut s = String::new();
    write_f64(&mut s, x);
    s
}

/// A number for a message: shortest round-trip form, with an exponent when
/// it is very large or small (`1e-90`, `1.5e309` → `inf`, not 90 zeros).
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// `text` for a message with every long decimal expansion of an f64 in
/// [`fmt_num`]'s exponent form (issue 33 item 9): `1e308` typed by a user
/// is printed `1e308`, not the 309 digits of its `Display`. Only a run of
/// digits and dots standing alone (not part of a word or an id) is
/// rewritten, and only when it is more than 40 characters long (a `u64` id
/// has at most 20 digits; 2^-30 in full has 32 characters and stays).
pub fn shorten_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    let b = text.as_bytes();
    let is_num = |c: u8| c.is_ascii_digit() || c == b'.';
    let mut out: Option<String> = None;
    let (mut i, mut copied) = (0, 0);
    while i < b.len() {
        if !is_num(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_num(b[i]) {
            i += 1;
        }
        let run = &text[start..i];
        let alone = (start == 0 || !b[start - 1].is_ascii_alphanumeric() && b[start - 1] != b'_')
            && (i == b.len() || !b[i].is_ascii_alphanumeric() && b[i] != b'_');
        let long = run.len() > 40;
        if let (true, true, Ok(x)) = (alone, long, run.parse::<f64>()) {
            let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
            o.push_str(&text[copied..start]);
            o.push_str(&fmt_num(x));
            copied = i;
        }
    }
    match out {
        None => std::borrow::Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[copied..]);
            std::borrow::Cow::Owned(o)
        }
    }
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
    fn long_expansions_are_shortened_and_ids_are_not() {
        let big = format!("{}", 1e308);
        assert_eq!(
            shorten_numbers(&format!("invalid '{big}'")),
            "invalid '1e308'"
        );
        let tiny = format!("{}", 3.8725919148493183e-121);
        assert_eq!(
            shorten_numbers(&format!("got ε = {tiny} at 2")),
            "got ε = 3.8725919148493183e-121 at 2"
        );
        for kept in [
            "18446744073709551615",
            "node 123456789012345678901234567890",
            "ε ≥ 0.0000000009313225746154785",
            "x1000000000000000000000000000000000000",
            "0.1 and 15",
        ] {
            assert_eq!(shorten_numbers(kept), kept);
        }
    }

    /// The fast path prints what `Display` prints: random bit patterns (every
    /// exponent, subnormals, both signs), and the boundaries of ryu's layouts
    /// (powers of ten, exact integers up to 2^53 and beyond, 1e16 ± ulps).
    #[test]
    fn fast_path_is_display() {
        let check = |x: f64| {
            let mut s = String::new();
            write_f64(&mut s, x);
            assert_eq!(s, format!("{x}"), "bits {:#x}", x.to_bits());
        };
        let mut r = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..400_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            check(f64::from_bits(r));
            // Values of ordinary size, where the CSV files' numbers are.
            check((r >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((r % 40) as i32 - 20));
        }
        for k in -330..=310 {
            let p = 10f64.powi(k);
            if p == 0.0 || p.is_infinite() {
                continue;
            }
            for x in [
                p,
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits() - 1),
            ] {
                check(x);
                check(-x);
            }
        }
        // Integers: every one up to 10^5, then around each power of two up
        // to and beyond 2^53 (where the integer path stops).
        for i in 0..100_000i64 {
            check(i as f64);
            check(-(i as f64));
        }
        for k in 16..=70 {
            let p = 2f64.powi(k);
            for d in -3i64..=3 {
                check(p + d as f64);
                check(-(p + d as f64));
            }
        }
        for x in [
            0.0,
            -0.0,
            1.0,
            15.0,
            9007199254740991.0,
            9007199254740992.0,
            9007199254740993.0,
            1e16,
            1.5e16,
            123456789012345680000.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ] {
            check(x);
            check(-x);
        }
    }

    /// The memo writes what [`write_f64`] writes, for repeated numbers
    /// (hits), colliding slots and texts too long to keep.
    #[test]
    fn memo_is_write_f64() {
        let mut memo = NumMemo::default();
        let mut r = 0x9e37_79b9_7f4a_7c15u64;
        let mut xs: Vec<f64> = (0..300).map(|i| f64::from(i) * 0.37 - 11.0).collect();
        xs.extend([
            1e300,
            -1e-300,
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NAN,
            1e16,
            5e-324,
        ]);
        for _ in 0..20_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let x = xs[(r % xs.len() as u64) as usize];
            let (mut a, mut b) = (String::from("x,"), String::from("x,"));
            memo.write(&mut a, x);
            write_f64(&mut b, x);
            assert_eq!(a, b, "bits {:#x}", x.to_bits());
        }
    }

    #[test]
    fn short_forms() {
        assert_eq!(fmt_f64(0.1), "0.1");
        assert_eq!(fmt_f64(15.0), "15");
        assert_eq!(fmt_f64(-2.5), "-2.5");
    }
}
