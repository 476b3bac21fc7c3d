//! Original node ids: 64-bit integers (SNAP files) or arbitrary string tokens.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

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

    /// The index of the node whose id is `id` (parsed as an integer when ids are
    /// integers), or `None`.
    pub fn index_of(&self, id: &str) -> Option<u32> {
        let id = id.trim();
        match &self.labels {
            Labels::Range(n) => id
                .parse::<u64>()
                .ok()
                .filter(|&x| x < *n as u64)
                .map(|x| x as u32),
            _ => match self.index() {
                Index::Integer(m) => id.parse::<u64>().ok().and_then(|x| m.get(&x).copied()),
                Index::Token(m) => m.get(id).copied(),
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
}
