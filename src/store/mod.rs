//! The release store: one SQLite file that holds everything a release over a
//! changing network rests on — the configuration, the owners' values, the
//! graph as it evolves, every owner's *one* noise path, and a ledger from
//! which every answer ever released can be listed exactly (issue 24).
//!
//! A path is sampled once and never resampled: answering a recipient again,
//! in a later run, after a crash, is a read of the same stored path. That is
//! what keeps a recipient who holds old and new answers at `max ε` (the
//! correlated mechanism's guarantee), where re-running a simulation on the
//! changed graph would release the secret again with other noise.
//!
//! # Durability
//! WAL journal, `synchronous=FULL`, one transaction per batch (paths
//! extended, answers, timeline row, events applied — all or nothing), rows
//! inserted in key order. A path's new segments are written in the same
//! transaction as the first answer read from them, so no answer is ever
//! durable without its path. One writer at a time ([`crate::util::lock`]:
//! a lock on the store file itself, so nothing is left beside it); readers
//! ([`Store::open`]) never write, run beside a writer and see the last
//! committed batch — or, without write access, read a store whose commits
//! are all checkpointed into the file. A store's file is created private
//! (0600: it holds the owners' values); its `-wal` and `-shm` files take
//! its permissions.
//!
//! # What is refused (issue 33)
//! Nothing is ever written into a file that is not a store: an existing
//! file is continued or started afresh only when it is empty or carries the
//! store's `application_id` (set before anything else is written), else
//! `not a privdiffuse release store: FILE`. A schema version this build does
//! not know — in `PRAGMA user_version` or the `meta` row, or the two
//! disagreeing — is refused naming it; so is anything but a regular file.
//!
//! # Schema (version [`SCHEMA_VERSION`]; `PRAGMA user_version`, `application_id` "PDIF")
//! | table | key | holds |
//! |---|---|---|
//! | `meta` | `key` | `schema_version`, `config` (JSON of [`StoreConfig`]), `ids` (`integer` or `token`) |
//! | `node` | `idx` | every node of START ∪ `nodes` (fixed at creation): original `id`, value `u` (n f64, little-endian) |
//! | `start_edge` | `(u, v)`, u < v | the START graph (lengths `w`) |
//! | `event` | `seq` | every applied event: `batch` (≥ 1), source `line`, `time`, `u`, `v`, `op`, `w` |
//! | `path` | `owner` | one per owner: `top` (fixed), `bottom` (lowest level walked), the walk's state, the generator's `word_pos` |
//! | `segment` | `(owner, k)` | the path from the top down: segment k's upper end `hi` (k = 0: the top; else jump k's level) and value `v` (n f64) |
//! | `answer` | `(batch, owner, recipient)` | **explicit** releases (batches ≥ 1, and answers given by [`Store::answer`]): `eps`, `distance`, `noise` (n f64); the answer is `u + noise` |
//! | `timeline` | `batch` | one row per committed batch (the columns of `timeline.csv`) |
//! | `batch_totals` | `batch` | (schema 2) the timeline's running sums after the batch: `pairs`, and seven f64 sums (56 bytes, exact bits) — what a resume continues from instead of replaying batch 0 ([`BatchTotals`]) |
//!
//! **Versions.** Schema 2 = schema 1 + `batch_totals`. This build reads both;
//! opening a schema-1 store for writing upgrades it in place (the table
//! added, `user_version` 2; its first resume replays batch 0 since no sums
//! were stored, later ones do not). Any other version is refused in one line.
//!
//! **Implied vs explicit.** Batch 0 releases to every reachable (owner,
//! recipient) pair of START at `ε = min(map(d), top)`: those answers are
//! *implied* — START, the map and the stored paths determine them exactly
//! (distances are recomputed by the same deterministic code), so they are
//! not stored row by row (16 M pairs on facebook). Every later release is a
//! row of `answer`. [`Store::write_answers`] lists both.
//!
//! **What the schema enforces** (triggers; tested by writing around the code):
//! nodes, START edges, events, segments, answers and timeline rows are never
//! updated or deleted; a path's top never changes and its bottom only
//! falls; segments are appended strictly downward from the top; an answer's
//! `noise` must be byte-for-byte the stored path's value at its ε, with ε
//! between the path's bottom and top — so no (owner, ε) can ever be
//! answered with two different values, whoever asks and whenever; a pair is
//! answered at most once per batch (key); timeline rows come in batch order.
//! That a pair is answered again only at a *larger* ε is the code's rule
//! (tested), not the schema's: any set of levels read from one path is
//! max-ε private, so even a violation would release nothing new.
//!
//! **Key order.** `answer` is keyed in the order rows are written (batch,
//! then owner, then recipient), so a batch's inserts append at the right
//! edge of the B-tree and a commit writes about the new rows only (keyed by
//! pair, 3.4 M rows spread over every leaf page would rewrite most of the
//! file at every batch). A pair's rows are found by one point look-up per
//! batch; listings sort once.
//!
//! # Noise family
//! `config.noise` names the noise of the paths (`path.rs`):
//! * `laplace` — the f64 lazy Laplace process; segment values and answers'
//!   noise are n little-endian f64, the answer `u + V`;
//! * `discrete` — the integer chain of issue 25 (`config.granularity`,
//!   `levels_per_doubling`, `rng`; Δ = 1): a level is the rung at or below
//!   `min(ε(d), top)`, the path's top the rung of `top`; values are n
//!   little-endian i64 (grid steps X), the answer `(û + X)·γ`, exact. The
//!   `path` row keeps the bottom in `walk_level`, the rows where the value
//!   changed in `jumps`, and the stream position in `word_pos` (`os` for
//!   paths drawn from the operating system's generator: continued with fresh
//!   entropy, never redrawn).
//!
//! A Laplace store's configuration has no discrete keys, so its bytes are
//! those of earlier builds. A store of a family this build does not know is
//! refused.

