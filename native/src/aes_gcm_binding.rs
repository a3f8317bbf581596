//! AES-256-GCM over the blocks of an encrypted object (the format is in src/s3/sse/block-cipher.ts:
//! each block's ciphertext then its 16-byte tag; nonce = 8-byte prefix ‖ block index, big-endian;
//! the same AAD for every block). The cipher is the OpenSSL that Node is built with: the node binary
//! exports its EVP functions, which resolve when Node loads this module, as the Node-API does. So
//! the AES and GHASH code is exactly node:crypto's; what this saves is node:crypto's cost around it
//! per 64 KiB block (a cipher object, a zero-filled output buffer, copies), about twice the cipher's
//! own work. One call seals or opens a run of blocks into the caller's buffer.

use std::ffi::{c_int, c_void};
use std::ptr;

use crate::napi::*;

#[repr(C)]
struct EvpCipherCtx {
    _opaque: [u8; 0],
}
#[repr(C)]
struct EvpCipher {
    _opaque: [u8; 0],
}

extern "C" {
    fn EVP_CIPHER_CTX_new() -> *mut EvpCipherCtx;
    fn EVP_CIPHER_CTX_free(ctx: *mut EvpCipherCtx);
    fn EVP_aes_256_gcm() -> *const EvpCipher;
    fn EVP_CipherInit_ex(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        engine: *mut c_void,
        key: *const u8,
        iv: *const u8,
        enc: c_int,
    ) -> c_int;
    fn EVP_CipherUpdate(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int, input: *const u8, inl: c_int) -> c_int;
    fn EVP_CipherFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int) -> c_int;
    fn EVP_CIPHER_CTX_ctrl(ctx: *mut EvpCipherCtx, kind: c_int, arg: c_int, ptr: *mut c_void) -> c_int;
}

const EVP_CTRL_GCM_GET_TAG: c_int = 0x10;
const EVP_CTRL_GCM_SET_TAG: c_int = 0x11;

const KEY_BYTES: usize = 32;
const PREFIX_BYTES: usize = 8;
const TAG_BYTES: usize = 16;
/// Block lengths must fit OpenSSL's `int` lengths with room to spare.
const BLOCK_MAX: usize = 1 << 24;

fn openssl_failed(what: &str) -> JsError {
    JsError::Plain(c"ERR_OPENSSL", format!("OpenSSL AES-256-GCM {what} failed"))
}

/// One EVP context keyed for a call; each block only sets its nonce.
struct Gcm {
    /// Non-null, owned: made by `EVP_CIPHER_CTX_new` in `Gcm::new`, freed once in `drop`.
    ctx: *mut EvpCipherCtx,
    encrypt: c_int,
    prefix: [u8; PREFIX_BYTES],
    aad: Vec<u8>,
}

impl Drop for Gcm {
    fn drop(&mut self) {
        // SAFETY: `ctx` is this Gcm's own context (see the field), freed only here.
        unsafe { EVP_CIPHER_CTX_free(self.ctx) };
    }
}

