//! The streaming part of a hash over 64-byte blocks (MD5, SHA-256): the chaining state, the
//! partial block waiting for more input, and the length so far.

#[derive(Clone)]
pub struct BlockStream<const W: usize> {
    pub state: [u32; W],
    pending: [u8; 64],
    pending_len: usize,
    total: u64,
}

impl<const W: usize> BlockStream<W> {
    pub fn new(init: [u32; W]) -> Self {
        BlockStream { state: init, pending: [0; 64], pending_len: 0, total: 0 }
    }

    /// Takes in `data` except for its whole blocks: completes the buffered block if `data`
    /// reaches its end (compressing it with `compress`), buffers the partial block at the end
    /// of `data`, and returns the whole blocks in between, which the caller must compress into
    /// `state`, in order, before anything else touches this stream. (Multi-lane hashing
    /// compresses the blocks of several streams together.)
    pub fn update_deferred<'a>(&mut self, mut data: &'a [u8], compress: fn(&mut [u32; W], &[u8])) -> &'a [u8] {
        self.total = self.total.wrapping_add(data.len() as u64);
        if self.pending_len > 0 {
            let take = (64 - self.pending_len).min(data.len());
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&data[..take]);
            self.pending_len += take;
            data = &data[take..];
            if self.pending_len < 64 {
                return &[];
            }
            compress(&mut self.state, &self.pending);
            self.pending_len = 0;
        }
        let (blocks, rest) = data.split_at(data.len() / 64 * 64);
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
        blocks
    }

    /// Ends the message as MD5 and SHA-256 do: 0x80, zeros up to 8 bytes short of a block
    /// boundary, then the length in bits, given `encode` (little-endian for MD5, big for SHA).
    pub fn finish(&mut self, encode: fn(u64) -> [u8; 8], compress: fn(&mut [u32; W], &[u8])) {
        let bits = encode(self.total.wrapping_mul(8));
        let pad_len = if self.pending_len < 56 { 56 - self.pending_len } else { 120 - self.pending_len };
        let mut pad = [0u8; 72];
        pad[0] = 0x80;
        pad[pad_len..pad_len + 8].copy_from_slice(&bits);
        let blocks = self.update_deferred(&pad[..pad_len + 8], compress);
        compress(&mut self.state, blocks);
        debug_assert!(self.pending_len == 0);
    }
}
