//! Edge-list loading: the files researchers actually have (SNAP `.txt`/`.txt.gz`,
//! CSV exports) into a [`Graph`].
//!
//! # Format
//! * One edge per line: `u v` or `u v w`, columns separated by any run of spaces,
//!   tabs or commas (so `u,v,w`, `u\tv` and `u  v` all work). `w` is the edge's
//!   length (= electrical resistance) and must be finite and > 0.
//! * The file is weighted iff its first edge line has a third column; every other
//!   edge line must then have one too (and none may if the first has not).
//! * Lines whose first non-blank character is `#` or `%` are comments; blank
//!   lines are skipped.
//! * The first non-comment line is a header, and skipped, when its columns are
//!   header words (case-insensitive): first one of `source src from u node1 id1`,
//!   second one of `target dst to v node2 id2`, optional third one of
//!   `weight w length distance resistance cost`. A genuine first edge between
//!   nodes literally called `u` and `v` would be taken for a header — rename them.
//! * A UTF-8 byte-order mark at the start of the file is ignored.
//! * gzip input (by `.gz` extension or by the gzip magic bytes) is decompressed
//!   transparently, as SNAP ships it.
//!
//! # Node ids and node order
//! If every id (edge file and node list) parses as a `u64` (plain ASCII digits), ids
//! are integers and node index order is ascending id (`007` and `7` are then the
//! same node). Otherwise every id is an opaque string token and node index order
//! is order of first appearance: node-list file first, then the edge file.
//!
//! # Node list
//! [`LoadOptions::nodes_file`] names a file with one id per line (comments and blank
//! lines allowed; further columns, e.g. a name in `id,name`, are ignored; a first
//! line whose first column is `id`, `node` or `name` is a header). It adds nodes
//! that appear on no edge line (isolated nodes).
//!
//! # Speed
//! Lines are read into one reused buffer and split by hand; integer ids are
//! relabelled through a dense `Vec<u32>` while ids are small and a hash map
//! otherwise, so there is no allocation per line.

use super::{Graph, NodeIds};
use crate::{Error, Result};
use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// How to read an edge list.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Arcs are one-way (`u v` is `u → v` only).
    pub directed: bool,
    /// A file of node ids to add (isolated nodes that are on no edge line).
    pub nodes_file: Option<PathBuf>,
    /// Refuse inputs with more distinct nodes than this (default and upper
    /// limit `u32::MAX`, the most a `u32` index can address).
    pub max_nodes: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            directed: false,
            nodes_file: None,
            max_nodes: u32::MAX as usize,
        }
    }
}

/// Reads an edge list (see the [module docs](self) for the format) into a graph.
///
/// Self-loops and duplicate edges are dropped and counted in
/// [`Graph::dropped`]. Malformed input gives [`Error::Input`] naming the file,
/// the line, the offending text and what was expected; an unreadable file gives
/// [`Error::Io`].
pub fn load_graph(path: &Path, opts: &LoadOptions) -> Result<Graph> {
    let g = match Loader::run(path, opts, Mode::Integer)? {
        Some(g) => g,
        // A non-integer id was seen: read again from the start with string
        // tokens, so every token keeps its exact spelling.
        None => Loader::run(path, opts, Mode::Token)?
            .ok_or_else(|| Error::Numerical("token-mode load asked for a restart".into()))?,
    };
    Ok(g.with_source(path))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Integer,
    Token,
}

/// SplitMix64 as a hash for `u64` keys: sequential ids and ids that are
/// multiples of a power of two both spread well (unlike a bare multiply).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = crate::rng::splitmix64(self.0 ^ b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = crate::rng::splitmix64(self.0 ^ x);
    }
}

type IdMap = HashMap<u64, u32, BuildHasherDefault<IdHasher>>;

/// Hash-set of `u64` keys with [`IdHasher`] (deterministic, fast).
pub(crate) type IdSet = std::collections::HashSet<u64, BuildHasherDefault<IdHasher>>;

const ABSENT: u32 = u32::MAX;

/// Integer ids → provisional indices in order of first appearance.
struct IntIds {
    /// `dense[id]` = provisional index, while every id seen is small.
    dense: Option<Vec<u32>>,
    map: IdMap,
    /// Id of each provisional index.
    ids: Vec<u64>,
}

impl IntIds {
    fn new() -> Self {
        IntIds {
            dense: Some(Vec::new()),
            map: IdMap::default(),
            ids: Vec::new(),
        }
    }

