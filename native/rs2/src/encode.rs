//! The two-dimensional Red Stuff encoding (walrus.md §3–§4) and the per-sliver hashes over it
//! (§7.1–§7.2), without ever holding the n × n leaf hashes.
//!
//! 1. The n_primary source rows are expanded with the secondary code (their symbols in columns
//!    n_secondary..n are the column phase's input there).
//! 2. Every column, in aligned groups of `GROUP` columns, is expanded with the primary code to
//!    all n rows; its n symbols are hashed into leaves and its Merkle root (the secondary hash)
//!    taken at once, and each group climbs every row's tree `GROUP_LEVELS` levels over its own
//!    columns.
//! 3. The row roots (primary hashes) are finished from those group nodes.
//!
//! Leaf-hash memory is one group's (n × GROUP) per worker plus n²/GROUP group nodes: ~2 MB at
//! n = 1000 instead of 32 MB. Batches pack their symbols into work shards (see `packing`) and run
//! one RS encode each; a group runs as several batches when its symbols are large.

use crate::buffer::zeroed;
use crate::engine::Engine;
use crate::hash::{merkle_roots, merkle_subtrees, Digest, LeafStage, EMPTY_NODE};
use crate::metadata::SliverPairHashes;
use crate::packing::{batches, Packing, TARGET_SHARD_BYTES};
use crate::params::EncodingParams;
use crate::rs::RsCode;
use crate::shared::SharedMut;
use rayon::prelude::*;
use std::ops::Range;

/// Columns per group: the row trees are climbed this many columns at a time (2^GROUP_LEVELS).
const GROUP_LEVELS: usize = 4;
const GROUP: usize = 1 << GROUP_LEVELS;

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

    /// Step 1's arithmetic for a batch of source rows: their symbols packed into `work` (`pk`'s
    /// layout) and the secondary (row) code run over them, so that recovery symbol j of row r is
    /// then in shard `row_code.recovery_slot(j)` of `work`, at packing position r − rows.start.
    fn encode_rows(
        &self,
        rows: Range<usize>,
        row_code: &RsCode,
        pk: &Packing,
        work: &mut Vec<u8>,
        pad: &mut [u8],
        eng: &Engine,
    ) {
        let len = pk.shard_len();
        work.clear();
        work.resize(row_code.encode_work_shards() * len, 0);
        for r in rows.clone() {
            for c in 0..self.n_secondary {
                pk.pack(&mut work[c * len..(c + 1) * len], r - rows.start, self.symbol(r, c, pad));
            }
        }
        row_code.encode(eng, work, len);
    }
}

/// Buffers reused across the batches one worker runs (fresh large buffers would be page-faulted
/// in every time).
#[derive(Default)]
struct Scratch {
    work: Vec<u8>,
    stage: Option<LeafStage>,
    leaves: Vec<Digest>,
    tile: Vec<Digest>,
    merkle: Vec<Digest>,
}

