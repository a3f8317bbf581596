//! JS functions over the `tusk_rs2` crate (walrus.md §2–8, §11). All are synchronous: the
//! publisher calls them inside its piscina worker threads (src/workers/rs2-worker.ts), or inline
//! for inputs small enough not to matter; the heavy loops inside run on rayon's pool.
//!
//! Errors carry a `code`: INVALID_SHARD_COUNT, DATA_TOO_LARGE, NOT_ENOUGH_SLIVERS, INVALID_SLIVER,
//! BLOB_ID_MISMATCH. The verify functions return `null` when the input is valid and the reason
//! otherwise, since a bad upload is an expected outcome, not a fault.

use std::ffi::{c_void, CStr};
use std::ptr;

use tusk_rs2::bcs::{
    parse_metadata, parse_sliver_bcs, sliver_bcs_len, write_sliver_frames, ParsedMetadata, SliverData,
};
use tusk_rs2::{
    symbols_merkle_root, BlobIdInfo, BlobMetadata, DecodeError, Digest, EncodeError, EncodingParams, SliverRegion,
};

use crate::napi::*;

fn null(env: Env<'_>) -> JsResult<napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: the env is live for this call (Env); `v` is a local to write to.
    check(unsafe { napi_get_null(env.raw(), &mut v) })?;
    Ok(v)
}

fn number(env: Env<'_>, n: f64) -> JsResult<napi_value> {
    let mut v = ptr::null_mut();
    // SAFETY: the env is live for this call (Env); `v` is a local to write to.
    check(unsafe { napi_create_double(env.raw(), n, &mut v) })?;
    Ok(v)
}

/// A new JS ArrayBuffer of `len` bytes and its memory. Node allocates it zero-filled with calloc,
/// so a large one is fresh mmap'd pages that are only committed as they are written.
fn array_buffer<'cb>(env: Env<'cb>, len: usize) -> JsResult<(napi_value, &'cb mut [u8])> {
    let mut v = ptr::null_mut();
    let mut data: *mut c_void = ptr::null_mut();
    // SAFETY: the env is live for this call (Env); `data` and `v` are locals to write to.
    check(unsafe { napi_create_arraybuffer(env.raw(), len, &mut data, &mut v) })?;
    // SAFETY: `data` is the new ArrayBuffer's `len` bytes (zero-filled, so initialised). `v` is a
    // handle of this call, so the buffer lives through 'cb; no JS has seen it yet, and this
    // module only hands it to JS when done writing, so nothing else reads, writes or detaches it.
    let bytes = if len == 0 { &mut [][..] } else { unsafe { std::slice::from_raw_parts_mut(data as *mut u8, len) } };
    Ok((v, bytes))
}

fn get_n_shards(env: Env<'_>, value: Option<napi_value>) -> JsResult<u16> {
    let n = env.get_u32(required(value, "nShards")?, "nShards")?;
    u16::try_from(n).map_err(|_| JsError::Range(c"INVALID_SHARD_COUNT", format!("invalid number of shards {n}")))
}

/// A non-negative integer up to 2^53 (blob lengths exceed u32).
fn get_length(env: Env<'_>, value: Option<napi_value>, what: &str) -> JsResult<u64> {
    let value = required(value, what)?;
    let mut d = 0f64;
    // SAFETY: the env is live for this call (Env); `value` is one of its handles; `d` is a local.
    let status = unsafe { napi_get_value_double(env.raw(), value, &mut d) };
    if status != NAPI_OK {
        return Err(JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a number")));
    }
    if !(d >= 0.0 && d.fract() == 0.0 && d <= 9_007_199_254_740_991.0) {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("{what} must be a non-negative safe integer")));
    }
    Ok(d as u64)
}

fn encode_error(e: EncodeError) -> JsError {
    match e {
        EncodeError::InvalidShardCount(_) => JsError::Range(c"INVALID_SHARD_COUNT", e.to_string()),
        EncodeError::DataTooLarge { .. } => JsError::Plain(c"DATA_TOO_LARGE", e.to_string()),
    }
}

fn decode_error(e: DecodeError) -> JsError {
    let code: &'static CStr = match e {
        DecodeError::Params(e) => return encode_error(e),
        DecodeError::NotEnoughSlivers { .. } => c"NOT_ENOUGH_SLIVERS",
        DecodeError::InvalidSliver { .. } => c"INVALID_SLIVER",
        DecodeError::BlobIdMismatch => c"BLOB_ID_MISMATCH",
        DecodeError::SliverHashMismatch { .. } => c"SLIVER_HASH_MISMATCH",
    };
    JsError::Plain(code, e.to_string())
}

