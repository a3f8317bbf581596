//! JS functions over [`digest::FusedHasher`]. A hasher is a tagged JS external owning the state;
//! `hashersUpdateManyAsync` updates one or several hashers in one libuv thread-pool job (Node-API
//! async work) while the JS thread keeps running (their MD5s, and their SHA-256s when there are
//! enough, in SIMD lanes). One operation at a time
//! per hasher: starting another while an async update is in flight throws `ERR_HASHER_BUSY`
//! (src/native.ts schedules async calls for its callers).

use std::cell::{Cell, UnsafeCell};
use std::ffi::c_void;
use std::ptr;

use crate::digest::{self, Digests, FusedHasher};
use crate::napi::*;

const HASHER_TAG: napi_type_tag = napi_type_tag { lower: 0x7475_736b_2d68_6173, upper: 0x6865_722d_7631_0001 };

struct HasherCell {
    /// `None` once digested. Touched by the JS thread only while `busy` is false, and by the one
    /// in-flight async update's worker thread only while it is true.
    state: UnsafeCell<Option<FusedHasher>>,
    busy: Cell<bool>,
}

unsafe extern "C" fn finalize_hasher(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
    drop(Box::from_raw(data as *mut HasherCell));
}

fn parse_mask(env: Env, value: napi_value) -> JsResult<u32> {
    let mask = env.get_u32(value, "mask")?;
    if mask == 0 || mask & !digest::ALL != 0 {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("invalid digest mask {mask}")));
    }
    Ok(mask)
}

/// The hasher behind a handle, checked to have no async update in flight.
fn idle_hasher<'a>(env: Env, handle: napi_value) -> JsResult<&'a HasherCell> {
    let cell = unsafe { &*(env.unwrap_external(handle, &HASHER_TAG, "hasher")? as *const HasherCell) };
    if cell.busy.get() {
        return Err(JsError::Plain(c"ERR_HASHER_BUSY", "an async update is still running on this hasher".into()));
    }
    Ok(cell)
}

/// # Safety
/// Only on the JS thread, with `cell.busy` false (see [`idle_hasher`]), and the reference must
/// not be held across a point where an async update could start.
#[allow(clippy::mut_from_ref)]
unsafe fn live_state(cell: &HasherCell) -> JsResult<&mut FusedHasher> {
    (*cell.state.get())
        .as_mut()
        .ok_or_else(|| JsError::Plain(c"ERR_HASHER_FINISHED", "digest() was already called on this hasher".into()))
}

fn digests_to_js(env: Env, d: &Digests) -> JsResult<napi_value> {
    let o = env.object()?;
    if let Some(v) = &d.md5 {
        env.set(o, c"md5", env.buffer_copy(v)?)?;
    }
    if let Some(v) = &d.sha256 {
        env.set(o, c"sha256", env.buffer_copy(v)?)?;
    }
    if let Some(v) = &d.sha1 {
        env.set(o, c"sha1", env.buffer_copy(v)?)?;
    }
    if let Some(v) = d.crc32 {
        env.set(o, c"crc32", env.u32(v)?)?;
    }
    if let Some(v) = d.crc32c {
        env.set(o, c"crc32c", env.u32(v)?)?;
    }
    if let Some(v) = d.crc64nvme {
        env.set(o, c"crc64nvme", env.bigint_u64(v)?)?;
    }
    Ok(o)
}

/// createHasher(mask: number): Hasher
unsafe extern "C" fn create_hasher(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<1>(env, info, |env, [mask]| {
        let mask = parse_mask(env, required(mask, "mask")?)?;
        let cell =
            Box::new(HasherCell { state: UnsafeCell::new(Some(FusedHasher::new(mask))), busy: Cell::new(false) });
        let raw = Box::into_raw(cell);
        env.external(raw.cast(), finalize_hasher, &HASHER_TAG).inspect_err(|_| drop(Box::from_raw(raw)))
    })
}

/// hasherUpdate(hasher, bytes): undefined
unsafe extern "C" fn hasher_update(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<2>(env, info, |env, [h, buf]| {
        let cell = idle_hasher(env, required(h, "hasher")?)?;
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        live_state(cell)?.update(bytes);
        env.undefined()
    })
}

/// hasherDigest(hasher): Digests — finishes the hasher.
unsafe extern "C" fn hasher_digest(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<1>(env, info, |env, [h]| {
        let cell = idle_hasher(env, required(h, "hasher")?)?;
        live_state(cell)?;
        let state = (*cell.state.get()).take().expect("checked live");
        digests_to_js(env, &state.finish())
    })
}

