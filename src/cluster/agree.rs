//! Before any work the peers agree on the job: each sends its fingerprint
//! (ordered `(key, value)` strings, see [`ClusterSpec`](super::ClusterSpec))
//! to every other peer over the data connections, reads theirs, and every
//! peer compares every fingerprint with rank 0's. All peers hold all the
//! fingerprints, so on a mismatch they all stop with the same message,
//! naming the lowest differing rank and its first differing key in rank 0's
//! order: `process 1 has seed = 2 where process 0 has seed = 1`.

use super::{cluster_error, peer_name, secs};
use crate::error::Result;
use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Opens a fingerprint frame (then its length, 8 bytes little-endian, then
/// the CBOR of the entries).
const MAGIC: &[u8; 8] = b"PDFPRNT1";
/// Largest fingerprint accepted (a list of owner ids can be long).
const MAX_BYTES: u64 = 64 << 20;

/// Ordered `(key, value)` strings.
pub(super) type Entries = Vec<(String, String)>;

/// Sends `mine` to every peer of `data` (this peer's slot is `None`) and
/// reads each peer's, within `timeout`; returns every peer's fingerprint by
/// rank (`mine` at `me`). Writes run on threads of their own, so peers that
/// all write before reading never wait on each other.
pub(super) fn exchange(
    me: usize,
    mine: &[(String, String)],
    data: &[Option<TcpStream>],
    timeout: Duration,
) -> Result<Vec<Entries>> {
    let mut body = Vec::new();
    ciborium::into_writer(&mine, &mut body)
        .map_err(|e| cluster_error(format!("encoding this process's fingerprint: {e}")))?;
    let mut frame = MAGIC.to_vec();
    frame.extend_from_slice(&(body.len() as u64).to_le_bytes());
    frame.extend_from_slice(&body);
    let deadline = Instant::now() + timeout;
    std::thread::scope(|s| {
        let writers: Vec<_> = data
            .iter()
            .enumerate()
            .filter_map(|(j, st)| st.as_ref().map(|st| (j, st)))
            .map(|(j, st)| {
                let frame = &frame;
                s.spawn(move || {
                    let mut w = st;
                    let sent = w
                        .set_write_timeout(Some(timeout))
                        .and_then(|()| w.write_all(frame))
                        .and_then(|()| w.flush());
                    (j, sent)
                })
            })
            .collect();
        let mut all: Vec<Entries> = vec![Vec::new(); data.len()];
        all[me] = mine.to_vec();
        for (j, st) in data.iter().enumerate() {
            if let Some(st) = st {
                all[j] = receive(j, st, deadline, timeout)?;
            }
        }
        for w in writers {
            let (j, sent) = w
                .join()
                .map_err(|_| cluster_error("sending the fingerprint failed"))?;
            sent.map_err(|e| {
                cluster_error(format!(
                    "lost {}: sending this process's fingerprint: {e}",
                    peer_name(j)
                ))
            })?;
        }
        Ok(all)
    })
}

/// Reads peer `j`'s fingerprint frame, exactly (the stream goes on to the
/// exchange of partials).
fn receive(j: usize, st: &TcpStream, deadline: Instant, timeout: Duration) -> Result<Entries> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    let fail = |e: std::io::Error| match e.kind() {
        ErrorKind::UnexpectedEof => cluster_error(format!(
            "lost {}: its connection closed before its fingerprint arrived (the process ended)",
            peer_name(j)
        )),
        ErrorKind::WouldBlock | ErrorKind::TimedOut => cluster_error(format!(
            "no fingerprint from {} within {} s (`cluster_timeout`)",
            peer_name(j),
            secs(timeout)
        )),
        _ => cluster_error(format!("lost {}: {e}", peer_name(j))),
    };
    st.set_read_timeout(Some(left)).map_err(fail)?;
    let mut r = st;
    let mut head = [0u8; 16];
    r.read_exact(&mut head).map_err(fail)?;
    let len = u64::from_le_bytes(head[8..].try_into().unwrap_or([0xff; 8]));
    if &head[..8] != MAGIC || len > MAX_BYTES {
        return Err(cluster_error(format!(
            "{} sent no fingerprint (a different version of privdiffuse?)",
            peer_name(j)
        )));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body).map_err(fail)?;
    ciborium::from_reader(&body[..]).map_err(|e| {
        cluster_error(format!(
            "{} sent a malformed fingerprint (a different version of privdiffuse?): {e}",
            peer_name(j)
        ))
    })
}

/// The first disagreement with rank 0: the lowest rank whose fingerprint
/// differs, at its first differing key in rank 0's order (then keys only it
/// has). `None` when every fingerprint equals rank 0's as a set of keys
/// and values.
pub(super) fn disagreement(all: &[Entries]) -> Option<String> {
    let (first, rest) = all.split_first()?;
    let reference: HashMap<&str, &str> = first
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    for (i, theirs) in rest.iter().enumerate() {
        let j = i + 1;
        let map: HashMap<&str, &str> = theirs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let differs = first
            .iter()
            .map(|(k, v)| (k.as_str(), Some(v.as_str()), map.get(k.as_str()).copied()))
            .chain(
                theirs
                    .iter()
                    .filter(|(k, _)| !reference.contains_key(k.as_str()))
                    .map(|(k, v)| (k.as_str(), None, Some(v.as_str()))),
            )
            .find(|(_, zero, other)| zero != other);
        if let Some((key, zero, other)) = differs {
            let (zero, other) = shown(zero, other);
            return Some(format!(
                "process {j} has {key} = {other} where process 0 has {key} = {zero}"
            ));
        }
    }
    None
}

