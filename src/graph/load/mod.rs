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
//!   `weight w length distance resistance cost` — or when its ids are text
//!   where every other line's are numbers (SNAP's `id_1,id_2`). Every line
//!   skipped is reported as a warning; [`LoadOptions::header`] (`--header
//!   yes|no|auto`) decides instead (`no` keeps the first line as an edge,
//!   between nodes literally called `u` and `v` say). See [`HeaderMode`].
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
//! that appear on no edge line (isolated nodes). With a node list naming at
//! least one node, the edge list may hold no edge at all (the START of an
//! evolving release that holds out every edge).
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

mod edges;
mod header;
mod ids;
mod lex;
mod source;

use edges::*;
pub use header::HeaderMode;
use header::{HeaderWatch, Held};
pub(crate) use ids::*;
use lex::*;
use source::*;

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
    /// Whether the first data line is a header (default `auto`: see
    /// [`HeaderMode`]).
    pub header: HeaderMode,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            directed: false,
            nodes_file: None,
            max_nodes: u32::MAX as usize,
            header: HeaderMode::Auto,
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
            header::skipped(
                path,
                line_no,
                &quote(text.as_bytes()),
                "a node list's header word",
            );
            continue;
        }
        // `tok` is a slice of valid UTF-8 cut at ASCII separators.
        each(std::str::from_utf8(tok).unwrap_or_default(), line_no)?;
    }
    Ok(())
}

/// Hash-set of `u64` keys with [`IdHasher`] (deterministic, fast).
pub(crate) type IdSet = std::collections::HashSet<u64, BuildHasherDefault<IdHasher>>;

pub use crate::util::lines::MAX_LINES;

