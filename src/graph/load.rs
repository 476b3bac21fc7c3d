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
//! One rule for every file and option that names nodes (this edge list, the
//! node list, `owners`, coalition `file:` and `ids:` lists, `values` tables):
//! **an id made only of ASCII digits is a number**, so `007`, `07` and `7`
//! name one node, printed `7`, whatever the other ids are. Any other id is a
//! string, exactly as spelled (`+7`, `7.0` and `x7` are three strings, none of
//! them node `7`).
//!
//! If every id of the edge file and node list is a number below 2^64, ids are
//! integers and node index order is ascending id. Otherwise ids are string
//! tokens and node index order is order of first appearance: node-list file
//! first, then the edge file.
//!
//! # Node list
//! [`LoadOptions::nodes_file`] names a file with one id per line (comments and blank
//! lines allowed; further columns, e.g. a name in `id,name`, are ignored; a first
//! line whose first column is `id`, `node` or `name` is a header). It adds nodes
//! that appear on no edge line (isolated nodes).
//!
//! # Bounds
//! Any input ends, valid or not, in bounded memory and with a message naming
//! the file and line (or, for memory, the file and the budget):
//! * a line is at most 1 MiB ([`MAX_LINE`]): `/dev/zero`, a binary file or a
//!   gzip bomb holding one huge line stop there;
//! * a file has at most [`MAX_LINES`] lines (an endless FIFO stops there);
//! * the loader holds the id table, the edges read so far and nothing else.
//!   Self-loops and repeated edges are compacted away before the edge buffer
//!   grows past 16 M edges (later: past four to eight times the distinct
//!   edges found by the last compaction), so a file of mostly repeated lines
//!   loads in memory for its distinct edges. Every growth of the buffer and of
//!   the id table is checked against the memory budget
//!   ([`limits`]), counting what building the graph will add;
//!   a graph that does not fit is refused with [`Error::Budget`] naming the
//!   file, the nodes and edges read, the projected need and the budget;
//! * a corrupt or truncated gzip stream is reported as such, with the
//!   compressed byte offset. When a line of a gzip file is malformed, up to
//!   16 MiB more of the stream is decoded first, so that garbage decoded from
//!   a damaged file is reported as a damaged file, not as a column error.
//!
//! # Speed
//! Lines are read into one reused buffer and split by hand; integer ids are
//! relabelled through a dense `Vec<u32>` while ids are small and a hash map
//! otherwise, so there is no allocation per line.
use super::ids::canonical_id;
use super::{Dropped, Graph, NodeIds};
use crate::error::{Error, Result};
use crate::limits::{self, MemoryBudget};
use crate::util::lines::{self, LineRead, MAX_LINE};
use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufRead, BufReader, Read};
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
/// [`Error::Io`]; a graph that would not fit the memory budget
/// ([`limits`]) gives [`Error::Budget`] naming the file.
pub fn load_graph(path: &Path, opts: &LoadOptions) -> Result<Graph> {
    let g = Loader::run(path, opts, limits::memory_budget())?;
    Ok(g.with_source(path))
}

/// Reads a node list by the rules of [`LoadOptions::nodes_file`] (one id
/// per line, `#`/`%` comments and blank lines skipped, further columns
/// ignored, an optional `id`/`node`/`name` header, gzip read transparently,
/// lines of at most 1 MiB) and calls `each(id, line)` for every id in file
/// order. The file is streamed: nothing is held but the current line.
pub fn read_node_list(path: &Path, mut each: impl FnMut(&str, usize) -> Result<()>) -> Result<()> {
    let mut src = open(path)?;
    let r = node_list_from(&mut src, &mut each);
    r.map_err(|e| src.explain(e))
}

