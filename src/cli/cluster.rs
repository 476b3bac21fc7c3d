//! `--cluster HOSTFILE --process I [--workers W] [--cluster-timeout SECS]`
//! (feature `distributed`): joins a cluster before anything else runs, the
//! job's fingerprint ([`Job`]) compared with every other process's. A
//! build without the feature has none of these flags (clap refuses them as
//! unknown arguments): [`ClusterArgs`] is then empty and always local.

use crate::collusion::CollusionConfig;
use crate::relay::RelayConfig;
use crate::sim::SimConfig;
use crate::utility::UtilityConfig;

#[cfg(feature = "distributed")]
use crate::cluster::{Cluster, ClusterSpec, DEFAULT_TIMEOUT_S};
#[cfg(feature = "distributed")]
use crate::fingerprint::Fingerprint;
#[cfg(feature = "distributed")]
use std::path::PathBuf;
#[cfg(feature = "distributed")]
use std::sync::Arc;
#[cfg(feature = "distributed")]
use std::time::Duration;

/// The job a command runs: what the processes of a cluster must agree on.
#[cfg_attr(not(feature = "distributed"), allow(dead_code))]
pub enum Job<'a> {
    /// `simulate`.
    Simulate(&'a SimConfig),
    /// `collude`.
    Collude(&'a CollusionConfig),
    /// `utility`.
    Utility(&'a UtilityConfig),
    /// `relay`.
    Relay(&'a RelayConfig),
}

/// Without the `distributed` feature: no flags, this process only.
#[cfg(not(feature = "distributed"))]
#[derive(Debug, clap::Args)]
pub struct ClusterArgs {}

/// The cluster this process joined: none without the feature.
#[cfg(not(feature = "distributed"))]
pub type Joined = Option<std::convert::Infallible>;

/// The cluster this process joined (`None`: this process alone).
#[cfg(feature = "distributed")]
pub type Joined = Option<Arc<Cluster>>;

#[cfg(not(feature = "distributed"))]
impl ClusterArgs {
    /// This process, with `threads`.
    pub fn join(
        &self,
        threads: Option<usize>,
        _job: Job<'_>,
    ) -> anyhow::Result<(Joined, Option<usize>)> {
        Ok((None, threads))
    }
}

/// Cluster flags shared by the all-owner commands.
#[cfg(feature = "distributed")]
#[derive(Debug, clap::Args)]
pub struct ClusterArgs {
    /// Run as one process of a cluster: HOSTFILE lists one host:port per
    /// process (process 0 first); every process loads the graph itself
    /// (shared file system), process 0 alone writes the outputs
    #[arg(long, value_name = "HOSTFILE", requires = "rank", display_order = 300)]
    pub cluster: Option<PathBuf>,
    /// This process's index in HOSTFILE (0 = the first line)
    // Its id is the library's parameter `rank`: errors name `--process`.
    #[arg(
        long = "process",
        id = "rank",
        value_name = "I",
        requires = "cluster",
        display_order = 310
    )]
    pub process: Option<usize>,
    /// Worker threads of this process [default: all cores]
    #[arg(
        long,
        value_name = "W",
        requires = "cluster",
        conflicts_with = "threads",
        display_order = 320
    )]
    pub workers: Option<usize>,
    /// Seconds to wait for every process to connect, and for a silent or
    /// vanished peer before exiting with an error [default: 60]
    #[arg(long, value_name = "SECS", requires = "cluster", display_order = 330)]
    pub cluster_timeout: Option<f64>,
}

#[cfg(feature = "distributed")]
impl ClusterArgs {
    /// Joins the cluster (when `--cluster` is given) to run `job`: the
    /// cluster and the worker threads to use. The job's fingerprint (its
    /// input files hashed) is built first, then compared with every other
    /// process's while joining.
    pub fn join(
        &self,
        threads: Option<usize>,
        job: Job<'_>,
    ) -> anyhow::Result<(Joined, Option<usize>)> {
        let (Some(hostfile), Some(process)) = (&self.cluster, self.process) else {
            return Ok((None, threads));
        };
        let secs = self.cluster_timeout.unwrap_or(DEFAULT_TIMEOUT_S);
        if !(secs > 0.0 && secs <= 86_400.0) {
            return Err(crate::Error::param(
                "cluster_timeout",
                secs,
                "seconds, more than 0 and at most 86400",
            )
            .into());
        }
        if self.workers == Some(0) {
            return Err(crate::Error::param("workers", 0, "at least 1 thread").into());
        }
        let workers = self.workers.unwrap_or_else(rayon::current_num_threads);
        let fingerprint = match job {
            Job::Simulate(c) => Fingerprint::simulate(c),
            Job::Collude(c) => Fingerprint::collude(c),
            Job::Utility(c) => Fingerprint::utility(c),
            Job::Relay(c) => Fingerprint::relay(c),
        }?;
        let cluster = Cluster::connect(&ClusterSpec {
            hostfile: hostfile.clone(),
            rank: process,
            workers,
            timeout: Duration::from_secs_f64(secs),
            fingerprint: fingerprint.into_entries(),
        })?;
        Ok((Some(cluster), Some(workers)))
    }
}
