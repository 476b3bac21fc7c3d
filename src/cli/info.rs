//! `privdiffuse info` (under construction).

/// Arguments of `privdiffuse info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {}

/// Runs `privdiffuse info`.
pub fn run(_args: InfoArgs) -> anyhow::Result<()> {
    Err(crate::Error::Unsupported("'info' is not built yet".into()).into())
}