fn node_list_from(
    src: &mut Source<'_>,
    each: &mut impl FnMut(&str, usize) -> Result<()>,
) -> Result<()> {
    let path = src.path;
    let mut buf = Vec::with_capacity(256);
    let mut first = true;
    while src.next_line(&mut buf)? {
        let line_no = src.line;
        if is_comment_or_blank(&buf) {
            continue;
        }
        let text = check_text(path, line_no, &buf)?;
        let mut cols: [&[u8]; 4] = [&[]; 4];
        split_columns(text.as_bytes(), &mut cols);
        let tok = cols[0];
        if std::mem::take(&mut first) && one_of(tok, &["id", "node", "name"]) {
            continue;
        }
        // `tok` is a slice of valid UTF-8 cut at ASCII separators.
        each(std::str::from_utf8(tok).unwrap_or_default(), line_no)?;
    }
    Ok(())
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

/// Memory for the nodes seen so far: what the id tables hold while the
/// file is read, and what the nodes take while the graph is built (CSR
/// offsets and degrees, the sorted ids and their permutation, and whatever
/// id table is still alive then).
#[derive(Clone, Copy, Debug, Default)]
struct NodeMem {
    load: u64,
    build: u64,
}

impl NodeMem {
    fn scaled(self, k: f64) -> NodeMem {
        let s = |x: u64| (x as f64 * k).min(u64::MAX as f64 / 4.0) as u64;
        NodeMem {
            load: s(self.load),
            build: s(self.build),
        }
    }
}

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

    /// Memory for the nodes seen so far.
    fn mem(&self) -> NodeMem {
        let dense = self.dense.as_ref().map_or(0, |d| d.capacity() as u64 * 4);
        // A (u64, u32) slot and its control byte, the table at most 7/8 full.
        let map = self.map.capacity() as u64 * 17 * 8 / 7;
        let n = self.ids.len() as u64;
        NodeMem {
            load: dense + map + self.ids.capacity() as u64 * 8,
            // The tables are gone by then: offsets, degrees (4 × 8), sorted
            // ids (8), permutation (4), and the sort of a sparse table (16).
            build: n * if self.dense.is_some() { 44 } else { 60 },
        }
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
    /// Bytes of text of the names.
    text: u64,
}

impl TokIds {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&p) = self.map.get(s) {
            return p;
        }
        let p = self.names.len() as u32;
        self.map.insert(s.to_owned(), p);
        self.names.push(s.to_owned());
        self.text += s.len() as u64;
        p
    }

    /// Memory for the nodes seen so far.
    fn mem(&self) -> NodeMem {
        // Each name twice (map key and list), a map slot of 28 bytes plus a
        // control byte at most 7/8 full.
        let map = self.map.capacity() as u64 * 29 * 8 / 7;
        let load = map + self.names.capacity() as u64 * 24 + 2 * self.text;
        // The map lives on while the graph is built; offsets and degrees.
        NodeMem {
            load,
            build: load + self.names.len() as u64 * 32,
        }
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

    fn mem(&self) -> NodeMem {
        match self {
            Ids::Int(x) => x.mem(),
            Ids::Tok(x) => x.mem(),
        }
    }

    /// Turns integer ids into string tokens (their decimal spelling, the
    /// canonical one), keeping indices: integer ids are numbered in order
    /// of first appearance, as tokens are.
    fn become_tokens(&mut self) {
        let Ids::Int(x) = self else {
            return;
        };
        let mut t = TokIds::default();
        t.map.reserve(x.ids.len());
        t.names.reserve(x.ids.len());
        for id in std::mem::take(&mut x.ids) {
            t.get(&id.to_string());
        }
        *self = Ids::Tok(t);
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
                let s = std::str::from_utf8(canonical_id(tok))
                    .map_err(|_| binary_error(file, line_no, line))?;
                Ok(Some(x.get(s)))
            }
        }
    }
}

/// Plain ASCII digits fitting a `u64` (leading zeros allowed: `007` is 7).
#[inline]
fn parse_u64(tok: &[u8]) -> Option<u64> {
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

/// The line as text for a message: trimmed, at most 80 characters, control
/// characters escaped, quoted.
fn quote(line: &[u8]) -> String {
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
fn cr_hint(line: &[u8]) -> &'static str {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if body.contains(&b'\r') {
        " (the line holds carriage returns: a file with CR-only line endings must be converted to \\n or \\r\\n line endings)"
    } else {
        ""
    }
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

pub use crate::util::lines::MAX_LINES;

/// Decoded bytes read past a malformed line of a gzip file to tell a
/// corrupt stream (whose garbage produced the bad line) from bad content.
const GZIP_CHECK_BYTES: u64 = 16 << 20;

/// Counts the bytes read from the file (the offset of a gzip error, the
/// share of the file read so far).
struct Counting<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.read += n as u64;
        Ok(n)
    }
}

type Raw = BufReader<Counting<File>>;

enum Reader {
    Plain(Raw),
    Gzip(BufReader<flate2::bufread::MultiGzDecoder<Raw>>),
}

/// An input file opened for line reading, gzip-decoded if needed.
struct Source<'p> {
    reader: Reader,
    path: &'p Path,
    /// Length of a regular file.
    size: Option<u64>,
    /// Lines read so far (the 1-based number of the last one).
    line: usize,
    /// The gzip stream failed (its error is already reported).
    broken: bool,
}

fn open(path: &Path) -> Result<Source<'_>> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let size = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut raw = BufReader::with_capacity(
        1 << 18,
        Counting {
            inner: file,
            read: 0,
        },
    );
    let head = raw.fill_buf().map_err(|e| Error::io(path, e))?;
    let magic = head.len() >= 2 && head[0] == 0x1f && head[1] == 0x8b;
    let by_name = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let reader = if magic || by_name {
        let dec = flate2::bufread::MultiGzDecoder::new(raw);
        Reader::Gzip(BufReader::with_capacity(1 << 18, dec))
    } else {
        Reader::Plain(raw)
    };
    Ok(Source {
        reader,
        path,
        size,
        line: 0,
        broken: false,
    })
}