impl Gcm {
    fn new(key: &[u8], prefix: &[u8], aad: &[u8], encrypt: bool) -> JsResult<Gcm> {
        if key.len() != KEY_BYTES {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("key must be {KEY_BYTES} bytes")));
        }
        if prefix.len() != PREFIX_BYTES {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("nonce prefix must be {PREFIX_BYTES} bytes")));
        }
        // SAFETY: takes no arguments; the result is checked for null below.
        let ctx = unsafe { EVP_CIPHER_CTX_new() };
        if ctx.is_null() {
            return Err(openssl_failed("context"));
        }
        let gcm =
            Gcm { ctx, encrypt: encrypt as c_int, prefix: prefix.try_into().expect("checked"), aad: aad.to_vec() };
        // the default nonce length of GCM in OpenSSL is the 12 bytes used here
        // SAFETY: `ctx` is the live context just made (now owned by `gcm`); EVP_aes_256_gcm()
        // returns a static cipher; OpenSSL copies the 32 key bytes (length checked above) from
        // `key`, borrowed for the call; no engine, no IV yet (null is allowed for both).
        let ok = unsafe {
            EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), ptr::null_mut(), key.as_ptr(), ptr::null(), gcm.encrypt)
        };
        if ok != 1 {
            return Err(openssl_failed("key setup"));
        }
        Ok(gcm)
    }

    /// Starts block `index`: its nonce, then the AAD.
    fn begin(&self, index: u32) -> JsResult<()> {
        let mut nonce = [0u8; PREFIX_BYTES + 4];
        nonce[..PREFIX_BYTES].copy_from_slice(&self.prefix);
        nonce[PREFIX_BYTES..].copy_from_slice(&index.to_be_bytes());
        let mut outl = 0;
        // SAFETY: `self.ctx` is live and keyed (Gcm::new); the nonce is 12 bytes, the GCM IV
        // length the context has by default; with a null output, EVP_CipherUpdate takes
        // `self.aad` (its own length) as AAD and writes nothing but `outl`.
        unsafe {
            if EVP_CipherInit_ex(self.ctx, ptr::null(), ptr::null_mut(), ptr::null(), nonce.as_ptr(), self.encrypt) != 1
                || EVP_CipherUpdate(self.ctx, ptr::null_mut(), &mut outl, self.aad.as_ptr(), self.aad.len() as c_int)
                    != 1
            {
                return Err(openssl_failed("nonce setup"));
            }
        }
        Ok(())
    }

    /// Encrypts or decrypts `input` into `out` (same length).
    fn update(&self, input: &[u8], out: &mut [u8]) -> JsResult<()> {
        assert_eq!(input.len(), out.len(), "GCM output is as long as its input");
        let mut outl = 0;
        // SAFETY: `self.ctx` is live and keyed (Gcm::new). GCM is a stream mode, so OpenSSL
        // writes exactly as many bytes as it reads: at most `input.len()` (also when the `as
        // c_int` truncates), which `out` has (asserted above).
        let ok =
            unsafe { EVP_CipherUpdate(self.ctx, out.as_mut_ptr(), &mut outl, input.as_ptr(), input.len() as c_int) };
        if ok != 1 || outl as usize != input.len() {
            return Err(openssl_failed("update"));
        }
        Ok(())
    }

    /// Ends the block: true when it is authentic (decryption), always true when sealing.
    fn finish(&self) -> bool {
        let mut outl = 0;
        let mut none = [0u8; TAG_BYTES];
        // SAFETY: `self.ctx` is live and keyed (Gcm::new); GCM's final step writes no bytes (a
        // block cipher's would write at most one block: `none` has room for 16).
        unsafe { EVP_CipherFinal_ex(self.ctx, none.as_mut_ptr(), &mut outl) == 1 }
    }

    /// Copies the tag of the block just sealed into `tag` (TAG_BYTES long).
    fn get_tag(&self, tag: &mut [u8]) -> JsResult<()> {
        assert_eq!(tag.len(), TAG_BYTES);
        // SAFETY: `self.ctx` is live (Gcm::new); OpenSSL writes TAG_BYTES bytes into `tag`, which
        // has exactly that many (asserted above).
        let ok =
            unsafe { EVP_CIPHER_CTX_ctrl(self.ctx, EVP_CTRL_GCM_GET_TAG, TAG_BYTES as c_int, tag.as_mut_ptr().cast()) };
        if ok != 1 {
            return Err(openssl_failed("tag"));
        }
        Ok(())
    }

    /// Sets the tag the block being opened must have (TAG_BYTES long).
    fn set_tag(&self, tag: &[u8]) -> JsResult<()> {
        assert_eq!(tag.len(), TAG_BYTES);
        // SAFETY: `self.ctx` is live (Gcm::new); OpenSSL copies TAG_BYTES bytes from `tag`, which
        // has exactly that many (asserted above), and does not write through the pointer despite
        // its `void *` type.
        let ok = unsafe {
            EVP_CIPHER_CTX_ctrl(self.ctx, EVP_CTRL_GCM_SET_TAG, TAG_BYTES as c_int, tag.as_ptr().cast_mut().cast())
        };
        if ok != 1 {
            return Err(openssl_failed("tag"));
        }
        Ok(())
    }
}

/// Both calls' arguments (key, noncePrefix, firstBlock, aad, blockSize, input, output): a keyed
/// context, the first block's index, the block size, and the input and output bytes, which must
/// not overlap.
struct Call<'cb> {
    gcm: Gcm,
    first: u32,
    bs: usize,
    input: &'cb [u8],
    output: &'cb mut [u8],
}

fn call_args<'cb>(
    env: Env<'cb>,
    args: [Option<napi_value>; 7],
    names: [&str; 2],
    encrypt: bool,
) -> JsResult<Call<'cb>> {
    let [key, prefix, first, aad, bs, input, output] = args;
    let gcm = Gcm::new(
        env.bytes(required(key, "key")?, "key")?,
        env.bytes(required(prefix, "noncePrefix")?, "noncePrefix")?,
        env.bytes(required(aad, "aad")?, "aad")?,
        encrypt,
    )?;
    let first = env.get_u32(required(first, "firstBlock")?, "firstBlock")?;
    let bs = block_size(env, bs)?;
    let input = env.bytes(required(input, names[0])?, names[0])?;
    // SAFETY: of the other slices of this call, only `input` is still live (the key, prefix and
    // AAD were copied by Gcm::new), and it is checked against `output` just below before either
    // is read or written.
    let output = unsafe { env.bytes_mut(required(output, names[1])?, names[1]) }?;
    if overlapping(input, output) {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("{} and {} overlap", names[0], names[1])));
    }
    Ok(Call { gcm, first, bs, input, output })
}

