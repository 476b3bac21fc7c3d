//! A cluster of processes on timely-dataflow (feature `distributed`): an
//! [`Executor`] whose peers are processes, each with a rank. The engines
//! never name it. (In this library "process" is the stochastic process; a
//! member of a cluster is a peer. Messages say "process 1", as the user
//! typed `--process 1`.)
//!
//! Every peer loads the graph itself (a shared file system is assumed),
//! builds the same plan, computes the chunks `i` with `i mod P` equal to its
//! rank on its own `W` threads, and sends each encoded partial through a
//! timely exchange channel to rank 0, which merges them in chunk order
//! (see [`crate::exec`]) and alone writes the outputs.
//!
//! Robustness, around timely (which retries connections forever and panics
//! when a peer's socket breaks):
//! * **Connection deadline**: this module opens the sockets itself (timely's
//!   convention: connect to lower ranks, accept higher ones, each stream
//!   starting with a small header) and gives up after the timeout, naming the
//!   peers that did not connect.
//! * **Agreement**: before any work the peers exchange their fingerprints
//!   ([`ClusterSpec::fingerprint`]) and all stop, with one message naming the
//!   first differing key, when any differs from rank 0's (`agree`).
//! * **Watchdog**: a second connection per pair carries heartbeats on
//!   threads of their own, and each peer's last word (`watch`): a peer that
//!   fails, closes its connection before its last word, or stays silent for
//!   the timeout ends the others with exit code 1 and a one-line message
//!   naming it (`process 1 (10.0.0.2:4000)`). Every peer calls
//!   [`Cluster::conclude`] at the end, so a failure of rank 0 after the
//!   others' work (writing the outputs) still ends them with exit code 1.
//! * **No panic traces**: a panic hook turns a panic on timely's threads
//!   (`timely:send-j`, `timely:recv-j`, `timely:work-k`) into the same
//!   one-line message; staged outputs are removed before exiting.

mod agree;
mod codec;
mod rounds;
mod watch;

use crate::control::Control;
use crate::error::{Error, Result};
use crate::exec::{ChunkJob, Executor, Merge, compute_wave, wave_size};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use timely::communication::Hooks;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::dataflow::operators::{Exchange, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

/// The default `cluster_timeout`, in seconds.
pub const DEFAULT_TIMEOUT_S: f64 = 60.0;

const MAGIC: &[u8; 8] = b"PDIFFUS1";
const KIND_DATA: u8 = 0;
const KIND_BEAT: u8 = 1;
const HEADER: usize = 8 + 8 + 8 + 1;

/// How to join a cluster.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// One `host:port` per peer, in rank order.
    pub hostfile: PathBuf,
    /// This peer's rank (its line among the addresses, from 0).
    pub rank: usize,
    /// Worker threads of this peer.
    pub workers: usize,
    /// Connection deadline and watchdog timeout.
    pub timeout: Duration,
    /// What this peer will run, as ordered `(key, value)` strings that every
    /// peer must share (typically `Fingerprint::into_entries` of the
    /// `fingerprint` module); compared before any work.
    pub fingerprint: Vec<(String, String)>,
}

/// The addresses of a host file: one `host:port` per line; blank lines and
/// lines starting with `#` are skipped. Errors name the file and line.
pub fn read_hostfile(path: &Path) -> Result<Vec<String>> {
    let text = crate::util::lines::read_text(path, 1 << 20)?;
    let mut seen: Vec<(String, usize)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let bad = |why: &str| Error::input(path, line, format!("`{t}`: {why}"));
        if t.contains(char::is_whitespace) {
            return Err(bad("expected one host:port per line"));
        }
        let Some((host, port)) = t.rsplit_once(':') else {
            return Err(bad("expected host:port"));
        };
        if host.is_empty() || port.parse::<u16>().ok().filter(|&p| p > 0).is_none() {
            return Err(bad("expected host:port with a port from 1 to 65535"));
        }
        if let Some((_, first)) = seen.iter().find(|(a, _)| a == t) {
            return Err(bad(&format!("repeats line {first} (one line per process)")));
        }
        seen.push((t.to_string(), line));
    }
    if seen.is_empty() {
        return Err(Error::input(path, 1, "no host:port line (one per process)"));
    }
    Ok(seen.into_iter().map(|(a, _)| a).collect())
}

