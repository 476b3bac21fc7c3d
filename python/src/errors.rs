//! Library errors as Python exceptions, and blocking calls run with the GIL
//! released and Ctrl-C honoured.

use privdiffuse::{CancelToken, Error};
use pyo3::exceptions::{
    PyBlockingIOError, PyFileExistsError, PyFileNotFoundError, PyKeyboardInterrupt, PyOSError,
    PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use std::time::Duration;

/// The Python exception of a library error, with the library's message.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match &e {
        Error::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        Error::Io { .. } => PyOSError::new_err(msg),
        Error::OutputExists { .. } => PyFileExistsError::new_err(msg),
        // Another process holds the lock of this output or store: the
        // exception Python raises for a lock that would block.
        Error::InUse { .. } => PyBlockingIOError::new_err(msg),
        Error::Cancelled => PyKeyboardInterrupt::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}

/// A `ValueError` in the library's words: `invalid {name} '{value}': expected {expected}`.
pub fn param_err(name: &str, value: impl std::fmt::Display, expected: &str) -> PyErr {
    to_py(Error::param(name, value, expected))
}

/// A spec parsed by its `FromStr`, its error as a `ValueError`.
pub fn parse<T: std::str::FromStr<Err = Error>>(s: &str) -> PyResult<T> {
    s.parse::<T>().map_err(to_py)
}

/// Runs `f` on a worker thread (on a rayon pool of `threads` threads when
/// given) with the GIL released; polls for signals every 50 ms and, on
/// Ctrl-C, cancels `token`, waits for the worker to stop and raises.
pub fn blocking<T: Send>(
    py: Python<'_>,
    token: &CancelToken,
    threads: Option<usize>,
    f: impl FnOnce() -> privdiffuse::Result<T> + Send,
) -> PyResult<T> {
    let pool = match threads {
        None => None,
        Some(t) => {
            privdiffuse::limits::check_threads(t).map_err(to_py)?;
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .map_err(|e| PyRuntimeError::new_err(e.to_string()))?,
            )
        }
    };
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let rx = std::sync::Mutex::new(rx);
        let handle = s.spawn(move || {
            let r = match &pool {
                Some(p) => p.install(f),
                None => f(),
            };
            drop(tx);
            r
        });
        let mut interrupted: Option<PyErr> = None;
        loop {
            let waited = py.detach(|| match rx.lock() {
                Ok(rx) => rx.recv_timeout(Duration::from_millis(50)),
                Err(_) => Err(std::sync::mpsc::RecvTimeoutError::Disconnected),
            });
            if !matches!(waited, Err(std::sync::mpsc::RecvTimeoutError::Timeout)) {
                break;
            }
            if let Err(e) = py.check_signals() {
                token.cancel();
                interrupted = Some(e);
                break;
            }
        }
        let joined = py.detach(|| handle.join());
        if let Some(e) = interrupted {
            return Err(e);
        }
        emit_warnings(py)?;
        match joined {
            Ok(r) => r.map_err(to_py),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(PyRuntimeError::new_err(format!(
                    "internal error (a bug in privdiffuse, please report it): {what}"
                )))
            }
        }
    })
}

/// The library's warnings (`privdiffuse::util::notes`: a skipped header
/// line, say), kept while a call runs without the GIL.
static WARNINGS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Sends the library's warnings here (at import).
pub fn collect_warnings() {
    privdiffuse::util::notes::set_sink(Some(Box::new(|m| {
        WARNINGS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(m.to_string());
    })));
}

/// Raises the warnings collected so far as Python `UserWarning`s, once the
/// call holds the GIL again.
fn emit_warnings(py: Python<'_>) -> PyResult<()> {
    let pending = std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(|e| e.into_inner()));
    for m in pending {
        let text = std::ffi::CString::new(m.replace('\0', " ")).unwrap_or_default();
        let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(py, &category, &text, 1)?;
    }
    Ok(())
}

/// Runs `f` with the GIL released and no cancellation (short calls).
pub fn quick<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> privdiffuse::Result<T> + Send,
) -> PyResult<T> {
    blocking(py, &CancelToken::new(), None, f)
}
