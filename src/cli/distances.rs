//! `privdiffuse distances` (under construction).

/// Arguments of `privdiffuse distances`.
#[derive(Debug, clap::Args)]
pub struct DistancesArgs {}

/// Runs `privdiffuse distances`.
pub fn run(_args: DistancesArgs) -> anyhow::Result<()> {
    Err(crate::Error::Unsupported("'distances' is not built yet".into()).into())
}
