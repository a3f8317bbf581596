//! Packing of several S-byte symbols into one work shard, so that one Reed–Solomon call codes the
//! same column (or row) of many symbols at once (positions are coded independently, §5.2).
//!
//! A symbol is `full = 64·⌊S/64⌋` bytes of whole 64-byte blocks followed by a tail of `te`
//! elements (`te` low bytes, then `te` high bytes). In a shard of `count` symbols, symbol i's
//! whole blocks sit at `[i·full, (i+1)·full)` unchanged, and the tails are packed densely after
//! all whole blocks: tail element slot s is low byte `base + 64·⌊s/32⌋ + s mod 32` and the high
//! byte 32 bytes later. Dense tails keep small symbols (S = 2 for tiny blobs) cheap.

use std::ops::Range;

#[derive(Clone, Copy, Debug)]
pub struct Packing {
    full: usize,
    te: usize,
    count: usize,
}

impl Packing {
    pub fn new(symbol_size: usize, count: usize) -> Packing {
        debug_assert!(symbol_size.is_multiple_of(2) && count > 0);
        Packing { full: symbol_size / 64 * 64, te: symbol_size % 64 / 2, count }
    }

    /// Bytes per packed symbol, rounded up to whole elements of a block (for batch sizing).
    pub fn bytes_per_symbol(symbol_size: usize) -> usize {
        symbol_size / 64 * 64 + symbol_size % 64
    }

    /// Length of one shard, a multiple of 64.
    pub fn shard_len(&self) -> usize {
        self.count * self.full + (self.count * self.te).div_ceil(32) * 64
    }

    /// Calls `f(element offset in the tail, low-byte offset in the shard, element count)` for
    /// the (at most two) runs of symbol i's tail.
    #[inline]
    fn tail_runs(&self, i: usize, mut f: impl FnMut(usize, usize, usize)) {
        let base = self.count * self.full;
        let mut slot = i * self.te;
        let mut e = 0;
        while e < self.te {
            let off = slot % 32;
            let run = (self.te - e).min(32 - off);
            f(e, base + slot / 32 * 64 + off, run);
            e += run;
            slot += run;
        }
    }

    #[inline]
    pub fn pack(&self, shard: &mut [u8], i: usize, symbol: &[u8]) {
        let (full, te) = (self.full, self.te);
        shard[i * full..(i + 1) * full].copy_from_slice(&symbol[..full]);
        self.tail_runs(i, |e, at, run| {
            shard[at..at + run].copy_from_slice(&symbol[full + e..full + e + run]);
            shard[at + 32..at + 32 + run].copy_from_slice(&symbol[full + te + e..full + te + e + run]);
        });
    }

    #[inline]
    pub fn unpack(&self, shard: &[u8], i: usize, symbol: &mut [u8]) {
        let (full, te) = (self.full, self.te);
        symbol[..full].copy_from_slice(&shard[i * full..(i + 1) * full]);
        self.tail_runs(i, |e, at, run| {
            symbol[full + e..full + e + run].copy_from_slice(&shard[at..at + run]);
            symbol[full + te + e..full + te + e + run].copy_from_slice(&shard[at + 32..at + 32 + run]);
        });
    }
}

/// Work-shard size that keeps one batch's transforms within a core's L2 cache.
pub const TARGET_SHARD_BYTES: usize = 1024;

/// Splits `items` (the rows or columns whose symbols are packed side by side into each shard)
/// into batches whose shards stay near TARGET_SHARD_BYTES, at least two per thread.
pub fn batches(items: usize, bytes_per_item: usize) -> Vec<Range<usize>> {
    let wanted = (items * bytes_per_item).div_ceil(TARGET_SHARD_BYTES);
    let count = wanted.max(2 * rayon::current_num_threads()).min(items).max(1);
    let per = items.div_ceil(count);
    (0..items).step_by(per).map(|a| a..(a + per).min(items)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack_round_trip_and_layout() {
        for s in [2usize, 6, 48, 62, 64, 66, 130, 302] {
            for count in [1usize, 5, 33] {
                let p = Packing::new(s, count);
                let mut shard = vec![0u8; p.shard_len()];
                let syms: Vec<Vec<u8>> =
                    (0..count).map(|i| (0..s).map(|b| (i * 31 + b * 7 + 1) as u8).collect()).collect();
                for (i, sym) in syms.iter().enumerate() {
                    p.pack(&mut shard, i, sym);
                }
                // Element values survive: element e of symbol i keeps its low/high bytes.
                for (i, sym) in syms.iter().enumerate() {
                    let mut out = vec![0u8; s];
                    p.unpack(&shard, i, &mut out);
                    assert_eq!(&out, sym, "s={s} count={count} i={i}");
                }
            }
        }
    }
}