/// One hasher's share of a `hashersUpdateManyAsync` job.
struct ManyEntry {
    cell: *const HasherCell,
    data: *const u8,
    len: usize,
    /// Keep the hasher and the input array alive until `complete` runs.
    hasher_ref: napi_ref,
    data_ref: napi_ref,
}

struct AsyncUpdateMany {
    /// The admitted hashers: distinct (each was idle and is now busy), live, with their input.
    entries: Vec<ManyEntry>,
    /// Per argument index: why that hasher was left out of the job, or `None` if it is in `entries`.
    rejected: Vec<Option<JsError>>,
    deferred: napi_deferred,
    work: napi_async_work,
    panicked: bool,
}

/// Marks the entries' hashers idle again and drops the references the job held. JS thread only.
unsafe fn release_entries(env: Env, entries: &[ManyEntry]) {
    for e in entries {
        (*e.cell).busy.set(false);
        napi_delete_reference(env.0, e.hasher_ref);
        napi_delete_reference(env.0, e.data_ref);
    }
}

/// Admits one (hasher, bytes) pair into a job, making the hasher busy. `Ok(Err(_))`: this pair
/// is refused (not a hasher, busy, finished, not bytes) and the others go ahead; `Err(_)`: a
/// Node-API call failed and the whole call fails.
unsafe fn admit(env: Env, h: napi_value, buf: napi_value) -> JsResult<Result<ManyEntry, JsError>> {
    let checked = idle_hasher(env, h).and_then(|cell| {
        live_state(cell)?;
        Ok((cell, env.bytes(buf, "data")?))
    });
    let (cell, bytes) = match checked {
        Ok(v) => v,
        Err(e @ JsError::Status(_)) => return Err(e),
        Err(e) => return Ok(Err(e)),
    };
    let hasher_ref = env.reference(h)?;
    let data_ref = env.reference(buf).inspect_err(|_| {
        napi_delete_reference(env.0, hasher_ref);
    })?;
    cell.busy.set(true);
    Ok(Ok(ManyEntry { cell, data: bytes.as_ptr(), len: bytes.len(), hasher_ref, data_ref }))
}

unsafe extern "C" fn many_execute(_env: napi_env, data: *mut c_void) {
    let job = &mut *(data as *mut AsyncUpdateMany);
    let run = std::panic::AssertUnwindSafe(|| {
        // SAFETY: every entry's hasher is busy, so the JS thread does not touch its state until
        // `many_complete`; `admit` refused a hasher that was already busy, so the cells are
        // distinct and the `&mut` borrows do not alias; the references keep the cells and the
        // input arrays alive, and the caller promised not to modify the arrays meanwhile.
        let mut jobs: Vec<(&mut FusedHasher, &[u8])> = job
            .entries
            .iter()
            .map(|e| {
                let state = (*(*e.cell).state.get()).as_mut().expect("checked live");
                let bytes = if e.len == 0 { &[][..] } else { std::slice::from_raw_parts(e.data, e.len) };
                (state, bytes)
            })
            .collect();
        FusedHasher::update_many(&mut jobs);
    });
    job.panicked = std::panic::catch_unwind(run).is_err();
}

unsafe extern "C" fn many_complete(env: napi_env, status: napi_status, data: *mut c_void) {
    let job = Box::from_raw(data as *mut AsyncUpdateMany);
    let env = Env(env);
    release_entries(env, &job.entries);
    napi_delete_async_work(env.0, job.work);
    let failure = if job.panicked {
        Some(JsError::Plain(c"ERR_NATIVE_PANIC", "tusk-native panicked while hashing".into()))
    } else if status != NAPI_OK {
        Some(JsError::Plain(c"ERR_HASHER_CANCELLED", format!("async update ended with Node-API status {status}")))
    } else {
        None
    };
    let results = || -> JsResult<napi_value> {
        let array = env.array(job.rejected.len())?;
        for (i, rejected) in job.rejected.iter().enumerate() {
            let value = match rejected.as_ref().or(failure.as_ref()) {
                Some(e) => env.error_value(e)?,
                None => env.undefined()?,
            };
            env.set_element(array, i as u32, value)?;
        }
        Ok(array)
    };
    match results() {
        Ok(v) => napi_resolve_deferred(env.0, job.deferred, v),
        // A null rejection value would leave the promise pending forever.
        Err(_) => {
            let error = env.error("ERR_NAPI", "could not build the results of hashersUpdateManyAsync");
            match error.or_else(|_| env.undefined()) {
                Ok(v) => napi_reject_deferred(env.0, job.deferred, v),
                Err(_) => NAPI_OK,
            }
        }
    };
}

