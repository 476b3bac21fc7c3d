//! Header lines of an edge list (issue 33 item 12): what the loader takes
//! for a header, and that it says so.
//!
//! SNAP's MUSAE datasets begin `id_1,id_2`; read as an edge it would add two
//! text-named nodes and an edge between them, silently. With
//! [`HeaderMode::Auto`] (the default) the first data line is a header when
//! its columns are the loader's header words (`source target [weight]`,
//! `u v`, `id1 id2`, …) or when its ids are text where every other data
//! line's are numbers; [`HeaderMode::Yes`] skips it whatever it holds and
//! [`HeaderMode::No`] keeps it as an edge. Every line skipped is reported
//! ([`crate::util::notes`]), and in `auto` mode a first line kept as an
//! edge whose ids occur on no other line is reported too (a header the rules
//! could not tell from an edge, as `name1 name2` above text ids).

use super::lex::{check_text, is_edge_header, quote};
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Whether an edge list's first data line is a header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HeaderMode {
    /// Header words, or text ids over a file of numbers (see the module).
    #[default]
    Auto,
    /// The first data line is a header.
    Yes,
    /// The first data line is an edge.
    No,
}

impl HeaderMode {
    /// Whether this is the default (`auto`): configurations leave it out
    /// of their JSON, so that existing outputs keep their bytes.
    pub fn is_auto(&self) -> bool {
        *self == HeaderMode::Auto
    }
}

impl std::str::FromStr for HeaderMode {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(HeaderMode::Auto),
            "yes" | "true" => Ok(HeaderMode::Yes),
            "no" | "false" => Ok(HeaderMode::No),
            _ => Err(Error::param("header", s, "yes, no or auto")),
        }
    }
}

impl std::fmt::Display for HeaderMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HeaderMode::Auto => "auto",
            HeaderMode::Yes => "yes",
            HeaderMode::No => "no",
        })
    }
}

/// Whether a line's two id columns are both numbers: made only of ASCII
/// digits, the one rule of node ids (docs/graphs.md), however long — an id
/// beyond u64 is a number too, never a header's word.
pub(super) fn numeric_ids(cols: &[&[u8]]) -> bool {
    let digits = |c: &[u8]| !c.is_empty() && c.iter().all(u8::is_ascii_digit);
    cols.len() >= 2 && digits(cols[0]) && digits(cols[1])
}

/// A first data line held back in `auto` mode: its ids are text, and it is
/// a header if every other data line's ids are numbers.
pub(super) struct Held {
    pub(super) line: usize,
    /// Its columns (2 or 3), owned.
    pub(super) cols: Vec<Vec<u8>>,
    /// The line as a message quotes it.
    pub(super) text: String,
}

impl Held {
    pub(super) fn new(line: usize, cols: &[&[u8]], raw: &[u8]) -> Held {
        Held {
            line,
            cols: cols.iter().map(|c| c.to_vec()).collect(),
            text: quote(raw),
        }
    }
}

/// Reports a skipped header line; `why` says what made it one.
pub(super) fn skipped(path: &Path, line: usize, text: &str, why: &str) {
    crate::util::notes::warn(&format!(
        "{}:{line}: skipped {text} as a header ({why})",
        path.display()
    ));
}

/// Reports a first line kept as an edge whose ids occur nowhere else.
pub(super) fn lonely_first_line(path: &Path, line: usize, text: &str) {
    crate::util::notes::warn(&format!(
        "{}:{line}: the ids of the first line {text} occur on no other line and in no node \
         list: if it is a header, load with `header` = yes",
        path.display()
    ));
}

/// What the first data lines of an edge list say about a header, as they
/// are read.
pub(super) struct HeaderWatch {
    mode: HeaderMode,
    seen_data: bool,
    /// The first data line: where, as quoted, and whether it was kept as
    /// an edge (for the `auto` mode's lonely-line warning).
    pub(super) first: Option<(usize, String, bool)>,
    /// A first line of text ids held back (`auto`).
    pub(super) held: Option<Held>,
    /// Whether another data line came, all of numbers, after `held`.
    pub(super) others: bool,
}

impl HeaderWatch {
    pub(super) fn new(mode: HeaderMode) -> HeaderWatch {
        HeaderWatch {
            mode,
            seen_data: false,
            first: None,
            held: None,
            others: false,
        }
    }

    /// Whether this data line is the first (it is seen from now on).
    /// Inlined: every line asks.
    #[inline]
    pub(super) fn first_data_line(&mut self) -> bool {
        !std::mem::replace(&mut self.seen_data, true)
    }

    /// Whether the first data line `raw` (columns `cols`, 1 to 4) is a
    /// header to skip or to hold back: reported when skipped.
    #[inline(never)]
    pub(super) fn takes_first(
        &mut self,
        path: &Path,
        line_no: usize,
        raw: &[u8],
        cols: &[&[u8]],
    ) -> Result<bool> {
        let text = quote(raw);
        let count = cols.len();
        match self.mode {
            HeaderMode::Yes => {
                check_text(path, line_no, raw)?;
                skipped(path, line_no, &text, "`header` = yes");
                Ok(true)
            }
            HeaderMode::Auto if is_edge_header(cols) => {
                skipped(
                    path,
                    line_no,
                    &text,
                    "its columns are header words; `header` = no keeps it as an edge",
                );
                Ok(true)
            }
            HeaderMode::Auto if (count == 2 || count == 3) && !numeric_ids(cols) => {
                check_text(path, line_no, raw)?;
                self.held = Some(Held::new(line_no, cols, raw));
                self.first = Some((line_no, text, false));
                Ok(true)
            }
            _ => {
                self.first = Some((line_no, text, true));
                Ok(false)
            }
        }
    }

    /// Whether the first edge kept is to be checked for ids that occur
    /// nowhere else (`auto` mode).
    pub(super) fn lonely_candidate(&self) -> Option<(usize, &str)> {
        match &self.first {
            Some((line, text, true)) if self.mode == HeaderMode::Auto => Some((*line, text)),
            _ => None,
        }
    }
}
