//! tusk-native: the Node-API module loaded by src/native.ts. Every export is registered here;
//! each concern keeps its JS functions in its own `*_binding` module.

#![cfg_attr(test, allow(dead_code))]
// Every unsafe operation sits in its own `unsafe` block with a `// SAFETY:` comment saying why it
// is sound (napi.rs, "Soundness", has the rules the bindings' comments rest on).
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod digest;
mod napi;

#[cfg(not(test))]
mod aes_gcm_binding;
#[cfg(all(not(test), target_os = "linux", target_env = "gnu"))]
mod alloc_binding;
#[cfg(not(test))]
mod digest_binding;
#[cfg(all(not(test), target_os = "linux"))]
mod lock_binding;
#[cfg(not(test))]
mod rs2_binding;
#[cfg(all(not(test), target_os = "linux", target_env = "gnu"))]
mod stdio_binding;

/// # Safety
/// Called by Node-API with a valid `env` and `exports` object, once per JS environment, on its
/// JS thread.
#[cfg(not(test))]
#[no_mangle]
pub unsafe extern "C" fn napi_register_module_v1(env: napi::napi_env, exports: napi::napi_value) -> napi::napi_value {
    let register = |env: napi::Env<'_>| register(env, exports);
    // SAFETY: Node-API calls this with the env of the JS thread it runs on (this function's
    // contract).
    unsafe { napi::with_env(env, register) }
}

/// Adds every export to `exports`, or throws.
#[cfg(not(test))]
fn register(env: napi::Env<'_>, exports: napi::napi_value) -> napi::napi_value {
    let registered = digest_binding::register(env, exports)
        .and_then(|()| rs2_binding::register(env, exports))
        .and_then(|()| aes_gcm_binding::register(env, exports));
    #[cfg(target_os = "linux")]
    let registered = registered.and_then(|()| lock_binding::register(env, exports));
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let registered = registered
        .and_then(|()| alloc_binding::register(env, exports))
        .and_then(|()| stdio_binding::register(env, exports));
    match registered {
        Ok(()) => exports,
        Err(e) => {
            env.throw(e);
            std::ptr::null_mut()
        }
    }
}

/// Node-API version this module is written against (Node >= 20 provides 9).
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    8
}
