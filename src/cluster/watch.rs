//! The watchdog and the last word. A second connection per pair of peers
//! carries one byte every `timeout / 4` (at most 2 s apart) on threads of
//! their own, so a long chunk never looks like silence; a peer whose
//! connection closes, or that stays silent for the timeout, ends this peer
//! with exit code 1 and a line naming it.
//!
//! The same connection carries how each peer ends, so that every peer exits
//! non-zero when the job fails anywhere:
//! * rank 0 sends [`DONE`] once its outputs are written, or [`FAILED`];
//! * another rank sends [`FAILED`] when its part fails; when its part
//!   succeeds it waits for rank 0's word, then says [`BYE`];
//! * a peer that receives [`FAILED`] stops at once (exit 1, naming the
//!   peer that failed; that peer's own message says why).

use super::{cluster_error, fatal, peer_name, secs};
use crate::error::Result;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Still here.
const BEAT: u8 = 1;
/// Done, and no longer watching (a rank other than 0, after rank 0's word).
const BYE: u8 = 2;
/// Rank 0: the job succeeded and its outputs are written.
const DONE: u8 = 3;
/// The sender's part of the job failed.
const FAILED: u8 = 4;

/// What the watchers found, shared with the peer's main thread.
#[derive(Default)]
struct Found {
    /// Watchers still running.
    watching: usize,
    /// Rank 0 said the job succeeded.
    done: bool,
    /// Rank 0's watcher has ended (after its word, or quietly while ending).
    zero_left: bool,
}

#[derive(Default)]
struct Shared {
    /// The writers stop, sending `last`.
    stop: AtomicBool,
    last: AtomicU8,
    /// This peer is ending: a peer that leaves is no longer an error.
    ending: AtomicBool,
    found: Mutex<Found>,
    changed: Condvar,
}

impl Shared {
    fn found(&self) -> MutexGuard<'_, Found> {
        self.found.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The heartbeats of one peer: a watcher and a writer thread per other peer.
pub(super) struct Watch {
    shared: Arc<Shared>,
    writers: Mutex<Vec<JoinHandle<()>>>,
    timeout: Duration,
}

impl Watch {
    /// Starts watching every peer of `beat` (this peer's slot is `None`).
    pub(super) fn start(beat: Vec<Option<TcpStream>>, timeout: Duration) -> Result<Watch> {
        let shared = Arc::new(Shared::default());
        let mut writers = Vec::new();
        for (j, s) in beat.into_iter().enumerate() {
            let Some(s) = s else { continue };
            shared.found().watching += 1;
            writers.push(start_pair(j, s, timeout, shared.clone())?);
        }
        Ok(Watch {
            shared,
            writers: Mutex::new(writers),
            timeout,
        })
    }

    /// Ends this peer's part (see the [module](self)): rank 0 tells every
    /// peer whether the job `succeeded`; another rank whose part succeeded
    /// first waits for rank 0's word (the watchdog bounds the wait: rank 0
    /// beats while it writes). After a success, waits (at most the
    /// timeout) for the others' goodbyes, so no connection is cut while
    /// words are in flight.
    pub(super) fn conclude(&self, rank: usize, succeeded: bool) -> Result<()> {
        if self.writers_left() == 0 {
            return Ok(()); // alone, or concluded already
        }
        let mut done = true;
        if rank != 0 && succeeded {
            let mut f = self.shared.found();
            while !f.done && !f.zero_left {
                f = self
                    .shared
                    .changed
                    .wait(f)
                    .unwrap_or_else(|p| p.into_inner());
            }
            done = f.done;
        }
        self.shared.ending.store(true, Ordering::SeqCst);
        let last = match (succeeded, rank) {
            (false, _) => FAILED,
            (true, 0) => DONE,
            (true, _) => BYE,
        };
        self.stop_writers(last);
        if succeeded {
            let deadline = Instant::now() + self.timeout;
            let mut f = self.shared.found();
            while f.watching > 0 {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                f = self
                    .shared
                    .changed
                    .wait_timeout(f, left)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|p| p.into_inner().0);
            }
        }
        if done {
            Ok(())
        } else {
            Err(cluster_error(
                "process 0 stopped watching without saying whether the job succeeded",
            ))
        }
    }

    fn writers_left(&self) -> usize {
        self.writers.lock().map(|w| w.len()).unwrap_or(0)
    }

    /// Stops the writers, each sending `last`, and waits for them.
    fn stop_writers(&self, last: u8) {
        self.shared.last.store(last, Ordering::SeqCst);
        self.shared.stop.store(true, Ordering::SeqCst);
        let handles = self
            .writers
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default();
        for h in handles {
            let _ = h.join();
        }
    }
}

/// Heartbeats with peer `j`: a writer thread (returned, joined when this
/// peer concludes) and a watcher thread that ends this process when `j`
/// fails, goes silent or goes away before its last word.
fn start_pair(
    j: usize,
    s: TcpStream,
    timeout: Duration,
    shared: Arc<Shared>,
) -> Result<JoinHandle<()>> {
    let interval = (timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(2));
    let io = |e: std::io::Error| cluster_error(format!("heartbeat with {}: {e}", peer_name(j)));
    let mut reader = s.try_clone().map_err(io)?;
    reader.set_read_timeout(Some(timeout)).map_err(io)?;
    let mut writer = s;
    writer.set_write_timeout(Some(timeout)).map_err(io)?;
    let watched = shared.clone();
    std::thread::Builder::new()
        .name(format!("privdiffuse:watch-{j}"))
        .spawn(move || {
            watch(j, &mut reader, timeout, &watched);
            let mut f = watched.found();
            f.watching = f.watching.saturating_sub(1);
            if j == 0 {
                f.zero_left = true;
            }
            drop(f);
            watched.changed.notify_all();
        })
        .map_err(io)?;
    std::thread::Builder::new()
        .name(format!("privdiffuse:beat-{j}"))
        .spawn(move || {
            while !shared.stop.load(Ordering::SeqCst) {
                if writer.write_all(&[BEAT]).is_err() {
                    return; // the watcher reports
                }
                let t = Instant::now();
                while t.elapsed() < interval && !shared.stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            let _ = writer.write_all(&[shared.last.load(Ordering::SeqCst)]);
            let _ = writer.flush();
        })
        .map_err(io)
}

/// Reads peer `j`'s bytes until its last word; a failure, silence or a
/// closed connection before it ends this process (unless it is ending).
fn watch(j: usize, reader: &mut TcpStream, timeout: Duration, shared: &Shared) {
    let ending = || shared.ending.load(Ordering::SeqCst);
    let mut b = [0u8; 1];
    loop {
        let why = match reader.read(&mut b) {
            Ok(1) => match b[0] {
                DONE if j == 0 => {
                    shared.found().done = true;
                    return;
                }
                BYE | DONE => return,
                FAILED if ending() => return,
                FAILED => format!("{} failed; its own error message says why", peer_name(j)),
                _ => continue, // BEAT
            },
            Ok(_) => format!(
                "lost {}: its connection closed (the process ended or was killed)",
                peer_name(j)
            ),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                format!(
                    "lost {}: no heartbeat for {} s (`cluster_timeout`)",
                    peer_name(j),
                    secs(timeout)
                )
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => format!("lost {}: {e}", peer_name(j)),
        };
        if ending() {
            return;
        }
        fatal(why);
    }
}