impl Source<'_> {
    fn is_gzip(&self) -> bool {
        matches!(self.reader, Reader::Gzip(_))
    }

    fn raw(&self) -> &Raw {
        match &self.reader {
            Reader::Plain(r) => r,
            Reader::Gzip(r) => r.get_ref().get_ref(),
        }
    }

    /// Bytes of the file consumed so far (compressed bytes for gzip).
    fn consumed(&self) -> u64 {
        let raw = self.raw();
        raw.get_ref().read - raw.buffer().len() as u64
    }

    /// The share of a regular file consumed so far.
    fn fraction(&self) -> Option<f64> {
        let size = self.size.filter(|&s| s > 0)?;
        Some((self.consumed() as f64 / size as f64).clamp(0.0, 1.0))
    }

    /// Next line (without its `\n`) into `buf`; `false` at end of input.
    #[inline]
    fn next_line(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        let r = match &mut self.reader {
            Reader::Plain(r) => lines::read_line(r, buf, MAX_LINE),
            Reader::Gzip(r) => lines::read_line(r, buf, MAX_LINE),
        };
        let line = self.line + 1;
        match r {
            Ok(LineRead::Eof) => Ok(false),
            Ok(LineRead::Line) => {
                if line > MAX_LINES {
                    return Err(Error::input(
                        self.path,
                        line,
                        format!(
                            "more than {MAX_LINES} lines: expected a file of at most that many lines (an endless stream?)"
                        ),
                    ));
                }
                self.line = line;
                // A UTF-8 byte-order mark (spreadsheet CSV exports) is not part of the first id.
                if line == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
                    buf.drain(..3);
                }
                Ok(true)
            }
            Ok(LineRead::TooLong) => Err(Error::input(
                self.path,
                line,
                lines::too_long_message(MAX_LINE, Some(&buf[..buf.len().min(4096)])),
            )),
            Err(e) if self.is_gzip() => {
                self.broken = true;
                Err(self.gzip_error(line, &e))
            }
            Err(e) => Err(Error::io(self.path, e)),
        }
    }

    fn gzip_error(&self, line: usize, e: &std::io::Error) -> Error {
        let at = match self.size {
            Some(size) => format!(
                ", detected at compressed byte {} of {size}",
                self.consumed()
            ),
            None => format!(", detected at compressed byte {}", self.consumed()),
        };
        Error::input(
            self.path,
            line,
            format!(
                "gzip data is truncated or corrupt ({e}){at}: expected a complete gzip file (re-download or re-compress it)"
            ),
        )
    }

    /// The error to report for `e`, met while reading this source: when the
    /// content of a gzip file was malformed, the stream is decoded a little
    /// further, and a corrupt stream is reported instead (garbage decoded
    /// from a damaged file is not the file's content).
    fn explain(&mut self, e: Error) -> Error {
        if !self.is_gzip() || self.broken || !matches!(e, Error::Input { .. }) {
            return e;
        }
        let line = self.line;
        let Reader::Gzip(r) = &mut self.reader else {
            return e;
        };
        let mut left = GZIP_CHECK_BYTES;
        while left > 0 {
            match r.fill_buf() {
                Ok([]) => return e,
                Ok(b) => {
                    let n = b.len().min(left as usize);
                    r.consume(n);
                    left -= n as u64;
                }
                Err(io) => return self.gzip_error(line, &io),
            }
        }
        e
    }
}

/// Integer edges interned per batch (see [`Loader::flush`]).
const BATCH: usize = 4096;

/// The edge buffer is first compacted when it reaches this many edges
/// (128 MiB of index pairs).
const COMPACT_MIN: usize = 1 << 24;

fn cap_error(file: &Path, line_no: usize, id: &str, number: usize, cap: usize) -> Error {
    Error::input(
        file,
        line_no,
        format!(
            "node '{id}' is distinct node number {number}: expected at most {cap} distinct nodes (the loader's max_nodes cap)"
        ),
    )
}

/// Where a file is, for the messages of [`EdgeBuf`].
struct At<'a> {
    /// The parameter naming the file (`graph`, `nodes`).
    param: &'a str,
    path: &'a Path,
    line: usize,
    /// The share of the file read, if known.
    fraction: Option<f64>,
    /// Distinct nodes so far.
    nodes: usize,
}

