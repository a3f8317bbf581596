//! Large zeroed buffers. The slivers of a 64 MiB blob at n = 1000 take ~300 MB; with 4 KiB pages
//! the first touch of each page costs a fault, so Linux is asked for transparent huge pages
//! (the system default here is `madvise`).

/// Below this size the page faults do not matter.
const HUGE_PAGE_THRESHOLD: usize = 8 << 20;

pub fn zeroed(len: usize) -> Vec<u8> {
    let buf = vec![0u8; len];
    #[cfg(target_os = "linux")]
    if len >= HUGE_PAGE_THRESHOLD {
        // Large zeroed allocations come from fresh, untouched mmap pages, so the advice takes
        // effect before the first write. Failure only costs speed.
        let page = 2 << 20;
        let start = (buf.as_ptr() as usize).next_multiple_of(page);
        let end = (buf.as_ptr() as usize + len) / page * page;
        if end > start {
            // SAFETY: the range lies inside `buf`'s allocation; madvise does not change contents.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    buf
}
