//! Guard-page-bounded memory for pointer parameters.
//!
//! A [`GuardedSet`] is one mapping that holds every buffer of one copy of a
//! check's inputs, each a run of read-write pages between `PROT_NONE` guard
//! pages (`mmap`/`mprotect` through `libc`), and, after a wide guard
//! ([`ARENA_GUARD`]), an arena for
//! the allocations of the code under test (see [`crate::alloc_hooks`]).
//! Two sets made from the same plan have the same layout relative to their
//! [`GuardedSet::base`], so code that compares pointers into different
//! buffers, or stores them, behaves alike in both copies, and a pointer in
//! one copy corresponds to the pointer at the same distance from the other
//! copy's base.
//!
//! In a [`Guarded`] buffer, the bytes a parameter may touch (its *region*)
//! end exactly at the trailing guard page, so the first byte past the region
//! faults; the slack before the region (up to the page boundary) is filled
//! and compared like the region itself, so a stray write there is reported
//! as a memory difference.

use std::ptr::NonNull;

/// Inaccessible bytes between the last buffer and the arena (address
/// space only). Code that reads far past its buffer (a C function taking a
/// 256 KiB context through a plain pointer the oracle gives a small buffer,
/// lz4's decoder with a random `dictSize`) faults there, or in a
/// [`WILD_GUARD`], instead of reading the arena, in the scalar calls and in
/// the clone alike; within the buffers, such reads land in another buffer
/// or its guard page, which an optimised caller's local copy of the
/// buffers mirrors.
pub const ARENA_GUARD: usize = WILD_GUARD;

/// Inaccessible bytes reserved on each side of a [`GuardedSet`] (address
/// space only), so that code that adds a wild 32-bit size or index to a
/// buffer pointer (lz4's decoder with a random `dictSize`) faults instead
/// of reading whatever the process has mapped there.
pub const WILD_GUARD: usize = 16 << 30;

/// Reserves `len` inaccessible bytes between two [`WILD_GUARD`]s (or,
/// where the address space is too small for those, alone); returns the
/// reservation, its length and the offset of the `len` bytes in it.
fn reserve(len: usize) -> Result<(NonNull<u8>, usize, usize), String> {
    for wild in [WILD_GUARD, 0] {
        let total = len + 2 * wild;
        // SAFETY: an anonymous private inaccessible mapping; checked below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                total,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if map != libc::MAP_FAILED {
            return Ok((NonNull::new(map as *mut u8).ok_or("mmap returned null")?, total, wild));
        }
        if wild == 0 {
            return Err(format!("mmap of {total} bytes failed: {}", std::io::Error::last_os_error()));
        }
    }
    unreachable!("the loop returns")
}

/// The page size of the host.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// One buffer of a [`GuardedSet`]: read-write pages between two
/// inaccessible guard pages. It lives as long as its set.
pub struct Guarded {
    /// Start of the read-write pages.
    rw: *mut u8,
    /// Length of the read-write pages.
    rw_len: usize,
    /// Offset in the read-write pages where the region starts.
    region_start: usize,
}

impl Guarded {
    /// Length of the read-write pages of a buffer whose region has `len`
    /// bytes aligned to `align`.
    pub fn rw_len_for(len: usize, align: usize) -> usize {
        let page = page_size();
        let align = align.clamp(1, page);
        (len.max(1).div_ceil(align) * align).div_ceil(page) * page
    }

    /// [`Guarded::region_offset`] of a buffer whose region has `len` bytes
    /// aligned to `align`.
    pub fn region_offset_for(len: usize, align: usize) -> usize {
        let align = align.clamp(1, page_size());
        Guarded::rw_len_for(len, align) - len.max(1).div_ceil(align) * align
    }

    /// Address of the first byte of the region.
    pub fn region(&self) -> *mut u8 {
        // SAFETY: region_start < rw_len.
        unsafe { self.rw.add(self.region_start) }
    }

    /// Offset of the region's first byte from the start of the read-write
    /// pages (which [`Guarded::bytes`] covers).
    pub fn region_offset(&self) -> usize {
        self.region_start
    }

