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

/// A hasher's state, owned by its JS external (freed when the external is collected).
struct HasherCell {
    /// `None` once digested. Touched by the JS thread only while `busy` is false, and by the one
    /// in-flight async update's worker thread only while it is true.
    state: UnsafeCell<Option<FusedHasher>>,
    /// Read and written by the JS thread only.
    busy: Cell<bool>,
}

fn parse_mask(env: Env<'_>, value: napi_value) -> JsResult<u32> {
    let mask = env.get_u32(value, "mask")?;
    if mask == 0 || mask & !digest::ALL != 0 {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("invalid digest mask {mask}")));
    }
    Ok(mask)
}

/// The hasher behind a handle, checked to have no async update in flight.
fn idle_hasher<'cb>(env: Env<'cb>, handle: napi_value) -> JsResult<&'cb HasherCell> {
    let data = env.unwrap_external(handle, &HASHER_TAG, "hasher")?;
    // SAFETY: only `create_hasher` tags externals with HASHER_TAG, and it puts a
    // `Box<HasherCell>` in them. The box lives until the external is collected, which cannot
    // happen during 'cb: `handle` is a handle of this call. A shared reference is fine while a
    // worker updates the state: that goes through the `UnsafeCell`, and the worker touches nothing
    // else of the cell.
    let cell = unsafe { &*(data as *const HasherCell) };
    if cell.busy.get() {
        return Err(JsError::Plain(c"ERR_HASHER_BUSY", "an async update is still running on this hasher".into()));
    }
    Ok(cell)
}

/// The state of a hasher that is not finished.
///
/// # Safety
/// Only on the JS thread, with `cell.busy` false (see [`idle_hasher`]), and no other reference
/// to the state may be live: the result must be dropped before the next call of this function
/// or of anything that can start an async update of `cell`.
#[allow(clippy::mut_from_ref, reason = "the state is in an UnsafeCell; the contract makes the &mut exclusive")]
unsafe fn live_state(cell: &HasherCell) -> JsResult<&mut FusedHasher> {
    // SAFETY: with `busy` false no worker touches the state, and the caller holds no other
    // reference to it (this function's contract), so this `&mut` is the only one.
    let state = unsafe { &mut *cell.state.get() };
    state
        .as_mut()
        .ok_or_else(|| JsError::Plain(c"ERR_HASHER_FINISHED", "digest() was already called on this hasher".into()))
}

fn digests_to_js(env: Env<'_>, d: &Digests) -> JsResult<napi_value> {
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<1>(|env, [mask]| {
        let mask = parse_mask(env, required(mask, "mask")?)?;
        let cell =
            Box::new(HasherCell { state: UnsafeCell::new(Some(FusedHasher::new(mask))), busy: Cell::new(false) });
        env.external(cell, &HASHER_TAG)
    })
}

/// hasherUpdate(hasher, bytes): undefined
unsafe extern "C" fn hasher_update(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [h, buf]| {
        let cell = idle_hasher(env, required(h, "hasher")?)?;
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        // SAFETY: JS thread, `cell` idle (idle_hasher), and the state's `&mut` ends with this
        // statement.
        unsafe { live_state(cell) }?.update(bytes);
        env.undefined()
    })
}