    /// Ids up to this bound stay in the dense table: 2M entries (8 MB) always,
    /// more when the table stays at least 1/16 full.
    fn dense_limit(&self) -> u64 {
        (1u64 << 21).max(16 * self.ids.len() as u64)
    }

    /// Provisional index of `id`. The hot case (a known id in the dense
    /// table) is inlined; everything else is out of line.
    #[inline(always)]
    fn get(&mut self, id: u64) -> u32 {
        if let Some(d) = self.dense.as_ref()
            && let Some(&p) = d.get(id as usize)
            && p != ABSENT
        {
            return p;
        }
        self.get_slow(id)
    }

    #[cold]
    #[inline(never)]
    fn get_slow(&mut self, id: u64) -> u32 {
        let limit = self.dense_limit();
        if let Some(d) = self.dense.as_mut() {
            if (id as usize) < d.len() || id < limit {
                if (id as usize) >= d.len() {
                    d.resize((id as usize + 1).next_power_of_two(), ABSENT);
                }
                let p = self.ids.len() as u32;
                d[id as usize] = p;
                self.ids.push(id);
                return p;
            }
            // Too sparse for a table: move to the hash map for good.
            let d = self.dense.take().unwrap_or_default();
            self.map.reserve(self.ids.len() * 2);
            for (id, &p) in d.iter().enumerate() {
                if p != ABSENT {
                    self.map.insert(id as u64, p);
                }
            }
        }
        let next = self.ids.len() as u32;
        let p = *self.map.entry(id).or_insert(next);
        if p == next {
            self.ids.push(id);
        }
        p
    }

    /// Ids in ascending order and `perm[provisional] = final index`.
    fn finish(self) -> (Vec<u64>, Vec<u32>) {
        let n = self.ids.len();
        let mut perm = vec![0u32; n];
        let mut sorted = Vec::with_capacity(n);
        match self.dense {
            Some(d) => {
                for (id, &p) in d.iter().enumerate() {
                    if p != ABSENT {
                        perm[p as usize] = sorted.len() as u32;
                        sorted.push(id as u64);
                    }
                }
            }
            None => {
                let mut order: Vec<(u64, u32)> = self
                    .ids
                    .iter()
                    .enumerate()
                    .map(|(p, &id)| (id, p as u32))
                    .collect();
                order.sort_unstable();
                for (rank, &(id, p)) in order.iter().enumerate() {
                    perm[p as usize] = rank as u32;
                    sorted.push(id);
                }
            }
        }
        (sorted, perm)
    }
}

/// String ids → indices in order of first appearance.
#[derive(Default)]
struct TokIds {
    map: HashMap<String, u32>,
    names: Vec<String>,
}

impl TokIds {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&p) = self.map.get(s) {
            return p;
        }
        let p = self.names.len() as u32;
        self.map.insert(s.to_owned(), p);
        self.names.push(s.to_owned());
        p
    }
}

enum Ids {
    Int(IntIds),
    Tok(TokIds),
}

impl Ids {
    fn len(&self) -> usize {
        match self {
            Ids::Int(x) => x.ids.len(),
            Ids::Tok(x) => x.names.len(),
        }
    }

    /// Index of the id spelled `tok`; `Ok(None)` = not an integer in integer mode.
    #[inline]
    fn intern(
        &mut self,
        tok: &[u8],
        file: &Path,
        line_no: usize,
        line: &[u8],
    ) -> Result<Option<u32>> {
        match self {
            Ids::Int(x) => Ok(parse_u64(tok).map(|v| x.get(v))),
            Ids::Tok(x) => {
                // `line` was checked to be text already.
                let s = std::str::from_utf8(tok).map_err(|_| binary_error(file, line_no, line))?;
                Ok(Some(x.get(s)))
            }
        }
    }
}

/// Plain ASCII digits fitting a `u64`.
#[inline]
fn parse_u64(tok: &[u8]) -> Option<u64> {
    if tok.is_empty() || tok.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
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
fn is_sep(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b',' | b'\r' | b'\n' | 0x0b | 0x0c)
}

