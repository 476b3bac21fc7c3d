use super::*;

/// Plain ASCII digits fitting a `u64` (leading zeros allowed: `007` is 7).
#[inline]
pub(super) fn parse_u64(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    if tok.len() <= 19 {
        // At most 19 digits: no overflow possible.
        for &b in tok {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + d as u64;
        }
        return Some(v);
    }
    for &b in tok {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(d as u64)?;
    }
    Some(v)
}

#[inline]
pub(super) fn is_sep(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b',' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Splits `line` into at most 4 columns (a 4th means "too many"); returns the count.
#[inline]
pub(super) fn split_columns<'a>(line: &'a [u8], cols: &mut [&'a [u8]; 4]) -> usize {
    let mut count = 0;
    let mut i = 0;
    let len = line.len();
    while i < len && count < 4 {
        while i < len && is_sep(line[i]) {
            i += 1;
        }
        if i == len {
            break;
        }
        let start = i;
        while i < len && !is_sep(line[i]) {
            i += 1;
        }
        cols[count] = &line[start..i];
        count += 1;
    }
    count
}

/// The line as text for a message: trimmed, at most 80 characters, control
/// characters escaped, quoted.
pub(super) fn quote(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let s = s.trim();
    let mut out: String = s.chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    format!("'{}'", lines::one_line(&out))
}

/// A hint for a line holding carriage returns inside it: a file with
/// old-Mac (CR-only) line endings reads as one long line.
pub(super) fn cr_hint(line: &[u8]) -> &'static str {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if body.contains(&b'\r') {
        " (the line holds carriage returns: a file with CR-only line endings must be converted to \\n or \\r\\n line endings)"
    } else {
        ""
    }
}

pub(super) fn binary_error(file: &Path, line_no: usize, line: &[u8]) -> Error {
    let what = if line.contains(&0) {
        "a NUL byte"
    } else {
        "bytes that are not UTF-8 text"
    };
    let shown: String = String::from_utf8_lossy(line)
        .chars()
        .take(40)
        .flat_map(|c| c.escape_debug())
        .collect();
    Error::input(
        file,
        line_no,
        format!(
            "binary data ({what}) in \"{shown}\": expected a text edge list (`u v` or `u v w` per line)"
        ),
    )
}

/// Text check for the slow paths: valid UTF-8 without NUL or other control bytes
/// (tab and carriage return excepted).
pub(super) fn check_text<'a>(file: &Path, line_no: usize, line: &'a [u8]) -> Result<&'a str> {
    let s = std::str::from_utf8(line).map_err(|_| binary_error(file, line_no, line))?;
    if s.bytes()
        .any(|b| b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
    {
        return Err(binary_error(file, line_no, line));
    }
    Ok(s)
}

pub(super) fn is_comment_or_blank(line: &[u8]) -> bool {
    match line.iter().position(|&b| !is_sep(b)) {
        None => true,
        Some(i) => matches!(line[i], b'#' | b'%'),
    }
}

pub(super) fn one_of(tok: &[u8], words: &[&str]) -> bool {
    words.iter().any(|w| tok.eq_ignore_ascii_case(w.as_bytes()))
}

pub(super) fn is_edge_header(cols: &[&[u8]]) -> bool {
    (cols.len() == 2 || cols.len() == 3)
        && one_of(cols[0], &["source", "src", "from", "u", "node1", "id1"])
        && one_of(cols[1], &["target", "dst", "to", "v", "node2", "id2"])
        && (cols.len() == 2
            || one_of(
                cols[2],
                &["weight", "w", "length", "distance", "resistance", "cost"],
            ))
}
