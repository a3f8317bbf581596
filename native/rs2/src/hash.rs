//! BLAKE2b-256 (§1) and Merkle trees (§6), hashing many inputs at once with blake2b_simd's
//! SIMD `hash_many`, or eight at a time with `blake2b_x8` on AVX-512 (at n = 1000 a blob needs
//! ~3·10⁶ short hashes).

use crate::blake2b_x8;
use blake2b_simd::many::{hash_many, HashManyJob};
use blake2b_simd::Params;
use std::sync::OnceLock;

pub type Digest = [u8; 32];

const LEAF_PREFIX: u8 = 0x00;
const INNER_PREFIX: u8 = 0x01;
/// Padding node for odd levels (§6): 32 zero bytes, never hashed on its own.
pub const EMPTY_NODE: Digest = [0; 32];

fn params() -> &'static Params {
    static PARAMS: OnceLock<Params> = OnceLock::new();
    PARAMS.get_or_init(|| {
        let mut p = Params::new();
        p.hash_length(32);
        p
    })
}

/// Messages per `hash_many` call on the fallback path: enough to fill the lanes, few enough to
/// stay in L1.
const JOBS_PER_CALL: usize = 64;

pub fn blake2b256(input: &[u8]) -> Digest {
    *array(&params().hash(input).as_bytes()[..32])
}

fn array(bytes: &[u8]) -> &Digest {
    bytes.try_into().expect("32-byte digest")
}

/// Hashes the `out.len()` messages `prefix ‖ data[i·stride ..][..len]`: eight at a time with
/// the AVX-512 kernel where the CPU has it, the rest with `blake2b_simd`'s `hash_many`.
pub fn hash_tagged(prefix: u8, data: &[u8], stride: usize, len: usize, out: &mut [Digest]) {
    debug_assert!(out.is_empty() || (out.len() - 1) * stride + len <= data.len());
    let done = if x8_enabled() { hash_tagged_x8(prefix, data, stride, len, out) } else { 0 };
    hash_tagged_many(prefix, &data[(done * stride).min(data.len())..], stride, len, &mut out[done..]);
}

fn x8_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        // TUSK_RS2_NO_AVX512=1 takes the portable path (tests and comparisons).
        let off = matches!(std::env::var("TUSK_RS2_NO_AVX512").as_deref(), Ok(v) if !v.is_empty() && v != "0");
        blake2b_x8::available() && !off
    })
}

/// Hashes whole groups of eight messages with the AVX-512 kernel while its whole-word reads stay
/// inside `data`; returns how many it hashed.
fn hash_tagged_x8(prefix: u8, data: &[u8], stride: usize, len: usize, out: &mut [Digest]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let lanes = blake2b_x8::LANES;
        let read = len.div_ceil(8) * 8;
        let mut done = 0;
        while done + lanes <= out.len() && (done + lanes - 1) * stride + read <= data.len() {
            // SAFETY: x8_enabled() checked AVX-512F; the loop condition bounds every read.
            unsafe { blake2b_x8::hash8(prefix, data, done * stride, stride, len, &mut out[done..done + lanes]) };
            done += lanes;
        }
        done
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (prefix, data, stride, len, out);
        0
    }
}

/// The portable path: copies the messages, tagged, into records and hashes them with
/// `hash_many` (4 lanes on AVX2).
fn hash_tagged_many(prefix: u8, data: &[u8], stride: usize, len: usize, out: &mut [Digest]) {
    if out.is_empty() {
        return;
    }
    let p = params();
    let rec = len + 1;
    let mut records = vec![prefix; rec * JOBS_PER_CALL.min(out.len())];
    for (c, outs) in out.chunks_mut(JOBS_PER_CALL).enumerate() {
        for (i, r) in records.chunks_exact_mut(rec).take(outs.len()).enumerate() {
            let at = (c * JOBS_PER_CALL + i) * stride;
            r[1..].copy_from_slice(&data[at..at + len]);
        }
        let mut jobs: Vec<HashManyJob> =
            records.chunks_exact(rec).take(outs.len()).map(|r| HashManyJob::new(p, r)).collect();
        hash_many(jobs.iter_mut());
        for (o, j) in outs.iter_mut().zip(&jobs) {
            o.copy_from_slice(&j.to_hash().as_bytes()[..32]);
        }
    }
}

/// A reusable buffer of symbols hashed together into leaf hashes `H(0x00 ‖ symbol)`.
pub struct LeafStage {
    symbol_size: usize,
    /// `capacity` symbols back to back, then one zero word: the kernel reads whole words.
    buf: Vec<u8>,
}

impl LeafStage {
    pub fn new(symbol_size: usize, capacity: usize) -> LeafStage {
        LeafStage { symbol_size, buf: vec![0; capacity * symbol_size + 8] }
    }

    pub fn fits(&self, symbol_size: usize, capacity: usize) -> bool {
        self.symbol_size == symbol_size && self.buf.len() >= capacity * symbol_size + 8
    }

    /// The place for symbol i of the next batch.
    #[inline]
    pub fn slot(&mut self, i: usize) -> &mut [u8] {
        let s = self.symbol_size;
        &mut self.buf[i * s..(i + 1) * s]
    }

    pub fn symbol(&self, i: usize) -> &[u8] {
        let s = self.symbol_size;
        &self.buf[i * s..(i + 1) * s]
    }