/// Sets the `BlobIdInfo` fields on `o`.
fn set_info(env: Env<'_>, o: napi_value, info: &BlobIdInfo) -> JsResult<()> {
    env.set(o, c"blobId", env.buffer_copy(&info.blob_id)?)?;
    env.set(o, c"rootHash", env.buffer_copy(&info.root_hash)?)?;
    env.set(o, c"unencodedLength", number(env, info.unencoded_length as f64)?)?;
    env.set(o, c"encodedLength", number(env, info.encoded_length as f64)?)?;
    env.set(o, c"symbolSize", env.u32(info.symbol_size.into())?)?;
    env.set(o, c"nShards", env.u32(info.n_shards.into())?)?;
    Ok(())
}

/// Checks a parsed sliver against the blob's parameters: symbol size, sliver index, data length.
fn check_sliver_shape(params: &EncodingParams, s: &SliverData, index: usize, data_len: usize) -> Result<(), String> {
    if s.symbol_size != params.symbol_size {
        return Err(format!("symbol size {}, expected {}", s.symbol_size, params.symbol_size));
    }
    if s.index != index {
        return Err(format!("sliver index {}, expected {index}", s.index));
    }
    if s.data.len() != data_len {
        return Err(format!("{} data bytes, expected {data_len}", s.data.len()));
    }
    Ok(())
}

fn metadata_params(m: &ParsedMetadata) -> Result<EncodingParams, String> {
    let n = u16::try_from(m.hashes.len()).map_err(|_| format!("{} sliver pairs", m.hashes.len()))?;
    EncodingParams::new(n, m.unencoded_length).map_err(|e| e.to_string())
}

fn verify_metadata(bcs: &[u8], expected_n: Option<u32>) -> Result<(), String> {
    let m = parse_metadata(bcs)?;
    if let Some(n) = expected_n.filter(|&n| n as usize != m.hashes.len()) {
        return Err(format!("{} sliver pairs, expected {n}", m.hashes.len()));
    }
    metadata_params(&m)?;
    let recomputed = BlobMetadata::from_pair_hashes(m.unencoded_length, m.hashes);
    if recomputed.blob_id != m.blob_id {
        return Err("the sliver hashes do not give the blob id".into());
    }
    Ok(())
}

/// A sliver's hash is the Merkle root over its n symbols after encoding it with the *other* code
/// (walrus.md §7.2): a primary sliver with the secondary (row) code, a secondary one with the
/// primary (column) code.
fn verify_sliver(metadata_bcs: &[u8], pair: usize, primary: bool, sliver_bcs: &[u8]) -> Result<(), String> {
    let m = parse_metadata(metadata_bcs).map_err(|e| format!("metadata: {e}"))?;
    let params = metadata_params(&m).map_err(|e| format!("metadata: {e}"))?;
    let n = params.n_shards;
    if pair >= n {
        return Err(format!("pair index {pair} out of range for {n} shards"));
    }
    let s = parse_sliver_bcs(sliver_bcs)?;
    let (index, k, expected) = if primary {
        (pair, params.n_secondary, &m.hashes[pair].primary)
    } else {
        (n - 1 - pair, params.n_primary, &m.hashes[pair].secondary)
    };
    check_sliver_shape(&params, &s, index, k * params.symbol_size)?;
    let recovery = tusk_rs2::rs_encode(s.data, k, n - k);
    if &symbols_merkle_root(&[s.data, &recovery], params.symbol_size) != expected {
        return Err("the sliver does not match its hash in the metadata".into());
    }
    Ok(())
}

fn reason(env: Env<'_>, r: Result<(), String>) -> JsResult<napi_value> {
    match r {
        Ok(()) => null(env),
        Err(why) => env.string(&why),
    }
}

/// Asks Linux for transparent huge pages over the whole 2 MiB pages of a fresh, untouched
/// allocation: ~300 MB of slivers for 64 MiB at n = 1000 would otherwise cost ~75 000 page
/// faults on first write. Failure only costs speed.
fn advise_huge_pages(bytes: &mut [u8]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (bytes.as_mut_ptr() as usize).next_multiple_of(HUGE);
        let end = (bytes.as_mut_ptr() as usize + bytes.len()) / HUGE * HUGE;
        if end > start {
            // SAFETY: [start, end) lies inside `bytes`, which this call may write (it holds the
            // `&mut`), and is page aligned; MADV_HUGEPAGE changes how the pages are backed, not
            // their contents, and fails harmlessly on a kernel without THP.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
}

/// rs2BlobId(data, nShards): BlobIdInfo
unsafe extern "C" fn rs2_blob_id(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [data, n]| {
        let bytes = env.bytes(required(data, "data")?, "data")?;
        let info = tusk_rs2::blob_id(bytes, get_n_shards(env, n)?).map_err(encode_error)?;
        let o = env.object()?;
        set_info(env, o, &info)?;
        Ok(o)
    })
}