    /// All read-write bytes (the region and the slack before it).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the pages are mapped read-write while the set lives.
        unsafe { std::slice::from_raw_parts(self.rw, self.rw_len) }
    }

    /// All read-write bytes, mutably.
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.rw, self.rw_len) }
    }

    /// Address of the start of the read-write pages.
    pub fn start(&self) -> *mut u8 {
        self.rw
    }

    /// Makes the read-write pages inaccessible (`true`) or read-write again
    /// (`false`).
    pub fn protect(&self, inaccessible: bool) -> Result<(), String> {
        let prot = if inaccessible { libc::PROT_NONE } else { libc::PROT_READ | libc::PROT_WRITE };
        // SAFETY: the pages belong to the set's mapping.
        if unsafe { libc::mprotect(self.rw as *mut libc::c_void, self.rw_len, prot) } != 0 {
            return Err(format!("mprotect failed: {}", std::io::Error::last_os_error()));
        }
        Ok(())
    }

    /// Whether `addr` lies in the read-write pages; if so, its offset there.
    pub fn offset_of(&self, addr: u64) -> Option<usize> {
        let s = self.rw as u64;
        (addr >= s && addr < s + self.rw_len as u64).then(|| (addr - s) as usize)
    }
}

/// Every buffer of one copy of a check's inputs, and an arena, in one
/// mapping (see the module documentation).
pub struct GuardedSet {
    /// The whole reservation, wild guards included.
    reserved: NonNull<u8>,
    reserved_len: usize,
    /// The buffers' and the arena's part of it.
    map: NonNull<u8>,
    map_len: usize,
    bufs: Vec<Guarded>,
    arena: Guarded,
}

// SAFETY: the mapping is owned by this value and only reached through it.
unsafe impl Send for GuardedSet {}

impl GuardedSet {
    /// The offsets from [`GuardedSet::base`] of the read-write pages of the
    /// buffers [`GuardedSet::new`] makes for `regions`.
    pub fn offsets(regions: &[(usize, usize)]) -> Vec<usize> {
        let page = page_size();
        let mut at = page;
        regions
            .iter()
            .map(|&(len, align)| {
                let here = at;
                at += Guarded::rw_len_for(len, align) + page;
                here
            })
            .collect()
    }

    /// Maps buffers whose regions have the given `(len, align)` (each
    /// region rounded up to its `align`, a power of two no larger than a
    /// page), followed by an arena of `arena_len` bytes.
    pub fn new(regions: &[(usize, usize)], arena_len: usize) -> Result<GuardedSet, String> {
        let page = page_size();
        let arena_rw = arena_len.div_ceil(page).max(1) * page;
        let rw_lens: Vec<usize> = regions.iter().map(|&(len, align)| Guarded::rw_len_for(len, align)).collect();
        // A guard page before every buffer and one at the end; a wide guard
        // before the arena.
        let map_len = rw_lens.iter().sum::<usize>() + arena_rw + (regions.len() + 1) * page + ARENA_GUARD;
        let (reserved, reserved_len, wild) = reserve(map_len)?;
        // SAFETY: `wild + map_len` lies inside the reservation.
        let map = NonNull::new(unsafe { reserved.as_ptr().add(wild) }).ok_or("mmap returned null")?;
        let mut set = GuardedSet {
            reserved,
            reserved_len,
            map,
            map_len,
            bufs: Vec::new(),
            arena: Guarded { rw: map.as_ptr(), rw_len: 0, region_start: 0 },
        };
        for ((&(len, align), &rw_len), offset) in regions.iter().zip(&rw_lens).zip(GuardedSet::offsets(regions)) {
            // SAFETY: `offset + rw_len` stays inside the mapping (see map_len).
            let rw = unsafe { map.as_ptr().add(offset) };
            set.bufs.push(Guarded { rw, rw_len, region_start: Guarded::region_offset_for(len, align) });
        }
        // The arena ends one guard page before the end of the mapping.
        // SAFETY: as above.
        set.arena =
            Guarded { rw: unsafe { map.as_ptr().add(map_len - page - arena_rw) }, rw_len: arena_rw, region_start: 0 };
        for g in set.bufs.iter().chain([&set.arena]) {
            g.protect(false)?;
        }
        Ok(set)
    }

