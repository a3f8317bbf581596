//! The subset of the Node-API C ABI (node_api.h / js_native_api.h) this module uses, plus a few
//! safe wrappers. The `napi` crate is not packaged by Debian, so the declarations live here.
//! The symbols are resolved from the node process when it loads the `.node` file (Linux allows
//! undefined symbols in a shared object; macOS needs `-undefined dynamic_lookup`, see build.rs).
//!
//! # Soundness
//! The `// SAFETY:` comments of the bindings rest on these facts and rules:
//! - Node-API calls a function this module gives it (a JS function's callback, the module
//!   registration, an async work's `complete`, a finalizer) on the JS thread of its `napi_env`,
//!   with that live env. The handles (`napi_value`) it passes, and those made during the call,
//!   stay valid until the call returns and its handle scope closes. [`Env`] is that env for one
//!   such call: its lifetime `'cb` ends with the call, and it is made only by [`with_env`] and
//!   [`JsCall::run`], so what it hands out (an argument's bytes, a new ArrayBuffer's memory)
//!   cannot outlive the call. `Env` holds a raw pointer, so it is neither `Send` nor `Sync`: it
//!   never leaves the JS thread.
//! - A `napi_value` is only used with the env it came from and within the call that has it; one
//!   that must live on is held through a `napi_ref` (see `hashersUpdateManyAsync`). The types do
//!   not check this: `napi_value` is a raw handle.
//! - The bytes of a Buffer / Uint8Array argument are the JS engine's memory. They stay in place
//!   while the array is reachable (a handle of the call, or a `napi_ref`) and its ArrayBuffer is
//!   neither detached nor resized. The callers of this module (src/native.ts and the code that
//!   calls it) pass arrays backed by non-shared ArrayBuffers and do not detach, resize or write
//!   to them while a call runs (nor, for `hashersUpdateManyAsync`, until its promise settles).
//!   No JS runs during a call except through a Node-API call that may run user code (a getter
//!   reached by `napi_get_element`, a setter on `Object.prototype`), which they do not install.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void, CStr};
use std::marker::PhantomData;
use std::ptr;

