//! Guard-page-bounded memory for pointer parameters.
//!
//! A [`Guarded`] buffer is a run of read-write pages between two
//! `PROT_NONE` pages (`mmap`/`mprotect` through `libc`). The bytes a
//! parameter may touch (its *region*) end exactly at the trailing guard page,
//! so the first byte past the region faults; the slack before the region (up
//! to the page boundary) is filled and compared like the region itself, so a
//! stray write there is reported as a memory difference.

use std::ptr::NonNull;

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

/// Read-write pages between two inaccessible guard pages.
pub struct Guarded {
    map: NonNull<u8>,
    map_len: usize,
    /// Start of the read-write pages.
    rw: *mut u8,
    /// Length of the read-write pages.
    rw_len: usize,
    /// Offset in the read-write pages where the region starts.
    region_start: usize,
}

// SAFETY: the mapping is owned by this value and only reached through it.
unsafe impl Send for Guarded {}

impl Guarded {
    /// Maps a buffer whose region of `len` bytes (rounded up to `align`)
    /// ends at the trailing guard page. `align` must be a power of two no
    /// larger than a page.
    pub fn new(len: usize, align: usize) -> Result<Guarded, String> {
        let page = page_size();
        let align = align.clamp(1, page);
        let len = len.max(1).div_ceil(align) * align;
        let rw_len = Guarded::rw_len_for(len, align);
        let map_len = rw_len + 2 * page;
        // SAFETY: an anonymous private mapping; checked for failure below.
        let map = unsafe {
            libc::mmap(std::ptr::null_mut(), map_len, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        if map == libc::MAP_FAILED {
            return Err(format!("mmap of {map_len} bytes failed: {}", std::io::Error::last_os_error()));
        }
        let map = NonNull::new(map as *mut u8).ok_or("mmap returned null")?;
        // SAFETY: the range lies inside the mapping made above.
        let rw = unsafe { map.as_ptr().add(page) };
        let g = Guarded { map, map_len, rw, rw_len, region_start: rw_len - len };
        // SAFETY: `rw .. rw + rw_len` is inside the mapping.
        if unsafe { libc::mprotect(rw as *mut libc::c_void, rw_len, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
            return Err(format!("mprotect failed: {}", std::io::Error::last_os_error()));
        }
        Ok(g)
    }

    /// Length of the read-write pages of a buffer made by
    /// `Guarded::new(len, align)`.
    pub fn rw_len_for(len: usize, align: usize) -> usize {
        let page = page_size();
        let align = align.clamp(1, page);
        (len.max(1).div_ceil(align) * align).div_ceil(page) * page
    }

    /// [`Guarded::region_offset`] of a buffer made by
    /// `Guarded::new(len, align)`.
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
        // SAFETY: the pages are mapped read-write for the life of `self`.
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
        // SAFETY: the pages belong to this mapping.
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

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping made in `new`.
        unsafe { libc::munmap(self.map.as_ptr() as *mut libc::c_void, self.map_len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_ends_at_the_guard_page() {
        let mut g = Guarded::new(100, 16).unwrap();
        assert_eq!(g.region() as usize % 16, 0);
        assert_eq!(g.bytes().len() - g.region_offset(), 112);
        g.bytes_mut().fill(7);
        assert!(g.bytes().iter().all(|&b| b == 7));
        assert_eq!(g.offset_of(g.region() as u64), Some(g.region_offset()));
        assert_eq!(Guarded::region_offset_for(100, 16), g.region_offset());
        assert_eq!(g.offset_of(g.start() as u64 + g.bytes().len() as u64), None);
    }
}