/// A joined cluster: sockets open, fingerprints agreed, heartbeats running.
pub struct Cluster {
    rank: usize,
    addresses: Vec<String>,
    workers: usize,
    timeout: Duration,
    data: Mutex<Option<Vec<Option<TcpStream>>>>,
    watch: watch::Watch,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cluster(rank {} of {})", self.rank, self.addresses.len())
    }
}

/// `process 1 (host:port)`.
fn peer_name(j: usize) -> String {
    match PEERS.get().and_then(|p| p.get(j)) {
        Some(a) => format!("process {j} ({a})"),
        None => format!("process {j}"),
    }
}

static PEERS: OnceLock<Vec<String>> = OnceLock::new();
static FATAL: AtomicBool = AtomicBool::new(false);

/// Ends the process: one line on stderr, staged outputs removed, exit 1.
/// Only the first caller reports; later ones wait for the exit.
fn fatal(message: String) -> ! {
    if FATAL.swap(true, Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    eprintln!("error: cluster: {}", crate::util::lines::one_line(&message));
    crate::util::atomic::remove_staged();
    std::process::exit(1);
}

/// Panics on timely's threads become one-line errors naming the peer.
fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let name = std::thread::current().name().map(str::to_owned);
            let Some(name) = name.filter(|n| n.starts_with("timely:")) else {
                previous(info);
                return;
            };
            let peer = name
                .strip_prefix("timely:send-")
                .or_else(|| name.strip_prefix("timely:recv-"))
                .and_then(|j| j.parse::<usize>().ok());
            match peer {
                Some(j) => {
                    // The watchdog knows how the peer ended (it failed, or
                    // vanished): give it a moment to say so first.
                    std::thread::sleep(Duration::from_millis(300));
                    fatal(format!("lost {}: the connection broke", peer_name(j)))
                }
                None => {
                    // Usually the consequence of a lost peer: give the
                    // watchdog, which names it, a moment to report first.
                    std::thread::sleep(Duration::from_millis(300));
                    let what = info
                        .payload()
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| info.payload().downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".into());
                    fatal(format!("a timely worker failed: {what}"))
                }
            }
        }));
    });
}

fn resolve(addr: &str) -> std::io::Result<SocketAddr> {
    addr.to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))
}

fn header(me: usize, peers: usize, kind: u8) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..16].copy_from_slice(&(me as u64).to_le_bytes());
    h[16..24].copy_from_slice(&(peers as u64).to_le_bytes());
    h[24] = kind;
    h
}

fn secs(d: Duration) -> String {
    crate::util::num::fmt_f64(d.as_secs_f64())
}