mod answer;
mod listing;
mod path;
mod read;
mod resume;
mod schema;
mod write;

pub use answer::StoreAnswer;
pub use listing::{AnswerFilter, AnswerRow};
pub use path::{Family, Level, Levels, OwnerPath};
pub use read::graph_of;
pub use resume::BatchTotals;
pub use schema::SCHEMA_VERSION;
pub use write::{AnswerInsert, BatchWriter, EdgeEvent, TimelineRow};

use crate::distance::DistanceKind;
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::graph::NodeIds;
use crate::process::Norm;
use crate::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource};
use crate::util::lock::FileLock;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The configuration a store was made with: everything that fixes the
/// numbers. A run that continues a store must have the same.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// Master seed of the paths and of the `resample` policy's streams.
    pub seed: u64,
    /// The privacy map as requested (`range:0.5..15`, `exp:a=3,b=1`, …).
    pub eps_requested: String,
    /// The map in use: a `range:` request resolved once on START to its
    /// `exp:` map.
    pub eps: String,
    /// `eps_max` as given (the clamp, doubling as the paths' top).
    pub eps_max: Option<f64>,
    /// The paths' top: `eps_max`, or ε(1) for hop distances.
    pub top: f64,
    /// Distance kind.
    pub distance: DistanceKind,
    /// Dimension n of the values.
    pub dim: usize,
    /// Norm of the noise.
    pub norm: Norm,
    /// Noise family of the paths: `laplace` or `discrete`.
    pub noise: String,
    /// γ of the discrete family (absent for `laplace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<Grid>,
    /// Levels per doubling of the discrete family's ladder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels_per_doubling: Option<u32>,
    /// Entropy of the discrete family's paths: `seeded` or `os`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rng: Option<RngSource>,
    /// Values as requested.
    pub values_requested: String,
    /// Values as drawn (`auto` resolved).
    pub values: String,
    /// Owners as requested (`all`, `N`, `ID,ID,…`).
    pub owners: String,
    /// Events per batch.
    pub batch: usize,
    /// The START edge list, as given.
    pub graph: String,
    /// The node list, as given.
    pub nodes: Option<String>,
    /// The events file, as given.
    pub events: String,
}

/// The f64 lazy Laplace process's family.
pub const NOISE_LAPLACE: &str = "laplace";

/// The discrete chain's family (issue 25).
pub const NOISE_DISCRETE: &str = "discrete";

impl StoreConfig {
    /// The map in use, parsed.
    pub fn map(&self) -> Result<EpsilonMap> {
        self.eps.parse()
    }

