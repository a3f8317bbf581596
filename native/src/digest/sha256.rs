//! Streaming SHA-256 over the sha2 crate's block function (SHA-NI when the CPU has it), with the
//! chaining state in reach so that sha256_lanes.rs can advance several streams together.

use super::block_stream::BlockStream;
use sha2::digest::consts::U64;
use sha2::digest::generic_array::GenericArray;

const INIT: [u32; 8] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

type Block = GenericArray<u8, U64>;
// The cast below relies on a block being 64 bytes with no alignment requirement.
const _: () = assert!(std::mem::size_of::<Block>() == 64 && std::mem::align_of::<Block>() == 1);

/// Compresses whole blocks (`blocks.len()` a multiple of 64) into `state`.
pub(super) fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert!(blocks.len().is_multiple_of(64));
    // SAFETY: `Block` is 64 bytes of alignment 1 (checked above; generic-array is
    // `repr(transparent)` over its elements), so `blocks.len() / 64` of them fit exactly in
    // `blocks`, which outlives the borrow.
    let blocks = unsafe { std::slice::from_raw_parts(blocks.as_ptr().cast::<Block>(), blocks.len() / 64) };
    sha2::compress256(state, blocks);
}

#[derive(Clone)]
pub struct Sha256(BlockStream<8>);

impl Sha256 {
    pub fn new() -> Self {
        Sha256(BlockStream::new(INIT))
    }

    pub fn update(&mut self, data: &[u8]) {
        let blocks = self.0.update_deferred(data, compress_blocks);
        compress_blocks(&mut self.0.state, blocks);
    }

    /// `update` except for the whole blocks of `data`, which the caller must compress into
    /// [`Sha256::state_mut`] (see [`BlockStream::update_deferred`]).
    pub fn update_deferred<'a>(&mut self, data: &'a [u8]) -> &'a [u8] {
        self.0.update_deferred(data, compress_blocks)
    }

    pub fn state_mut(&mut self) -> &mut [u32; 8] {
        &mut self.0.state
    }

    pub fn finalize(mut self) -> [u8; 32] {
        self.0.finish(u64::to_be_bytes, compress_blocks);
        let mut out = [0u8; 32];
        for (o, s) in out.chunks_exact_mut(4).zip(self.0.state) {
            o.copy_from_slice(&s.to_be_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::Sha256;
    use sha2::Digest;

    #[test]
    fn matches_sha2_across_lengths_and_splits() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
        for len in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 5000] {
            let d = &data[..len];
            let want: [u8; 32] = sha2::Sha256::digest(d).into();
            for split in [0, 1, 7, 63, 64, 65] {
                let s = split.min(len);
                let mut h = Sha256::new();
                h.update(&d[..s]);
                h.update(&d[s..]);
                assert_eq!(h.finalize(), want, "len {len} split {split}");
            }
        }
    }
}
