//! `privdiffuse relax` (under construction).

/// Arguments of `privdiffuse relax`.
#[derive(Debug, clap::Args)]
pub struct RelaxArgs {}

/// Runs `privdiffuse relax`.
pub fn run(_args: RelaxArgs) -> anyhow::Result<()> {
    Err(crate::Error::Unsupported("'relax' is not built yet".into()).into())
}