struct Loader<'a> {
    opts: &'a LoadOptions,
    ids: Ids,
    buf: EdgeBuf,
    /// Ids the node list gave (numbered first).
    listed: usize,
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
            listed: 0,
        };
        if let Some(nodes) = &opts.nodes_file {
            l.read_nodes(nodes)?;
        }
        l.listed = l.ids.len();
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
                header::skipped(path, line_no, &quote(&buf), "a node list's header word");
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
    fn flush(&mut self, pending: &mut Batch, src: &Source<'_>) -> Result<()> {
        if !self.buf.has_room(pending.edges.len()) {
            let at = At::of("graph", src, self.ids.len());
            self.buf
                .make_room(pending.edges.len(), self.ids.mem(), &at)?;
        }
        let cap = self.cap();
        let Ids::Int(ids) = &mut self.ids else {
            return Err(Error::Numerical("integer batch in token mode".into()));
        };
        let edges = &mut self.buf.edges;
        for &(a, b, line_no) in pending.edges.iter() {
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
        self.buf.weights.append(&mut pending.weights);
        pending.edges.clear();
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
        let mut shape = Shape::new(src);
        let mut watch = HeaderWatch::new(self.opts.header);
        let mut buf = Vec::with_capacity(256);
        let mut tokens = self.ids_are_tokens();
        let mut pending = Batch::new();
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
            if watch.first_data_line() && watch.takes_first(path, line_no, &buf, &cols[..count])? {
                continue;
            } else if watch.held.is_some() && count >= 2 {
                if header::numeric_ids(&cols[..count]) {
                    watch.others = true;
                } else if let Some(h) = watch.held.take() {
                    // Text ids on another line too: the held line is the
                    // first edge of a text-id file.
                    self.reinstate(&h, src, &mut shape, &mut pending)?;
                    watch.first = Some((h.line, h.text, true));
                    tokens = true;
                    check_text(path, line_no, &buf)?;
                }
            }
            if !(count == 2 || count == 3) {
                return Err(column_count_error(path, line_no, &buf, count));
            }
            self.check_shape(&mut shape, count, line_no, &buf, path)?;
            let weight = if count == 3 {
                Some(weight_of(cols[2], &buf, path, line_no)?)
            } else {
                None
            };
            if !tokens {
                if let (Some(u), Some(v)) = (parse_u64(cols[0]), parse_u64(cols[1])) {
                    pending.edges.push((u, v, line_no));
                    if let Some(w) = weight {
                        pending.weights.push(w);
                    }
                    if pending.edges.len() == BATCH {
                        self.flush(&mut pending, src)?;
                    }
                    continue;
                }
                // Not a number: from here on ids are strings (the lines
                // before keep their order of first appearance).
                check_text(path, line_no, &buf)?;
                self.flush(&mut pending, src)?;
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
            self.flush(&mut pending, src)?;
        }
        self.settle_header(watch, src, &mut shape, &mut pending)?;
        self.check_some_edges(src)?;
        let at = At::of("graph", src, self.ids.len());
        let fresh = EdgeBuf::new(self.opts.directed, self.buf.budget);
        let buf = std::mem::replace(&mut self.buf, fresh);
        buf.finish(self.ids.mem(), &at)
    }

    /// At the end of the file, the line held back as a possible header
    /// (`auto`): a header when every other data line's ids are numbers,
    /// else the only data line, an edge. Then warns of a first line kept
    /// as an edge whose ids occur nowhere else.
    fn settle_header(
        &mut self,
        mut watch: HeaderWatch,
        src: &Source<'_>,
        shape: &mut Shape,
        pending: &mut Batch,
    ) -> Result<()> {
        let path = src.path;
        if let Some(h) = watch.held.take() {
            if watch.others {
                header::skipped(
                    path,
                    h.line,
                    &h.text,
                    "its ids are text where every other line's are numbers; `header` = no keeps \
                     it as an edge",
                );
            } else {
                // The only data line: an edge.
                self.reinstate(&h, src, shape, pending)?;
                watch.first = Some((h.line, h.text, true));
            }
        }
        if let Some((line, text)) = watch.lonely_candidate()
            && self.lonely_first_edge()
        {
            header::lonely_first_line(path, line, text);
        }
        Ok(())
    }

    /// An edgeless graph is a graph of the node list's nodes (a START
    /// that holds out every edge, issue 33 item 6); without one, a file
    /// with no edge is a mistake.
    fn check_some_edges(&self, src: &Source<'_>) -> Result<()> {
        let listed = self.opts.nodes_file.is_some() && self.ids.len() > 0;
        if self.buf.len() == 0 && self.buf.dropped.self_loops == 0 && !listed {
            let what = if src.line == 0 {
                "the file is empty"
            } else {
                "every line is a comment, blank or a header"
            };
            return Err(Error::input(
                src.path,
                src.line,
                format!("no edges ({what}): expected at least one line `u v` or `u v w`"),
            ));
        }
        Ok(())
    }

    /// Checks an edge line's column count against the first edge line's
    /// (which sets whether the file is weighted).
    fn check_shape(
        &mut self,
        shape: &mut Shape,
        count: usize,
        line_no: usize,
        raw: &[u8],
        path: &Path,
    ) -> Result<()> {
        match shape.first {
            None => {
                shape.first = Some((count, line_no));
                self.buf.start(count == 3, shape.hint, self.ids.mem());
                Ok(())
            }
            Some((c, first)) if c != count => {
                check_text(path, line_no, raw)?;
                let expected = if c == 3 { "`u v w`" } else { "`u v`" };
                Err(Error::input(
                    path,
                    line_no,
                    format!(
                        "{} has {count} columns but the first edge line ({first}) has {c}: expected every line to be {expected} (a file is weighted on all lines or none){}",
                        quote(raw),
                        cr_hint(raw)
                    ),
                ))
            }
            Some(_) => Ok(()),
        }
    }

    /// Puts a first line held back as a possible header (`auto`) in as the
    /// first edge: its ids numbered after the node list's, as their first
    /// appearance says; its columns checked as any edge line's.
    fn reinstate(
        &mut self,
        h: &Held,
        src: &Source<'_>,
        shape: &mut Shape,
        pending: &mut Batch,
    ) -> Result<()> {
        let path = src.path;
        let raw = h.cols.join(&b' ');
        let count = h.cols.len();
        if !self.ids_are_tokens() {
            self.flush(pending, src)?;
        }
        // The held line's shape is the file's, or is checked against the
        // lines read after it.
        self.check_shape(shape, count, h.line, &raw, path)?;
        let weight = if count == 3 {
            Some(weight_of(&h.cols[2], &raw, path, h.line)?)
        } else {
            None
        };
        let (perm, ends) = self
            .ids
            .tokens_with_first(self.listed, [h.cols[0].as_slice(), h.cols[1].as_slice()]);
        for e in self.buf.edges.iter_mut() {
            *e = (perm[e.0 as usize], perm[e.1 as usize]);
        }
        for tok in &h.cols[..2] {
            self.check_cap(path, h.line, tok)?;
        }
        if !self.buf.has_room(1) {
            let at = At::of("graph", src, self.ids.len());
            self.buf.make_room(1, self.ids.mem(), &at)?;
        }
        self.buf.edges.insert(0, (ends[0], ends[1]));
        if let Some(w) = weight {
            self.buf.weights.insert(0, w);
        }
        Ok(())
    }

    /// Whether the first edge's ends occur on no other edge and in no node
    /// list (the buffer in file order: before any compaction).
    fn lonely_first_edge(&self) -> bool {
        if self.buf.compactions > 0 {
            return false;
        }
        let Some(&(a, b)) = self.buf.edges.first() else {
            return false;
        };
        let listed = self.listed as u32;
        a >= listed
            && b >= listed
            && !self.buf.edges[1..]
                .iter()
                .any(|&(u, v)| u == a || u == b || v == a || v == b)
    }
}