/// rs2Encode(data, nShards, out?): BlobIdInfo & { bytes?: ArrayBuffer, byteLength, metadataLength,
/// primaryBcsLength, secondaryBcsLength } — the metadata BCS, then primary sliver 0..n BCS, then
/// secondary sliver 0..n BCS (each sliver kind has one fixed length, so offsets follow), in the
/// first `byteLength` bytes of `out` (a Uint8Array, reused memory: every byte of that range is
/// written) or, without it, of a new ArrayBuffer returned as `bytes`.
unsafe extern "C" fn rs2_encode(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<3>(|env, [data, n, out_arg]| {
        let bytes = env.bytes(required(data, "data")?, "data")?;
        let n_shards = get_n_shards(env, n)?;
        let params = EncodingParams::new(n_shards, bytes.len() as u64).map_err(encode_error)?;
        let n = params.n_shards;
        let (p_len, s_len) = (params.primary_sliver_len(), params.secondary_sliver_len());
        let (p_bcs, s_bcs) = (sliver_bcs_len(p_len), sliver_bcs_len(s_len));
        let metadata_len = tusk_rs2::metadata_bcs_len(n);
        let total = metadata_len + n * (p_bcs + s_bcs);
        let (buffer, out) = match out_arg {
            Some(v) if !is_nullish(env, v)? => {
                // SAFETY: the only other slice of this call is `bytes`, which is not read until
                // `overlapping` below has found the two disjoint.
                let given = unsafe { env.bytes_mut(v, "out") }?;
                if given.len() < total {
                    return Err(JsError::Range(
                        c"ERR_OUT_OF_RANGE",
                        format!("out holds {} bytes, the encoding needs {total}", given.len()),
                    ));
                }
                if overlapping(given, bytes) {
                    return Err(JsError::Range(c"ERR_INVALID_ARG_VALUE", "out overlaps data".into()));
                }
                (None, &mut given[..total])
            }
            _ => {
                let (buffer, out) = array_buffer(env, total)?;
                advise_huge_pages(out);
                (Some(buffer), out)
            }
        };
        let (meta_out, slivers) = out.split_at_mut(metadata_len);
        let (p_out, s_out) = slivers.split_at_mut(n * p_bcs);
        let p_head = write_sliver_frames(p_out, n, p_len, params.symbol_size);
        let s_head = write_sliver_frames(s_out, n, s_len, params.symbol_size);
        let metadata = tusk_rs2::encode_into(
            bytes,
            n_shards,
            SliverRegion { bytes: p_out, offset: p_head, stride: p_bcs },
            SliverRegion { bytes: s_out, offset: s_head, stride: s_bcs },
        )
        .map_err(encode_error)?;
        meta_out.copy_from_slice(&metadata.to_bcs());
        let info = tusk_rs2::blob_id_info(&params, &metadata);

        let o = env.object()?;
        set_info(env, o, &info)?;
        if let Some(buffer) = buffer {
            env.set(o, c"bytes", buffer)?;
        }
        env.set(o, c"byteLength", number(env, total as f64)?)?;
        env.set(o, c"metadataLength", env.u32(metadata_len as u32)?)?;
        env.set(o, c"primaryBcsLength", number(env, p_bcs as f64)?)?;
        env.set(o, c"secondaryBcsLength", number(env, s_bcs as f64)?)?;
        Ok(o)
    })
}

