//! The subset of the Node-API C ABI (node_api.h / js_native_api.h) this module uses, plus a few
//! safe wrappers. The `napi` crate is not packaged by Debian, so the declarations live here.
//! The symbols are resolved from the node process when it loads the `.node` file (Linux allows
//! undefined symbols in a shared object; macOS needs `-undefined dynamic_lookup`, see build.rs).
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void, CStr};
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

/// Why a callback failed. `Pending` means a JS exception is already pending (a napi call
/// failed); the others become a thrown `TypeError`/`RangeError`/`Error` with `code`.
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

/// A borrowed `napi_env`, valid for the duration of one callback on the JS thread.
#[derive(Clone, Copy)]
pub struct Env(pub napi_env);

impl Env {
    pub fn undefined(self) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_get_undefined(self.0, &mut v) })?;
        Ok(v)
    }

    pub fn object(self) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_object(self.0, &mut v) })?;
        Ok(v)
    }

    pub fn boolean(self, b: bool) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_get_boolean(self.0, b, &mut v) })?;
        Ok(v)
    }

    pub fn u32(self, n: u32) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_uint32(self.0, n, &mut v) })?;
        Ok(v)
    }

    pub fn bigint_u64(self, n: u64) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_bigint_uint64(self.0, n, &mut v) })?;
        Ok(v)
    }

    pub fn string(self, s: &str) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_string_utf8(self.0, s.as_ptr().cast(), s.len(), &mut v) })?;
        Ok(v)
    }

    pub fn buffer_copy(self, bytes: &[u8]) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        let mut out = ptr::null_mut();
        check(unsafe { napi_create_buffer_copy(self.0, bytes.len(), bytes.as_ptr().cast(), &mut out, &mut v) })?;
        Ok(v)
    }

    pub fn set(self, object: napi_value, name: &CStr, value: napi_value) -> JsResult<()> {
        check(unsafe { napi_set_named_property(self.0, object, name.as_ptr(), value) })
    }

    pub fn function(self, name: &CStr, cb: napi_callback) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        let bytes = name.to_bytes();
        check(unsafe {
            napi_create_function(self.0, bytes.as_ptr().cast(), bytes.len(), cb, ptr::null_mut(), &mut v)
        })?;
        Ok(v)
    }

    pub fn is_undefined_or_absent(self, value: Option<napi_value>) -> JsResult<bool> {
        let Some(value) = value else { return Ok(true) };
        let mut t = 0;
        check(unsafe { napi_typeof(self.0, value, &mut t) })?;
        Ok(t == 0)
    }

    /// A uint32 argument; a non-number or a value out of range is a TypeError/RangeError.
    pub fn get_u32(self, value: napi_value, what: &str) -> JsResult<u32> {
        let mut n = 0u32;
        let status = unsafe { napi_get_value_uint32(self.0, value, &mut n) };
        if status != NAPI_OK {
            return Err(JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a number")));
        }
        Ok(n)
    }

    /// The bytes of a Uint8Array (Buffer included). The slice aliases JS memory: it is valid as
    /// long as the array is alive and not detached, and must not outlive the current callback
    /// unless the caller holds a reference to the array.
    pub fn bytes<'a>(self, value: napi_value, what: &str) -> JsResult<&'a [u8]> {
        let (data, len) = self.typed_bytes(value, what)?;
        Ok(if len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(data, len) } })
    }

    /// The bytes of a Uint8Array to write into, with the same lifetime rules as [`Env::bytes`].
    /// Two such slices (or one and a [`Env::bytes`] slice) may alias the same JS memory: callers
    /// that take several check that they do not overlap ([`overlapping`]).
    pub fn bytes_mut<'a>(self, value: napi_value, what: &str) -> JsResult<&'a mut [u8]> {
        let (data, len) = self.typed_bytes(value, what)?;
        Ok(if len == 0 { &mut [] } else { unsafe { std::slice::from_raw_parts_mut(data, len) } })
    }

    fn typed_bytes(self, value: napi_value, what: &str) -> JsResult<(*mut u8, usize)> {
        let mut is = false;
        check(unsafe { napi_is_typedarray(self.0, value, &mut is) })?;
        let not_bytes = || JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be a Buffer or Uint8Array"));
        if !is {
            return Err(not_bytes());
        }
        let (mut kind, mut len, mut data) = (0, 0usize, ptr::null_mut());
        let (mut ab, mut offset) = (ptr::null_mut(), 0usize);
        check(unsafe {
            napi_get_typedarray_info(self.0, value, &mut kind, &mut len, &mut data, &mut ab, &mut offset)
        })?;
        if kind != NAPI_UINT8_ARRAY && kind != NAPI_UINT8_CLAMPED_ARRAY {
            return Err(not_bytes());
        }
        if len == 0 || data.is_null() {
            return Ok((ptr::null_mut(), 0));
        }
        Ok((data as *mut u8, len))
    }

    /// Wraps `value` in a JS external tagged with `tag`; `finalize` runs when it is collected.
    pub fn external(self, data: *mut c_void, finalize: napi_finalize, tag: &napi_type_tag) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_external(self.0, data, Some(finalize), ptr::null_mut(), &mut v) })?;
        check(unsafe { napi_type_tag_object(self.0, v, tag) })?;
        Ok(v)
    }

    /// The pointer inside an external created by [`Env::external`] with the same `tag`.
    pub fn unwrap_external(self, value: napi_value, tag: &napi_type_tag, what: &str) -> JsResult<*mut c_void> {
        let mut t = 0;
        check(unsafe { napi_typeof(self.0, value, &mut t) })?;
        let mut ok = false;
        if t == NAPI_EXTERNAL {
            check(unsafe { napi_check_object_type_tag(self.0, value, tag, &mut ok) })?;
        }
        if !ok {
            return Err(JsError::Type(
                c"ERR_INVALID_ARG_TYPE",
                format!("{what} is not a handle created by this module"),
            ));
        }
        let mut data = ptr::null_mut();
        check(unsafe { napi_get_value_external(self.0, value, &mut data) })?;
        Ok(data)
    }

    /// The length of a JS array; anything else is a TypeError.
    pub fn array_length(self, value: napi_value, what: &str) -> JsResult<u32> {
        let mut is = false;
        check(unsafe { napi_is_array(self.0, value, &mut is) })?;
        if !is {
            return Err(JsError::Type(c"ERR_INVALID_ARG_TYPE", format!("{what} must be an array")));
        }
        let mut len = 0;
        check(unsafe { napi_get_array_length(self.0, value, &mut len) })?;
        Ok(len)
    }

    pub fn element(self, array: napi_value, index: u32) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_get_element(self.0, array, index, &mut v) })?;
        Ok(v)
    }

    pub fn array(self, length: usize) -> JsResult<napi_value> {
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_array_with_length(self.0, length, &mut v) })?;
        Ok(v)
    }

    pub fn set_element(self, array: napi_value, index: u32, value: napi_value) -> JsResult<()> {
        check(unsafe { napi_set_element(self.0, array, index, value) })
    }

    pub fn reference(self, value: napi_value) -> JsResult<napi_ref> {
        let mut r = ptr::null_mut();
        check(unsafe { napi_create_reference(self.0, value, 1, &mut r) })?;
        Ok(r)
    }

    pub fn error(self, code: &str, message: &str) -> JsResult<napi_value> {
        let (code, message) = (self.string(code)?, self.string(message)?);
        let mut v = ptr::null_mut();
        check(unsafe { napi_create_error(self.0, code, message, &mut v) })?;
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
        check(unsafe { create(self.0, code, message, &mut v) })?;
        Ok(v)
    }

    /// Throws `err` unless a JS exception is already pending.
    pub fn throw(self, err: JsError) {
        let mut pending = false;
        unsafe { napi_is_exception_pending(self.0, &mut pending) };
        if pending {
            return;
        }
        let to_c = |s: String| std::ffi::CString::new(s.replace('\0', " ")).unwrap_or_default();
        unsafe {
            match err {
                JsError::Type(code, m) => napi_throw_type_error(self.0, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Range(code, m) => napi_throw_range_error(self.0, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Plain(code, m) => napi_throw_error(self.0, code.as_ptr(), to_c(m).as_ptr()),
                JsError::Status(s) => napi_throw_error(
                    self.0,
                    c"ERR_NAPI".as_ptr(),
                    to_c(format!("Node-API call failed with status {s}")).as_ptr(),
                ),
            };
        }
    }
}

/// Runs a JS-callable Rust function: collects up to `N` arguments, converts an `Err` into a
/// thrown exception and a panic into a thrown `Error` (unwinding across the C ABI would abort).
pub fn callback<const N: usize>(
    env: napi_env,
    info: napi_callback_info,
    f: impl FnOnce(Env, [Option<napi_value>; N]) -> JsResult<napi_value>,
) -> napi_value {
    let env = Env(env);
    let run = || -> JsResult<napi_value> {
        let mut argc = N;
        let mut argv = [ptr::null_mut(); N];
        check(unsafe {
            napi_get_cb_info(env.0, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut())
        })?;
        let mut args = [None; N];
        for (i, slot) in args.iter_mut().enumerate().take(argc.min(N)) {
            *slot = Some(argv[i]);
        }
        f(env, args)
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
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
