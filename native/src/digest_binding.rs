//! JS functions over [`digest::FusedHasher`]. A hasher is a tagged JS external owning the state;
//! `hasherUpdateAsync` hashes on the libuv thread pool (Node-API async work) while the JS thread
//! keeps running. One operation at a time per hasher: starting another while an async update is
//! in flight throws `ERR_HASHER_BUSY` (src/native.ts chains async calls for its callers).

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
        let cell = Box::new(HasherCell { state: UnsafeCell::new(Some(FusedHasher::new(mask))), busy: Cell::new(false) });
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

struct AsyncUpdate {
    cell: *const HasherCell,
    data: *const u8,
    len: usize,
    /// Keep the hasher and the input array alive until `complete` runs.
    hasher_ref: napi_ref,
    data_ref: napi_ref,
    deferred: napi_deferred,
    work: napi_async_work,
    panicked: bool,
}

unsafe extern "C" fn async_update_execute(_env: napi_env, data: *mut c_void) {
    let job = &mut *(data as *mut AsyncUpdate);
    let bytes = if job.len == 0 { &[][..] } else { std::slice::from_raw_parts(job.data, job.len) };
    let state = &mut *(*job.cell).state.get();
    let run = std::panic::AssertUnwindSafe(|| state.as_mut().expect("checked live").update(bytes));
    job.panicked = std::panic::catch_unwind(run).is_err();
}

unsafe extern "C" fn async_update_complete(env: napi_env, status: napi_status, data: *mut c_void) {
    let job = Box::from_raw(data as *mut AsyncUpdate);
    let env = Env(env);
    (*job.cell).busy.set(false);
    napi_delete_reference(env.0, job.hasher_ref);
    napi_delete_reference(env.0, job.data_ref);
    napi_delete_async_work(env.0, job.work);
    let outcome = if status == NAPI_OK && !job.panicked {
        env.undefined().map(|v| (true, v))
    } else if job.panicked {
        env.error("ERR_NATIVE_PANIC", "tusk-native panicked while hashing").map(|v| (false, v))
    } else {
        env.error("ERR_HASHER_CANCELLED", &format!("async update ended with Node-API status {status}")).map(|v| (false, v))
    };
    match outcome {
        Ok((true, v)) => napi_resolve_deferred(env.0, job.deferred, v),
        Ok((false, v)) => napi_reject_deferred(env.0, job.deferred, v),
        Err(_) => napi_reject_deferred(env.0, job.deferred, ptr::null_mut()),
    };
}

/// hasherUpdateAsync(hasher, bytes): Promise<void> — `bytes` must not be modified until it settles.
unsafe extern "C" fn hasher_update_async(env: napi_env, info: napi_callback_info) -> napi_value {
    callback::<2>(env, info, |env, [h, buf]| {
        let h = required(h, "hasher")?;
        let buf = required(buf, "data")?;
        let cell = idle_hasher(env, h)?;
        live_state(cell)?;
        let bytes = env.bytes(buf, "data")?;

        let mut deferred = ptr::null_mut();
        let mut promise = ptr::null_mut();
        check(napi_create_promise(env.0, &mut deferred, &mut promise))?;
        let job = Box::into_raw(Box::new(AsyncUpdate {
            cell,
            data: bytes.as_ptr(),
            len: bytes.len(),
            hasher_ref: env.reference(h)?,
            data_ref: env.reference(buf)?,
            deferred,
            work: ptr::null_mut(),
            panicked: false,
        }));
        let name = env.string("tusk-native:hasherUpdateAsync")?;
        let queued = check(napi_create_async_work(
            env.0,
            ptr::null_mut(),
            name,
            async_update_execute,
            async_update_complete,
            job.cast(),
            &mut (*job).work,
        ))
        .and_then(|_| check(napi_queue_async_work(env.0, (*job).work)));
        if let Err(e) = queued {
            let job = Box::from_raw(job);
            napi_delete_reference(env.0, job.hasher_ref);
            napi_delete_reference(env.0, job.data_ref);
            if !job.work.is_null() {
                napi_delete_async_work(env.0, job.work);
            }
            return Err(e);
        }
        cell.busy.set(true);
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

pub fn register(env: Env, exports: napi_value) -> JsResult<()> {
    let functions: [(&std::ffi::CStr, napi_callback); 9] = [
        (c"createHasher", create_hasher),
        (c"hasherUpdate", hasher_update),
        (c"hasherUpdateAsync", hasher_update_async),
        (c"hasherDigest", hasher_digest),
        (c"digestSync", digest_sync),
        (c"crc32c", crc32c),
        (c"simdPaths", simd_paths),
        (c"compareKernels", compare_kernels),
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
