//! The two-dimensional Red Stuff encoding (walrus.md §3–§4) and its leaf hashes (§7.1).
//!
//! Rows are expanded with the secondary code in row batches, then all n columns with the
//! primary code in column batches; each batch packs its symbols into work shards (see
//! `packing`), runs one RS encode and hashes the symbols it produced while they are in cache.
//! The recovery-of-recovery block is hashed but never stored.

use crate::buffer::{reused_digests, zeroed};
use crate::engine::Engine;
use crate::hash::{Digest, LeafStage};
use crate::packing::Packing;
use crate::params::EncodingParams;
use crate::rs::RsCode;
use crate::shared::SharedMut;
use rayon::prelude::*;
use std::ops::Range;

/// Work-shard size that keeps one batch's transforms within a core's L2 cache.
const TARGET_SHARD_BYTES: usize = 1024;
/// Leaves hashed per `hash_many` call in the column phase, to keep the SIMD lanes busy.
const MIN_LEAVES_PER_CALL: usize = 64;

pub struct Expansion {
    pub params: EncodingParams,
    /// Leaf hashes `h[i][j]` of the expanded n × n matrix, row-major.
    pub leaves: Vec<Digest>,
}

/// Where `expand` writes the slivers of one kind: sliver i at `bytes[offset + i·stride ..]`
/// (so a caller can have them land straight in their final, framed place).
pub struct SliverRegion<'a> {
    pub bytes: &'a mut [u8],
    pub offset: usize,
    pub stride: usize,
}

impl SliverRegion<'_> {
    fn check(&self, count: usize, len: usize, kind: &str) {
        assert!(
            count == 0 || self.offset + (count - 1) * self.stride + len <= self.bytes.len(),
            "{kind} sliver region too small"
        );
        assert!(self.stride >= len, "{kind} sliver stride below the sliver length");
    }
}

/// Blob bytes seen as the zero-padded `n_primary × n_secondary` message matrix (§3).
struct Message<'a> {
    data: &'a [u8],
    s: usize,
    n_secondary: usize,
}

impl<'a> Message<'a> {
    fn symbol<'b>(&'b self, r: usize, c: usize, pad: &'b mut [u8]) -> &'b [u8] {
        let start = (r * self.n_secondary + c) * self.s;
        if start + self.s <= self.data.len() {
            &self.data[start..start + self.s]
        } else {
            pad.fill(0);
            if start < self.data.len() {
                pad[..self.data.len() - start].copy_from_slice(&self.data[start..]);
            }
            pad
        }
    }
}

/// Buffers reused across the batches one worker runs (fresh large buffers would be page-faulted
/// in every time).
#[derive(Default)]
struct Scratch {
    work: Vec<u8>,
    stage: Option<LeafStage>,
    hashes: Vec<Digest>,
}

impl Scratch {
    /// A zeroed work buffer of `work_len` bytes, a leaf stage and a hash buffer for `leaves`
    /// symbols.
    fn get(
        &mut self,
        work_len: usize,
        symbol_size: usize,
        leaves: usize,
    ) -> (&mut [u8], &mut LeafStage, &mut [Digest]) {
        self.work.clear();
        self.work.resize(work_len, 0);
        if !matches!(&self.stage, Some(st) if st.fits(symbol_size, leaves)) {
            self.stage = Some(LeafStage::new(symbol_size, leaves));
        }
        if self.hashes.len() < leaves {
            self.hashes.resize(leaves, [0; 32]);
        }
        (
            &mut self.work,
            self.stage.as_mut().unwrap(),
            &mut self.hashes,
        )
    }
}

fn batches(items: usize, bytes_per_item: usize) -> Vec<Range<usize>> {
    let wanted = (items * bytes_per_item).div_ceil(TARGET_SHARD_BYTES);
    let count = wanted
        .max(2 * rayon::current_num_threads())
        .min(items)
        .max(1);
    let per = items.div_ceil(count);
    (0..items)
        .step_by(per)
        .map(|a| a..(a + per).min(items))
        .collect()
}

