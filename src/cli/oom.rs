//! The command line's allocator: the system's, except that when memory runs
//! out — an allocation the up-front estimates did not foresee, typically
//! under a tight `ulimit -v` — the process ends with one line on stderr and
//! exit code 1 instead of Rust's abort (exit 134). Allocations inside
//! `limits::fallible` (handled `try_reserve`s) fail normally. The line is
//! written without allocating; then the run's staged outputs and claims are
//! removed as on Ctrl-C (small allocations usually still succeed once the
//! large one failed; if one does not, the process exits at once and the next
//! run into the same place removes what the dead one left).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first failure: a failure while cleaning up exits at once.
static FAILED: AtomicBool = AtomicBool::new(false);

/// [`System`], ending the process cleanly when it returns no memory.
pub struct ExitOnOom;

// SAFETY: every call is forwarded to `System` unchanged; only a null result
// is acted upon, by ending the process.
unsafe impl GlobalAlloc for ExitOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract is `System::alloc`'s.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Writes the error line (no allocation: a stack buffer) and exits 1 without
/// running destructors or atexit handlers, which could allocate again.
fn out_of_memory(size: usize) {
    if crate::limits::in_fallible() {
        return;
    }
    if FAILED.swap(true, Ordering::SeqCst) {
        // SAFETY: _exit(2) ends the process; nothing is touched.
        unsafe { libc::_exit(1) }
    }
    let mut buf = [0u8; 512];
    let mut n = 0;
    let mut put = |s: &[u8]| {
        let k = s.len().min(buf.len() - n);
        buf[n..n + k].copy_from_slice(&s[..k]);
        n += k;
    };
    put(b"error: out of memory: allocating ");
    put(digits(size as u64, &mut [0u8; 20]));
    put(b" bytes failed");
    if let Some(limit) = crate::limits::address_space_limit_bytes() {
        put(b" under the address-space limit of ");
        put(digits(limit / 1024, &mut [0u8; 20]));
        put(b" KiB (ulimit -v)");
    }
    put(b"; raise the limit, or lower --memory-budget so that the run is refused up front\n");
    // SAFETY: plain write(2) of an initialised buffer.
    unsafe {
        libc::write(2, buf.as_ptr().cast(), n);
    }
    crate::util::atomic::remove_staged();
    // SAFETY: _exit(2) ends the process without destructors or atexit
    // handlers (which could allocate again).
    unsafe { libc::_exit(1) }
}

/// `x` in decimal, written at the end of `buf`.
fn digits(mut x: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    &buf[i..]
}