fn block_size(env: Env<'_>, value: Option<napi_value>) -> JsResult<usize> {
    let n = env.get_u32(required(value, "blockSize")?, "blockSize")? as usize;
    if n == 0 || n > BLOCK_MAX {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", format!("blockSize must be 1..={BLOCK_MAX}")));
    }
    Ok(n)
}

fn block_numbers_fit(first: u32, blocks: usize) -> JsResult<()> {
    if blocks > 0 && first as u64 + blocks as u64 - 1 > u32::MAX as u64 {
        return Err(JsError::Range(c"ERR_OUT_OF_RANGE", "block index past 2^32 - 1".into()));
    }
    Ok(())
}

/// gcmSealBlocks(key, noncePrefix, firstBlock, aad, blockSize, plain, sealed): undefined — seals
/// `plain` as blocks `firstBlock`, `firstBlock + 1`, … (every one `blockSize` bytes but the last,
/// which may be shorter) into `sealed`, which must be exactly as long as the sealed blocks.
unsafe extern "C" fn gcm_seal_blocks(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<7>(|env, args| {
        let Call { gcm, first, bs, input: plain, output: sealed } = call_args(env, args, ["plain", "sealed"], true)?;
        let blocks = plain.len().div_ceil(bs);
        if sealed.len() != plain.len() + blocks * TAG_BYTES {
            return Err(JsError::Range(
                c"ERR_OUT_OF_RANGE",
                format!("sealed must be {} bytes", plain.len() + blocks * TAG_BYTES),
            ));
        }
        block_numbers_fit(first, blocks)?;
        for (i, (text, out)) in plain.chunks(bs).zip(sealed.chunks_mut(bs + TAG_BYTES)).enumerate() {
            gcm.begin(first + i as u32)?;
            let (cipher_text, tag) = out.split_at_mut(text.len());
            gcm.update(text, cipher_text)?;
            if !gcm.finish() {
                return Err(openssl_failed("final"));
            }
            gcm.get_tag(tag)?;
        }
        env.undefined()
    })
}

/// gcmOpenBlocks(key, noncePrefix, firstBlock, aad, blockSize, sealed, plain): number — opens the
/// sealed blocks in `sealed` (whole blocks; the last may be a short one) into `plain`, in order,
/// and returns how many were authentic: fewer than all means the next one failed its tag, and its
/// bytes in `plain` are zeroed. `plain` needs room for every block's plaintext.
unsafe extern "C" fn gcm_open_blocks(env: napi_env, info: napi_callback_info) -> napi_value {
    // SAFETY: Node-API calls this with the env and callback info of a JS call, on the JS thread.
    unsafe { JsCall::new(env, info) }.run::<7>(|env, args| {
        let Call { gcm, first, bs, input: sealed, output: plain } = call_args(env, args, ["sealed", "plain"], false)?;
        let blocks = sealed.len().div_ceil(bs + TAG_BYTES);
        let last = sealed.len() - (blocks.max(1) - 1) * (bs + TAG_BYTES);
        if !sealed.is_empty() && last <= TAG_BYTES {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", "sealed does not end with a whole block".into()));
        }
        if plain.len() < sealed.len() - blocks * TAG_BYTES {
            return Err(JsError::Range(c"ERR_OUT_OF_RANGE", "plain is too short for the sealed blocks".into()));
        }
        block_numbers_fit(first, blocks)?;
        let mut at = 0;
        for (i, block) in sealed.chunks(bs + TAG_BYTES).enumerate() {
            let (cipher_text, tag) = block.split_at(block.len() - TAG_BYTES);
            let out = &mut plain[at..at + cipher_text.len()];
            gcm.begin(first + i as u32)?;
            gcm.update(cipher_text, out)?;
            gcm.set_tag(tag)?;
            if !gcm.finish() {
                out.fill(0);
                return env.u32(i as u32);
            }
            at += cipher_text.len();
        }
        env.u32(blocks as u32)
    })
}

pub fn register(env: Env<'_>, exports: napi_value) -> JsResult<()> {
    let functions: [(&std::ffi::CStr, napi_callback); 2] =
        [(c"gcmSealBlocks", gcm_seal_blocks), (c"gcmOpenBlocks", gcm_open_blocks)];
    for (name, cb) in functions {
        env.set(exports, name, env.function(name, cb)?)?;
    }
    Ok(())
}
