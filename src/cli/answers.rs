//! `privdiffuse answers`: every answer a release store ever gave, listed exactly.

use crate::Error;
use crate::store::{AnswerFilter, Store};
use crate::util::{AtomicFile, Existing};
use std::io::Write;
use std::path::PathBuf;

/// List every answer a release store gave: owner,recipient,batch,distance,eps,y1..yn
///
/// Batch 0's answers (implied by START and the stored paths) and every later
/// release, in owner, recipient, batch order; a reader: it runs beside a
/// writer (`evolve`) and sees the last committed batch. To stdout, or to
/// --out (written whole, then renamed into place).
///
/// Examples:
///   privdiffuse answers --store fb.db --owner 0
///   privdiffuse answers --store fb.db --recipient 17 --out to17.csv
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct AnswersArgs {
    /// The release store
    #[arg(long, value_name = "FILE.db")]
    store: PathBuf,
    /// Only this owner's answers
    #[arg(long, value_name = "ID")]
    owner: Option<String>,
    /// Only answers to this recipient
    #[arg(long, value_name = "ID")]
    recipient: Option<String>,
    /// Output CSV (refused if it exists, unless --force) [default: stdout]
    #[arg(long, value_name = "FILE.csv")]
    out: Option<PathBuf>,
    /// Replace --out if it exists
    #[arg(long)]
    force: bool,
}

/// Runs `privdiffuse answers`.
pub fn run(a: AnswersArgs) -> anyhow::Result<()> {
    let mut store = Store::open(&a.store)?;
    let filter = AnswerFilter {
        owner: a.owner.clone(),
        recipient: a.recipient.clone(),
    };
    match &a.out {
        Some(p) => {
            let mut f = AtomicFile::create_with(p, Existing::for_out(true, a.force))
                .map_err(Error::from)?;
            {
                let mut w = std::io::BufWriter::new(&mut f);
                store.write_answers(&filter, &mut w)?;
                w.flush().map_err(|e| Error::io(p, e))?;
            }
            f.commit().map_err(Error::from)?;
        }
        None => {
            let stdout = std::io::stdout();
            let mut w = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            store.write_answers(&filter, &mut w)?;
            w.flush().map_err(|e| Error::io("<stdout>", e))?;
        }
    }
    Ok(())
}