/// Splits `line` into at most 4 columns (a 4th means "too many"); returns the count.
#[inline]
fn split_columns<'a>(line: &'a [u8], cols: &mut [&'a [u8]; 4]) -> usize {
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

/// The line as text for a message: trimmed, at most 80 characters, quoted.
fn quote(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let s = s.trim();
    let mut out: String = s.chars().take(80).collect();
    if s.chars().count() > 80 {
        out.push('…');
    }
    format!("'{out}'")
}

fn binary_error(file: &Path, line_no: usize, line: &[u8]) -> Error {
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
fn check_text<'a>(file: &Path, line_no: usize, line: &'a [u8]) -> Result<&'a str> {
    let s = std::str::from_utf8(line).map_err(|_| binary_error(file, line_no, line))?;
    if s.bytes()
        .any(|b| b < 0x20 && !matches!(b, b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
    {
        return Err(binary_error(file, line_no, line));
    }
    Ok(s)
}

fn is_comment_or_blank(line: &[u8]) -> bool {
    match line.iter().position(|&b| !is_sep(b)) {
        None => true,
        Some(i) => matches!(line[i], b'#' | b'%'),
    }
}

fn one_of(tok: &[u8], words: &[&str]) -> bool {
    words.iter().any(|w| tok.eq_ignore_ascii_case(w.as_bytes()))
}

fn is_edge_header(cols: &[&[u8]]) -> bool {
    (cols.len() == 2 || cols.len() == 3)
        && one_of(cols[0], &["source", "src", "from", "u", "node1", "id1"])
        && one_of(cols[1], &["target", "dst", "to", "v", "node2", "id2"])
        && (cols.len() == 2
            || one_of(
                cols[2],
                &["weight", "w", "length", "distance", "resistance", "cost"],
            ))
}

/// An input file opened for line reading, gzip-decoded if needed.
struct Source {
    reader: Box<dyn BufRead>,
    gzip: bool,
}

fn open(path: &Path) -> Result<Source> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut raw = BufReader::with_capacity(1 << 18, file);
    let head = raw.fill_buf().map_err(|e| Error::io(path, e))?;
    let magic = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    let by_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    if magic || by_name {
        let dec = flate2::bufread::MultiGzDecoder::new(raw);
        Ok(Source {
            reader: Box::new(BufReader::with_capacity(1 << 18, dec)),
            gzip: true,
        })
    } else {
        Ok(Source {
            reader: Box::new(raw),
            gzip: false,
        })
    }
}

impl Source {
    /// Next line (without its `\n`) into `buf`; `false` at end of input.
    fn next_line(&mut self, buf: &mut Vec<u8>, path: &Path, line_no: usize) -> Result<bool> {
        buf.clear();
        match self.reader.read_until(b'\n', buf) {
            Ok(0) => Ok(false),
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                // A UTF-8 byte-order mark (spreadsheet CSV exports) is not part of the first id.
                if line_no == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                    buf.drain(..3);
                }
                Ok(true)
            }
            Err(e) if self.gzip => Err(Error::input(
                path,
                line_no,
                format!(
                    "gzip data is truncated or corrupt ({e}): expected a complete gzip file (re-download or re-compress it)"
                ),
            )),
            Err(e) => Err(Error::io(path, e)),
        }
    }
}

/// Integer edges interned per batch (see [`Loader::flush`]).
const BATCH: usize = 4096;

fn cap_error(file: &Path, line_no: usize, id: &str, number: usize, cap: usize) -> Error {
    Error::input(
        file,
        line_no,
        format!(
            "node '{id}' is distinct node number {number}: expected at most {cap} distinct nodes (the loader's max_nodes cap)"
        ),
    )
}

struct Loader<'a> {
    opts: &'a LoadOptions,
    ids: Ids,
}

impl<'a> Loader<'a> {
    /// One pass; `Ok(None)` = integer mode met a non-integer id.
    fn run(path: &Path, opts: &'a LoadOptions, mode: Mode) -> Result<Option<Graph>> {
        let mut l = Loader {
            opts,
            ids: match mode {
                Mode::Integer => Ids::Int(IntIds::new()),
                Mode::Token => Ids::Tok(TokIds::default()),
            },
        };
        if let Some(nodes) = &opts.nodes_file
            && !l.read_nodes(nodes)?
        {
            return Ok(None);
        }
        let Some((edges, weights)) = l.read_edges(path)? else {
            return Ok(None);
        };
        let ids = match l.ids {
            Ids::Tok(t) => NodeIds::tokens(t.names),
            Ids::Int(x) => {
                let (sorted, perm) = x.finish();
                let mut edges = edges;
                for e in edges.iter_mut() {
                    *e = (perm[e.0 as usize], perm[e.1 as usize]);
                }
                let g = Graph::from_edges(
                    NodeIds::integers(sorted),
                    &edges,
                    weights.as_deref(),
                    opts.directed,
                )?;
                return Ok(Some(g));
            }
        };
        Graph::from_edges(ids, &edges, weights.as_deref(), opts.directed).map(Some)
    }