    /// The family of the paths, checked: `laplace` with no discrete
    /// option, or `discrete` with all three (Δ = 1, ℓ1 coordinates; the
    /// top must be a level the grid allows).
    pub fn family(&self) -> Result<Family> {
        let discrete = (self.granularity, self.levels_per_doubling, self.rng);
        match (self.noise.as_str(), discrete) {
            (NOISE_LAPLACE, (None, None, None)) => Ok(Family::Laplace),
            (NOISE_DISCRETE, (Some(g), Some(m), Some(rng))) => {
                let options = NoiseOptions {
                    noise: NoiseKind::Discrete,
                    granularity: g,
                    levels_per_doubling: m,
                    rng,
                };
                let noise = options.discrete(1.0, self.dim, self.norm)?.ok_or_else(|| {
                    Error::Numerical("a discrete family without its chain".into())
                })?;
                let top = noise.rung_of(self.top).map_err(|e| self.name_the_top(e))?;
                Ok(Family::Discrete { noise, top, rng })
            }
            (f @ (NOISE_LAPLACE | NOISE_DISCRETE), _) => Err(Error::Numerical(format!(
                "a store of noise family '{f}' with granularity, levels_per_doubling and rng \
                 {}",
                if f == NOISE_LAPLACE {
                    "given"
                } else {
                    "missing"
                }
            ))),
            (f, _) => Err(Error::Numerical(format!(
                "paths of noise family '{f}'; this privdiffuse stores '{NOISE_LAPLACE}' and \
                 '{NOISE_DISCRETE}'"
            ))),
        }
    }

    /// A refusal of the paths' top, naming what set it as the user wrote
    /// it: `eps_max`, or the map `eps` (the top is then ε(1) of the map, hop
    /// distances), refused as `simulate` refuses a map at a distance.
    pub(crate) fn name_the_top(&self, e: Error) -> Error {
        match e {
            Error::Parameter {
                value, expected, ..
            } => {
                if self.eps_max.is_some() {
                    return Error::Parameter {
                        name: "eps_max".into(),
                        value,
                        expected,
                    };
                }
                let spec = &self.eps_requested;
                let at = "distance 1 (the paths' top)";
                crate::limits::level_error(spec, self.top, at, 1.0).unwrap_or_else(|| {
                    Error::param(
                        "eps",
                        crate::limits::readable(spec),
                        format!(
                            "{expected}, got ε = {} at {at}",
                            crate::limits::fmt_num(self.top)
                        ),
                    )
                })
            }
            other => other,
        }
    }

    /// The level answered at distance `d`: `min(map(d), top)`; 0 for an
    /// unreachable recipient (no answer).
    pub fn eps_at(map: &EpsilonMap, top: f64, d: f64) -> f64 {
        if d.is_finite() {
            map.eps(d).min(top)
        } else {
            0.0
        }
    }

    /// The options that must agree for a run to continue this store (paths
    /// as given are not compared: a moved file is the same file), as
    /// `(name, stored, given)` of the first difference.
    pub fn difference(&self, other: &StoreConfig) -> Option<(&'static str, String, String)> {
        // As the configuration's JSON writes it: `2^-10`, `os`, `l1`, `none`.
        fn show<T: Serialize>(v: &T) -> String {
            match serde_json::to_value(v) {
                Ok(serde_json::Value::String(s)) => s,
                Ok(serde_json::Value::Null) => "none".into(),
                Ok(v) => v.to_string(),
                Err(_) => "?".into(),
            }
        }
        macro_rules! cmp {
            ($($f:ident),*) => {$(
                if self.$f != other.$f {
                    return Some((stringify!($f), show(&self.$f), show(&other.$f)));
                }
            )*};
        }
        cmp!(
            seed,
            eps_requested,
            eps_max,
            distance,
            dim,
            norm,
            noise,
            granularity,
            levels_per_doubling,
            rng,
            values_requested,
            owners,
            batch
        );
        None
    }
}