/// rs2Decode(nShards, unencodedLength, metadataBcs | null, slivers: [pairIndex, SliverData BCS][],
/// strict?: 0 | 1): ArrayBuffer — the blob from at least n_primary primary slivers. With metadata
/// the result is checked against it (walrus.md §11): by default each systematic primary sliver
/// against its hash (Walrus's default consistency check), with `strict` by re-encoding the blob and
/// comparing the blob id; without metadata it is not checked (Walrus's skip).
unsafe extern "C" fn rs2_decode(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<5>(|env, [n, length, metadata, pairs, strict]| {
        let n_shards = get_n_shards(env, n)?;
        let length = get_length(env, length, "unencodedLength")?;
        let metadata = match metadata {
            Some(v) if !is_nullish(env, v)? => Some(
                parse_metadata(env.bytes(v, "metadataBcs")?)
                    .map_err(|e| JsError::Plain(c"INVALID_METADATA", format!("invalid blob metadata: {e}")))?,
            ),
            _ => None,
        };
        let strict = match strict {
            Some(v) if !is_nullish(env, v)? => env.get_u32(v, "strict")? != 0,
            _ => false,
        };
        let params = EncodingParams::new(n_shards, length).map_err(encode_error)?;
        if let Some(m) = &metadata {
            if m.hashes.len() != params.n_shards || m.unencoded_length != length {
                return Err(JsError::Plain(c"INVALID_METADATA", "the metadata is for another blob shape".into()));
            }
        }
        let pairs = required(pairs, "slivers")?;
        let invalid =
            |index: usize, why: String| JsError::Plain(c"INVALID_SLIVER", format!("primary sliver {index}: {why}"));
        let mut slivers: Vec<(u16, &[u8])> = Vec::new();
        for i in 0..env.array_length(pairs, "slivers")? {
            let entry = env.element(pairs, i)?;
            let index = env.get_u32(env.element(entry, 0)?, "sliver pair index")? as usize;
            let bcs = env.bytes(env.element(entry, 1)?, "sliver")?;
            let s = parse_sliver_bcs(bcs).map_err(|e| invalid(index, e))?;
            check_sliver_shape(&params, &s, index, params.primary_sliver_len()).map_err(|e| invalid(index, e))?;
            slivers.push((index as u16, s.data));
        }
        let blob = match &metadata {
            Some(m) if strict => tusk_rs2::decode_verified(n_shards, &m.blob_id, length, &slivers),
            Some(m) => {
                let primary: Vec<Digest> = m.hashes.iter().map(|h| h.primary).collect();
                tusk_rs2::decode_checked(n_shards, &primary, length, &slivers)
            }
            None => tusk_rs2::decode(n_shards, length, &slivers),
        }
        .map_err(decode_error)?;
        let (buffer, out) = array_buffer(env, blob.len())?;
        out.copy_from_slice(&blob);
        Ok(buffer)
    })
}

/// rs2VerifyMetadata(bcs, nShards?): null | reason
unsafe extern "C" fn rs2_verify_metadata(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [bcs, n]| {
        let bcs = env.bytes(required(bcs, "metadata")?, "metadata")?;
        let n = if env.is_undefined_or_absent(n)? { None } else { Some(env.get_u32(n.unwrap(), "nShards")?) };
        reason(env, verify_metadata(bcs, n))
    })
}

/// rs2VerifySliver(metadataBcs, pairIndex, axis: 0 primary | 1 secondary, sliverBcs): null | reason
unsafe extern "C" fn rs2_verify_sliver(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<4>(|env, [metadata, pair, axis, sliver]| {
        let metadata = env.bytes(required(metadata, "metadata")?, "metadata")?;
        let pair = env.get_u32(required(pair, "pairIndex")?, "pairIndex")? as usize;
        let primary = match env.get_u32(required(axis, "axis")?, "axis")? {
            0 => true,
            1 => false,
            a => return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("axis must be 0 or 1, got {a}"))),
        };
        let sliver = env.bytes(required(sliver, "sliver")?, "sliver")?;
        reason(env, verify_sliver(metadata, pair, primary, sliver))
    })
}

/// rs2RsEncode(originals, originalCount, recoveryCount): Buffer — one plain Reed–Solomon call as
/// reed-solomon-simd computes it (walrus.md §5.6), for the vector tests.
unsafe extern "C" fn rs2_rs_encode(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<3>(|env, [originals, k, r]| {
        let originals = env.bytes(required(originals, "originals")?, "originals")?;
        let k = env.get_u32(required(k, "originalCount")?, "originalCount")? as usize;
        let r = env.get_u32(required(r, "recoveryCount")?, "recoveryCount")? as usize;
        let shard = originals.len().checked_div(k).unwrap_or(0);
        if k == 0 || r == 0 || k + r > 65536 || shard == 0 || shard % 2 != 0 || shard * k != originals.len() {
            return Err(JsError::Range(
                c"ERR_OUT_OF_RANGE",
                "need k, r > 0, k + r <= 65536 and k shards of one even, non-zero size".into(),
            ));
        }
        env.buffer_copy(&tusk_rs2::rs_encode(originals, k, r))
    })
}

fn is_nullish(env: Env<'_>, v: napi_value) -> JsResult<bool> {
    let mut t = 0;
    // SAFETY: the env is live for this call (Env); `v` is one of its handles; `t` is a local.
    check(unsafe { napi_typeof(env.raw(), v, &mut t) })?;
    Ok(t == 0 || t == 1) // napi_undefined, napi_null
}

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
    let functions: [(&CStr, napi_callback); 6] = [
        (c"rs2BlobId", rs2_blob_id),
        (c"rs2Encode", rs2_encode),
        (c"rs2Decode", rs2_decode),
        (c"rs2VerifyMetadata", rs2_verify_metadata),
        (c"rs2VerifySliver", rs2_verify_sliver),
        (c"rs2RsEncode", rs2_rs_encode),
    ];
    for (name, cb) in functions {
        env.set(exports, name, env.function(name, cb)?)?;
    }
    Ok(())
}
