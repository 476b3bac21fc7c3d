//! A cluster of processes on timely-dataflow (feature `distributed`): an
//! [`Executor`] whose peers are processes. The engines never name it.
//!
//! Every process loads the graph itself (a shared file system is assumed),
//! builds the same plan, computes the chunks `i` with `i mod P` equal to its
//! index on its own `W` threads, and sends each encoded partial through a
//! timely exchange channel to process 0, which merges them in chunk order
//! (see [`crate::exec`]) and alone writes the outputs.
//!
//! Robustness, around timely (which retries connections forever and panics
//! when a peer's socket breaks):
//! * **Connection deadline**: this module opens the sockets itself (timely's
//!   convention: connect to lower indices, accept higher ones, each stream
//!   starting with a small header) and gives up after the timeout, naming the
//!   processes that did not connect.
//! * **Watchdog**: a second connection per pair carries heartbeats (a byte
//!   every `timeout / 4`, at most 2 s apart) on threads of their own, so a
//!   long chunk never looks like silence. A peer whose connection closes
//!   before its goodbye byte, or that stays silent for the timeout, ends this
//!   process with exit code 1 and a one-line message naming it
//!   (`process 1 (10.0.0.2:4000)`).
//! * **No panic traces**: a panic hook turns a panic on timely's threads
//!   (`timely:send-j`, `timely:recv-j`, `timely:work-k`) into the same
//!   one-line message; staged outputs are removed before exiting.

mod codec;

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
use std::thread::JoinHandle;
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
const BEAT: u8 = 1;
const BYE: u8 = 2;
const HEADER: usize = 8 + 8 + 8 + 1;

/// How to join a cluster.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// One `host:port` per process, in process order.
    pub hostfile: PathBuf,
    /// This process's index (its line among the addresses, from 0).
    pub process: usize,
    /// Worker threads of this process.
    pub workers: usize,
    /// Connection deadline and watchdog timeout.
    pub timeout: Duration,
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

/// A joined cluster: sockets open, heartbeats running.
pub struct Cluster {
    process: usize,
    addresses: Vec<String>,
    workers: usize,
    timeout: Duration,
    data: Mutex<Option<Vec<Option<TcpStream>>>>,
    stop: Arc<AtomicBool>,
    beats: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Cluster(process {} of {})",
            self.process,
            self.addresses.len()
        )
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
                Some(j) => fatal(format!("lost {}: the connection broke", peer_name(j))),
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

fn header(me: usize, processes: usize, kind: u8) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..16].copy_from_slice(&(me as u64).to_le_bytes());
    h[16..24].copy_from_slice(&(processes as u64).to_le_bytes());
    h[24] = kind;
    h
}

fn secs(d: Duration) -> String {
    crate::util::num::fmt_f64(d.as_secs_f64())
}

impl Cluster {
    /// Joins the cluster described by `spec`: reads the host file, listens
    /// on this process's address, connects to every other process within
    /// `spec.timeout`, and starts the watchdog.
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
        let me = spec.process;
        if me >= p {
            return Err(Error::param(
                "process",
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
        for s in data.iter().flatten() {
            let _ = s.set_nodelay(true);
            let _ = s.set_read_timeout(None);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mut beats = Vec::new();
        for (j, s) in beat.into_iter().enumerate() {
            let Some(s) = s else { continue };
            beats.push(start_heartbeat(j, s, spec.timeout, stop.clone())?);
        }
        Ok(Arc::new(Cluster {
            process: me,
            addresses,
            workers: spec.workers.max(1),
            timeout: spec.timeout,
            data: Mutex::new(Some(data)),
            stop,
            beats: Mutex::new(beats),
        }))
    }

    /// This process's index.
    pub fn process(&self) -> usize {
        self.process
    }

    /// Number of processes.
    pub fn processes(&self) -> usize {
        self.addresses.len()
    }

    /// Worker threads of this process.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The watchdog timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `job` over the cluster (see the [module](self)); `merge` is
    /// called on process 0 only, in chunk order (as the partials arrive
    /// for a job that is not [`ordered`](ChunkJob::ordered)).
    fn run_job<J>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut Merge<'_, J::Partial>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Serialize + DeserializeOwned,
    {
        let np = self.processes();
        let me = self.process;
        let sockets = self
            .data
            .lock()
            .ok()
            .and_then(|mut d| d.take())
            .ok_or_else(|| cluster_error("a cluster runs one job"))?;
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
        self.finish();
        Ok(())
    }

    /// Says goodbye on every heartbeat connection (peers stop watching this
    /// process) and waits for the heartbeat writers to end.
    fn finish(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let handles = self
            .beats
            .lock()
            .map(|mut b| std::mem::take(&mut *b))
            .unwrap_or_default();
        for h in handles {
            let _ = h.join();
        }
    }
}

impl Executor for Cluster {
    fn peers(&self) -> usize {
        self.processes()
    }

    fn rank(&self) -> usize {
        self.process
    }

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
        self.run_job(job, control, merge)
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
#[allow(clippy::too_many_arguments)]
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
                        "a connection claims process index {j}: two processes started with the same `process` index?"
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

/// Heartbeats with process `j`: a writer thread (returned, joined at the
/// end after its goodbye) and a reader thread that ends this process when
/// `j` goes silent or away before saying goodbye.
fn start_heartbeat(
    j: usize,
    s: TcpStream,
    timeout: Duration,
    stop: Arc<AtomicBool>,
) -> Result<JoinHandle<()>> {
    let interval = (timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(2));
    let io = |e: std::io::Error| cluster_error(format!("heartbeat with {}: {e}", peer_name(j)));
    let mut reader = s.try_clone().map_err(io)?;
    reader.set_read_timeout(Some(timeout)).map_err(io)?;
    let mut writer = s;
    std::thread::Builder::new()
        .name(format!("privdiffuse:watch-{j}"))
        .spawn(move || {
            let mut b = [0u8; 1];
            loop {
                match reader.read(&mut b) {
                    Ok(1) if b[0] == BYE => return,
                    Ok(1) => continue,
                    Ok(_) => fatal(format!(
                        "lost {}: its connection closed (the process ended or was killed)",
                        peer_name(j)
                    )),
                    Err(e)
                        if matches!(
                            e.kind(),
                            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                        ) =>
                    {
                        fatal(format!(
                            "lost {}: no heartbeat for {} s (`cluster_timeout`)",
                            peer_name(j),
                            secs(timeout)
                        ))
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => fatal(format!("lost {}: {e}", peer_name(j))),
                }
            }
        })
        .map_err(io)?;
    std::thread::Builder::new()
        .name(format!("privdiffuse:beat-{j}"))
        .spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                if writer.write_all(&[BEAT]).is_err() {
                    return; // the reader side reports
                }
                let t = Instant::now();
                while t.elapsed() < interval && !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let _ = writer.write_all(&[BYE]);
            let _ = writer.flush();
        })
        .map_err(io)
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