    /// The buffers, in the order they were asked for.
    pub fn bufs(&self) -> &[Guarded] {
        &self.bufs
    }

    /// Makes the buffers numbered in `which` inaccessible (`true`) or
    /// read-write again (`false`).
    pub fn protect(&self, which: &[usize], inaccessible: bool) -> Result<(), String> {
        which.iter().try_for_each(|&j| self.bufs[j].protect(inaccessible))
    }

    /// The buffers, mutably.
    pub fn bufs_mut(&mut self) -> &mut [Guarded] {
        &mut self.bufs
    }

    /// The arena's read-write pages.
    pub fn arena(&self) -> &Guarded {
        &self.arena
    }

    /// Gives the arena's pages back to the kernel, so that they read as
    /// zero again.
    pub fn clear_arena(&mut self) {
        // SAFETY: the arena's pages belong to this private anonymous
        // mapping; MADV_DONTNEED makes them read as zero.
        unsafe { libc::madvise(self.arena.rw as *mut libc::c_void, self.arena.rw_len, libc::MADV_DONTNEED) };
    }

    /// The arena's read-write pages, mutably.
    pub fn arena_mut(&mut self) -> &mut Guarded {
        &mut self.arena
    }

    /// The address every layout offset is relative to: the same plan gives
    /// every buffer the same offset from it in every set.
    pub fn base(&self) -> u64 {
        self.map.as_ptr() as u64
    }

    /// Whether `addr` lies anywhere in the mapping (guard pages included).
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base() && addr < self.base() + self.map_len as u64
    }
}

impl Drop for GuardedSet {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe { libc::munmap(self.reserved.as_ptr() as *mut libc::c_void, self.reserved_len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_ends_at_the_guard_page() {
        let mut set = GuardedSet::new(&[(100, 16), (5000, 64)], 1 << 16).unwrap();
        let g = &mut set.bufs_mut()[0];
        assert_eq!(g.region() as usize % 16, 0);
        assert_eq!(g.bytes().len() - g.region_offset(), 112);
        g.bytes_mut().fill(7);
        assert!(g.bytes().iter().all(|&b| b == 7));
        assert_eq!(g.offset_of(g.region() as u64), Some(g.region_offset()));
        assert_eq!(Guarded::region_offset_for(100, 16), g.region_offset());
        assert_eq!(g.offset_of(g.start() as u64 + g.bytes().len() as u64), None);
        let second = &set.bufs()[1];
        assert_eq!(second.bytes().len() - second.region_offset(), 5056);
        assert!(set.contains(second.region() as u64));
        assert_eq!(set.arena().bytes().len(), 1 << 16);
    }

    #[test]
    fn two_sets_from_one_plan_have_one_layout() {
        let plan = [(100, 16), (24, 8), (9000, 16)];
        let (a, b) = (GuardedSet::new(&plan, 4096).unwrap(), GuardedSet::new(&plan, 4096).unwrap());
        for (x, y) in a.bufs().iter().zip(b.bufs()).chain([(a.arena(), b.arena())]) {
            assert_eq!(x.region() as u64 - a.base(), y.region() as u64 - b.base());
        }
        for (g, offset) in a.bufs().iter().zip(GuardedSet::offsets(&plan)) {
            assert_eq!(g.start() as u64 - a.base(), offset as u64);
        }
    }

    #[test]
    fn guard_pages_separate_the_buffers() {
        let set = GuardedSet::new(&[(10, 16), (10, 16)], 4096).unwrap();
        let (x, y) = (&set.bufs()[0], &set.bufs()[1]);
        let gap = y.start() as usize - (x.start() as usize + x.bytes().len());
        assert_eq!(gap, page_size());
    }
}