#[repr(C)]
pub struct napi_env__ {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct napi_value__ {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct opaque {
    _opaque: [u8; 0],
}

pub type napi_env = *mut napi_env__;
pub type napi_value = *mut napi_value__;
pub type napi_callback_info = *mut opaque;
pub type napi_ref = *mut opaque;
pub type napi_deferred = *mut opaque;
pub type napi_async_work = *mut opaque;
pub type napi_status = i32;

pub const NAPI_OK: napi_status = 0;

pub const NAPI_EXTERNAL: i32 = 8; // napi_valuetype::napi_external
pub const NAPI_UINT8_ARRAY: i32 = 1; // napi_typedarray_type::napi_uint8_array
pub const NAPI_UINT8_CLAMPED_ARRAY: i32 = 2;

#[repr(C)]
pub struct napi_type_tag {
    pub lower: u64,
    pub upper: u64,
}

pub type napi_callback = unsafe extern "C" fn(napi_env, napi_callback_info) -> napi_value;
pub type napi_finalize = unsafe extern "C" fn(napi_env, *mut c_void, *mut c_void);
pub type napi_async_execute_callback = unsafe extern "C" fn(napi_env, *mut c_void);
pub type napi_async_complete_callback = unsafe extern "C" fn(napi_env, napi_status, *mut c_void);

extern "C" {
    pub fn napi_get_undefined(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_create_object(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_create_uint32(env: napi_env, value: u32, result: *mut napi_value) -> napi_status;
    pub fn napi_create_bigint_uint64(env: napi_env, value: u64, result: *mut napi_value) -> napi_status;
    pub fn napi_create_string_utf8(
        env: napi_env,
        s: *const c_char,
        length: usize,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_function(
        env: napi_env,
        name: *const c_char,
        length: usize,
        cb: napi_callback,
        data: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_error(env: napi_env, code: napi_value, msg: napi_value, result: *mut napi_value) -> napi_status;
    pub fn napi_typeof(env: napi_env, value: napi_value, result: *mut i32) -> napi_status;
    pub fn napi_get_value_uint32(env: napi_env, value: napi_value, result: *mut u32) -> napi_status;
    pub fn napi_set_named_property(
        env: napi_env,
        object: napi_value,
        name: *const c_char,
        value: napi_value,
    ) -> napi_status;
    pub fn napi_get_cb_info(
        env: napi_env,
        cbinfo: napi_callback_info,
        argc: *mut usize,
        argv: *mut napi_value,
        this_arg: *mut napi_value,
        data: *mut *mut c_void,
    ) -> napi_status;
    pub fn napi_create_external(
        env: napi_env,
        data: *mut c_void,
        finalize_cb: Option<napi_finalize>,
        finalize_hint: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_value_external(env: napi_env, value: napi_value, result: *mut *mut c_void) -> napi_status;
    pub fn napi_type_tag_object(env: napi_env, value: napi_value, tag: *const napi_type_tag) -> napi_status;
    pub fn napi_check_object_type_tag(
        env: napi_env,
        value: napi_value,
        tag: *const napi_type_tag,
        result: *mut bool,
    ) -> napi_status;
    pub fn napi_create_reference(
        env: napi_env,
        value: napi_value,
        initial_refcount: u32,
        result: *mut napi_ref,
    ) -> napi_status;
    pub fn napi_delete_reference(env: napi_env, r: napi_ref) -> napi_status;
    pub fn napi_throw_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_throw_type_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_throw_range_error(env: napi_env, code: *const c_char, msg: *const c_char) -> napi_status;
    pub fn napi_is_exception_pending(env: napi_env, result: *mut bool) -> napi_status;
    pub fn napi_is_typedarray(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_typedarray_info(
        env: napi_env,
        typedarray: napi_value,
        kind: *mut i32,
        length: *mut usize,
        data: *mut *mut c_void,
        arraybuffer: *mut napi_value,
        byte_offset: *mut usize,
    ) -> napi_status;
    pub fn napi_create_promise(env: napi_env, deferred: *mut napi_deferred, promise: *mut napi_value) -> napi_status;
    pub fn napi_resolve_deferred(env: napi_env, deferred: napi_deferred, resolution: napi_value) -> napi_status;
    pub fn napi_reject_deferred(env: napi_env, deferred: napi_deferred, rejection: napi_value) -> napi_status;
    pub fn napi_create_buffer_copy(
        env: napi_env,
        length: usize,
        data: *const c_void,
        result_data: *mut *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_async_work(
        env: napi_env,
        async_resource: napi_value,
        async_resource_name: napi_value,
        execute: napi_async_execute_callback,
        complete: napi_async_complete_callback,
        data: *mut c_void,
        result: *mut napi_async_work,
    ) -> napi_status;
    pub fn napi_delete_async_work(env: napi_env, work: napi_async_work) -> napi_status;
    pub fn napi_queue_async_work(env: napi_env, work: napi_async_work) -> napi_status;
    // Used by rs2_binding.rs.
    pub fn napi_get_null(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_get_boolean(env: napi_env, value: bool, result: *mut napi_value) -> napi_status;
    pub fn napi_create_double(env: napi_env, value: f64, result: *mut napi_value) -> napi_status;
    pub fn napi_get_value_double(env: napi_env, value: napi_value, result: *mut f64) -> napi_status;
    // Used by hmacSha256Hex (digest_binding.rs).
    pub fn napi_get_value_string_utf8(
        env: napi_env,
        value: napi_value,
        buf: *mut c_char,
        bufsize: usize,
        result: *mut usize,
    ) -> napi_status;
    pub fn napi_create_arraybuffer(
        env: napi_env,
        byte_length: usize,
        data: *mut *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_is_array(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_array_length(env: napi_env, value: napi_value, result: *mut u32) -> napi_status;
    pub fn napi_get_element(env: napi_env, object: napi_value, index: u32, result: *mut napi_value) -> napi_status;
    // Used by hashersUpdateManyAsync (digest_binding.rs).
    pub fn napi_create_array_with_length(env: napi_env, length: usize, result: *mut napi_value) -> napi_status;
    pub fn napi_set_element(env: napi_env, object: napi_value, index: u32, value: napi_value) -> napi_status;
    pub fn napi_create_type_error(
        env: napi_env,
        code: napi_value,
        msg: napi_value,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_create_range_error(
        env: napi_env,
        code: napi_value,
        msg: napi_value,
        result: *mut napi_value,
    ) -> napi_status;
}

/// Why a callback failed. `Status` means a Node-API call failed (a JS exception may be pending);
/// the others become a thrown `TypeError`/`RangeError`/`Error` with `code`.
#[derive(Debug)]
pub enum JsError {
    Status(napi_status),
    Type(&'static CStr, String),
    Range(&'static CStr, String),
    Plain(&'static CStr, String),
}

pub type JsResult<T> = Result<T, JsError>;

#[inline]
pub fn check(status: napi_status) -> JsResult<()> {
    if status == NAPI_OK {
        Ok(())
    } else {
        Err(JsError::Status(status))
    }
}

/// The `napi_env` of one call from Node-API, on its JS thread; `'cb` is that call (see the
/// module's Soundness section). Made only by [`with_env`] and [`JsCall::run`].
#[derive(Clone, Copy)]
pub struct Env<'cb> {
    raw: napi_env,
    call: PhantomData<&'cb ()>,
}

/// Runs `f` with `raw` as an [`Env`] whose lifetime ends when `f` returns.
///
/// # Safety
/// `raw` is the env that Node-API passed to the function calling this one, which runs on the
/// env's JS thread and has not returned.
pub unsafe fn with_env<R>(raw: napi_env, f: impl for<'cb> FnOnce(Env<'cb>) -> R) -> R {
    f(Env { raw, call: PhantomData })
}

impl<'cb> Env<'cb> {
    /// The env, for a Node-API call that has no wrapper here; it is live until `'cb` ends.
    pub fn raw(self) -> napi_env {
        self.raw
    }

    pub fn undefined(self) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live on this thread for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_get_undefined(self.raw, &mut v) })?;
        Ok(v)
    }

    pub fn object(self) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live on this thread for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_create_object(self.raw, &mut v) })?;
        Ok(v)
    }

    pub fn boolean(self, b: bool) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live on this thread for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_get_boolean(self.raw, b, &mut v) })?;
        Ok(v)
    }

    pub fn u32(self, n: u32) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live on this thread for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_create_uint32(self.raw, n, &mut v) })?;
        Ok(v)
    }

    pub fn bigint_u64(self, n: u64) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live on this thread for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_create_bigint_uint64(self.raw, n, &mut v) })?;
        Ok(v)
    }

    pub fn string(self, s: &str) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); Node reads exactly `s.len()` bytes of UTF-8
        // from `s`, which is borrowed for the call (no NUL needed with an explicit length).
        check(unsafe { napi_create_string_utf8(self.raw, s.as_ptr().cast(), s.len(), &mut v) })?;
        Ok(v)
    }

    pub fn buffer_copy(self, bytes: &[u8]) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        let mut out = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); Node copies `bytes.len()` bytes from `bytes`,
        // borrowed for the call, into a new Buffer; `out` and `v` are locals to write to.
        check(unsafe { napi_create_buffer_copy(self.raw, bytes.len(), bytes.as_ptr().cast(), &mut out, &mut v) })?;
        Ok(v)
    }

    pub fn set(self, object: napi_value, name: &CStr, value: napi_value) -> JsResult<()> {
        // SAFETY: `self.raw` is live for 'cb (Env); `object` and `value` are handles of this call;
        // `name` is a NUL-terminated string borrowed for the call.
        check(unsafe { napi_set_named_property(self.raw, object, name.as_ptr(), value) })
    }

    pub fn function(self, name: &CStr, cb: napi_callback) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        let bytes = name.to_bytes();
        // SAFETY: `self.raw` is live for 'cb (Env); Node copies the `bytes.len()` bytes of the
        // name; `cb` is a Node-API callback of this module, with no data pointer.
        check(unsafe {
            napi_create_function(self.raw, bytes.as_ptr().cast(), bytes.len(), cb, ptr::null_mut(), &mut v)
        })?;
        Ok(v)
    }

    pub fn is_undefined_or_absent(self, value: Option<napi_value>) -> JsResult<bool> {
        let Some(value) = value else { return Ok(true) };
        let mut t = 0;
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `t` is a
        // local to write to.
        check(unsafe { napi_typeof(self.raw, value, &mut t) })?;
        Ok(t == 0)
    }

    /// A uint32 argument; a non-number or a value out of range is a TypeError/RangeError.
    pub fn get_u32(self, value: napi_value, what: &str) -> JsResult<u32> {
        let mut n = 0u32;
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `n` is a
        // local to write to.
        let status = unsafe { napi_get_value_uint32(self.raw, value, &mut n) };
        if status != NAPI_OK {
            return Err(JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a number")));
        }
        Ok(n)
    }

    /// The bytes of a Uint8Array (Buffer included), borrowed for this call.
    pub fn bytes(self, value: napi_value, what: &str) -> JsResult<&'cb [u8]> {
        let (data, len) = self.typed_bytes(value, what)?;
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: `data` is the array's first byte (Node adds its byte offset) and the array
        // views `len` bytes (one byte per element: a Uint8Array) of its ArrayBuffer's live
        // allocation. `value` is a handle of this call, so the array stays reachable for 'cb, and
        // the callers neither detach, resize nor write to it meanwhile (module doc, Soundness).
        Ok(unsafe { std::slice::from_raw_parts(data, len) })
    }

    /// The bytes of a Uint8Array to write into, borrowed for this call like [`Env::bytes`].
    ///
    /// # Safety
    /// Two JS arguments may be views of one ArrayBuffer, so this slice may alias another slice
    /// taken in the same call ([`Env::bytes`] or this): the caller checks it against each of them
    /// with [`overlapping`] and reads or writes none of them unless they are disjoint.
    pub unsafe fn bytes_mut(self, value: napi_value, what: &str) -> JsResult<&'cb mut [u8]> {
        let (data, len) = self.typed_bytes(value, what)?;
        if len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as in `bytes`: `len` bytes from `data` lie in the array's ArrayBuffer, which
        // stays in place for 'cb; no one else writes to them during the call (module doc), and
        // the caller keeps other slices of this call off them (this function's contract).
        Ok(unsafe { std::slice::from_raw_parts_mut(data, len) })
    }

    fn typed_bytes(self, value: napi_value, what: &str) -> JsResult<(*mut u8, usize)> {
        let mut is = false;
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `is` is a
        // local to write to.
        check(unsafe { napi_is_typedarray(self.raw, value, &mut is) })?;
        let not_bytes = || JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a Buffer or Uint8Array"));
        if !is {
            return Err(not_bytes());
        }
        let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
        let (mut ab, mut offset) = (ptr::null_mut(), 0usize);
        // SAFETY: `value` is a typed array (checked above) and a handle of this call; the five
        // out-parameters are locals of the types node_api.h gives them.
        check(unsafe {
            napi_get_typedarray_info(self.raw, value, &mut kind, &mut len, &mut data, &mut ab, &mut offset)
        })?;
        if kind != NAPI_UINT8_ARRAY && kind != NAPI_UINT8_CLAMPED_ARRAY {
            return Err(not_bytes());
        }
        if len == 0 || data.is_null() {
            return Ok((ptr::null_mut(), 0));
        }
        Ok((data as *mut u8, len))
    }

    /// Moves `data` into a new JS external tagged with `tag`; it is dropped when the external is
    /// collected (or here, if the external cannot be made).
    pub fn external<T: 'static>(self, data: Box<T>, tag: &napi_type_tag) -> JsResult<napi_value> {
        /// The external's finalizer: takes back and drops the box [`Env::external`] gave it.
        unsafe extern "C" fn drop_box<T>(_env: napi_env, data: *mut c_void, _hint: *mut c_void) {
            // SAFETY: `data` is the pointer `Env::external` made with `Box::<T>::into_raw` for this
            // external; Node-API calls the finalizer once, when no handle to the external is left.
            drop(unsafe { Box::from_raw(data.cast::<T>()) });
        }
        let raw = Box::into_raw(data);
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); `raw` is a valid pointer that the external
        // owns from now on, freed by `drop_box::<T>`, which matches its type.
        let created =
            check(unsafe { napi_create_external(self.raw, raw.cast(), Some(drop_box::<T>), ptr::null_mut(), &mut v) });
        if let Err(e) = created {
            // SAFETY: no external was made, so nothing else has `raw`: the box is still ours.
            drop(unsafe { Box::from_raw(raw) });
            return Err(e);
        }
        // SAFETY: `v` is the external just made, a handle of this call; `tag` is borrowed for the
        // call (Node copies it).
        check(unsafe { napi_type_tag_object(self.raw, v, tag) })?;
        Ok(v)
    }

    /// The pointer inside an external created by [`Env::external`] with the same `tag`.
    pub fn unwrap_external(self, value: napi_value, tag: &napi_type_tag, what: &str) -> JsResult<*mut c_void> {
        let mut t = 0;
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `t` is a
        // local to write to.
        check(unsafe { napi_typeof(self.raw, value, &mut t) })?;
        let mut ok = false;
        if t == NAPI_EXTERNAL {
            // SAFETY: as above; `tag` is borrowed for the call; `ok` is a local to write to.
            check(unsafe { napi_check_object_type_tag(self.raw, value, tag, &mut ok) })?;
        }
        if !ok {
            return Err(JsError::Type(
                c"ERR_INVALID_ARG_TYPE",
                format!("{what} is not a handle created by this module"),
            ));
        }
        let mut data = ptr::null_mut();
        // SAFETY: `value` is an external (checked above) and a handle of this call; `data` is a
        // local to write to.
        check(unsafe { napi_get_value_external(self.raw, value, &mut data) })?;
        Ok(data)
    }

    /// The length of a JS array; anything else is a TypeError.
    pub fn array_length(self, value: napi_value, what: &str) -> JsResult<u32> {
        let mut is = false;
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `is` is a
        // local to write to.
        check(unsafe { napi_is_array(self.raw, value, &mut is) })?;
        if !is {
            return Err(JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be an array")));
        }
        let mut len = 0;
        // SAFETY: `value` is an array (checked above) and a handle of this call; `len` is a local.
        check(unsafe { napi_get_array_length(self.raw, value, &mut len) })?;
        Ok(len)
    }

    pub fn element(self, array: napi_value, index: u32) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); `array` is a handle of this call; `v` is a
        // local to write to.
        check(unsafe { napi_get_element(self.raw, array, index, &mut v) })?;
        Ok(v)
    }

    pub fn array(self, length: usize) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); `v` is a local to write to.
        check(unsafe { napi_create_array_with_length(self.raw, length, &mut v) })?;
        Ok(v)
    }

    pub fn set_element(self, array: napi_value, index: u32, value: napi_value) -> JsResult<()> {
        // SAFETY: `self.raw` is live for 'cb (Env); `array` and `value` are handles of this call.
        check(unsafe { napi_set_element(self.raw, array, index, value) })
    }

    /// A strong reference to `value` (count 1), which keeps it alive past this call until it is
    /// deleted with `napi_delete_reference`.
    pub fn reference(self, value: napi_value) -> JsResult<napi_ref> {
        let mut r = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); `value` is a handle of this call; `r` is a
        // local to write to.
        check(unsafe { napi_create_reference(self.raw, value, 1, &mut r) })?;
        Ok(r)
    }

    pub fn error(self, code: &str, message: &str) -> JsResult<napi_value> {
        let (code, message) = (self.string(code)?, self.string(message)?);
        let mut v = ptr::null_mut();
        // SAFETY: `self.raw` is live for 'cb (Env); `code` and `message` are strings just made in
        // this call; `v` is a local to write to.
        check(unsafe { napi_create_error(self.raw, code, message, &mut v) })?;
        Ok(v)
    }

    /// `err` as an Error object (TypeError/RangeError as it would be thrown), to pass as a value.
    pub fn error_value(self, err: &JsError) -> JsResult<napi_value> {
        let status_message;
        let (create, code, message): (unsafe extern "C" fn(_, _, _, _) -> _, &CStr, &str) = match err {
            JsError::Type(code, m) => (napi_create_type_error, code, m),
            JsError::Range(code, m) => (napi_create_range_error, code, m),
            JsError::Plain(code, m) => (napi_create_error, code, m),
            JsError::Status(s) => {
                status_message = format!("Node-API call failed with status {s}");
                (napi_create_error, c"ERR_NAPI", &status_message)
            }
        };
        let (code, message) = (self.string(code.to_str().unwrap_or("ERR_NATIVE"))?, self.string(message)?);
        let mut v = ptr::null_mut();
        // SAFETY: `create` is one of napi_create_{,type_,range_}error, which share one signature;
        // `self.raw` is live for 'cb (Env); `code` and `message` are strings just made in this
        // call; `v` is a local to write to.
        check(unsafe { create(self.raw, code, message, &mut v) })?;
        Ok(v)
    }

    /// Throws `err` unless a JS exception is already pending.
    pub fn throw(self, err: JsError) {
        let mut pending = false;
        // SAFETY: `self.raw` is live for 'cb (Env); `pending` is a local to write to. On failure
        // `pending` stays false and the throw below is attempted anyway.
        unsafe { napi_is_exception_pending(self.raw, &mut pending) };
        if pending {
            return;
        }
        let to_c = |s: String| std::ffi::CString::new(s.replace('\0', " ")).unwrap_or_default();
        // SAFETY: `self.raw` is live for 'cb (Env); every code and message is a NUL-terminated
        // string that lives until the end of its statement (a `&'static CStr`, or a `CString`
        // temporary), which Node copies before returning.
        unsafe {
            match err {
                JsError::Type(code, m) => napi_throw_type_error(self.raw, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Range(code, m) => napi_throw_range_error(self.raw, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Plain(code, m) => napi_throw_error(self.raw, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Status(s) => napi_throw_error(
                    self.raw,
                    c"ERR_NAPI".as_ptr(),
                    to_c(format!("Node-API call failed with status {s}")).as_ptr(),
                ),
            };
        }
    }
}

/// One call of a JS function this module exported: the env and callback info Node-API passed.
pub struct JsCall {
    env: napi_env,
    info: napi_callback_info,
}

impl JsCall {
    /// # Safety
    /// `env` and `info` are the arguments Node-API passed to the `napi_callback` that calls this,
    /// on the env's JS thread, and that callback returns the result of [`JsCall::run`].
    pub unsafe fn new(env: napi_env, info: napi_callback_info) -> JsCall {
        JsCall { env, info }
    }

    /// Runs the JS-callable Rust function `f`: collects up to `N` arguments, converts an `Err`
    /// into a thrown exception and a panic into a thrown `Error` (unwinding across the C ABI would
    /// abort). `f` gets an [`Env`] that lives as long as its run.
    pub fn run<const N: usize>(
        self,
        f: impl for<'cb> FnOnce(Env<'cb>, [Option<napi_value>; N]) -> JsResult<napi_value>,
    ) -> napi_value {
        let info = self.info;
        let run = |env: Env<'_>| {
            let args = || -> JsResult<[Option<napi_value>; N]> {
                let mut argc = N;
                let mut argv = [ptr::null_mut(); N];
                // SAFETY: `info` is this call's callback info (JsCall::new); Node writes at most
                // `argc` = N handles into `argv`, which has N slots, and the count to `argc`.
                check(unsafe {
                    napi_get_cb_info(env.raw, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut())
                })?;
                let mut args = [None; N];
                for (i, slot) in args.iter_mut().enumerate().take(argc.min(N)) {
                    *slot = Some(argv[i]);
                }
                Ok(args)
            };
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(env, args()?)));
            match result {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    env.throw(e);
                    ptr::null_mut()
                }
                Err(_) => {
                    env.throw(JsError::Plain(c"ERR_NATIVE_PANIC", "tusk-native panicked".into()));
                    ptr::null_mut()
                }
            }
        };
        // SAFETY: `self.env` is the env Node-API passed to the running callback, on its JS thread
        // (JsCall::new), and the callback has not returned: it is returning this call's result.
        unsafe { with_env(self.env, run) }
    }
}

/// Whether two byte slices share any memory.
pub fn overlapping(a: &[u8], b: &[u8]) -> bool {
    let (a0, b0) = (a.as_ptr() as usize, b.as_ptr() as usize);
    !a.is_empty() && !b.is_empty() && a0 < b0 + b.len() && b0 < a0 + a.len()
}

/// A required argument, or a TypeError naming it.
pub fn required(arg: Option<napi_value>, what: &str) -> JsResult<napi_value> {
    arg.ok_or_else(|| JsError::Type(c"ERR_MISSING_ARGS", format!("{what} is required")))
}
