//! Original node ids: 64-bit integers (SNAP files) or arbitrary string tokens.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// The spelling of an id under the id rule: an id made only of ASCII digits
/// is a number, written without leading zeros (`007` → `7`, `000` → `0`);
/// any other id is a string, kept exactly as spelled.
pub(crate) fn canonical_id(id: &[u8]) -> &[u8] {
    if id.is_empty() || !id.iter().all(u8::is_ascii_digit) {
        return id;
    }
    let zeros = id.iter().take_while(|&&b| b == b'0').count();
    &id[zeros.min(id.len() - 1)..]
}

/// [`canonical_id`] of a `str`.
fn canonical(id: &str) -> &str {
    let c = canonical_id(id.as_bytes());
    &id[id.len() - c.len()..]
}

/// The number an id names under the id rule (ASCII digits only, below 2^64).
fn number(id: &str) -> Option<u64> {
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    canonical(id).parse().ok()
}

/// The map from node index (`u32`) back to the id used in the input file, and
/// from an id to its index.
#[derive(Clone, Debug)]
pub struct NodeIds {
    labels: Labels,
    index: OnceLock<Index>,
}

#[derive(Clone, Debug)]
enum Labels {
    /// Ids `0..n` (generated graphs).
    Range(usize),
    /// Integer ids in index order.
    Integer(Vec<u64>),
    /// String tokens in index order.
    Token(Vec<String>),
}

#[derive(Clone, Debug)]
enum Index {
    Integer(HashMap<u64, u32>),
    Token(HashMap<String, u32>),
}

impl NodeIds {
    /// Ids `0..n`.
    pub fn range(n: usize) -> Self {
        Self::from_labels(Labels::Range(n))
    }

    /// Integer ids; `ids[i]` is the id of node `i`. Ids must be distinct.
    pub fn integers(ids: Vec<u64>) -> Self {
        Self::from_labels(Labels::Integer(ids))
    }

    /// String ids; `ids[i]` is the id of node `i`. Ids must be distinct.
    pub fn tokens(ids: Vec<String>) -> Self {
        Self::from_labels(Labels::Token(ids))
    }

    fn from_labels(labels: Labels) -> Self {
        NodeIds {
            labels,
            index: OnceLock::new(),
        }
    }

    /// The ids of the nodes `keep` (indices into `self`, in the order given):
    /// node `i` of the result has the id of node `keep[i]` here. Integer ids
    /// stay integers (ids `0..n` become an explicit list), strings stay strings.
    pub fn subset(&self, keep: &[u32]) -> Self {
        match &self.labels {
            Labels::Range(_) => Self::integers(keep.iter().map(|&i| i as u64).collect()),
            Labels::Integer(v) => Self::integers(keep.iter().map(|&i| v[i as usize]).collect()),
            Labels::Token(v) => Self::tokens(keep.iter().map(|&i| v[i as usize].clone()).collect()),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        match &self.labels {
            Labels::Range(n) => *n,
            Labels::Integer(v) => v.len(),
            Labels::Token(v) => v.len(),
        }
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many ids are text: not made of ASCII digits only (`info`
    /// reports it, issue 33 item 12: a header read as an edge shows there).
    pub fn text_count(&self) -> usize {
        match &self.labels {
            Labels::Token(v) => v
                .iter()
                .filter(|s| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()))
                .count(),
            Labels::Range(_) | Labels::Integer(_) => 0,
        }
    }

    /// Whether ids are integers (as opposed to string tokens).
    pub fn is_integer(&self) -> bool {
        !matches!(self.labels, Labels::Token(_))
    }

    /// The integer id of node `i`, if ids are integers.
    pub fn integer(&self, i: u32) -> Option<u64> {
        match &self.labels {
            Labels::Range(_) => Some(i as u64),
            Labels::Integer(v) => Some(v[i as usize]),
            Labels::Token(_) => None,
        }
    }

    /// A displayable id of node `i` (no allocation).
    pub fn label(&self, i: u32) -> Label<'_> {
        Label { ids: self, i }
    }

    /// The index of the node whose id is `id`, or `None`. Ids follow the
    /// loader's rule (see `load`): an id of ASCII digits only
    /// is a number, so `007` finds node `7` in any graph; any other id is
    /// looked up as spelled (surrounding blanks ignored).
    pub fn index_of(&self, id: &str) -> Option<u32> {
        let id = id.trim();
        match &self.labels {
            Labels::Range(n) => number(id).filter(|&x| x < *n as u64).map(|x| x as u32),
            _ => match self.index() {
                Index::Integer(m) => number(id).and_then(|x| m.get(&x).copied()),
                Index::Token(m) => m.get(canonical(id)).copied(),
            },
        }
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| match &self.labels {
            Labels::Range(_) => Index::Integer(HashMap::new()),
            Labels::Integer(v) => {
                Index::Integer(v.iter().enumerate().map(|(i, &x)| (x, i as u32)).collect())
            }
            Labels::Token(v) => Index::Token(
                v.iter()
                    .enumerate()
                    .map(|(i, x)| (x.clone(), i as u32))
                    .collect(),
            ),
        })
    }
}

/// The id of one node, for printing.
#[derive(Clone, Copy)]
pub struct Label<'a> {
    ids: &'a NodeIds,
    i: u32,
}

impl fmt::Display for Label<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.ids.labels {
            Labels::Range(_) => write!(f, "{}", self.i),
            Labels::Integer(v) => write!(f, "{}", v[self.i as usize]),
            Labels::Token(v) => f.write_str(&v[self.i as usize]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_both_ways() {
        let ids = NodeIds::integers(vec![107, 3, 99]);
        assert_eq!(ids.index_of("99"), Some(2));
        assert_eq!(ids.index_of("4"), None);
        assert_eq!(ids.label(0).to_string(), "107");
        let t = NodeIds::tokens(vec!["Medici".into(), "Strozzi".into()]);
        assert_eq!(t.index_of("Strozzi"), Some(1));
        assert_eq!(t.label(0).to_string(), "Medici");
        assert!(!t.is_integer());
        let r = NodeIds::range(3);
        assert_eq!(r.index_of("2"), Some(2));
        assert_eq!(r.index_of("3"), None);
    }

    #[test]
    fn digit_ids_are_numbers_in_every_graph() {
        assert_eq!(canonical_id(b"007"), b"7");
        assert_eq!(canonical_id(b"000"), b"0");
        assert_eq!(canonical_id(b"0"), b"0");
        assert_eq!(canonical_id(b"07a"), b"07a");
        assert_eq!(canonical_id(b""), b"");
        let ids = NodeIds::integers(vec![7, 10]);
        assert_eq!(ids.index_of("007"), Some(0));
        assert_eq!(ids.index_of(" 0010 "), Some(1));
        // `+7` is a string, and no integer graph has string ids.
        assert_eq!(ids.index_of("+7"), None);
        let t = NodeIds::tokens(vec!["Medici".into(), "7".into()]);
        assert_eq!(t.index_of("07"), Some(1));
        assert_eq!(t.index_of("7"), Some(1));
        assert_eq!(NodeIds::range(10).index_of("09"), Some(9));
        // Beyond u64: still a number without its leading zeros.
        let big = "123456789012345678901234567890";
        let t = NodeIds::tokens(vec![big.into()]);
        assert_eq!(t.index_of(&format!("000{big}")), Some(0));
    }
}