impl Cluster {
    /// Joins the cluster described by `spec`: reads the host file, listens
    /// on this peer's address, connects to every other peer within
    /// `spec.timeout`, checks that every peer's fingerprint equals rank 0's
    /// (else every peer returns the same error naming the first differing
    /// key), and starts the watchdog.
    pub fn connect(spec: &ClusterSpec) -> Result<Arc<Cluster>> {
        if spec.timeout.is_zero() {
            return Err(Error::param(
                "cluster_timeout",
                0,
                "a positive number of seconds",
            ));
        }
        let addresses = read_hostfile(&spec.hostfile)?;
        let p = addresses.len();
        let me = spec.rank;
        if me >= p {
            return Err(Error::param(
                "rank",
                me,
                format!(
                    "an index below the number of processes in {} ({p}: 0 to {})",
                    spec.hostfile.display(),
                    p - 1
                ),
            ));
        }
        let _ = PEERS.set(addresses.clone());
        install_panic_hook();
        let deadline = Instant::now() + spec.timeout;
        let mut data: Vec<Option<TcpStream>> = (0..p).map(|_| None).collect();
        let mut beat: Vec<Option<TcpStream>> = (0..p).map(|_| None).collect();
        if p > 1 {
            let own = &addresses[me];
            let listener = resolve(own).and_then(TcpListener::bind).map_err(|e| {
                cluster_error(format!(
                    "cannot listen on {own} (process {me}'s line of {}): {e}",
                    spec.hostfile.display()
                ))
            })?;
            listener
                .set_nonblocking(true)
                .map_err(|e| cluster_error(e.to_string()))?;
            for j in 0..me {
                for kind in [KIND_DATA, KIND_BEAT] {
                    let s = connect_until(&addresses[j], j, deadline, spec.timeout)?;
                    let mut s = s;
                    s.write_all(&header(me, p, kind))
                        .map_err(|e| cluster_error(format!("lost {}: {e}", peer_name(j))))?;
                    if kind == KIND_DATA {
                        data[j] = Some(s);
                    } else {
                        beat[j] = Some(s);
                    }
                }
            }
            accept_until(
                &listener,
                me,
                p,
                &mut data,
                &mut beat,
                deadline,
                spec.timeout,
            )?;
        }
        // Before the watchdog starts: a peer that leaves after seeing the
        // disagreement must not be reported as lost by the others.
        let all = agree::exchange(me, &spec.fingerprint, &data, spec.timeout)?;
        if let Some(m) = agree::disagreement(&all) {
            return Err(cluster_error(m));
        }
        for s in data.iter().flatten() {
            let _ = s.set_nodelay(true);
            let _ = s.set_read_timeout(None);
            let _ = s.set_write_timeout(None);
        }
        let watch = watch::Watch::start(beat, spec.timeout)?;
        Ok(Arc::new(Cluster {
            rank: me,
            addresses,
            workers: spec.workers.max(1),
            timeout: spec.timeout,
            data: Mutex::new(Some(data)),
            watch,
        }))
    }

    /// This peer's rank, from 0.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Number of peers.
    pub fn peers(&self) -> usize {
        self.addresses.len()
    }

    /// Ends this peer's part; call it once the command is over, with whether
    /// it `succeeded` here. Rank 0 (after writing its outputs) tells every
    /// peer; another rank whose part succeeded waits for that word and
    /// returns an error if the job failed (in practice the watchdog has
    /// already ended this process with exit code 1 and a line naming rank
    /// 0). A failed part tells every peer, which stop with exit code 1.
    /// Without this call the others see this peer vanish and stop too.
    pub fn conclude(&self, succeeded: bool) -> Result<()> {
        self.watch.conclude(self.rank, succeeded)
    }

    /// Worker threads of this peer.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The watchdog timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The data connections, one per peer (`None` at this peer's own
    /// index), taken once: a cluster runs one job (chunks or rounds).
    pub(crate) fn take_sockets(&self) -> Result<Vec<Option<TcpStream>>> {
        self.data
            .lock()
            .ok()
            .and_then(|mut d| d.take())
            .ok_or_else(|| cluster_error("a cluster runs one job"))
    }
}

impl Executor for Cluster {
    fn peers(&self) -> usize {
        self.addresses.len()
    }

    fn rank(&self) -> usize {
        self.rank
    }

