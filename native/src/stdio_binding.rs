//! cStdoutToStderr(): points the C library's `stdout` stream, and C++'s std::cout, at stderr,
//! leaving file descriptor 1 alone. Node writes process.stdout straight to fd 1, so the JSON log
//! stays there, while native code that prints with printf or std::cout writes to stderr: the
//! uWebSockets binaries print "finding <name>" and "Browsed to SNI: <name>" for each TLS server
//! name they switch to (src/http/uws.ts). Runs before such a library is loaded: a libstdc++ it
//! links statically builds its std::cout on the `stdout` it finds then.

use std::ffi::{c_void, CStr};
use std::sync::OnceLock;

use crate::napi::*;

extern "C" {
    // glibc's standard streams (<stdio.h>); the libc crate does not declare them
    static mut stdout: *mut libc::FILE;
    static mut stderr: *mut libc::FILE;
}

/// `std::ios_base::sync_with_stdio(bool)` of the libstdc++ Node links, if it exports one: a uWS
/// binary's std::cout resolves to that library's, built on the old `stdout` at Node's start.
/// Turning synchronisation off rebuilds std::cout on the stream `stdout` names now (libstdc++
/// ios_init.cc); looked up at run time, so that a Node without it still loads this module.
const SYNC_WITH_STDIO: &CStr = c"_ZNSt8ios_base15sync_with_stdioEb";

/// Once per process, whichever thread asks first: the streams are the process's.
static REBUILT: OnceLock<bool> = OnceLock::new();

/// Points `stdout` at `stderr` and rebuilds std::cout on it; whether std::cout was found.
fn redirect() -> bool {
    // SAFETY: stdout and stderr are glibc's stream pointers, valid for the whole process. This
    // runs once (REBUILT), at start-up, before the libraries that print are loaded: nothing
    // prints through `stdout` while it is flushed and replaced.
    unsafe {
        libc::fflush(stdout);
        stdout = stderr;
    }
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name only searches the loaded objects.
    let sync: *mut c_void = unsafe { libc::dlsym(libc::RTLD_DEFAULT, SYNC_WITH_STDIO.as_ptr()) };
    if sync.is_null() {
        return false;
    }
    // SAFETY: the symbol is the static member function `bool std::ios_base::sync_with_stdio(bool)`
    // (its mangled name says so), called like a C function with a bool on the platforms Node runs on.
    let sync: extern "C" fn(bool) -> bool =
        unsafe { std::mem::transmute::<*mut c_void, extern "C" fn(bool) -> bool>(sync) };
    sync(false);
    true
}

/// cStdoutToStderr(): boolean — whether std::cout was rebuilt too (printf's stream always is).
unsafe extern "C" fn c_stdout_to_stderr(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<0>(|env, []| env.boolean(*REBUILT.get_or_init(redirect)))
}

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
    let name: &CStr = c"cStdoutToStderr";
    env.set(exports, name, env.function(name, c_stdout_to_stderr)?)
}