/// A release store, open for reading ([`Store::open`]) or writing
/// ([`Store::create`], [`Store::open_writer`]).
///
/// ```no_run
/// use privdiffuse::store::Store;
/// # fn main() -> Result<(), privdiffuse::Error> {
/// // A writer (holds the store's lock): answers a pair now, recording a new release.
/// let mut store = Store::open_writer("fb.db")?;
/// let a = store.answer("0", "17")?;
/// println!("batch {} ε {} y {:?} (new: {})", a.batch, a.eps, a.y, a.released);
/// # Ok(()) }
/// ```
pub struct Store {
    conn: Connection,
    path: PathBuf,
    lock: Option<FileLock>,
    config: Option<StoreConfig>,
    ids: Option<NodeIds>,
    cache: answer::Cache,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.path)
            .field("writer", &self.lock.is_some())
            .finish()
    }
}

/// A SQLite failure on the store file, as an I/O error naming it.
pub(crate) fn db_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::io(path, std::io::Error::other(e.to_string()))
}

impl Store {
    /// A handle on an open connection, holding `lock` when it writes;
    /// nothing is read from the file yet.
    fn bare(conn: Connection, path: PathBuf, lock: Option<FileLock>) -> Store {
        Store {
            conn,
            path,
            lock,
            config: None,
            ids: None,
            cache: answer::Cache::default(),
        }
    }

    /// Creates a new store at `path` for a writer: locks the file itself
    /// (created empty and private, 0600, if missing), refuses a file that
    /// holds a committed store (continue it with [`Store::open_writer`]) and
    /// any file that is not a privdiffuse store — never writing into it —
    /// and starts an empty one; its schema and configuration are committed
    /// with batch 0 (`BatchWriter::create`). A file left by a run killed
    /// before its first commit (empty, or marked as a store and holding no
    /// batch) is started afresh.
    pub fn create(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        let existed = regular_or_missing(&path)?;
        let lock = FileLock::on_file(&path, Some(0o600))?;
        let claim = || -> Result<Connection> {
            let conn = open_conn(&path, Access::Write)?;
            let (app, pages) = identity(&conn).map_err(|_| not_a_store(&path))?;
            if pages > 0 && app != schema::APPLICATION_ID {
                return Err(not_a_store(&path));
            }
            if pages == 0 {
                // Marked before anything else is written (the journal is
                // not WAL yet: a kill rolls the mark back to an empty file).
                conn.execute_batch(&format!(
                    "PRAGMA application_id = {};",
                    schema::APPLICATION_ID
                ))
                .map_err(|e| db_error(&path, e))?;
            } else if has_meta(&conn).map_err(|e| db_error(&path, e))? {
                return Err(Error::output_exists(&path, crate::util::Refusal::Exists));
            }
            set_wal(&conn, &path)?;
            Ok(conn)
        };
        let conn = match claim() {
            Ok(c) => c,
            Err(e) => {
                // The empty file the lock created is removed, still locked.
                if !existed {
                    let _ = std::fs::remove_file(&path);
                }
                drop(lock);
                return Err(e);
            }
        };
        Ok(Store::bare(conn, path, Some(lock)))
    }

