//! lockFile(fd): an exclusive, non-blocking flock(2) on an open file. Node has no flock; the lock
//! is the kernel's, so it goes away with the process (a crash or kill -9 leaves nothing stale).
//! Used by src/data-dir-lock.ts to give each data directory a single owner.

use std::ffi::CStr;

use crate::napi::*;

/// lockFile(fd: number): boolean — true once the lock is held, false when another open file
/// description (another process, or another open in this one) holds it; other errors throw.
unsafe extern "C" fn lock_file(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<1>(|env, [fd]| {
        let fd = env.get_u32(required(fd, "fd")?, "fd")?;
        let fd = i32::try_from(fd).map_err(|_| JsError::Range(c"ERR_OUT_OF_RANGE", format!("invalid fd {fd}")))?;
        loop {
            // SAFETY: flock takes a descriptor number and flags and touches no memory; a number
            // that is not an open descriptor fails with EBADF (an error thrown below).
            if unsafe { libc::flock(fd, libc::LOCK_EX | libc::LOCK_NB) } == 0 {
                return env.boolean(true);
            }
            let err = std::io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return env.boolean(false),
                _ => return Err(JsError::Plain(c"ERR_LOCK_FAILED", format!("flock: {err}"))),
            }
        }
    })
}

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
    let name: &CStr = c"lockFile";
    env.set(exports, name, env.function(name, lock_file)?)
}