/// Expands `data` and returns the per-sliver-pair hashes; with `slivers` (primary, secondary),
/// also writes every sliver there.
pub fn expand(
    data: &[u8],
    params: EncodingParams,
    slivers: Option<(SliverRegion, SliverRegion)>,
    eng: &Engine,
) -> Vec<SliverPairHashes> {
    let EncodingParams { n_shards: n, f, n_primary, n_secondary, symbol_size: s, .. } = params;
    let msg = Message { data, s, n_secondary };
    let row_len = n_secondary * s;
    // Secondary slivers hold column c's source rows; without slivers only columns n_secondary..n
    // are kept (the column phase's input there).
    let mut own_secondary: Vec<u8>;
    let (primary, secondary, first_column) = match slivers {
        Some((p, sec)) => {
            p.check(n, row_len, "primary");
            sec.check(n, n_primary * s, "secondary");
            (Some(p), sec, 0)
        }
        None => {
            own_secondary = zeroed((n - n_secondary) * n_primary * s);
            let sec = SliverRegion { bytes: &mut own_secondary, offset: 0, stride: n_primary * s };
            (None, sec, n_secondary)
        }
    };
    let (sec_off, sec_stride) = (secondary.offset, secondary.stride);
    let sec_at = |c: usize, r: usize| sec_off + (c - first_column) * sec_stride + r * s;
    let (pri_off, pri_stride) = primary.as_ref().map_or((0, 0), |p| (p.offset, p.stride));
    let pri_at = |r: usize, c: usize| pri_off + r * pri_stride + c * s;
    let per_symbol = Packing::bytes_per_symbol(s);
    let secondary_w = SharedMut::new(secondary.bytes);
    let primary_w = primary.map(|p| SharedMut::new(p.bytes));

    // 1. Source rows: secondary code, k = n_secondary, r = f.
    let row_code = RsCode::cached(n_secondary, f);
    batches(n_primary, per_symbol).into_par_iter().for_each_init(Scratch::default, |scratch, rows| {
        let pk = Packing::new(s, rows.len());
        let len = pk.shard_len();
        let work = &mut scratch.work;
        let mut pad = vec![0u8; s];
        msg.encode_rows(rows.clone(), &row_code, &pk, work, &mut pad, eng);
        for r in rows.clone() {
            for c in first_column..n {
                // SAFETY: symbol r of each secondary sliver belongs to this row batch only.
                let dst = unsafe { secondary_w.slice(sec_at(c, r), s) };
                if c < n_secondary {
                    dst.copy_from_slice(msg.symbol(r, c, &mut pad));
                } else {
                    let slot = row_code.recovery_slot(c - n_secondary);
                    pk.unpack(&work[slot * len..(slot + 1) * len], r - rows.start, dst);
                }
            }
            if let Some(pw) = &primary_w {
                // Primary sliver r is message row r, zero past the data.
                let (from, to) = ((r * row_len).min(data.len()), ((r + 1) * row_len).min(data.len()));
                // SAFETY: primary sliver r belongs to this batch only.
                let dst = unsafe { pw.slice(pri_at(r, 0), row_len) };
                dst[..to - from].copy_from_slice(&data[from..to]);
                dst[to - from..].fill(0);
            }
        }
    });

    // 2. Every column, in aligned groups: primary code, k = n_primary, r = 2f; leaves, column
    // roots, and each row's tree climbed over the group's columns.
    let col_code = RsCode::cached(n_primary, 2 * f);
    let groups = n.div_ceil(GROUP);
    let cols_per_batch = (TARGET_SHARD_BYTES / per_symbol).clamp(1, GROUP);
    let mut col_roots = vec![EMPTY_NODE; n];
    let mut group_nodes = vec![EMPTY_NODE; groups * n];
    let secondary_r = &secondary_w;
    col_roots.par_chunks_mut(GROUP).zip(group_nodes.par_chunks_mut(n)).enumerate().for_each_init(
        Scratch::default,
        |scratch, (g, (roots, nodes))| {
            let cols = g * GROUP..((g + 1) * GROUP).min(n);
            let width = cols.len();
            let Scratch { work, stage, leaves, tile, merkle } = scratch;
            // Column c's n leaf hashes at [(c − cols.start)·n, …).
            leaves.clear();
            leaves.resize(width * n, EMPTY_NODE);
            if !matches!(stage, Some(st) if st.fits(s, n)) {
                *stage = Some(LeafStage::new(s, n));
            }
            let stage = stage.as_mut().unwrap();
            let mut pad = vec![0u8; s];
            for sub in cols.clone().step_by(cols_per_batch) {
                let batch = sub..(sub + cols_per_batch).min(cols.end);
                let pk = Packing::new(s, batch.len());
                let len = pk.shard_len();
                work.clear();
                work.resize(col_code.encode_work_shards() * len, 0);
                for i in 0..n_primary {
                    let shard = &mut work[i * len..(i + 1) * len];
                    for c in batch.clone() {
                        let sym = if c < n_secondary {
                            msg.symbol(i, c, &mut pad)
                        } else {
                            // SAFETY: step 1 is over; these columns are only read now.
                            unsafe { secondary_r.read(sec_at(c, i), s) }
                        };
                        pk.pack(shard, c - batch.start, sym);
                    }
                }
                col_code.encode(eng, work, len);
                for c in batch.clone() {
                    for i in 0..n_primary {
                        let sym = if c < n_secondary {
                            msg.symbol(i, c, &mut pad)
                        } else {
                            // SAFETY: as above.
                            unsafe { secondary_r.read(sec_at(c, i), s) }
                        };
                        stage.slot(i).copy_from_slice(sym);
                    }
                    for j in 0..2 * f {
                        let slot = col_code.recovery_slot(j);
                        pk.unpack(&work[slot * len..(slot + 1) * len], c - batch.start, stage.slot(n_primary + j));
                    }
                    if let Some(pw) = &primary_w {
                        if c < n_secondary {
                            for j in 0..2 * f {
                                // SAFETY: symbol c of primary sliver n_primary + j belongs to this column only.
                                unsafe { pw.slice(pri_at(n_primary + j, c), s) }
                                    .copy_from_slice(stage.symbol(n_primary + j));
                            }
                        }
                    }
                    let at = (c - cols.start) * n;
                    stage.hash(&mut leaves[at..at + n]);
                }
            }
            roots[..width].copy_from_slice(&merkle_roots(leaves, n, merkle));
            // Row i's leaves of this group, one tree per row.
            tile.clear();
            tile.resize(n * width, EMPTY_NODE);
            for (c, column) in leaves.chunks_exact(n).enumerate() {
                for (i, leaf) in column.iter().enumerate() {
                    tile[i * width + c] = *leaf;
                }
            }
            let climbed = if groups == 1 {
                merkle_roots(tile, width, merkle)
            } else {
                merkle_subtrees(tile, width, GROUP_LEVELS, merkle)
            };
            nodes.copy_from_slice(&climbed);
        },
    );

    // 3. Row roots from the group nodes (for one group they are the roots already).
    let row_roots = if groups == 1 {
        group_nodes
    } else {
        let mut by_row = vec![EMPTY_NODE; n * groups];
        for (g, nodes) in group_nodes.chunks_exact(n).enumerate() {
            for (i, node) in nodes.iter().enumerate() {
                by_row[i * groups + g] = *node;
            }
        }
        merkle_roots(&by_row, groups, &mut Vec::new())
    };
    (0..n).map(|p| SliverPairHashes { primary: row_roots[p], secondary: col_roots[n - 1 - p] }).collect()
}