/// Integer edges read and not yet interned, with their line numbers (and
/// weights, for a weighted file): interned [`BATCH`] at a time.
struct Batch {
    edges: Vec<(u64, u64, usize)>,
    weights: Vec<f64>,
}

impl Batch {
    fn new() -> Batch {
        Batch {
            edges: Vec::with_capacity(BATCH),
            weights: Vec::new(),
        }
    }
}

/// The column count of a file's edge lines: set by the first (and where it
/// was), with the edge count the buffer starts with.
struct Shape {
    first: Option<(usize, usize)>,
    /// Edges expected from the file's size (a guess, capped).
    hint: usize,
}

impl Shape {
    fn new(src: &Source<'_>) -> Shape {
        let size_hint = src.size.unwrap_or(0);
        let hint = if src.is_gzip() {
            size_hint / 4
        } else {
            size_hint / 12
        }
        .min(1 << 28) as usize;
        Shape { first: None, hint }
    }
}

/// The error of an edge line of `count` columns (1, or 4 meaning 4 or
/// more): 2 or 3 expected.
fn column_count_error(path: &Path, line_no: usize, raw: &[u8], count: usize) -> Error {
    if let Err(e) = check_text(path, line_no, raw) {
        return e;
    }
    let found = if count == 4 { "4 or more" } else { "1" };
    Error::input(
        path,
        line_no,
        format!(
            "{} has {found} column(s): expected 2 or 3 columns `u v [w]` separated by spaces, tabs or commas{}",
            quote(raw),
            cr_hint(raw)
        ),
    )
}

/// The weight column `tok` of edge line `raw`: a finite length > 0.
fn weight_of(tok: &[u8], raw: &[u8], path: &Path, line_no: usize) -> Result<f64> {
    let w = std::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f64>().ok());
    match w {
        Some(w) if w.is_finite() && w > 0.0 => Ok(w),
        Some(_) => Err(Error::input(
            path,
            line_no,
            format!(
                "weight {} in {}: expected a finite number > 0 (an edge length)",
                quote(tok),
                quote(raw)
            ),
        )),
        None => {
            check_text(path, line_no, raw)?;
            Err(Error::input(
                path,
                line_no,
                format!(
                    "weight {} in {} is not a number: expected a finite number > 0 (an edge length)",
                    quote(tok),
                    quote(raw)
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests;