    /// Opens a store for reading: never writes, and leaves nothing beside
    /// the file (issue 33 item 4). With write access to the file and its
    /// folder it runs beside a writer and sees the last committed batch;
    /// without, it reads the file as it is (SQLite's `immutable`), which
    /// needs every commit checkpointed into it: a `FILE-wal` beside it is
    /// refused, naming it. Refuses a file that is not a store, a store of a
    /// schema version this build does not know, and anything but a regular
    /// file (a FIFO would block), each with one line.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if !regular_or_missing(&path)? {
            return Err(missing(&path));
        }
        let conn = open_conn(&path, Access::Read)?;
        let mut s = Store::bare(conn, path, None);
        s.load_meta()?;
        Ok(s)
    }

    /// Opens an existing store for writing: locks the file itself (a second
    /// writer fails at once with `FILE is in use by another run`), checks it
    /// as [`Store::open`] does before writing anything.
    pub fn open_writer(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        if !regular_or_missing(&path)? {
            return Err(missing(&path));
        }
        let lock = FileLock::on_file(&path, None)?;
        let conn = open_conn(&path, Access::Write)?;
        let (app, _) = identity(&conn).map_err(|_| not_a_store(&path))?;
        if app != schema::APPLICATION_ID {
            return Err(not_a_store(&path));
        }
        let mut s = Store::bare(conn, path, Some(lock));
        s.load_meta()?;
        set_wal(&s.conn, &s.path)?;
        let version: i64 = s
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| db_error(&s.path, e))?;
        if version < SCHEMA_VERSION {
            s.upgrade_from_1()?;
        }
        Ok(s)
    }

    /// Closes the store and removes the files named by `created` (the store
    /// and its `-wal`, `-shm`: `(suffix, created by this run)`) while the
    /// writer's lock is still held, so that no other writer can have opened
    /// them in between — then releases the lock. For a run that fails
    /// before its first commit.
    pub fn remove_created(self, created: &[(&str, bool)]) {
        let Store {
            conn, path, lock, ..
        } = self;
        drop(conn);
        for (suffix, ours) in created {
            if *ours {
                let _ = std::fs::remove_file(sidecar(&path, suffix));
            }
        }
        drop(lock);
    }

    /// Whether the file holds a committed store (batch 0 at least).
    pub fn is_initialised(&self) -> bool {
        self.config.is_some()
    }

    fn load_meta(&mut self) -> Result<()> {
        let path = self.path.clone();
        let (app, _) = identity(&self.conn).map_err(|_| not_a_store(&path))?;
        if app != schema::APPLICATION_ID {
            return Err(not_a_store(&path));
        }
        let db = |e| db_error(&path, e);
        if !has_meta(&self.conn).map_err(db)? {
            return Err(Error::input(
                &path,
                0,
                "a release store with no batch committed yet (its first run is under way, or \
                 was stopped before batch 0 was committed)",
            ));
        }
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db)?;
        let recorded: Option<String> = self
            .conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'schema_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(db)?;
        schema::check_version(version, recorded.as_deref())
            .map_err(|m| Error::input(&path, 0, m))?;
        let text: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'config'", [], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db)?;
        let text = text.ok_or_else(|| {
            Error::input(
                &path,
                0,
                "corrupt store: no configuration in its meta table",
            )
        })?;
        let config: StoreConfig = serde_json::from_str(&text)
            .map_err(|e| Error::input(&path, 0, format!("invalid stored configuration: {e}")))?;
        if let Err(e) = config.family() {
            return Err(Error::input(
                &path,
                0,
                format!("invalid stored configuration: {e}"),
            ));
        }
        self.config = Some(config);
        Ok(())
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether this handle holds the writer's lock.
    pub fn is_writer(&self) -> bool {
        self.lock.is_some()
    }

    /// The configuration (after batch 0 is committed).
    pub fn config(&self) -> Result<&StoreConfig> {
        self.config.as_ref().ok_or_else(|| {
            Error::input(&self.path, 0, "no batch committed yet: the store is empty")
        })
    }

    /// The last committed batch (`None` before batch 0).
    pub fn last_batch(&self) -> Result<Option<u64>> {
        if self.config.is_none() {
            return Ok(None);
        }
        self.conn
            .query_row("SELECT max(batch) FROM timeline", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map(|b| b.map(|b| b as u64))
            .map_err(|e| db_error(&self.path, e))
    }

    /// The file's size in bytes (database, WAL included).
    pub fn size_bytes(&self) -> u64 {
        [self.path.clone(), sidecar(&self.path, "-wal")]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    /// Checkpoints the WAL into the database file (a writer, at the end of a run).
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(|e| db_error(&self.path, e))
    }

    /// Runs `f` in one transaction (a batch): committed when `f` returns
    /// `Ok`, rolled back otherwise. Writers only.
    pub fn write_batch<T>(
        &mut self,
        f: impl FnOnce(&mut BatchWriter<'_>) -> Result<T>,
    ) -> Result<T> {
        // The batch may extend paths: [`Store::answer`] reloads them.
        self.cache.paths.clear();
        self.write_batch_keeping_cache(f)
    }

    /// [`Store::write_batch`] for [`Store::answer`], which keeps its cached
    /// paths in step with what it writes itself.
    fn write_batch_keeping_cache<T>(
        &mut self,
        f: impl FnOnce(&mut BatchWriter<'_>) -> Result<T>,
    ) -> Result<T> {
        if self.lock.is_none() {
            return Err(Error::Unsupported(format!(
                "{}: opened for reading; open it with Store::open_writer to write",
                self.path.display()
            )));
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| db_error(&path, e))?;
        let mut w = BatchWriter::new(tx, &path);
        let out = f(&mut w)?;
        let created = w.created.take();
        w.commit()?;
        if let Some(c) = created {
            self.config = Some(c);
        }
        Ok(out)
    }
}

/// The one refusal of a file that is not a release store (issue 33 item 1).
fn not_a_store(path: &Path) -> Error {
    Error::Unsupported(format!(
        "not a privdiffuse release store: {}",
        path.display()
    ))
}

/// A store that is not there, as the operating system says it ("No such
/// file or directory").
fn missing(path: &Path) -> Error {
    match std::fs::metadata(path) {
        Err(e) => Error::io(path, e),
        Ok(_) => Error::io(path, std::io::Error::from_raw_os_error(2)),
    }
}

/// Whether `path` exists (as a regular file); a directory, FIFO, socket or
/// device is refused at once (a FIFO would block the first read).
fn regular_or_missing(path: &Path) -> Result<bool> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(true),
        Ok(_) => Err(Error::io(
            path,
            std::io::Error::other("not a regular file: expected a release store (an SQLite file)"),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// `path` with `suffix` appended (SQLite's `-wal` and `-shm` files).
pub(crate) fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_os_string();
    p.push(suffix);
    p.into()
}

/// The file's `application_id` and its pages (0: an empty file).
fn identity(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    let app = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let pages = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    Ok((app, pages))
}

/// Whether the schema (its `meta` table) is committed.
fn has_meta(conn: &Connection) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| n > 0)
}

/// How a connection may touch the file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// A writer's (the file exists: [`FileLock::on_file`] created it).
    Write,
    /// A reader's: see [`Store::open`].
    Read,
}

