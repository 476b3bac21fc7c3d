//! `privdiffuse generate events`: START.edges, START.events.csv and
//! START.nodes from a graph, for `evolve`.

use crate::Error;
use crate::evolve::hold_out;
use crate::graph::{Graph, LoadOptions};
use crate::util::lock::FileLock;
use crate::util::{AtomicFile, Existing, fmt_f64};
use std::io::Write;
use std::path::{Path, PathBuf};

/// `generate events`.
#[derive(Debug, clap::Args)]
pub struct EventsArgs {
    /// The whole graph G (edge list)
    #[arg(long, value_name = "G")]
    pub graph: PathBuf,
    /// File of node ids of G that are on no edge line
    #[arg(long, value_name = "FILE")]
    pub nodes: Option<PathBuf>,
    #[command(flatten)]
    pub header: super::common::HeaderArgs,
    /// Fraction of G's edges held out of START and added back as events (random order)
    #[arg(long, value_name = "FRACTION")]
    pub hold_out: f64,
    /// Fraction of START's edges removed by events at random positions [default: 0]
    #[arg(long, value_name = "FRACTION", default_value_t = 0.0)]
    pub remove: f64,
    #[command(flatten)]
    pub common: super::common::CommonArgs,
}

/// Writes START (= --out), STEM.events.csv and STEM.nodes: claimed together
/// (each an exclusive create unless --force, and START's lock held from the
/// claim to the last rename so concurrent runs cannot mix their files), each
/// complete before it is renamed into place.
pub fn run(a: &EventsArgs) -> anyhow::Result<()> {
    let out = &a.common.out;
    let events_path = out.with_extension("events.csv");
    let nodes_path = out.with_extension("nodes");
    let _lock = FileLock::acquire(out).map_err(Error::from)?;
    let existing = Existing::for_out(true, a.common.force);
    let create = |p: &Path| AtomicFile::create_with(p, existing).map_err(Error::from);
    let (mut fe, mut fv, mut fn_) = (create(out)?, create(&events_path)?, create(&nodes_path)?);
    let g = Graph::load_with(
        &a.graph,
        &LoadOptions {
            nodes_file: a.nodes.clone(),
            header: a.header.get(),
            ..LoadOptions::default()
        },
    )?;
    let h = hold_out(&g, a.hold_out, a.remove, a.common.seed)?;
    let ids = g.ids();
    let weighted = g.is_weighted();
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| Error::io(&p, e)
    };
    writeln!(
        fe,
        "# privdiffuse generate events --graph {} --hold-out {} --remove {} --seed {} --out {}\n\
         # START: {} of {} edges; {} events in {}",
        a.graph.display(),
        fmt_f64(a.hold_out),
        fmt_f64(a.remove),
        a.common.seed,
        out.display(),
        h.start.len(),
        g.m(),
        h.events.len(),
        events_path.display()
    )
    .map_err(io(out))?;
    for &(u, v, w) in &h.start {
        if weighted {
            writeln!(fe, "{} {} {}", ids.label(u), ids.label(v), fmt_f64(w))
        } else {
            writeln!(fe, "{} {}", ids.label(u), ids.label(v))
        }
        .map_err(io(out))?;
    }
    let header = if weighted {
        "time,u,v,op,w"
    } else {
        "time,u,v,op"
    };
    writeln!(fv, "{header}").map_err(io(&events_path))?;
    for e in &h.events {
        let op = if e.add { "add" } else { "remove" };
        let t = fmt_f64(e.time);
        if weighted {
            writeln!(
                fv,
                "{t},{},{},{op},{}",
                ids.label(e.u),
                ids.label(e.v),
                fmt_f64(e.w)
            )
        } else {
            writeln!(fv, "{t},{},{},{op}", ids.label(e.u), ids.label(e.v))
        }
        .map_err(io(&events_path))?;
    }
    for i in 0..g.n() as u32 {
        writeln!(fn_, "{}", ids.label(i)).map_err(io(&nodes_path))?;
    }
    fe.commit().map_err(Error::from)?;
    fv.commit().map_err(Error::from)?;
    fn_.commit().map_err(Error::from)?;
    eprintln!(
        "wrote {} ({} edges), {} ({} events), {} ({} nodes)",
        out.display(),
        h.start.len(),
        events_path.display(),
        h.events.len(),
        nodes_path.display(),
        g.n()
    );
    Ok(())
}
