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

/// `count` zeroed 32-byte digests, with the same huge-page advice.
pub fn zeroed_digests(count: usize) -> Vec<[u8; 32]> {
    let mut bytes = std::mem::ManuallyDrop::new(zeroed(count * 32));
    assert_eq!(bytes.capacity(), count * 32);
    // SAFETY: [u8; 32] has alignment 1 like u8, and length and capacity are exact multiples of
    // 32, so the allocation's layout is unchanged.
    unsafe { Vec::from_raw_parts(bytes.as_mut_ptr() as *mut [u8; 32], count, count) }
}

/// One spare leaf-hash matrix kept between encodings: at n = 1000 it is 32 MB, and a fresh one
/// costs its page faults and the kernel's zeroing on every blob (~10% of a 1 MiB blob id).
static SPARE_DIGESTS: std::sync::Mutex<Vec<[u8; 32]>> = std::sync::Mutex::new(Vec::new());

/// `count` digests whose contents are unspecified (every one must be written before it is
/// read): the spare matrix when it is big enough, else a fresh zeroed one.
pub fn reused_digests(count: usize) -> Vec<[u8; 32]> {
    let mut spare = SPARE_DIGESTS.lock().map(|mut s| std::mem::take(&mut *s)).unwrap_or_default();
    if spare.capacity() >= count && spare.capacity() <= 2 * count.max(1 << 16) {
        spare.resize(count, [0; 32]);
        spare.truncate(count);
        return spare;
    }
    zeroed_digests(count)
}

/// Keeps `digests` as the spare matrix (replacing a smaller one).
pub fn recycle_digests(digests: Vec<[u8; 32]>) {
    if let Ok(mut spare) = SPARE_DIGESTS.lock() {
        if digests.capacity() > spare.capacity() {
            *spare = digests;
        }
    }
}