/// The longest value shown whole; longer pairs are cut around where they
/// start to differ.
const SHOWN: usize = 80;

/// Two values as a message shows them: `(not set)` for a missing key; long
/// values cut to the stretch where they first differ.
fn shown(a: Option<&str>, b: Option<&str>) -> (String, String) {
    let (Some(a), Some(b)) = (a, b) else {
        let show = |v: Option<&str>| v.map_or_else(|| "(not set)".to_string(), |v| cut(v, 0));
        return (show(a), show(b));
    };
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    (cut(a, at), cut(b, at))
}

/// `v` whole when short, else about [`SHOWN`] characters from a little
/// before character `at`, with `…` where text was left out.
fn cut(v: &str, at: usize) -> String {
    let n = v.chars().count();
    if n <= SHOWN {
        return v.to_string();
    }
    let start = at.saturating_sub(SHOWN / 4).min(n - SHOWN / 2);
    let end = (start + SHOWN - 2).min(n);
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    s.extend(v.chars().skip(start).take(end - start));
    if end < n {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(pairs: &[(&str, &str)]) -> Entries {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn equal_fingerprints_agree() {
        let a = fp(&[("command", "simulate"), ("seed", "1")]);
        assert_eq!(disagreement(&[a.clone(), a.clone(), a]), None);
        assert_eq!(disagreement(&[fp(&[("seed", "1")])]), None);
    }

    #[test]
    fn the_first_differing_key_is_named_with_both_values() {
        let zero = fp(&[
            ("command", "simulate"),
            ("eps", "range:0.5..15"),
            ("seed", "1"),
        ]);
        let one = fp(&[("command", "simulate"), ("eps", "recip:c=2"), ("seed", "2")]);
        assert_eq!(
            disagreement(&[zero.clone(), one]).unwrap(),
            "process 1 has eps = recip:c=2 where process 0 has eps = range:0.5..15"
        );
        // The lowest differing rank, whatever the others.
        let two = fp(&[
            ("command", "collude"),
            ("eps", "range:0.5..15"),
            ("seed", "1"),
        ]);
        assert_eq!(
            disagreement(&[zero.clone(), zero.clone(), two]).unwrap(),
            "process 2 has command = collude where process 0 has command = simulate"
        );
        // A key only one side has.
        let extra = fp(&[
            ("command", "simulate"),
            ("eps", "range:0.5..15"),
            ("view", "ego:0:1"),
            ("seed", "1"),
        ]);
        assert_eq!(
            disagreement(&[zero.clone(), extra.clone()]).unwrap(),
            "process 1 has view = ego:0:1 where process 0 has view = (not set)"
        );
        assert_eq!(
            disagreement(&[extra, zero]).unwrap(),
            "process 1 has view = (not set) where process 0 has view = ego:0:1"
        );
    }

    #[test]
    fn long_values_are_cut_where_they_differ() {
        let ids: Vec<String> = (0..400).map(|i| i.to_string()).collect();
        let a = ids.join(",");
        let mut other = ids.clone();
        other[300] = "x".into();
        let b = other.join(",");
        let m = disagreement(&[fp(&[("owners", &a)]), fp(&[("owners", &b)])]).unwrap();
        assert!(m.len() < 2 * SHOWN + 80, "{m}");
        assert!(
            m.contains(",299,x,301,") && m.contains(",299,300,301,"),
            "{m}"
        );
        assert!(m.starts_with("process 1 has owners = …"), "{m}");
    }

    /// Two peers over loopback: each gets the other's fingerprint, whole,
    /// and the streams stay clean for what follows.
    #[test]
    fn fingerprints_cross_a_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let big: String = "x".repeat(3 << 20); // more than a socket buffer
        let a = fp(&[("command", "simulate"), ("owners", &big)]);
        let b = fp(&[("command", "simulate"), ("owners", "all")]);
        let t = Duration::from_secs(20);
        let (a2, b2) = (a.clone(), b.clone());
        let peer = std::thread::spawn(move || {
            let s = TcpStream::connect(addr).unwrap();
            let all = exchange(1, &b2, &[Some(s.try_clone().unwrap()), None], t).unwrap();
            let mut rest = [0u8; 3];
            (&s).read_exact(&mut rest).unwrap();
            (all, rest)
        });
        let (s, _) = listener.accept().unwrap();
        let all = exchange(0, &a2, &[None, Some(s.try_clone().unwrap())], t).unwrap();
        (&s).write_all(b"end").unwrap();
        let (theirs, rest) = peer.join().unwrap();
        assert_eq!(all, vec![a.clone(), b.clone()]);
        assert_eq!(theirs, all);
        assert_eq!(&rest, b"end");
        assert!(
            disagreement(&all)
                .unwrap()
                .starts_with("process 1 has owners = all where")
        );
    }

    #[test]
    fn a_peer_that_sends_nothing_is_named_after_the_timeout() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let _silent = TcpStream::connect(addr).unwrap();
        let (s, _) = listener.accept().unwrap();
        let t0 = Instant::now();
        let e = exchange(0, &[], &[None, Some(s)], Duration::from_millis(300))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("cluster: no fingerprint from process 1"),
            "{e}"
        );
        assert!(t0.elapsed() < Duration::from_secs(5));
    }
}
