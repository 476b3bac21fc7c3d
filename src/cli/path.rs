//! `privdiffuse path` (under construction).

/// Arguments of `privdiffuse path`.
#[derive(Debug, clap::Args)]
pub struct PathArgs {}

/// Runs `privdiffuse path`.
pub fn run(_args: PathArgs) -> anyhow::Result<()> {
    Err(crate::Error::Unsupported("'path' is not built yet".into()).into())
}
