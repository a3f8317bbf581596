//! The BCS wire formats (walrus.md §8), written and parsed: `SliverData` (§8.1) and
//! `BlobMetadataWithId` (§8.2). Parsing checks structure only; whether hashes and ids are right is
//! the caller's business.

use crate::hash::Digest;
use crate::metadata::{BlobMetadata, SliverPairHashes, RS2_ENCODING_TYPE};

/// BCS tag of `Node::Digest` (§8.2).
const NODE_DIGEST: u8 = 1;
/// BCS tag of `BlobMetadata::V1`.
const METADATA_V1: u8 = 0;
const HASH_BYTES: usize = 32;

/// Writes `v` as ULEB128 at the start of `out`; returns the bytes written.
fn write_uleb128(out: &mut [u8], mut v: u64) -> usize {
    let mut i = 0;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out[i] = byte;
            return i + 1;
        }
        out[i] = byte | 0x80;
        i += 1;
    }
}

fn uleb_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// A canonical ULEB128 of at most 32 bits (BCS lengths): (value, bytes read).
fn read_uleb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(5) {
        value |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            if b == 0 && i > 0 {
                return None;
            }
            return (value <= u32::MAX as u64).then_some((value, i + 1));
        }
    }
    None
}

/// Bytes of a BCS `SliverData` holding `data_len` bytes of symbols: `uleb(len) ‖ data ‖ u16
/// symbol_size ‖ u16 index`.
pub fn sliver_bcs_len(data_len: usize) -> usize {
    uleb_len(data_len as u64) + data_len + 4
}

/// Writes the frames of `count` `SliverData` of `len` data bytes each, laid back to back in
/// `out`, leaving each one's data to the encoder; returns where the first one's data starts.
pub fn write_sliver_frames(out: &mut [u8], count: usize, len: usize, symbol_size: usize) -> usize {
    let frame = sliver_bcs_len(len);
    let head = uleb_len(len as u64);
    for (i, f) in out.chunks_exact_mut(frame).take(count).enumerate() {
        write_uleb128(f, len as u64);
        f[head + len..head + len + 2].copy_from_slice(&(symbol_size as u16).to_le_bytes());
        f[head + len + 2..].copy_from_slice(&(i as u16).to_le_bytes());
    }
    head
}

/// One `SliverData` with sliver index `index`.
pub fn sliver_bcs(data: &[u8], symbol_size: usize, index: usize) -> Vec<u8> {
    let mut out = vec![0; sliver_bcs_len(data.len())];
    let head = uleb_len(data.len() as u64);
    write_uleb128(&mut out, data.len() as u64);
    out[head..head + data.len()].copy_from_slice(data);
    let at = head + data.len();
    out[at..at + 2].copy_from_slice(&(symbol_size as u16).to_le_bytes());
    out[at + 2..].copy_from_slice(&(index as u16).to_le_bytes());
    out
}

pub struct SliverData<'a> {
    pub data: &'a [u8],
    pub symbol_size: usize,
    pub index: usize,
}

pub fn parse_sliver_bcs(bcs: &[u8]) -> Result<SliverData<'_>, String> {
    let (len, at) = read_uleb128(bcs).ok_or("bad length prefix")?;
    let end = at + len as usize;
    if bcs.len() != end + 4 {
        return Err(format!("body is {} bytes, its length prefix says {}", bcs.len(), end + 4));
    }
    Ok(SliverData {
        data: &bcs[at..end],
        symbol_size: u16::from_le_bytes([bcs[end], bcs[end + 1]]).into(),
        index: u16::from_le_bytes([bcs[end + 2], bcs[end + 3]]).into(),
    })
}

/// Length of the BCS `BlobMetadataWithId` of n sliver pairs: `66n + 42 + uleb(n)`.
pub fn metadata_bcs_len(n: usize) -> usize {
    66 * n + 42 + uleb_len(n as u64)
}

/// BCS `BlobMetadataWithId`: blob id, version, encoding type, length, then the n hash pairs.
pub fn metadata_bcs(m: &BlobMetadata) -> Vec<u8> {
    let n = m.pair_hashes.len();
    let mut out = Vec::with_capacity(metadata_bcs_len(n));
    out.extend_from_slice(&m.blob_id);
    out.push(METADATA_V1);
    out.push(RS2_ENCODING_TYPE);
    out.extend_from_slice(&m.unencoded_length.to_le_bytes());
    let mut uleb = [0u8; 10];
    let used = write_uleb128(&mut uleb, n as u64);
    out.extend_from_slice(&uleb[..used]);
    for h in &m.pair_hashes {
        out.push(NODE_DIGEST);
        out.extend_from_slice(&h.primary);
        out.push(NODE_DIGEST);
        out.extend_from_slice(&h.secondary);
    }
    out
}

pub struct ParsedMetadata {
    pub blob_id: Digest,
    pub unencoded_length: u64,
    pub hashes: Vec<SliverPairHashes>,
}

/// Parses BCS `BlobMetadataWithId`, structure only.
pub fn parse_metadata(bcs: &[u8]) -> Result<ParsedMetadata, String> {
    const HEAD: usize = HASH_BYTES + 2 + 8;
    if bcs.len() < HEAD + 1 {
        return Err(format!("only {} bytes", bcs.len()));
    }
    if bcs[HASH_BYTES] != METADATA_V1 {
        return Err(format!("unknown metadata version {}", bcs[HASH_BYTES]));
    }
    // Encoding type 0 was RaptorQ and is rejected (walrus.md §8.2).
    if bcs[HASH_BYTES + 1] != RS2_ENCODING_TYPE {
        return Err(format!("unsupported encoding type {}", bcs[HASH_BYTES + 1]));
    }
    let unencoded_length = u64::from_le_bytes(bcs[HASH_BYTES + 2..HEAD].try_into().unwrap());
    let (n, at) = read_uleb128(&bcs[HEAD..]).ok_or("bad hash count")?;
    let start = HEAD + at;
    let n = n as usize;
    if bcs.len() != start + n * 2 * (1 + HASH_BYTES) {
        return Err(format!("{} bytes do not hold exactly {n} pairs of hashes", bcs.len()));
    }
    let mut hashes = Vec::with_capacity(n);
    let mut nodes = bcs[start..].chunks_exact(1 + HASH_BYTES);
    let mut digest = || -> Result<Digest, String> {
        let node = nodes.next().expect("length checked");
        if node[0] != NODE_DIGEST {
            return Err("a sliver hash is not a digest".into());
        }
        Ok(node[1..].try_into().unwrap())
    };
    for _ in 0..n {
        hashes.push(SliverPairHashes { primary: digest()?, secondary: digest()? });
    }
    Ok(ParsedMetadata { blob_id: bcs[..HASH_BYTES].try_into().unwrap(), unencoded_length, hashes })
}