    /// The node cap; never above what a `u32` index can address.
    fn cap(&self) -> usize {
        self.opts.max_nodes.min(u32::MAX as usize)
    }

    fn check_cap(&self, file: &Path, line_no: usize, tok: &[u8]) -> Result<()> {
        let n = self.ids.len();
        if n > self.cap() {
            return Err(cap_error(
                file,
                line_no,
                &String::from_utf8_lossy(tok),
                n,
                self.cap(),
            ));
        }
        Ok(())
    }

    /// Reads the node list; `false` = restart in token mode.
    fn read_nodes(&mut self, path: &Path) -> Result<bool> {
        let mut src = open(path)?;
        let mut buf = Vec::with_capacity(256);
        let mut line_no = 0usize;
        let mut first = true;
        loop {
            if !src.next_line(&mut buf, path, line_no + 1)? {
                return Ok(true);
            }
            line_no += 1;
            if is_comment_or_blank(&buf) {
                continue;
            }
            if self.ids_are_tokens() {
                check_text(path, line_no, &buf)?;
            }
            let mut cols: [&[u8]; 4] = [&[]; 4];
            let count = split_columns(&buf, &mut cols);
            debug_assert!(count >= 1);
            let tok = cols[0];
            if std::mem::take(&mut first) && one_of(tok, &["id", "node", "name"]) {
                continue;
            }
            match self.ids.intern(tok, path, line_no, &buf)? {
                Some(_) => self.check_cap(path, line_no, tok)?,
                None => {
                    check_text(path, line_no, &buf)?;
                    return Ok(false);
                }
            }
        }
    }

    /// Interns a batch of integer edges. Batching keeps the id-table lookups
    /// in a tight loop, where the CPU overlaps their cache misses (a shuffled
    /// 10M-edge file: 1.9 s → 1.4 s CPU for the whole load).
    fn flush(
        &mut self,
        pending: &mut Vec<(u64, u64, usize)>,
        edges: &mut Vec<(u32, u32)>,
        path: &Path,
    ) -> Result<()> {
        let cap = self.cap();
        let Ids::Int(ids) = &mut self.ids else {
            return Err(Error::Numerical("integer batch in token mode".into()));
        };
        for &(a, b, line_no) in pending.iter() {
            let u = ids.get(a);
            let v = ids.get(b);
            if ids.ids.len() > cap {
                let (id, index) = if u as usize >= cap { (a, u) } else { (b, v) };
                return Err(cap_error(
                    path,
                    line_no,
                    &id.to_string(),
                    index as usize + 1,
                    cap,
                ));
            }
            edges.push((u, v));
        }
        pending.clear();
        Ok(())
    }

    fn ids_are_tokens(&self) -> bool {
        matches!(self.ids, Ids::Tok(_))
    }

