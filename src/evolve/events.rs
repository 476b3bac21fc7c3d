//! The events file of `evolve`: `time,u,v,op[,w]` (header first), one edge
//! addition or removal per row, in time order. Read and checked whole before
//! anything runs, against the START graph, so a bad row stops the run before
//! batch 0 with `file:line: …`.

use crate::error::{Error, Result};
use crate::graph::NodeIds;
use crate::store::EdgeEvent;
use crate::util::lines::TextLines;
use std::collections::BTreeMap;
use std::path::Path;

/// Reads `file` and checks every row against the edge set it is applied to
/// (`edges`, START's, keyed `(u, v)` with `u < v`; it is left as START):
/// ids of nodes in `ids` (START ∪ `nodes`), `op` `add` (of an edge not
/// present) or `remove` (of an edge present), `w` finite and > 0 (default
/// 1), times finite and non-decreasing.
pub fn read_events(
    file: &Path,
    ids: &NodeIds,
    edges: &BTreeMap<(u32, u32), f64>,
) -> Result<Vec<EdgeEvent>> {
    let mut lines = TextLines::open(file)?;
    let mut present = edges.clone();
    let mut out = Vec::new();
    let mut header = false;
    let mut last_time = f64::NEG_INFINITY;
    while let Some((line, text)) = lines.next_line()? {
        let bad = |m: String| Error::input(file, line, m);
        let t = text.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = t.split(',').map(str::trim).collect();
        if !header {
            let want = ["time", "u", "v", "op"];
            if cells.len() < 4
                || cells[..4] != want
                || (cells.len() == 5 && cells[4] != "w")
                || cells.len() > 5
            {
                return Err(bad(format!(
                    "'{t}': expected the header time,u,v,op or time,u,v,op,w"
                )));
            }
            header = true;
            continue;
        }
        if !(cells.len() == 4 || cells.len() == 5) {
            return Err(bad(format!("'{t}': expected time,u,v,op[,w]")));
        }
        let time: f64 = cells[0]
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| bad(format!("'{}': expected a finite time", cells[0])))?;
        if time < last_time {
            return Err(bad(format!(
                "time {} before the previous row's {}: expected rows in time order",
                cells[0],
                crate::util::fmt_f64(last_time)
            )));
        }
        last_time = time;
        let node = |s: &str| {
            ids.index_of(s).ok_or_else(|| {
                bad(format!(
                    "node '{s}' is not in the start graph or `nodes`: expected the id of a \
                     node of START (list nodes that join later with `nodes`)"
                ))
            })
        };
        let (u, v) = (node(cells[1])?, node(cells[2])?);
        if u == v {
            return Err(bad(format!("'{t}': a self-loop (u = v)")));
        }
        let add = match cells[3] {
            "add" => true,
            "remove" => false,
            other => return Err(bad(format!("op '{other}': expected add or remove"))),
        };
        // Every path length must stay finite (as for the graph's own
        // lengths, `limits`): checked here, not at the batch that adds it.
        let w_max = f64::MAX / (ids.len().max(2) - 1) as f64;
        let w = match cells.get(4).filter(|s| !s.is_empty()) {
            None => 1.0,
            Some(s) => s
                .parse::<f64>()
                .ok()
                .filter(|w| w.is_finite() && *w > 0.0 && *w <= w_max)
                .ok_or_else(|| {
                    bad(format!(
                        "w '{s}': expected a finite length > 0 and ≤ {w_max:e} (f64::MAX / (N − 1), \
                         N = {} nodes)",
                        ids.len()
                    ))
                })?,
        };
        let key = (u.min(v), u.max(v));
        if add {
            if present.insert(key, w).is_some() {
                return Err(bad(format!(
                    "add {} {}: the edge is already in the graph at time {}",
                    cells[1], cells[2], cells[0]
                )));
            }
        } else if present.remove(&key).is_none() {
            return Err(bad(format!(
                "remove {} {}: the edge is not in the graph at time {}",
                cells[1], cells[2], cells[0]
            )));
        }
        out.push(EdgeEvent {
            line: line as u64,
            time,
            u,
            v,
            add,
            w,
        });
    }
    if !header {
        return Err(Error::input(
            file,
            1,
            "an empty file: expected the header time,u,v,op[,w]",
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> std::result::Result<usize, String> {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("e.csv");
        std::fs::write(&f, text).unwrap();
        let edges: BTreeMap<(u32, u32), f64> = [((0, 1), 1.0)].into_iter().collect();
        read_events(&f, &NodeIds::range(4), &edges)
            .map(|v| v.len())
            .map_err(|e| e.to_string().replace(&f.display().to_string(), "F"))
    }

    #[test]
    fn good_rows_and_each_bad_row_by_line() {
        assert_eq!(
            check("time,u,v,op\n1,1,2,add\n2,0,1,remove\n3,0,1,add\n"),
            Ok(3)
        );
        assert_eq!(check("time,u,v,op,w\n1,1,2,add,2.5\n1,2,3,add,\n"), Ok(2));
        for (text, want) in [
            ("", "F:1: an empty file"),
            ("u,v\n", "F:1: 'u,v': expected the header"),
            (
                "time,u,v,op\n1,1,9,add\n",
                "F:2: node '9' is not in the start graph",
            ),
            ("time,u,v,op\n1,1,1,add\n", "F:2: '1,1,1,add': a self-loop"),
            (
                "time,u,v,op\n1,1,2,link\n",
                "F:2: op 'link': expected add or remove",
            ),
            ("time,u,v,op\n2,1,2,add\n1,2,3,add\n", "F:3: time 1 before"),
            (
                "time,u,v,op\nx,1,2,add\n",
                "F:2: 'x': expected a finite time",
            ),
            (
                "time,u,v,op\n1,0,1,add\n",
                "F:2: add 0 1: the edge is already",
            ),
            (
                "time,u,v,op\n1,2,3,remove\n",
                "F:2: remove 2 3: the edge is not",
            ),
            (
                "time,u,v,op,w\n1,1,2,add,-1\n",
                "F:2: w '-1': expected a finite length",
            ),
            (
                "time,u,v,op\n1,1,2\n",
                "F:2: '1,1,2': expected time,u,v,op[,w]",
            ),
        ] {
            let e = check(text).unwrap_err();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
    }
}
