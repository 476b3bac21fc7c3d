//! The `privdiffuse` command: the library's command line (`privdiffuse::cli`,
//! feature `cli`) with this binary's allocator and version.

use std::process::ExitCode;

/// Out of memory is an error line and exit 1, not an abort (`cli/oom.rs`).
#[global_allocator]
static ALLOCATOR: privdiffuse::cli::ExitOnOom = privdiffuse::cli::ExitOnOom;

/// Crate version plus the git commit when built from a checkout (build.rs).
const VERSION: &str = env!("PRIVDIFFUSE_VERSION");

fn main() -> ExitCode {
    ignore_file_size_signal();
    privdiffuse::cli::main(VERSION)
}

/// A write past the file-size limit (`ulimit -f`) fails with EFBIG — an
/// error line "File too large", exit 1, staged outputs removed — instead of
/// SIGXFSZ killing the process with nothing said and staging files left
/// (issue 33 item 10). CPython ignores it too, for the Python package.
fn ignore_file_size_signal() {
    // SAFETY: sets one signal's disposition before any thread is started.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}
