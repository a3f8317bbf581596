//! keepLargeAllocations(mmapThreshold, trimThreshold, topPad): glibc's malloc serves allocations
//! above its mmap threshold (at most 32 MiB when left dynamic) with fresh mmaps and returns them
//! on free, so each RS2 encode's tens of megabytes of slivers are page-faulted in again, while
//! the previous blob's are unmapped by another thread (~100 ms of kernel time per 10 MiB blob).
//! Raising the thresholds keeps that memory in the heap for the next blob.

use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::napi::*;

/// keepLargeAllocations(mmapThreshold, trimThreshold, topPad): boolean — true once glibc took all three.
unsafe extern "C" fn keep_large_allocations(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<3>(|env, [mmap, trim, pad]| {
        let mmap = env.get_u32(required(mmap, "mmapThreshold")?, "mmapThreshold")?;
        let trim = env.get_u32(required(trim, "trimThreshold")?, "trimThreshold")?;
        let pad = env.get_u32(required(pad, "topPad")?, "topPad")?;
        let as_int = |v: u32| {
            i32::try_from(v).map_err(|_| JsError::Range(c"ERR_OUT_OF_RANGE", format!("{v} is above 2^31 - 1")))
        };
        let (mmap, trim, pad) = (as_int(mmap)?, as_int(trim)?, as_int(pad)?);
        // SAFETY: mallopt takes plain integers and only retunes glibc's allocator, under its own
        // lock; it touches no memory of ours.
        let ok = unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, mmap) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, trim) == 1
                && libc::mallopt(libc::M_TOP_PAD, pad) == 1
        };
        env.boolean(ok)
    })
}

/// trimFreeMemoryEvery(intervalMs): boolean — from a thread of its own, every `intervalMs`,
/// malloc_trim(0) hands the free pages of every arena back to the kernel (the thresholds above keep
/// them otherwise). It takes 100–300 ms under load, so it runs on no JavaScript thread. Once per
/// process: true when this call started the thread, false when one already runs.
unsafe extern "C" fn trim_free_memory_every(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<1>(|env, [interval]| {
        let ms = env.get_u32(required(interval, "intervalMs")?, "intervalMs")?;
        if ms == 0 {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", "intervalMs must be above 0".into()));
        }
        static STARTED: AtomicBool = AtomicBool::new(false);
        if STARTED.swap(true, Ordering::SeqCst) {
            return env.boolean(false);
        }
        let spawned = std::thread::Builder::new().name("tusk-malloc-trim".into()).spawn(move || loop {
            std::thread::sleep(Duration::from_millis(u64::from(ms)));
            // SAFETY: malloc_trim takes no pointer; it only walks glibc's own arenas, each under its lock.
            unsafe { libc::malloc_trim(0) };
        });
        if spawned.is_err() {
            STARTED.store(false, Ordering::SeqCst);
        }
        env.boolean(spawned.is_ok())
    })
}

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
    let name: &CStr = c"keepLargeAllocations";
    env.set(exports, name, env.function(name, keep_large_allocations)?)?;
    let name: &CStr = c"trimFreeMemoryEvery";
    env.set(exports, name, env.function(name, trim_free_memory_every)?)
}