/// hasherDigest(hasher): Digests — finishes the hasher.
unsafe extern "C" fn hasher_digest(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<1>(|env, [h]| {
        let cell = idle_hasher(env, required(h, "hasher")?)?;
        // SAFETY: JS thread, `cell` idle (idle_hasher); the `&mut` ends with this statement.
        unsafe { live_state(cell) }?;
        // SAFETY: as above: no worker touches the idle state and no other reference to it is live.
        let state = unsafe { &mut *cell.state.get() }.take().expect("checked live");
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

/// Marks the entries' hashers idle again and deletes the references the job held.
///
/// # Safety
/// The entries come from [`admit`] in `env`, their references not yet deleted, and no worker
/// is hashing them (their job never ran, or its `execute` has returned).
unsafe fn release_entries(env: Env<'_>, entries: &[ManyEntry]) {
    for e in entries {
        // SAFETY: `hasher_ref` still holds the external that owns `e.cell` (contract), so the
        // cell is alive; `busy` is only touched on the JS thread, where `env` is.
        unsafe { (*e.cell).busy.set(false) };
        // SAFETY: both references were made in this env by `admit` and are deleted only here,
        // once (contract).
        unsafe { napi_delete_reference(env.raw(), e.hasher_ref) };
        // SAFETY: as above.
        unsafe { napi_delete_reference(env.raw(), e.data_ref) };
    }
}

/// Admits one (hasher, bytes) pair into a job, making the hasher busy. `Ok(Err(_))`: this pair
/// is refused (not a hasher, busy, finished, not bytes) and the others go ahead; `Err(_)`: a
/// Node-API call failed and the whole call fails.
fn admit(env: Env<'_>, h: napi_value, buf: napi_value) -> JsResult<Result<ManyEntry, JsError>> {
    let checked = idle_hasher(env, h).and_then(|cell| {
        // SAFETY: JS thread, `cell` idle (idle_hasher); the `&mut` ends with this statement.
        unsafe { live_state(cell) }?;
        Ok((cell, env.bytes(buf, "data")?))
    });
    let (cell, bytes) = match checked {
        Ok(v) => v,
        Err(e @ JsError::Status(_)) => return Err(e),
        Err(e) => return Ok(Err(e)),
    };
    let hasher_ref = env.reference(h)?;
    let data_ref = env.reference(buf).inspect_err(|_| {
        // SAFETY: `hasher_ref` was just made in this env and is deleted only here.
        unsafe { napi_delete_reference(env.raw(), hasher_ref) };
    })?;
    cell.busy.set(true);
    Ok(Ok(ManyEntry { cell, data: bytes.as_ptr(), len: bytes.len(), hasher_ref, data_ref }))
}

/// The job's `execute`, on a libuv thread-pool thread: no Node-API calls here.
unsafe extern "C" fn many_execute(_env: napi_env, data: *mut c_void) {
    // SAFETY: `data` is the job that `hashers_update_many_async` leaked for this work. It is freed
    // only in `many_complete`, which Node-API runs after this returns, and the JS thread does not
    // touch it while the work is queued, so this is the only reference to it.
    let job = unsafe { &mut *(data as *mut AsyncUpdateMany) };
    let run = std::panic::AssertUnwindSafe(|| {
        let mut jobs: Vec<(&mut FusedHasher, &[u8])> = job
            .entries
            .iter()
            .map(|e| {
                // SAFETY: the entry's `hasher_ref` keeps the external, and so the cell, alive
                // until `many_complete`. Its hasher is busy, so the JS thread does not touch its
                // state meanwhile; `admit` refused a hasher that was already busy, so the cells
                // are distinct and these `&mut` do not alias; `admit` checked the state is live.
                let state = unsafe { &mut *(*e.cell).state.get() }.as_mut().expect("checked live");
                // SAFETY: `data`/`len` are the bytes of the Uint8Array that `data_ref` keeps
                // alive until `many_complete`; its callers neither detach, resize nor write to it
                // until the promise settles (napi.rs, Soundness). A zero length has no pointer.
                let bytes = if e.len == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(e.data, e.len) } };
                (state, bytes)
            })
            .collect();
        FusedHasher::update_many(&mut jobs);
    });
    job.panicked = std::panic::catch_unwind(run).is_err();
}

/// The job's `complete`, on the JS thread once `execute` has returned (or the work was cancelled).
unsafe extern "C" fn many_complete(env: napi_env, status: napi_status, data: *mut c_void) {
    // SAFETY: `data` is the job that `hashers_update_many_async` leaked for this work; Node-API
    // calls `complete` once, after `execute` returned, so the job is ours alone again.
    let job = unsafe { Box::from_raw(data as *mut AsyncUpdateMany) };
    let settle = |env: Env<'_>| settle_many(env, status, &job);
    // SAFETY: Node-API calls `complete` on the JS thread with its env.
    unsafe { with_env(env, settle) }
}

/// Settles a finished `hashersUpdateManyAsync` job's promise and releases what it held.
fn settle_many(env: Env<'_>, status: napi_status, job: &AsyncUpdateMany) {
    // SAFETY: the entries come from `admit` in this env, their references live, and the job's
    // `execute` has returned (or never ran).
    unsafe { release_entries(env, &job.entries) };
    // SAFETY: `job.work` was made in this env and is deleted only here, after it completed.
    unsafe { napi_delete_async_work(env.raw(), job.work) };
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
        // SAFETY: `job.deferred` was made in this env with the promise and is settled only here,
        // once, which frees it; `v` is a handle of this call.
        Ok(v) => unsafe { napi_resolve_deferred(env.raw(), job.deferred, v) },
        // A null rejection value would leave the promise pending forever.
        Err(_) => {
            let error = env.error("ERR_NAPI", "could not build the results of hashersUpdateManyAsync");
            match error.or_else(|_| env.undefined()) {
                // SAFETY: as for the resolution above: settled once, here; `v` is of this call.
                Ok(v) => unsafe { napi_reject_deferred(env.raw(), job.deferred, v) },
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [hs, bufs]| {
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
            // SAFETY: the entries were admitted in this call and no job has run over them.
            unsafe { release_entries(env, &entries) };
            return Err(e);
        }

        let mut deferred = ptr::null_mut();
        let mut promise = ptr::null_mut();
        // SAFETY: the env is live for this call; `deferred` and `promise` are locals to write to.
        if let Err(e) = check(unsafe { napi_create_promise(env.raw(), &mut deferred, &mut promise) }) {
            // SAFETY: the entries were admitted in this call and no job has run over them.
            unsafe { release_entries(env, &entries) };
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
            // SAFETY: `job` is the box just leaked, still ours alone (not queued yet): Node keeps
            // it as the work's data and writes the work's handle into its `work` field.
            // `many_execute` and `many_complete` take the `AsyncUpdateMany` it points to.
            check(unsafe {
                napi_create_async_work(
                    env.raw(),
                    ptr::null_mut(),
                    name,
                    many_execute,
                    many_complete,
                    job.cast(),
                    &mut (*job).work,
                )
            })
        });
        // SAFETY: `work` was made just above in this env; once queued, the job belongs to the work
        // and is not touched here again (its `work` field is read before the call).
        let queued = queued.and_then(|_| check(unsafe { napi_queue_async_work(env.raw(), (*job).work) }));
        if let Err(e) = queued {
            // SAFETY: the work was not queued, so `execute` and `complete` never run and the job
            // is still ours alone.
            let job = unsafe { Box::from_raw(job) };
            // SAFETY: the entries were admitted in this call and no job ran over them.
            unsafe { release_entries(env, &job.entries) };
            if !job.work.is_null() {
                // SAFETY: the work was made in this env and never queued; deleted once, here.
                unsafe { napi_delete_async_work(env.raw(), job.work) };
            }
            // The promise is never returned: settle it (resolved, so nothing reports it as an
            // unhandled rejection) to free the deferred.
            if let Ok(v) = env.undefined() {
                // SAFETY: `deferred` was made in this call and is settled only here.
                unsafe { napi_resolve_deferred(env.raw(), job.deferred, v) };
            }
            return Err(e);
        }
        Ok(promise)
    })
}