/// hashersUpdateManyAsync(hashers, buffers): Promise<(Error | undefined)[]> — updates
/// `hashers[i]` with `buffers[i]` for every i in one thread-pool job. A pair that cannot be
/// updated (finished or busy hasher, a hasher listed twice, bytes that are not a Uint8Array)
/// gets its error at its index and the others go ahead. No buffer may be modified until the
/// promise settles.
unsafe extern "C" fn hashers_update_many_async(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<2>(env, info, |env, [hs, bufs]| {
        let (hs, bufs) = (required(hs, "hashers")?, required(bufs, "buffers")?);
        let n = env.array_length(hs, "hashers")?;
        if env.array_length(bufs, "buffers")? != n {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", "hashers and buffers differ in length".into()));
        }
        let mut entries = Vec::with_capacity(n as usize);
        let mut rejected = Vec::with_capacity(n as usize);
        let admitted = (0..n).try_for_each(|i| {
            match admit(env, env.element(hs, i)?, env.element(bufs, i)?)? {
                Ok(entry) => {
                    entries.push(entry);
                    rejected.push(None);
                }
                Err(e) => rejected.push(Some(e)),
            }
            Ok(())
        });
        if let Err(e) = admitted {
            release_entries(env, &entries);
            return Err(e);
        }

        let mut deferred = ptr::null_mut();
        let mut promise = ptr::null_mut();
        if let Err(e) = check(napi_create_promise(env.0, &mut deferred, &mut promise)) {
            release_entries(env, &entries);
            return Err(e);
        }
        let job = Box::into_raw(Box::new(AsyncUpdateMany {
            entries,
            rejected,
            deferred,
            work: ptr::null_mut(),
            panicked: false,
        }));
        let queued = env.string("tusk-native:hashersUpdateManyAsync").and_then(|name| {
            check(napi_create_async_work(
                env.0,
                ptr::null_mut(),
                name,
                many_execute,
                many_complete,
                job.cast(),
                &mut (*job).work,
            ))
        });
        let queued = queued.and_then(|_| check(napi_queue_async_work(env.0, (*job).work)));
        if let Err(e) = queued {
            let job = Box::from_raw(job);
            release_entries(env, &job.entries);
            if !job.work.is_null() {
                napi_delete_async_work(env.0, job.work);
            }
            // The promise is never returned: settle it (resolved, so nothing reports it as an
            // unhandled rejection) to free the deferred.
            if let Ok(v) = env.undefined() {
                napi_resolve_deferred(env.0, job.deferred, v);
            }
            return Err(e);
        }
        Ok(promise)
    })
}

/// digestSync(bytes, mask): Digests
unsafe extern "C" fn digest_sync(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<2>(env, info, |env, [buf, mask]| {
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        let mut h = FusedHasher::new(parse_mask(env, required(mask, "mask")?)?);
        h.update(bytes);
        digests_to_js(env, &h.finish())
    })
}

/// crc32c(bytes, seed = 0): number — `seed` is the CRC32C of the preceding bytes.
unsafe extern "C" fn crc32c(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<2>(env, info, |env, [buf, seed]| {
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        let seed = if env.is_undefined_or_absent(seed)? { 0 } else { env.get_u32(seed.unwrap(), "seed")? };
        env.u32(digest::crc32c_continue(seed, bytes))
    })
}

/// simdPaths(): Record<algorithm, kernel name>
unsafe extern "C" fn simd_paths(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<0>(env, info, |env, []| {
        let o = env.object()?;
        for (alg, path) in digest::simd_paths() {
            let key = std::ffi::CString::new(alg).expect("no NUL");
            env.set(o, &key, env.string(path)?)?;
        }
        Ok(o)
    })
}

/// compareKernels(bytes): the CRC32, CRC32C and CRC64NVME of `bytes` by the detected SIMD kernel and by
/// the portable one, so the start-up self-test can prove the SIMD paths on this very CPU.
unsafe extern "C" fn compare_kernels(env: napi_env, info: napi_callback_info) -> napi_value {
    use digest::{crc32, crc32c as c32, crc64nvme as c64};
    callback::<1>(env, info, |env, [buf]| {
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        let o = env.object()?;
        env.set(o, c"crc32Simd", env.u32(!crc32::update_with(crc32::detect(), !0, bytes))?)?;
        env.set(o, c"crc32Portable", env.u32(!crc32::update_portable(!0, bytes))?)?;
        env.set(o, c"crc32cSimd", env.u32(!c32::update_with(c32::detect(), !0, bytes))?)?;
        env.set(o, c"crc32cPortable", env.u32(!c32::update_portable(!0, bytes))?)?;
        env.set(o, c"crc64nvmeSimd", env.bigint_u64(!c64::update_with(c64::detect(), !0, bytes))?)?;
        env.set(o, c"crc64nvmePortable", env.bigint_u64(!c64::update_portable(!0, bytes))?)?;
        Ok(o)
    })
}

