use super::*;

/// Integer edges interned per batch (see [`Loader::flush`]).
pub(super) const BATCH: usize = 4096;

/// The edge buffer is first compacted when it reaches this many edges
/// (128 MiB of index pairs).
pub(super) const COMPACT_MIN: usize = 1 << 24;

pub(super) fn cap_error(file: &Path, line_no: usize, id: &str, number: usize, cap: usize) -> Error {
    Error::input(
        file,
        line_no,
        format!(
            "node '{id}' is distinct node number {number}: expected at most {cap} distinct nodes (the loader's max_nodes cap)"
        ),
    )
}

/// Where a file is, for the messages of [`EdgeBuf`].
pub(super) struct At<'a> {
    /// The parameter naming the file (`graph`, `nodes`).
    pub(super) param: &'a str,
    pub(super) path: &'a Path,
    pub(super) line: usize,
    /// The share of the file read, if known.
    pub(super) fraction: Option<f64>,
    /// Distinct nodes so far.
    pub(super) nodes: usize,
}

impl<'a> At<'a> {
    pub(super) fn of(param: &'a str, src: &Source<'a>, nodes: usize) -> At<'a> {
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
    pub(super) fn what(&self, edges: usize) -> String {
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
pub(super) struct EdgeBuf {
    pub(super) edges: Vec<(u32, u32)>,
    /// One per edge when `weighted`.
    pub(super) weights: Vec<f64>,
    pub(super) weighted: bool,
    pub(super) directed: bool,
    /// Self-loops and duplicates removed by compaction.
    pub(super) dropped: Dropped,
    /// Compact rather than grow past this length.
    pub(super) compact_at: usize,
    /// The least `compact_at` ([`COMPACT_MIN`]; smaller in tests).
    pub(super) compact_min: usize,
    /// Edges the file's size suggests.
    pub(super) hint: usize,
    pub(super) budget: MemoryBudget,
    /// Compactions so far (the buffer keeps file order until the first).
    pub(super) compactions: u32,
}

impl EdgeBuf {
    pub(super) fn new(directed: bool, budget: MemoryBudget) -> Self {
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
            compactions: 0,
        }
    }

    /// Bytes per buffered edge: the pair, its weight and the compaction's
    /// scratch (an index and a flag) when weighted.
    pub(super) fn buf_bytes(&self) -> u64 {
        if self.weighted { 16 + 5 } else { 8 }
    }

    /// Bytes per buffered edge that building the graph adds
    /// ([`Graph::from_edges`]: per arc a pair, a target and a length).
    pub(super) fn build_bytes(&self) -> u64 {
        let arcs: u64 = if self.directed { 1 } else { 2 };
        arcs * if self.weighted { 20 } else { 12 }
    }

    /// Buffered edges the budget allows next to the nodes.
    pub(super) fn fit(&self, nodes: NodeMem) -> usize {
        let b = self.budget.bytes;
        let load = b.saturating_sub(nodes.load) / self.buf_bytes();
        let build = b.saturating_sub(nodes.build) / (self.buf_bytes() + self.build_bytes());
        // `from_edges` numbers the buffered edges with `u32`.
        load.min(build).min(u32::MAX as u64) as usize
    }

    /// Peak memory of reading into a buffer of `edges` and building the
    /// graph from it.
    pub(super) fn need(&self, edges: usize, nodes: NodeMem) -> u64 {
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
    pub(super) fn start(&mut self, weighted: bool, hint: usize, nodes: NodeMem) {
        self.weighted = weighted;
        self.hint = hint;
        let cap = hint.min(self.fit(nodes));
        crate::limits::fallible(|| {
            let _ = self.edges.try_reserve_exact(cap);
            if weighted {
                let _ = self.weights.try_reserve_exact(self.edges.capacity());
            }
        });
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.edges.len()
    }

    #[inline]
    pub(super) fn has_room(&self, extra: usize) -> bool {
        self.edges.len() + extra <= self.edges.capacity()
            && (!self.weighted || self.weights.len() + extra <= self.weights.capacity())
    }

    /// Makes room for `extra` more edges: compacts when due, grows within
    /// the budget, and refuses the file when its distinct edges do not fit.
    #[cold]
    #[inline(never)]
    pub(super) fn make_room(&mut self, extra: usize, nodes: NodeMem, at: &At<'_>) -> Result<()> {
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
    pub(super) fn reserve(&mut self, cap: usize) -> bool {
        let len = self.len();
        crate::limits::fallible(|| {
            if self.edges.try_reserve_exact(cap - len).is_err() {
                return false;
            }
            !self.weighted || self.weights.try_reserve_exact(cap - len).is_ok()
        })
    }

    /// The memory the whole file will need, extrapolated from the share
    /// read (or a third more than now when the size is unknown).
    pub(super) fn projected(&self, edges: usize, nodes: NodeMem, at: &At<'_>) -> u64 {
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
    pub(super) fn refuse(&self, what: String, need: u64, at: &At<'_>) -> Error {
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
    pub(super) fn check_nodes(&self, nodes: NodeMem, at: &At<'_>) -> Result<()> {
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
    pub(super) fn compact(&mut self) {
        self.compactions += 1;
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
    pub(super) fn finish(
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
