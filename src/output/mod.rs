//! Everything that leaves the process: number formatting, atomic files and
//! directories, CSV/JSON writers and plots.

pub mod atomic;
pub mod num;
pub mod plot;
pub mod progress;

pub use atomic::{AtomicDir, AtomicFile};
pub use num::{fmt_f64, write_f64};