/// The primary hashes of the n_primary source rows alone (§7.2: each row expanded with the
/// secondary code, its n symbols the leaves of its tree), as step 1 of `expand` batches rows:
/// what Walrus's default consistency check compares a decoded blob with. `data` is the blob, or
/// its rows with their zero padding.
pub fn source_row_hashes(data: &[u8], params: EncodingParams, eng: &Engine) -> Vec<Digest> {
    let EncodingParams { n_shards: n, f, n_primary, n_secondary, symbol_size: s, .. } = params;
    let msg = Message { data, s, n_secondary };
    let row_code = RsCode::cached(n_secondary, f);
    let per_symbol = Packing::bytes_per_symbol(s);
    let per_batch: Vec<Vec<Digest>> = batches(n_primary, per_symbol)
        .into_par_iter()
        .map_init(Scratch::default, |scratch, rows| {
            let pk = Packing::new(s, rows.len());
            let len = pk.shard_len();
            let Scratch { work, stage, leaves, merkle, .. } = scratch;
            let mut pad = vec![0u8; s];
            msg.encode_rows(rows.clone(), &row_code, &pk, work, &mut pad, eng);
            if !matches!(stage, Some(st) if st.fits(s, n)) {
                *stage = Some(LeafStage::new(s, n));
            }
            let stage = stage.as_mut().unwrap();
            leaves.clear();
            leaves.resize(rows.len() * n, EMPTY_NODE);
            for r in rows.clone() {
                for c in 0..n_secondary {
                    stage.slot(c).copy_from_slice(msg.symbol(r, c, &mut pad));
                }
                for j in 0..f {
                    let slot = row_code.recovery_slot(j);
                    pk.unpack(&work[slot * len..(slot + 1) * len], r - rows.start, stage.slot(n_secondary + j));
                }
                let at = (r - rows.start) * n;
                stage.hash(&mut leaves[at..at + n]);
            }
            merkle_roots(leaves, n, merkle)
        })
        .collect();
    per_batch.concat()
}
