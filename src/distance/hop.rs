//! Single-source BFS on the CSR arrays, writing hop counts straight into the
//! caller's `f64` row (no per-call allocation once the buffers have grown).

use crate::graph::Graph;

/// Hop distances from `s` along out-arcs into `out` (∞ when unreachable).
/// `queue` is scratch space.
pub(crate) fn bfs(g: &Graph, s: u32, queue: &mut Vec<u32>, out: &mut Vec<f64>) {
    let n = g.n();
    out.clear();
    out.resize(n, f64::INFINITY);
    queue.clear();
    queue.reserve(n);
    let offsets = g.offsets();
    let targets = g.targets();
    out[s as usize] = 0.0;
    queue.push(s);
    let mut head = 0;
    while head < queue.len() {
        // Process one level at a time so the next distance is a constant.
        let end = queue.len();
        let next = out[queue[head] as usize] + 1.0;
        while head < end {
            let u = queue[head] as usize;
            head += 1;
            for &v in &targets[offsets[u]..offsets[u + 1]] {
                let d = &mut out[v as usize];
                if *d == f64::INFINITY {
                    *d = next;
                    queue.push(v);
                }
            }
        }
    }
}