/// checkLanes(): string | undefined — for the start-up self-test: what differs between the
/// multi-lane kernels of this CPU and stream-by-stream hashing, if anything.
unsafe extern "C" fn check_lanes(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<0>(env, info, |env, []| match digest::check_lanes() {
        Some(mismatch) => env.string(&mismatch),
        None => env.undefined(),
    })
}

/// Bytes of a string that fits a stack buffer: short strings (SigV4's) are copied out with one
/// call, without measuring them first or allocating.
const STACK_UTF8: usize = 4096;

/// Passes a JS string's UTF-8 to `f`.
unsafe fn with_utf8<R>(env: Env, value: napi_value, what: &str, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    let not_string = || JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a string"));
    let mut stack = [0u8; STACK_UTF8];
    let mut len = 0usize;
    if napi_get_value_string_utf8(env.0, value, stack.as_mut_ptr().cast(), STACK_UTF8, &mut len) != NAPI_OK {
        return Err(not_string());
    }
    // Node stops before a character that does not fit whole (at most 4 bytes) and its NUL: a
    // shorter result is the whole string.
    if len + 5 <= STACK_UTF8 {
        return Ok(f(&stack[..len]));
    }
    check(napi_get_value_string_utf8(env.0, value, ptr::null_mut(), 0, &mut len))?;
    let mut heap = vec![0u8; len + 1];
    check(napi_get_value_string_utf8(env.0, value, heap.as_mut_ptr().cast(), heap.len(), &mut len))?;
    Ok(f(&heap[..len]))
}

fn hex_of(bytes: &[u8; 32]) -> [u8; 64] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = [0u8; 64];
    for (i, b) in bytes.iter().enumerate() {
        hex[2 * i] = HEX[(b >> 4) as usize];
        hex[2 * i + 1] = HEX[(b & 15) as usize];
    }
    hex
}

/// hmacSha256Hex(key, data: string, hashed?: string): string — HMAC-SHA256 under `key` of `data`'s
/// UTF-8 followed, when `hashed` is given, by the hex SHA-256 of `hashed`'s UTF-8 (SigV4's string to
/// sign ends with the canonical request's hash), as 64 lower-case hex digits.
unsafe extern "C" fn hmac_sha256_hex(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<3>(env, info, |env, [key, data, hashed]| {
        let key = env.bytes(required(key, "key")?, "key")?;
        let data = required(data, "data")?;
        let suffix = match env.is_undefined_or_absent(hashed)? {
            true => None,
            false => Some(with_utf8(env, hashed.expect("present"), "hashed", |h| hex_of(&digest::sha256(h)))?),
        };
        let mac = with_utf8(env, data, "data", |d| {
            digest::hmac_sha256(key, &[d, suffix.as_ref().map_or(&[][..], |h| &h[..])])
        })?;
        env.string(std::str::from_utf8(&hex_of(&mac)).expect("hex digits are ASCII"))
    })
}

pub fn register(env: Env, exports: napi_value) -> JsResult<()> {
    let functions: [(&std::ffi::CStr, napi_callback); 11] = [
        (c"hmacSha256Hex", hmac_sha256_hex),
        (c"createHasher", create_hasher),
        (c"hasherUpdate", hasher_update),
        (c"hashersUpdateManyAsync", hashers_update_many_async),
        (c"hasherDigest", hasher_digest),
        (c"digestSync", digest_sync),
        (c"crc32c", crc32c),
        (c"simdPaths", simd_paths),
        (c"compareKernels", compare_kernels),
        (c"checkLanes", check_lanes),
        (c"algorithms", algorithms),
    ];
    for (name, cb) in functions {
        env.set(exports, name, env.function(name, cb)?)?;
    }
    Ok(())
}

/// algorithms(): the mask bit of each algorithm, so src/native.ts can check its constants.
unsafe extern "C" fn algorithms(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<0>(env, info, |env, []| {
        let o = env.object()?;
        env.set(o, c"md5", env.u32(digest::MD5)?)?;
        env.set(o, c"sha256", env.u32(digest::SHA256)?)?;
        env.set(o, c"sha1", env.u32(digest::SHA1)?)?;
        env.set(o, c"crc32", env.u32(digest::CRC32)?)?;
        env.set(o, c"crc32c", env.u32(digest::CRC32C)?)?;
        env.set(o, c"crc64nvme", env.u32(digest::CRC64NVME)?)?;
        Ok(o)
    })
}