/// Expands `data` into the n × n symbol matrix and its leaf hashes; with `slivers` (primary,
/// secondary), writes every sliver there, else keeps only the secondary slivers the column
/// phase reads.
pub fn expand(
    data: &[u8],
    params: EncodingParams,
    slivers: Option<(SliverRegion, SliverRegion)>,
    eng: &Engine,
) -> Expansion {
    let EncodingParams {
        n_shards: n,
        f,
        n_primary,
        n_secondary,
        symbol_size: s,
        ..
    } = params;
    let msg = Message {
        data,
        s,
        n_secondary,
    };
    let mut leaves = reused_digests(n * n);
    let row_len = n_secondary * s;
    let mut own_secondary: Vec<u8>;
    let (primary, secondary, first_stored_column) = match slivers {
        Some((p, sec)) => {
            p.check(n, row_len, "primary");
            sec.check(n, n_primary * s, "secondary");
            (Some(p), sec, 0)
        }
        None => {
            own_secondary = zeroed((n - n_secondary) * n_primary * s);
            let sec = SliverRegion {
                bytes: &mut own_secondary,
                offset: 0,
                stride: n_primary * s,
            };
            (None, sec, n_secondary)
        }
    };
    let (sec_off, sec_stride) = (secondary.offset, secondary.stride);
    let sec_at = |c: usize, r: usize| sec_off + (c - first_stored_column) * sec_stride + r * s;
    let (pri_off, pri_stride) = primary.as_ref().map_or((0, 0), |p| (p.offset, p.stride));
    let pri_at = |r: usize, c: usize| pri_off + r * pri_stride + c * s;
    let per_symbol = Packing::bytes_per_symbol(s);
    {
        let leaves_w = SharedMut::new(&mut leaves);
        let secondary_w = SharedMut::new(secondary.bytes);
        let primary_w = primary.map(|p| SharedMut::new(p.bytes));

        // Rows: secondary code, k = n_secondary, r = f.
        let row_code = RsCode::cached(n_secondary, f);
        batches(n_primary, per_symbol)
            .into_par_iter()
            .for_each_init(Scratch::default, |scratch, rows| {
                let pk = Packing::new(s, rows.len());
                let len = pk.shard_len();
                let (work, stage, _) = scratch.get(row_code.encode_work_shards() * len, s, n);
                let mut pad = vec![0u8; s];
                for r in rows.clone() {
                    for c in 0..n_secondary {
                        pk.pack(
                            &mut work[c * len..(c + 1) * len],
                            r - rows.start,
                            msg.symbol(r, c, &mut pad),
                        );
                    }
                }
                row_code.encode(eng, work, len);
                for r in rows.clone() {
                    for c in 0..n_secondary {
                        stage.slot(c).copy_from_slice(msg.symbol(r, c, &mut pad));
                    }
                    for j in 0..f {
                        let slot = row_code.recovery_slot(j);
                        pk.unpack(
                            &work[slot * len..(slot + 1) * len],
                            r - rows.start,
                            stage.slot(n_secondary + j),
                        );
                    }
                    for c in first_stored_column..n {
                        // SAFETY: symbol r of each column belongs to this row batch only.
                        unsafe { secondary_w.slice(sec_at(c, r), s) }
                            .copy_from_slice(stage.symbol(c));
                    }
                    if let Some(pw) = &primary_w {
                        // Primary sliver r is message row r, zero past the data.
                        let (from, to) = (
                            (r * row_len).min(data.len()),
                            ((r + 1) * row_len).min(data.len()),
                        );
                        // SAFETY: primary sliver r belongs to this batch only.
                        let dst = unsafe { pw.slice(pri_at(r, 0), row_len) };
                        dst[..to - from].copy_from_slice(&data[from..to]);
                        dst[to - from..].fill(0);
                    }
                    // SAFETY: row r of the leaf hashes belongs to this batch only.
                    stage.hash(unsafe { leaves_w.slice(r * n, n) });
                }
            });

        // Columns: primary code, k = n_primary, r = 2f, over all n columns.
        let col_code = RsCode::cached(n_primary, 2 * f);
        let secondary_r = &secondary_w;
        batches(n, per_symbol)
            .into_par_iter()
            .for_each_init(Scratch::default, |scratch, cols| {
                let pk = Packing::new(s, cols.len());
                let len = pk.shard_len();
                let width = cols.len();
                let group = MIN_LEAVES_PER_CALL.div_ceil(width).min(2 * f);
                let (work, stage, hashes) =
                    scratch.get(col_code.encode_work_shards() * len, s, group * width);
                let mut pad = vec![0u8; s];
                for i in 0..n_primary {
                    let shard = &mut work[i * len..(i + 1) * len];
                    for c in cols.clone() {
                        let sym = if c < n_secondary {
                            msg.symbol(i, c, &mut pad)
                        } else {
                            // SAFETY: the row phase is over; this region is only read now.
                            unsafe { secondary_r.read(sec_at(c, i), s) }
                        };
                        pk.pack(shard, c - cols.start, sym);
                    }
                }
                col_code.encode(eng, work, len);
                // Hash groups of whole recovery rows, at least MIN_LEAVES_PER_CALL leaves at a time
                // (a batch may hold only a few columns).
                for j0 in (0..2 * f).step_by(group) {
                    let rows = j0..(j0 + group).min(2 * f);
                    for j in rows.clone() {
                        let slot = col_code.recovery_slot(j);
                        let shard = &work[slot * len..(slot + 1) * len];
                        for c in 0..width {
                            pk.unpack(shard, c, stage.slot((j - j0) * width + c));
                        }
                    }
                    let count = rows.len() * width;
                    stage.hash(&mut hashes[..count]);
                    for j in rows {
                        let i = n_primary + j;
                        let from = (j - j0) * width;
                        // SAFETY: columns `cols` of row i belong to this batch only.
                        unsafe { leaves_w.slice(i * n + cols.start, width) }
                            .copy_from_slice(&hashes[from..from + width]);
                        if let Some(pw) = &primary_w {
                            for c in cols.start..cols.end.min(n_secondary) {
                                // SAFETY: symbol c of primary sliver i belongs to this batch only.
                                let dst = unsafe { pw.slice(pri_at(i, c), s) };
                                dst.copy_from_slice(stage.symbol(from + c - cols.start));
                            }
                        }
                    }
                }
            });
    }
    Expansion { params, leaves }
}
