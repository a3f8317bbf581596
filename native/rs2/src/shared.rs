//! Disjoint parallel writes into one buffer. Batches of the 2-D encoding write interleaved but
//! non-overlapping parts of the sliver and leaf-hash arrays (a row batch owns its rows, a column
//! batch its columns), which safe slice splitting cannot express.

use std::marker::PhantomData;

pub struct SharedMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: users only create non-overlapping sub-slices from different threads (see `slice`).
unsafe impl<T: Send> Send for SharedMut<'_, T> {}
unsafe impl<T: Send> Sync for SharedMut<'_, T> {}

impl<'a, T> SharedMut<'a, T> {
    pub fn new(buf: &'a mut [T]) -> Self {
        SharedMut { ptr: buf.as_mut_ptr(), len: buf.len(), _borrow: PhantomData }
    }

    /// # Safety
    /// No two live slices obtained from this value (on any thread) may overlap.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, start: usize, len: usize) -> &mut [T] {
        assert!(start + len <= self.len, "shared slice out of bounds");
        std::slice::from_raw_parts_mut(self.ptr.add(start), len)
    }

    /// # Safety
    /// No slice obtained from `slice` may overlap this range while the result lives.
    pub unsafe fn read(&self, start: usize, len: usize) -> &[T] {
        assert!(start + len <= self.len, "shared slice out of bounds");
        std::slice::from_raw_parts(self.ptr.add(start), len)
    }
}