    /// Runs `job` over the cluster (see the [module](self)); `merge` is
    /// called on rank 0 only, in chunk order (as the partials arrive
    /// for a job that is not [`ordered`](ChunkJob::ordered)).
    fn execute<J>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut Merge<'_, J::Partial>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Serialize + DeserializeOwned,
    {
        let np = self.peers();
        let me = self.rank;
        let sockets = self.take_sockets()?;
        let (tx_local, rx_local) = mpsc::channel::<(u64, Vec<u8>)>();
        let (tx_merge, rx_merge) = mpsc::channel::<(u64, Vec<u8>)>();
        let hooks = Hooks::default();
        let procs = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), None);
        let (builders, comms) = initialize_networking_from_sockets(procs, sockets, me, 1, hooks)
            .map_err(|e| cluster_error(format!("starting the exchange: {e}")))?;
        let rx_local = Mutex::new(Some(rx_local));
        let tx_merge = Mutex::new(Some(tx_merge));
        let guards = timely::execute::execute_from(
            builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
            Box::new(comms),
            timely::WorkerConfig::default(),
            move |worker| {
                let rx = rx_local.lock().ok().and_then(|mut r| r.take());
                let tx = tx_merge.lock().ok().and_then(|mut t| t.take());
                let Some(rx) = rx else { return };
                let mut input = InputHandle::new();
                let probe = ProbeHandle::new();
                worker.dataflow::<u64, _, _>(|scope| {
                    scope
                        .input_from(&mut input)
                        .container::<Vec<(u64, Vec<u8>)>>()
                        .exchange(|_| 0)
                        .inspect(move |x: &(u64, Vec<u8>)| {
                            if let Some(tx) = &tx {
                                let _ = tx.send(x.clone());
                            }
                        })
                        .probe_with(&probe);
                });
                loop {
                    match rx.recv_timeout(Duration::from_millis(1)) {
                        Ok(x) => input.send(x),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                    worker.step();
                }
                input.close();
                while !probe.done() {
                    worker.step_or_park(Some(Duration::from_millis(20)));
                }
            },
        )
        .map_err(|e| cluster_error(format!("starting the timely worker: {e}")))?;

        let total_chunks = job.chunks();
        let total_owners: u64 = (0..total_chunks).map(|i| job.chunk_owners(i)).sum();
        let mine: Vec<usize> = (0..total_chunks).filter(|i| i % np == me).collect();
        let pool = Mutex::new(Vec::new());
        let mut order = InOrder {
            ordered: job.ordered(),
            ..InOrder::default()
        };
        let mut computed = 0u64;
        for group in mine.chunks(wave_size()) {
            control.check()?;
            let outs = compute_wave(job, &pool, group);
            for (&i, out) in group.iter().zip(outs) {
                tx_local
                    .send((i as u64, codec::encode(&out?)?))
                    .map_err(|_| cluster_error("the timely worker stopped"))?;
                computed += job.chunk_owners(i);
            }
            if me == 0 {
                while let Ok((i, b)) = rx_merge.try_recv() {
                    order.absorb(job, merge, i, b)?;
                }
                control.report("owners", order.merged, total_owners);
            } else {
                control.report("owners", computed, total_owners);
            }
        }
        drop(tx_local);
        if me == 0 {
            while order.next < total_chunks {
                control.check()?;
                match rx_merge.recv_timeout(Duration::from_millis(200)) {
                    Ok((i, b)) => order.absorb(job, merge, i, b)?,
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => {
                        return Err(cluster_error(format!(
                            "the exchange ended before chunk {} of {total_chunks} arrived",
                            order.next
                        )));
                    }
                }
            }
            control.report("owners", total_owners, total_owners);
        }
        for r in guards.join() {
            r.map_err(|e| cluster_error(format!("a timely worker failed: {e}")))?;
        }
        Ok(())
    }
}

/// An error of the cluster layer (one line, naming the peer where there is one).
pub(crate) fn cluster_error(message: impl Into<String>) -> Error {
    Error::Unsupported(format!("cluster: {}", message.into()))
}

/// Partials received out of order wait here until their turn (unless the
/// job's merge commutes: then each is merged as it arrives).
#[derive(Default)]
struct InOrder {
    pending: BTreeMap<usize, Vec<u8>>,
    /// Partials merged so far (in order: the next chunk index).
    next: usize,
    merged: u64,
    ordered: bool,
}

