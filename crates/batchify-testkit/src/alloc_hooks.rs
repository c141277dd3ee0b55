//! `malloc`, `calloc`, `realloc` and `free` for the code the oracle runs.
//!
//! The oracle's JIT resolves these four names to the functions here (see
//! [`crate::jit::Jit::new`]). While a copy of the inputs is in use
//! ([`use_arena`]), allocations come from that copy's arena, in order, 16
//! bytes aligned: the scalar calls and the clone, which allocate the same
//! sizes in the same lane order, get blocks at the same offsets from their
//! copy's base, so a stored or returned `malloc` pointer compares like a
//! pointer into the buffers (lz4's `LZ4F_createCompressionContext`). Outside
//! an arena, or when it is full, the calls go to the C library. `free` of an
//! arena block does nothing; the arena is reset for the next run.

use std::cell::RefCell;

/// Bytes before each arena block, holding its size (for `realloc`).
const HEADER: usize = 16;

/// Bytes of the arena each block size gets.
pub const CLASS_BYTES: usize = 2 << 20;

/// Allocations from one arena, grouped by block size.
struct Arena {
    start: usize,
    len: usize,
    /// Block size and bytes used of each class, in the order first seen.
    classes: Vec<(usize, usize)>,
}

thread_local! {
    static ARENA: RefCell<Option<Arena>> = const { RefCell::new(None) };
}

/// Makes later allocations of the code under test (on this thread) come
/// from `bytes` until [`stop_arena`]. `bytes` must be zero (see
/// [`crate::buffers::GuardedSet::clear_arena`]).
pub fn use_arena(bytes: &mut [u8]) {
    ARENA.with(|a| {
        *a.borrow_mut() = Some(Arena { start: bytes.as_mut_ptr() as usize, len: bytes.len(), classes: Vec::new() })
    });
}

/// Sends allocations to the C library again.
pub fn stop_arena() {
    ARENA.with(|a| *a.borrow_mut() = None);
}

fn in_arena(p: usize) -> bool {
    ARENA.with(|a| a.borrow().as_ref().is_some_and(|a| p >= a.start + HEADER && p < a.start + a.len))
}

/// A block from the class of its size: the scalar calls allocate lane by
/// lane and a vectorized clone call site by call site, so only blocks of one
/// size come in the same order in both (lane order).
fn arena_alloc(size: usize) -> Option<*mut libc::c_void> {
    ARENA.with(|cell| {
        let mut guard = cell.borrow_mut();
        let a = guard.as_mut()?;
        let need = HEADER + size.max(1).div_ceil(16) * 16;
        let class = match a.classes.iter().position(|&(s, _)| s == size) {
            Some(c) => c,
            None => {
                a.classes.push((size, 0));
                a.classes.len() - 1
            }
        };
        let used = a.classes[class].1;
        let at = class * CLASS_BYTES + used;
        if used + need > CLASS_BYTES || at + need > a.len {
            return None;
        }
        a.classes[class].1 += need;
        let block = a.start + at + HEADER;
        // SAFETY: the header lies inside the arena (checked above).
        unsafe { ((block - HEADER) as *mut usize).write_unaligned(size) };
        Some(block as *mut libc::c_void)
    })
}

/// `malloc` for JIT code.
pub extern "C" fn oracle_malloc(size: usize) -> *mut libc::c_void {
    // SAFETY: plain libc call.
    arena_alloc(size).unwrap_or_else(|| unsafe { libc::malloc(size) })
}

/// `calloc` for JIT code (arena blocks are zero: the arena is cleared
/// before it is taken into use and blocks are never reused).
pub extern "C" fn oracle_calloc(count: usize, size: usize) -> *mut libc::c_void {
    match count.checked_mul(size) {
        // SAFETY: plain libc call.
        Some(total) => arena_alloc(total).unwrap_or_else(|| unsafe { libc::calloc(count, size) }),
        None => std::ptr::null_mut(),
    }
}

/// `realloc` for JIT code.
///
/// # Safety
/// `p` is null or a live block from these functions or the C library.
pub unsafe extern "C" fn oracle_realloc(p: *mut libc::c_void, size: usize) -> *mut libc::c_void {
    if p.is_null() {
        return oracle_malloc(size);
    }
    if !in_arena(p as usize) {
        // SAFETY: `p` came from the C library.
        return unsafe { libc::realloc(p, size) };
    }
    // SAFETY: `p` is an arena block, preceded by its header.
    let old = unsafe { ((p as usize - HEADER) as *const usize).read_unaligned() };
    let q = oracle_malloc(size);
    if !q.is_null() {
        // SAFETY: both blocks hold at least `min(old, size)` bytes.
        unsafe { std::ptr::copy_nonoverlapping(p as *const u8, q as *mut u8, old.min(size)) };
    }
    q
}

/// `free` for JIT code.
///
/// # Safety
/// `p` is null or a live block from these functions or the C library.
pub unsafe extern "C" fn oracle_free(p: *mut libc::c_void) {
    if !p.is_null() && !in_arena(p as usize) {
        // SAFETY: `p` came from the C library.
        unsafe { libc::free(p) };
    }
}

/// The names the JIT resolves to this module's functions, with addresses.
pub fn overrides() -> Vec<(&'static str, u64)> {
    vec![
        ("malloc", oracle_malloc as *const () as u64),
        ("calloc", oracle_calloc as *const () as u64),
        ("realloc", oracle_realloc as *const () as u64),
        ("free", oracle_free as *const () as u64),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_blocks_are_in_order_by_size() {
        let mut area = vec![0u8; 4 * CLASS_BYTES];
        use_arena(&mut area);
        let start = area.as_ptr() as usize;
        let p = oracle_malloc(10) as usize;
        let q = oracle_calloc(3, 8) as usize;
        let p2 = oracle_malloc(10) as usize;
        assert_eq!(p, start + HEADER);
        assert_eq!(q, start + CLASS_BYTES + HEADER);
        assert_eq!(p2, p + 16 + HEADER);
        // SAFETY: `q` is a 24-byte arena block.
        unsafe { *(q as *mut u8) = 5 };
        // SAFETY: `q` is a live arena block.
        let r = unsafe { oracle_realloc(q as *mut libc::c_void, 100) } as usize;
        // SAFETY: `r` is a 100-byte arena block.
        assert_eq!(unsafe { *(r as *const u8) }, 5);
        // SAFETY: `r` is a live arena block.
        unsafe { oracle_free(r as *mut libc::c_void) };
        // Too big for a class: the C library's block.
        let big = oracle_malloc(CLASS_BYTES);
        assert!(!in_arena(big as usize));
        // SAFETY: `big` is a live C library block.
        unsafe { oracle_free(big) };
        stop_arena();
        assert!(!in_arena(p));
    }
}