impl<'a> At<'a> {
    fn of(param: &'a str, src: &Source<'a>, nodes: usize) -> At<'a> {
        At {
            param,
            path: src.path,
            line: src.line,
            fraction: src.fraction(),
            nodes,
        }
    }

    /// What was read, for a message (`edges` may include lines whose ids
    /// are not numbered yet, so nodes can lag behind).
    fn what(&self, edges: usize) -> String {
        let read = match self.fraction {
            Some(f) if f < 1.0 => format!(" ({:.0}% of the file)", 100.0 * f),
            _ => String::new(),
        };
        format!(
            "{} nodes and {edges} edges by line {}{read}",
            self.nodes, self.line
        )
    }
}

/// The edges read so far, bounded: self-loops and duplicates are compacted
/// away before the buffer grows past [`COMPACT_MIN`] edges (later: past four
/// times the distinct edges left by the last compaction), and every
/// growth is checked against the memory budget, counting what building the
/// graph from the buffer will allocate.
struct EdgeBuf {
    edges: Vec<(u32, u32)>,
    /// One per edge when `weighted`.
    weights: Vec<f64>,
    weighted: bool,
    directed: bool,
    /// Self-loops and duplicates removed by compaction.
    dropped: Dropped,
    /// Compact rather than grow past this length.
    compact_at: usize,
    /// The least `compact_at` ([`COMPACT_MIN`]; smaller in tests).
    compact_min: usize,
    /// Edges the file's size suggests.
    hint: usize,
    budget: MemoryBudget,
}

impl EdgeBuf {
    fn new(directed: bool, budget: MemoryBudget) -> Self {
        EdgeBuf {
            edges: Vec::new(),
            weights: Vec::new(),
            weighted: false,
            directed,
            dropped: Dropped::default(),
            compact_at: COMPACT_MIN,
            compact_min: COMPACT_MIN,
            hint: 0,
            budget,
        }
    }

    /// Bytes per buffered edge: the pair, its weight and the compaction's
    /// scratch (an index and a flag) when weighted.
    fn buf_bytes(&self) -> u64 {
        if self.weighted { 16 + 5 } else { 8 }
    }

    /// Bytes per buffered edge that building the graph adds
    /// ([`Graph::from_edges`]: per arc a pair, a target and a length).
    fn build_bytes(&self) -> u64 {
        let arcs: u64 = if self.directed { 1 } else { 2 };
        arcs * if self.weighted { 20 } else { 12 }
    }

    /// Buffered edges the budget allows next to the nodes.
    fn fit(&self, nodes: NodeMem) -> usize {
        let b = self.budget.bytes;
        let load = b.saturating_sub(nodes.load) / self.buf_bytes();
        let build = b.saturating_sub(nodes.build) / (self.buf_bytes() + self.build_bytes());
        // `from_edges` numbers the buffered edges with `u32`.
        load.min(build).min(u32::MAX as u64) as usize
    }

    /// Peak memory of reading into a buffer of `edges` and building the
    /// graph from it.
    fn need(&self, edges: usize, nodes: NodeMem) -> u64 {
        let e = edges as u64;
        let load = e
            .saturating_mul(self.buf_bytes())
            .saturating_add(nodes.load);
        let build = e
            .saturating_mul(self.buf_bytes() + self.build_bytes())
            .saturating_add(nodes.build);
        load.max(build)
    }

    /// The first edge line was read: whether edges carry weights; reserves
    /// what the file's size suggests, within the budget.
    fn start(&mut self, weighted: bool, hint: usize, nodes: NodeMem) {
        self.weighted = weighted;
        self.hint = hint;
        let cap = hint.min(self.fit(nodes));
        let _ = self.edges.try_reserve_exact(cap);
        if weighted {
            let _ = self.weights.try_reserve_exact(self.edges.capacity());
        }
    }

    #[inline]
    fn len(&self) -> usize {
        self.edges.len()
    }

    #[inline]
    fn has_room(&self, extra: usize) -> bool {
        self.edges.len() + extra <= self.edges.capacity()
            && (!self.weighted || self.weights.len() + extra <= self.weights.capacity())
    }