/// Whether this process may write `path` (no descriptor is opened: closing
/// one would drop SQLite's POSIX locks on the file).
fn writable(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            return false;
        };
        // SAFETY: a NUL-terminated path; access(2) reads it only.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
    }
}

/// `path` as an SQLite URI (`file:` and the path percent-encoded).
fn uri(path: &Path) -> String {
    let mut out = String::from("file:");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Opens the connection (never creating the file), with a busy timeout so
/// a reader waits out a writer's checkpoint instead of failing. A reader
/// with write access opens the file for writing but never writes (`PRAGMA
/// query_only`): SQLite then shares a live writer's log and removes the
/// `-wal` and `-shm` files it needed when it closes. A reader without write
/// access opens the file `immutable` (no lock, no `-shm`), which is exact
/// only when no `-wal` holds commits: one beside the file is refused.
fn open_conn(path: &Path, access: Access) -> Result<Connection> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let can_write = access == Access::Write || (writable(path) && writable(folder));
    let conn = if can_write {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Connection::open_with_flags(path, flags).map_err(|e| db_error(path, e))?
    } else {
        let wal = sidecar(path, "-wal");
        if wal.symlink_metadata().is_ok() {
            return Err(Error::io(
                &wal,
                std::io::Error::other(
                    "a write-ahead log beside a store this process cannot write: its commits \
                     cannot be read without write access to the store and its folder (a \
                     writer's next run checkpoints it into the store)",
                ),
            ));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        Connection::open_with_flags(format!("{}?immutable=1", uri(path)), flags)
            .map_err(|e| db_error(path, e))?
    };
    conn.busy_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| db_error(path, e))?;
    if access == Access::Read && can_write {
        conn.execute_batch("PRAGMA query_only = ON;")
            .map_err(|e| db_error(path, e))?;
    }
    Ok(conn)
}

/// A writer's journal: WAL, `synchronous=FULL`, 64 MiB of page cache (a
/// batch's look-ups stay in memory).
fn set_wal(conn: &Connection, path: &Path) -> Result<()> {
    conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(()))
        .map_err(|e| db_error(path, e))?;
    conn.execute_batch("PRAGMA synchronous=FULL; PRAGMA cache_size=-65536;")
        .map_err(|e| db_error(path, e))
}

/// n f64 as little-endian bytes (the encoding of values, segments, noise).
pub(crate) fn f64s_to_blob(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`f64s_to_blob`]; `None` for a length not a multiple of 8.
pub(crate) fn blob_to_f64s(b: &[u8]) -> Option<Vec<f64>> {
    if !b.len().is_multiple_of(8) {
        return None;
    }
    Some(
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}

#[cfg(test)]
mod tests;