    /// Reads the edge lines; `None` = restart in token mode.
    #[allow(clippy::type_complexity)]
    fn read_edges(&mut self, path: &Path) -> Result<Option<(Vec<(u32, u32)>, Option<Vec<f64>>)>> {
        let mut src = open(path)?;
        let size_hint = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let cap = if src.gzip {
            size_hint / 4
        } else {
            size_hint / 12
        }
        .min(1 << 28) as usize;
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(cap);
        let mut weights: Vec<f64> = Vec::new();
        // Column count of the first edge line and where it was.
        let mut shape: Option<(usize, usize)> = None;
        let mut seen_data = false;
        let mut buf = Vec::with_capacity(256);
        let mut line_no = 0usize;
        let tokens = self.ids_are_tokens();
        let mut pending: Vec<(u64, u64, usize)> = Vec::with_capacity(BATCH);
        while src.next_line(&mut buf, path, line_no + 1)? {
            line_no += 1;
            if is_comment_or_blank(&buf) {
                continue;
            }
            if tokens {
                check_text(path, line_no, &buf)?;
            }
            let mut cols: [&[u8]; 4] = [&[]; 4];
            let count = split_columns(&buf, &mut cols);
            if !std::mem::replace(&mut seen_data, true) && is_edge_header(&cols[..count]) {
                continue;
            }
            if !(count == 2 || count == 3) {
                check_text(path, line_no, &buf)?;
                let found = if count == 4 { "4 or more" } else { "1" };
                return Err(Error::input(
                    path,
                    line_no,
                    format!(
                        "{} has {found} column(s): expected 2 or 3 columns `u v [w]` separated by spaces, tabs or commas",
                        quote(&buf)
                    ),
                ));
            }
            match shape {
                None => {
                    shape = Some((count, line_no));
                    if count == 3 {
                        weights.reserve(cap);
                    }
                }
                Some((c, first)) if c != count => {
                    check_text(path, line_no, &buf)?;
                    let expected = if c == 3 { "`u v w`" } else { "`u v`" };
                    return Err(Error::input(
                        path,
                        line_no,
                        format!(
                            "{} has {count} columns but the first edge line ({first}) has {c}: expected every line to be {expected} (a file is weighted on all lines or none)",
                            quote(&buf)
                        ),
                    ));
                }
                Some(_) => {}
            }
            if tokens {
                let mut ends = [0u32; 2];
                for (end, tok) in ends.iter_mut().zip([cols[0], cols[1]]) {
                    *end = self
                        .ids
                        .intern(tok, path, line_no, &buf)?
                        .ok_or_else(|| Error::Numerical("token interning failed".into()))?;
                    self.check_cap(path, line_no, tok)?;
                }
                edges.push((ends[0], ends[1]));
            } else {
                let (Some(u), Some(v)) = (parse_u64(cols[0]), parse_u64(cols[1])) else {
                    check_text(path, line_no, &buf)?;
                    return Ok(None);
                };
                pending.push((u, v, line_no));
                if pending.len() == BATCH {
                    self.flush(&mut pending, &mut edges, path)?;
                }
            }
            if count == 3 {
                let tok = cols[2];
                let w = std::str::from_utf8(tok)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok());
                match w {
                    Some(w) if w.is_finite() && w > 0.0 => weights.push(w),
                    Some(_) => {
                        return Err(Error::input(
                            path,
                            line_no,
                            format!(
                                "weight {} in {}: expected a finite number > 0 (an edge length)",
                                quote(tok),
                                quote(&buf)
                            ),
                        ));
                    }
                    None => {
                        check_text(path, line_no, &buf)?;
                        return Err(Error::input(
                            path,
                            line_no,
                            format!(
                                "weight {} in {} is not a number: expected a finite number > 0 (an edge length)",
                                quote(tok),
                                quote(&buf)
                            ),
                        ));
                    }
                }
            }
        }
        if !tokens {
            self.flush(&mut pending, &mut edges, path)?;
        }
        if edges.is_empty() {
            let what = if line_no == 0 {
                "the file is empty"
            } else {
                "every line is a comment, blank or a header"
            };
            return Err(Error::input(
                path,
                line_no,
                format!("no edges ({what}): expected at least one line `u v` or `u v w`"),
            ));
        }
        let weights = (shape.map(|s| s.0) == Some(3)).then_some(weights);
        Ok(Some((edges, weights)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_digits_only() {
        assert_eq!(parse_u64(b"0"), Some(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"-1"), None);
        assert_eq!(parse_u64(b"+1"), None);
        assert_eq!(parse_u64(b""), None);
        assert_eq!(parse_u64(b"1a"), None);
    }

    #[test]
    fn splits_on_runs_of_separators() {
        let mut cols: [&[u8]; 4] = [&[]; 4];
        assert_eq!(split_columns(b" 1,\t2  3\r", &mut cols), 3);
        assert_eq!(&cols[..3], &[&b"1"[..], b"2", b"3"]);
        assert_eq!(split_columns(b"a b c d e", &mut cols), 4);
        assert_eq!(split_columns(b"  ", &mut cols), 0);
    }

    #[test]
    fn headers_need_header_words_in_every_column() {
        let h = |s: &str| {
            let mut cols: [&[u8]; 4] = [&[]; 4];
            let n = split_columns(s.as_bytes(), &mut cols);
            is_edge_header(&cols[..n])
        };
        assert!(h("source,target,weight"));
        assert!(h("From To"));
        assert!(h("u v w"));
        assert!(!h("source Medici"));
        assert!(!h("1 2"));
        assert!(!h("source target 3"));
    }

    #[test]
    fn dense_table_falls_back_to_a_map_for_sparse_ids() {
        let mut ids = IntIds::new();
        assert_eq!(ids.get(5), 0);
        assert_eq!(ids.get(1 << 40), 1);
        assert!(ids.dense.is_none());
        assert_eq!(ids.get(5), 0);
        assert_eq!(ids.get(3), 2);
        let (sorted, perm) = ids.finish();
        assert_eq!(sorted, vec![3, 5, 1 << 40]);
        assert_eq!(perm, vec![1, 2, 0]);
    }
}