    /// Makes room for `extra` more edges: compacts when due, grows within
    /// the budget, and refuses the file when its distinct edges do not fit.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self, extra: usize, nodes: NodeMem, at: &At<'_>) -> Result<()> {
        let mut compacted = false;
        let len = self.len();
        if (2 * self.edges.capacity()).max(len + extra) > self.compact_at {
            // Compact rather than grow past `compact_at`.
            let before = len;
            self.compact();
            compacted = true;
            let u = self.len();
            // A compaction that freed little will not free much next time
            // (a file of distinct edges): wait longer, at least until the
            // buffer is as long as the file's size suggests.
            let next = if u > before / 2 {
                (8 * u).max(self.hint)
            } else {
                4 * u
            };
            self.compact_at = next.max(self.compact_min);
        }
        if self.has_room(extra) {
            return Ok(());
        }
        let len = self.len();
        let cap = self.edges.capacity();
        let want = (2 * cap).max(len + extra).max(64);
        let fit = self.fit(nodes);
        if want <= fit && self.reserve(want) {
            return Ok(());
        }
        if !compacted {
            self.compact();
        }
        let len = self.len();
        if self.has_room(extra) && len <= cap / 4 * 3 {
            return Ok(());
        }
        // The largest buffer the budget allows.
        if fit >= len + extra && fit > cap && self.reserve(fit) {
            return Ok(());
        }
        let need = self.projected(len + extra, nodes, at);
        if self.has_room(extra) && need <= self.budget.bytes {
            return Ok(());
        }
        Err(self.refuse(at.what(len + extra), need, at))
    }

    /// Grows the buffers to `cap` edges; `false` if the allocator refused.
    fn reserve(&mut self, cap: usize) -> bool {
        let len = self.len();
        if self.edges.try_reserve_exact(cap - len).is_err() {
            return false;
        }
        !self.weighted || self.weights.try_reserve_exact(cap - len).is_ok()
    }

    /// The memory the whole file will need, extrapolated from the share
    /// read (or a third more than now when the size is unknown).
    fn projected(&self, edges: usize, nodes: NodeMem, at: &At<'_>) -> u64 {
        let k = match at.fraction {
            Some(f) if f > 0.0 => 1.0 / f,
            _ => 4.0 / 3.0,
        };
        let total = (edges as f64 * k).min(u32::MAX as f64 * 4.0) as usize;
        let need = self.need(total, nodes.scaled(k));
        need.max(self.need(edges, nodes))
    }

    /// The error for a file whose graph does not fit the budget (as
    /// [`limits::check_memory`] words it, with a hint for files).
    fn refuse(&self, what: String, need: u64, at: &At<'_>) -> Error {
        Error::Budget {
            name: at.param.to_string(),
            value: format!("{} ({what})", at.path.display()),
            need: need.max(self.budget.bytes.saturating_add(1)),
            budget: self.budget.bytes,
            origin: self.budget.source.to_string(),
            hint: "use a smaller graph (or one without repeated lines), or raise `memory_budget`"
                .into(),
        }
    }

    /// Refuses the file when the nodes and the buffer no longer fit.
    fn check_nodes(&self, nodes: NodeMem, at: &At<'_>) -> Result<()> {
        if self.need(self.len(), nodes) <= self.budget.bytes {
            return Ok(());
        }
        Err(self.refuse(
            at.what(self.len()),
            self.projected(self.len(), nodes, at),
            at,
        ))
    }

    /// Drops self-loops and repeated edges (counting them as
    /// [`Graph::from_edges`] would), keeping each edge's first weight.
    fn compact(&mut self) {
        let directed = self.directed;
        let norm = move |(a, b): (u32, u32)| if !directed && a > b { (b, a) } else { (a, b) };
        if !self.weighted {
            let mut loops = 0u64;
            self.edges.retain(|e| {
                let l = e.0 == e.1;
                loops += l as u64;
                !l
            });
            for e in self.edges.iter_mut() {
                *e = norm(*e);
            }
            self.edges.sort_unstable();
            let distinct_before = self.edges.len();
            self.edges.dedup();
            self.dropped.self_loops += loops;
            self.dropped.duplicates += (distinct_before - self.edges.len()) as u64;
            return;
        }
        // Weighted: the first occurrence of each edge wins, so keep input
        // order and compare every repeat with it.
        let n = self.edges.len();
        let edges = &self.edges;
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&i| (norm(edges[i as usize]), i));
        let mut keep = vec![false; n];
        let mut i = 0;
        while i < n {
            let first = order[i] as usize;
            let key = norm(edges[first]);
            let is_loop = key.0 == key.1;
            let mut j = i;
            while j < n && norm(edges[order[j] as usize]) == key {
                let k = order[j] as usize;
                if is_loop {
                    self.dropped.self_loops += 1;
                } else if j > i {
                    self.dropped.duplicates += 1;
                    if self.weights[k] != self.weights[first] {
                        self.dropped.conflicting_weights += 1;
                    }
                }
                j += 1;
            }
            keep[first] = !is_loop;
            i = j;
        }
        drop(order);
        let mut w = 0;
        for (r, &kept) in keep.iter().enumerate() {
            if kept {
                self.edges[w] = self.edges[r];
                self.weights[w] = self.weights[r];
                w += 1;
            }
        }
        self.edges.truncate(w);
        self.weights.truncate(w);
    }

    /// The edges, their weights and what compaction dropped, once the
    /// whole file is read and the build is known to fit.
    #[allow(clippy::type_complexity)]
    fn finish(
        mut self,
        nodes: NodeMem,
        at: &At<'_>,
    ) -> Result<(Vec<(u32, u32)>, Option<Vec<f64>>, Dropped)> {
        if self.need(self.len(), nodes) > self.budget.bytes {
            self.compact();
            let need = self.need(self.len(), nodes);
            if need > self.budget.bytes {
                return Err(self.refuse(at.what(self.len()), need, at));
            }
        }
        let weights = self.weighted.then_some(self.weights);
        Ok((self.edges, weights, self.dropped))
    }
}