/// digestSync(bytes, mask): Digests
unsafe extern "C" fn digest_sync(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [buf, mask]| {
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        let mut h = FusedHasher::new(parse_mask(env, required(mask, "mask")?)?);
        h.update(bytes);
        digests_to_js(env, &h.finish())
    })
}

/// crc32c(bytes, seed = 0): number — `seed` is the CRC32C of the preceding bytes.
unsafe extern "C" fn crc32c(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<2>(|env, [buf, seed]| {
        let bytes = env.bytes(required(buf, "data")?, "data")?;
        let seed = if env.is_undefined_or_absent(seed)? { 0 } else { env.get_u32(seed.unwrap(), "seed")? };
        env.u32(digest::crc32c_continue(seed, bytes))
    })
}

/// simdPaths(): Record<algorithm, kernel name>
unsafe extern "C" fn simd_paths(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<0>(|env, []| {
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<1>(|env, [buf]| {
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<0>(|env, []| match digest::check_lanes() {
        Some(mismatch) => env.string(&mismatch),
        None => env.undefined(),
    })
}

/// Bytes of a string that fits a stack buffer: short strings (SigV4's) are copied out with one
/// call, without measuring them first or allocating.
const STACK_UTF8: usize = 4096;

/// Passes a JS string's UTF-8 to `f`.
fn with_utf8<R>(env: Env<'_>, value: napi_value, what: &str, f: impl FnOnce(&[u8]) -> R) -> JsResult<R> {
    let not_string = || JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a string"));
    let mut stack = [0u8; STACK_UTF8];
    let mut len = 0usize;
    // SAFETY: the env is live for this call and `value` is one of its handles; Node writes at most
    // STACK_UTF8 bytes (NUL included) into `stack`, which has that many, and the length to `len`.
    let status =
        unsafe { napi_get_value_string_utf8(env.raw(), value, stack.as_mut_ptr().cast(), STACK_UTF8, &mut len) };
    if status != NAPI_OK {
        return Err(not_string());
    }
    // Node stops before a character that does not fit whole (at most 4 bytes) and its NUL: a
    // shorter result is the whole string.
    if len + 5 <= STACK_UTF8 {
        return Ok(f(&stack[..len]));
    }
    // SAFETY: as above; with a null buffer Node only writes the string's UTF-8 length to `len`.
    check(unsafe { napi_get_value_string_utf8(env.raw(), value, ptr::null_mut(), 0, &mut len) })?;
    let mut heap = vec![0u8; len + 1];
    // SAFETY: as above; Node writes at most `heap.len()` bytes (the string and its NUL) into `heap`.
    check(unsafe { napi_get_value_string_utf8(env.raw(), value, heap.as_mut_ptr().cast(), heap.len(), &mut len) })?;
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<3>(|env, [key, data, hashed]| {
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

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
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
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<0>(|env, []| {
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