    /// Hashes symbols `0..out.len()` into leaf hashes.
    pub fn hash(&self, out: &mut [Digest]) {
        let s = self.symbol_size;
        hash_tagged(LEAF_PREFIX, &self.buf, s, s, out);
    }
}

/// Merkle root over leaf hashes (already `H(0x00 ‖ leaf)`).
pub fn merkle_root(leaf_hashes: &[Digest]) -> Digest {
    match leaf_hashes.len() {
        0 => EMPTY_NODE,
        w => merkle_roots(leaf_hashes, w, &mut Vec::new())[0],
    }
}

/// Merkle roots of several trees of `width` leaf hashes each (`leaf_hashes` holds tree t at
/// `[t·width, (t+1)·width)`), hashing each level of all trees in one call so the narrow top
/// levels still fill the SIMD lanes.
pub fn merkle_roots(leaf_hashes: &[Digest], width: usize, scratch: &mut Vec<Digest>) -> Vec<Digest> {
    if width <= 1 {
        return leaf_hashes.to_vec();
    }
    climb(leaf_hashes, width, None, scratch)
}

/// The nodes `levels` levels above the leaves of several trees of `width` leaves each, for
/// trees that are the leading part of one level of a wider tree (an aligned group of its nodes,
/// or its last group): every odd count is padded, even a single node, because in the wider tree
/// the level goes on past this group.
pub fn merkle_subtrees(leaf_hashes: &[Digest], width: usize, levels: usize, scratch: &mut Vec<Digest>) -> Vec<Digest> {
    climb(leaf_hashes, width, Some(levels), scratch)
}

/// Climbs `levels` levels, or to the root for `None`. Each level is kept with an even number of
/// nodes per tree (an odd one padded with the empty node, §6), so a level is one run of
/// (left, right) pairs and its parents are hashed straight from it.
fn climb(leaf_hashes: &[Digest], width: usize, levels: Option<usize>, scratch: &mut Vec<Digest>) -> Vec<Digest> {
    let trees = leaf_hashes.len() / width.max(1);
    if levels == Some(0) || width == 0 {
        return leaf_hashes[..trees * width].to_vec();
    }
    let even = |w: usize| w + (w & 1);
    let mut level: Vec<Digest>;
    let mut cur: &[Digest] = if width.is_multiple_of(2) {
        &leaf_hashes[..trees * width]
    } else {
        level = padded(leaf_hashes, trees, width, even(width));
        &level
    };
    let mut w = width;
    for climbed in 1.. {
        let parents = w.div_ceil(2);
        scratch.clear();
        scratch.resize(trees * parents, EMPTY_NODE);
        hash_tagged(INNER_PREFIX, cur.as_flattened(), 64, 64, scratch);
        let done = match levels {
            None => parents == 1,
            Some(levels) => climbed == levels,
        };
        if done {
            return scratch.clone();
        }
        level = if parents.is_multiple_of(2) {
            std::mem::take(scratch)
        } else {
            padded(scratch, trees, parents, parents + 1)
        };
        cur = &level;
        w = parents;
    }
    unreachable!()
}

/// Trees of `width` nodes laid out again with `stride` ≥ width nodes each, padded with empty nodes.
fn padded(nodes: &[Digest], trees: usize, width: usize, stride: usize) -> Vec<Digest> {
    let mut out = vec![EMPTY_NODE; trees * stride];
    for (dst, src) in out.chunks_exact_mut(stride).zip(nodes.chunks_exact(width)) {
        dst[..width].copy_from_slice(src);
    }
    out
}

/// Merkle root over the symbols of `parts` taken in order, `symbol_size` bytes each (a sliver's
/// source symbols then its recovery symbols, walrus.md §7.2).
pub fn symbols_merkle_root(parts: &[&[u8]], symbol_size: usize) -> Digest {
    let mut leaves: Vec<Digest> = Vec::new();
    for part in parts {
        let count = part.len() / symbol_size.max(1);
        let at = leaves.len();
        leaves.resize(at + count, EMPTY_NODE);
        hash_tagged(LEAF_PREFIX, part, symbol_size, symbol_size, &mut leaves[at..]);
    }
    merkle_root(&leaves)
}

/// Leaf hash of one input (`H(0x00 ‖ bytes)`).
pub fn leaf_hash(bytes: &[u8]) -> Digest {
    let mut state = params().to_state();
    state.update(&[LEAF_PREFIX]);
    state.update(bytes);
    *array(&state.finalize().as_bytes()[..32])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merkle_pads_odd_levels_with_zero_node() {
        let leaves: Vec<Digest> = (0..3u8).map(|i| leaf_hash(&[i])).collect();
        let inner = |l: &Digest, r: &Digest| {
            let mut v = vec![INNER_PREFIX];
            v.extend_from_slice(l);
            v.extend_from_slice(r);
            blake2b256(&v)
        };
        let want = inner(&inner(&leaves[0], &leaves[1]), &inner(&leaves[2], &EMPTY_NODE));
        assert_eq!(merkle_root(&leaves), want);
        assert_eq!(merkle_root(&leaves[..1]), leaves[0]);
        assert_eq!(merkle_root(&[]), EMPTY_NODE);
    }
}
