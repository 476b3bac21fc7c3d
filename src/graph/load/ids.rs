use super::*;

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

pub(super) type IdMap = HashMap<u64, u32, BuildHasherDefault<IdHasher>>;

pub(super) const ABSENT: u32 = u32::MAX;

/// Memory for the nodes seen so far: what the id tables hold while the
/// file is read, and what the nodes take while the graph is built (CSR
/// offsets and degrees, the sorted ids and their permutation, and whatever
/// id table is still alive then).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NodeMem {
    pub(super) load: u64,
    pub(super) build: u64,
}

impl NodeMem {
    pub(super) fn scaled(self, k: f64) -> NodeMem {
        let s = |x: u64| (x as f64 * k).min(u64::MAX as f64 / 4.0) as u64;
        NodeMem {
            load: s(self.load),
            build: s(self.build),
        }
    }
}

/// Integer ids → provisional indices in order of first appearance.
pub(super) struct IntIds {
    /// `dense[id]` = provisional index, while every id seen is small.
    pub(super) dense: Option<Vec<u32>>,
    pub(super) map: IdMap,
    /// Id of each provisional index.
    pub(super) ids: Vec<u64>,
}

impl IntIds {
    pub(super) fn new() -> Self {
        IntIds {
            dense: Some(Vec::new()),
            map: IdMap::default(),
            ids: Vec::new(),
        }
    }

    /// Ids up to this bound stay in the dense table: 2M entries (8 MB) always,
    /// more when the table stays at least 1/16 full.
    pub(super) fn dense_limit(&self) -> u64 {
        (1u64 << 21).max(16 * self.ids.len() as u64)
    }

    /// Memory for the nodes seen so far.
    pub(super) fn mem(&self) -> NodeMem {
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
    pub(super) fn get(&mut self, id: u64) -> u32 {
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
    pub(super) fn get_slow(&mut self, id: u64) -> u32 {
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
    pub(super) fn finish(self) -> (Vec<u64>, Vec<u32>) {
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
pub(super) struct TokIds {
    pub(super) map: HashMap<String, u32>,
    pub(super) names: Vec<String>,
    /// Bytes of text of the names.
    pub(super) text: u64,
}

impl TokIds {
    pub(super) fn get(&mut self, s: &str) -> u32 {
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
    pub(super) fn mem(&self) -> NodeMem {
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

pub(super) enum Ids {
    Int(IntIds),
    Tok(TokIds),
}

impl Ids {
    pub(super) fn len(&self) -> usize {
        match self {
            Ids::Int(x) => x.ids.len(),
            Ids::Tok(x) => x.names.len(),
        }
    }

    pub(super) fn mem(&self) -> NodeMem {
        match self {
            Ids::Int(x) => x.mem(),
            Ids::Tok(x) => x.mem(),
        }
    }

    /// Turns integer ids into string tokens (their decimal spelling, the
    /// canonical one), keeping indices: integer ids are numbered in order
    /// of first appearance, as tokens are.
    pub(super) fn become_tokens(&mut self) {
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

    /// Turns the ids into string tokens with the ends of a first edge line
    /// read late (a line held back as a possible header, then found to be
    /// an edge of a text-id file: issue 33 item 12) numbered right after the
    /// first `listed` ids (the node list's), where their first appearance
    /// puts them. Returns `perm[old index] = new index` and the two ends'
    /// indices. `first` holds text already checked.
    pub(super) fn tokens_with_first(
        &mut self,
        listed: usize,
        first: [&[u8]; 2],
    ) -> (Vec<u32>, [u32; 2]) {
        let old: Vec<String> = match self {
            Ids::Int(x) => std::mem::take(&mut x.ids)
                .into_iter()
                .map(|id| id.to_string())
                .collect(),
            Ids::Tok(t) => std::mem::take(&mut t.names),
        };
        let mut t = TokIds::default();
        t.map.reserve(old.len() + 2);
        t.names.reserve(old.len() + 2);
        for name in &old[..listed.min(old.len())] {
            t.get(name);
        }
        let mut ends = [0u32; 2];
        for (end, tok) in ends.iter_mut().zip(first) {
            *end = t.get(&String::from_utf8_lossy(canonical_id(tok)));
        }
        let perm = old.iter().map(|name| t.get(name)).collect();
        *self = Ids::Tok(t);
        (perm, ends)
    }

    /// Index of the id spelled `tok`; `Ok(None)` = not an integer in integer mode.
    #[inline]
    pub(super) fn intern(
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