struct Loader<'a> {
    opts: &'a LoadOptions,
    ids: Ids,
    buf: EdgeBuf,
}

impl<'a> Loader<'a> {
    /// One pass; `Ok(None)` = integer mode met a non-integer id.
    /// Reads the node list, then the edges, in one pass each: ids start as
    /// integers and turn into string tokens at the first id that is not a
    /// number (so a FIFO or `/dev/stdin` is never read twice).
    fn run(path: &Path, opts: &'a LoadOptions, budget: MemoryBudget) -> Result<Graph> {
        let mut l = Loader {
            opts,
            ids: Ids::Int(IntIds::new()),
            buf: EdgeBuf::new(opts.directed, budget),
        };
        if let Some(nodes) = &opts.nodes_file {
            l.read_nodes(nodes)?;
        }
        let (edges, weights, dropped) = l.read_edges(path)?;
        let mut g = match l.ids {
            Ids::Tok(t) => Graph::from_edges(
                NodeIds::tokens(t.names),
                &edges,
                weights.as_deref(),
                opts.directed,
            )?,
            Ids::Int(x) => {
                let (sorted, perm) = x.finish();
                let mut edges = edges;
                for e in edges.iter_mut() {
                    *e = (perm[e.0 as usize], perm[e.1 as usize]);
                }
                Graph::from_edges(
                    NodeIds::integers(sorted),
                    &edges,
                    weights.as_deref(),
                    opts.directed,
                )?
            }
        };
        g.add_dropped(dropped);
        Ok(g)
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
    fn read_nodes(&mut self, path: &Path) -> Result<()> {
        let mut src = open(path)?;
        let r = self.read_nodes_from(&mut src);
        r.map_err(|e| src.explain(e))
    }

    fn read_nodes_from(&mut self, src: &mut Source<'_>) -> Result<()> {
        let path = src.path;
        let mut buf = Vec::with_capacity(256);
        let mut first = true;
        loop {
            if !src.next_line(&mut buf)? {
                return Ok(());
            }
            let line_no = src.line;
            if line_no.is_multiple_of(BATCH) {
                self.buf
                    .check_nodes(self.ids.mem(), &At::of("nodes", src, self.ids.len()))?;
            }
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
            if self.ids.intern(tok, path, line_no, &buf)?.is_none() {
                // Not a number: from here on ids are strings.
                check_text(path, line_no, &buf)?;
                self.ids.become_tokens();
                self.ids.intern(tok, path, line_no, &buf)?;
            }
            self.check_cap(path, line_no, tok)?;
        }
    }

    /// Interns a batch of integer edges. Batching keeps the id-table lookups
    /// in a tight loop, where the CPU overlaps their cache misses (a shuffled
    /// 10M-edge file: 1.9 s → 1.4 s CPU for the whole load).
    fn flush(
        &mut self,
        pending: &mut Vec<(u64, u64, usize)>,
        pending_w: &mut Vec<f64>,
        src: &Source<'_>,
    ) -> Result<()> {
        if !self.buf.has_room(pending.len()) {
            let at = At::of("graph", src, self.ids.len());
            self.buf.make_room(pending.len(), self.ids.mem(), &at)?;
        }
        let cap = self.cap();
        let Ids::Int(ids) = &mut self.ids else {
            return Err(Error::Numerical("integer batch in token mode".into()));
        };
        let edges = &mut self.buf.edges;
        for &(a, b, line_no) in pending.iter() {
            let u = ids.get(a);
            let v = ids.get(b);
            if ids.ids.len() > cap {
                let (id, index) = if u as usize >= cap { (a, u) } else { (b, v) };
                return Err(cap_error(
                    src.path,
                    line_no,
                    &id.to_string(),
                    index as usize + 1,
                    cap,
                ));
            }
            edges.push((u, v));
        }
        self.buf.weights.append(pending_w);
        pending.clear();
        self.buf
            .check_nodes(self.ids.mem(), &At::of("graph", src, self.ids.len()))
    }

    fn ids_are_tokens(&self) -> bool {
        matches!(self.ids, Ids::Tok(_))
    }

    /// Reads the edge lines.
    #[allow(clippy::type_complexity)]
    fn read_edges(&mut self, path: &Path) -> Result<(Vec<(u32, u32)>, Option<Vec<f64>>, Dropped)> {
        let mut src = open(path)?;
        let r = self.read_edges_from(&mut src);
        r.map_err(|e| src.explain(e))
    }

    #[allow(clippy::type_complexity)]
    fn read_edges_from(
        &mut self,
        src: &mut Source<'_>,
    ) -> Result<(Vec<(u32, u32)>, Option<Vec<f64>>, Dropped)> {
        let path = src.path;
        let size_hint = src.size.unwrap_or(0);
        let hint = if src.is_gzip() {
            size_hint / 4
        } else {
            size_hint / 12
        }
        .min(1 << 28) as usize;
        // Column count of the first edge line and where it was.
        let mut shape: Option<(usize, usize)> = None;
        let mut seen_data = false;
        let mut buf = Vec::with_capacity(256);
        let mut tokens = self.ids_are_tokens();
        let mut pending: Vec<(u64, u64, usize)> = Vec::with_capacity(BATCH);
        let mut pending_w: Vec<f64> = Vec::new();
        while src.next_line(&mut buf)? {
            let line_no = src.line;
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
                        "{} has {found} column(s): expected 2 or 3 columns `u v [w]` separated by spaces, tabs or commas{}",
                        quote(&buf),
                        cr_hint(&buf)
                    ),
                ));
            }
            match shape {
                None => {
                    shape = Some((count, line_no));
                    self.buf.start(count == 3, hint, self.ids.mem());
                    if count == 3 {
                        pending_w.reserve(BATCH);
                    }
                }
                Some((c, first)) if c != count => {
                    check_text(path, line_no, &buf)?;
                    let expected = if c == 3 { "`u v w`" } else { "`u v`" };
                    return Err(Error::input(
                        path,
                        line_no,
                        format!(
                            "{} has {count} columns but the first edge line ({first}) has {c}: expected every line to be {expected} (a file is weighted on all lines or none){}",
                            quote(&buf),
                            cr_hint(&buf)
                        ),
                    ));
                }
                Some(_) => {}
            }
            let weight = if count == 3 {
                let tok = cols[2];
                let w = std::str::from_utf8(tok)
                    .ok()
                    .and_then(|s| s.parse::<f64>().ok());
                match w {
                    Some(w) if w.is_finite() && w > 0.0 => Some(w),
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
            } else {
                None
            };
            if !tokens {
                if let (Some(u), Some(v)) = (parse_u64(cols[0]), parse_u64(cols[1])) {
                    pending.push((u, v, line_no));
                    if let Some(w) = weight {
                        pending_w.push(w);
                    }
                    if pending.len() == BATCH {
                        self.flush(&mut pending, &mut pending_w, src)?;
                    }
                    continue;
                }
                // Not a number: from here on ids are strings (the lines
                // before keep their order of first appearance).
                check_text(path, line_no, &buf)?;
                self.flush(&mut pending, &mut pending_w, src)?;
                self.ids.become_tokens();
                tokens = true;
            }
            {
                let mut ends = [0u32; 2];
                for (end, tok) in ends.iter_mut().zip([cols[0], cols[1]]) {
                    *end = self
                        .ids
                        .intern(tok, path, line_no, &buf)?
                        .ok_or_else(|| Error::Numerical("token interning failed".into()))?;
                    self.check_cap(path, line_no, tok)?;
                }
                if !self.buf.has_room(1) {
                    let at = At::of("graph", src, self.ids.len());
                    self.buf.make_room(1, self.ids.mem(), &at)?;
                }
                self.buf.edges.push((ends[0], ends[1]));
                if let Some(w) = weight {
                    self.buf.weights.push(w);
                }
                if line_no.is_multiple_of(BATCH) {
                    self.buf
                        .check_nodes(self.ids.mem(), &At::of("graph", src, self.ids.len()))?;
                }
            }
        }
        if !tokens {
            self.flush(&mut pending, &mut pending_w, src)?;
        }
        if self.buf.len() == 0 && self.buf.dropped.self_loops == 0 {
            let what = if src.line == 0 {
                "the file is empty"
            } else {
                "every line is a comment, blank or a header"
            };
            return Err(Error::input(
                path,
                src.line,
                format!("no edges ({what}): expected at least one line `u v` or `u v w`"),
            ));
        }
        let at = At::of("graph", src, self.ids.len());
        let fresh = EdgeBuf::new(self.opts.directed, self.buf.budget);
        let buf = std::mem::replace(&mut self.buf, fresh);
        buf.finish(self.ids.mem(), &at)
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

    fn budget(bytes: u64) -> MemoryBudget {
        MemoryBudget {
            bytes,
            source: crate::limits::BudgetSource::Explicit,
        }
    }

    fn at(path: &Path) -> At<'_> {
        At {
            param: "graph",
            path,
            line: 7,
            fraction: None,
            nodes: 3,
        }
    }

    /// Pushes `edges` through an [`EdgeBuf`] that compacts every
    /// `compact_at` edges, then builds the graph as the loader does.
    fn via_buffer(
        n: usize,
        edges: &[(u32, u32)],
        weights: Option<&[f64]>,
        directed: bool,
        compact_at: usize,
    ) -> Graph {
        let mut b = EdgeBuf::new(directed, budget(1 << 30));
        b.start(weights.is_some(), 0, NodeMem::default());
        let p = PathBuf::from("x");
        for (k, &e) in edges.iter().enumerate() {
            if b.len() >= compact_at {
                b.compact();
            }
            if !b.has_room(1) {
                b.make_room(1, NodeMem::default(), &at(&p)).unwrap();
            }
            b.edges.push(e);
            if let Some(w) = weights {
                b.weights.push(w[k]);
            }
        }
        let (e, w, dropped) = b.finish(NodeMem::default(), &at(&p)).unwrap();
        let mut g = Graph::from_edges(NodeIds::range(n), &e, w.as_deref(), directed).unwrap();
        g.add_dropped(dropped);
        g
    }

    fn same(a: &Graph, b: &Graph) {
        assert_eq!((a.n(), a.m(), a.dropped()), (b.n(), b.m(), b.dropped()));
        for u in 0..a.n() as u32 {
            assert_eq!(a.neighbors(u), b.neighbors(u));
            assert_eq!(a.neighbor_weights(u), b.neighbor_weights(u));
        }
    }

    proptest::proptest! {
        /// Compaction changes nothing a user can see: the same graph, the
        /// same first weights, the same counts of self-loops, duplicates and
        /// conflicting weights as building from every line at once.
        #[test]
        fn compaction_is_invisible(
            raw in proptest::collection::vec((0u32..6, 0u32..6, 1u32..4), 0..120),
            directed: bool,
            weighted: bool,
            compact_at in 1usize..20,
        ) {
            let edges: Vec<(u32, u32)> = raw.iter().map(|&(u, v, _)| (u, v)).collect();
            let w: Vec<f64> = raw.iter().map(|&(_, _, w)| w as f64).collect();
            let w = weighted.then_some(w.as_slice());
            let direct = Graph::from_edges(NodeIds::range(6), &edges, w, directed).unwrap();
            same(&via_buffer(6, &edges, w, directed, compact_at), &direct);
        }
    }

    #[test]
    fn repeated_lines_compact_instead_of_growing() {
        let mut b = EdgeBuf::new(false, budget(1 << 30));
        b.start(false, 0, NodeMem::default());
        (b.compact_at, b.compact_min) = (1000, 1000);
        let p = PathBuf::from("x");
        for _ in 0..100_000 {
            if !b.has_room(1) {
                b.make_room(1, NodeMem::default(), &at(&p)).unwrap();
            }
            b.edges.push((1, 0));
        }
        assert!(b.edges.capacity() <= 1000, "{}", b.edges.capacity());
        b.compact();
        assert_eq!(b.edges, [(0, 1)]);
        assert_eq!(b.dropped.duplicates, 99_999);
    }

    #[test]
    fn distinct_edges_over_the_budget_are_refused_naming_the_file() {
        // 1 MB: 31,250 unweighted undirected edges at 32 bytes each.
        let mut b = EdgeBuf::new(false, budget(1_000_000));
        b.start(false, 0, NodeMem::default());
        let p = PathBuf::from("big.edges");
        let mut refused = None;
        for i in 0..100_000u32 {
            if !b.has_room(1)
                && let Err(e) = b.make_room(1, NodeMem::default(), &at(&p))
            {
                refused = Some((i, e));
                break;
            }
            b.edges.push((i, i + 1));
        }
        let (i, e) = refused.expect("refused");
        assert!((20_000..=31_250).contains(&i), "{i}");
        assert!(matches!(e, Error::Budget { .. }), "{e:?}");
        let msg = e.to_string();
        for part in [
            "graph = big.edges (3 nodes and",
            "edges by line 7)",
            "budget of 976.6 KiB",
        ] {
            assert!(msg.contains(part), "{part:?} not in {msg}");
        }
        assert!(b.need(b.edges.capacity(), NodeMem::default()) <= 1_000_000);
        // Nodes alone can exhaust the budget too.
        let b = EdgeBuf::new(false, budget(1_000_000));
        let nodes = NodeMem {
            load: 2_000_000,
            build: 0,
        };
        assert!(matches!(
            b.check_nodes(nodes, &at(&p)),
            Err(Error::Budget { .. })
        ));
    }

    #[test]
    fn parse_accepts_leading_zeros_of_any_length() {
        assert_eq!(parse_u64(b"0000000000000000000000000007"), Some(7));
        assert_eq!(
            parse_u64(b"00000000000000000000018446744073709551615"),
            Some(u64::MAX)
        );
        assert_eq!(parse_u64(b"1234567890123456789"), Some(1234567890123456789));
    }
}
