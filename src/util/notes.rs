//! Warnings a library call gives beside its result — things that did not
//! stop it but that its user should know (issue 33 item 12: a line of an
//! edge list taken for a header). They go to one sink per process: standard
//! error by default (`warning: …`); a face may install its own
//! ([`set_sink`]: the command line rewrites parameter names into its flags,
//! the Python package raises them as Python warnings).

use std::sync::RwLock;

/// Where warnings go.
pub type Sink = Box<dyn Fn(&str) + Send + Sync>;

static SINK: RwLock<Option<Sink>> = RwLock::new(None);

/// Gives a warning: one line, naming parameters as the library does (in
/// backticks).
pub fn warn(message: &str) {
    let sink = SINK.read().unwrap_or_else(|e| e.into_inner());
    match sink.as_ref() {
        Some(f) => f(message),
        None => eprintln!("warning: {message}"),
    }
}

/// Sends every later warning to `sink` (`None`: back to standard error).
pub fn set_sink(sink: Option<Sink>) {
    *SINK.write().unwrap_or_else(|e| e.into_inner()) = sink;
}