impl InOrder {
    /// Takes chunk `i`'s encoded partial and merges every partial whose turn
    /// has come.
    fn absorb<J>(
        &mut self,
        job: &J,
        merge: &mut Merge<'_, J::Partial>,
        i: u64,
        bytes: Vec<u8>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Serialize + DeserializeOwned,
    {
        if !self.ordered {
            merge(i as usize, codec::decode::<J::Partial>(&bytes)?)?;
            self.merged += job.chunk_owners(i as usize);
            self.next += 1;
            return Ok(());
        }
        self.pending.insert(i as usize, bytes);
        while let Some(bytes) = self.pending.remove(&self.next) {
            merge(self.next, codec::decode::<J::Partial>(&bytes)?)?;
            self.merged += job.chunk_owners(self.next);
            self.next += 1;
        }
        Ok(())
    }
}

/// Connects to process `j` (a lower index), retrying until `deadline`.
fn connect_until(addr: &str, j: usize, deadline: Instant, timeout: Duration) -> Result<TcpStream> {
    let mut last = String::from("no answer");
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Err(cluster_error(format!(
                "cannot connect to {} within {} s (`cluster_timeout`): {last}",
                peer_name(j),
                secs(timeout)
            )));
        }
        let wait = (deadline - now).min(Duration::from_secs(1));
        match resolve(addr).and_then(|a| TcpStream::connect_timeout(&a, wait)) {
            Ok(s) => return Ok(s),
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(
            Duration::from_millis(100).min(deadline.saturating_duration_since(Instant::now())),
        );
    }
}

/// Accepts the data and heartbeat connections of every higher process.
fn accept_until(
    listener: &TcpListener,
    me: usize,
    p: usize,
    data: &mut [Option<TcpStream>],
    beat: &mut [Option<TcpStream>],
    deadline: Instant,
    timeout: Duration,
) -> Result<()> {
    let missing = |data: &[Option<TcpStream>], beat: &[Option<TcpStream>]| -> Vec<usize> {
        (me + 1..p)
            .filter(|&j| data[j].is_none() || beat[j].is_none())
            .collect()
    };
    loop {
        let left = missing(data, beat);
        if left.is_empty() {
            return Ok(());
        }
        if Instant::now() >= deadline {
            let names: Vec<String> = left.iter().map(|&j| peer_name(j)).collect();
            return Err(cluster_error(format!(
                "no connection from {} within {} s (`cluster_timeout`): not started, or cannot reach this host",
                names.join(", "),
                secs(timeout)
            )));
        }
        match listener.accept() {
            Ok((mut s, _)) => {
                let _ = s.set_nonblocking(false);
                let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
                let mut h = [0u8; HEADER];
                if s.read_exact(&mut h).is_err() || &h[..8] != MAGIC {
                    continue; // not one of ours: ignore
                }
                let j = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes")) as usize;
                let their_p = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes")) as usize;
                if their_p != p {
                    return Err(cluster_error(format!(
                        "{} has {their_p} processes in its host file, this one {p}",
                        peer_name(j.min(p - 1))
                    )));
                }
                if j <= me || j >= p {
                    return Err(cluster_error(format!(
                        "a connection claims rank {j}: two processes started with the same `rank`?"
                    )));
                }
                match h[24] {
                    KIND_DATA => data[j] = Some(s),
                    KIND_BEAT => beat[j] = Some(s),
                    _ => continue,
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(cluster_error(format!("accepting connections: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostfile_errors_name_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hosts");
        std::fs::write(&f, "# two\n127.0.0.1:4000\n\n127.0.0.1:4001\n").unwrap();
        assert_eq!(
            read_hostfile(&f).unwrap(),
            vec!["127.0.0.1:4000", "127.0.0.1:4001"]
        );
        for (text, line, what) in [
            ("a:1\na:1\n", 2, "repeats line 1"),
            ("a:1\nb\n", 2, "expected host:port"),
            ("a:0\n", 1, "port from 1"),
            ("a:1 b:2\n", 1, "one host:port per line"),
            ("# none\n", 1, "no host:port line"),
        ] {
            std::fs::write(&f, text).unwrap();
            let e = read_hostfile(&f).unwrap_err().to_string();
            assert!(
                e.contains(&format!(":{line}")) && e.contains(what),
                "{text:?}: {e}"
            );
        }
    }
}
