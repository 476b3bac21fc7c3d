//! `privdiffuse generate` (under construction).

/// Arguments of `privdiffuse generate`.
#[derive(Debug, clap::Args)]
pub struct GenerateArgs {}

/// Runs `privdiffuse generate`.
pub fn run(_args: GenerateArgs) -> anyhow::Result<()> {
    Err(crate::Error::Unsupported("'generate' is not built yet".into()).into())
}
