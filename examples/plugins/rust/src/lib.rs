//! rust-aes: a cryptobench plugin (plugin/cryptobench_plugin.h, ABI 1) over
//! Debian's packaged Rust crates:
//!
//! - GCM: ring 0.16 (`aead::LessSafeKey`, AES-128/256-GCM, 12-byte nonces,
//!   16-byte tags);
//! - ECB and CBC: the `aes` 0.6 crate with `block-modes` 0.7 (no padding:
//!   cryptobench applies PKCS#7 itself);
//! - CTR: this plugin's own counter loop over the `aes` 0.6 block cipher
//!   (ring 0.16 keeps its AES-CTR internal, and Debian's `ctr` 0.3 is written
//!   against an older cipher trait than `aes` 0.6: see README.md);
//! - Base64 / hex: the `base64` 0.13 and `hex` 0.4 crates;
//! - HMAC-SHA256 / PBKDF2-HMAC-SHA256: ring 0.16.
//!
//! Every exported function catches panics (`catch_unwind`) and returns
//! CRYPTOBENCH_PLUGIN_ERROR instead: nothing unwinds into the C caller.

use std::ffi::CString;
use std::num::NonZeroU32;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Once;

use aes::cipher::generic_array::typenum::{U16, U8};
use aes::cipher::generic_array::GenericArray;
use aes::{Aes128, Aes256, BlockCipher, NewBlockCipher};
use block_modes::block_padding::NoPadding;
use block_modes::{BlockMode, Cbc, Ecb};
use ring::aead;

// ---- The ABI (plugin/cryptobench_plugin.h), field for field. ----

const ABI_VERSION: u32 = 1;

const OK: c_int = 0;
const ERROR: c_int = 1;
const BAD_TAG: c_int = 2;
const BAD_INPUT: c_int = 3;

const ECB: u32 = 1;
const CBC: u32 = 2;
const CTR: u32 = 4;
const GCM: u32 = 8;

const AES128: u32 = 1;
const AES256: u32 = 4;

/// The plugin's context (the header's opaque `cryptobench_plugin_context`).
pub struct Context {
    mode: u32,
    engine: Engine,
    /// GCM open: ring 0.16 opens `ciphertext || tag` in one buffer.
    scratch: Vec<u8>,
}

enum Engine {
    NoKey,
    Ecb128(Ecb<Aes128, NoPadding>),
    Ecb256(Ecb<Aes256, NoPadding>),
    Cbc128(Aes128),
    Cbc256(Aes256),
    Ctr128(Aes128),
    Ctr256(Aes256),
    Gcm(aead::LessSafeKey),
}

type BlocksFn = unsafe extern "C" fn(*mut Context, *const u8, *const u8, *mut u8, usize) -> c_int;
type SealFn = unsafe extern "C" fn(
    *mut Context,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    *mut u8,
    usize,
    *mut u8,
    usize,
) -> c_int;
type OpenFn = unsafe extern "C" fn(
    *mut Context,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    *mut u8,
    usize,
    *const u8,
    usize,
) -> c_int;
type EncodeFn = unsafe extern "C" fn(*const u8, usize, *mut c_char) -> c_int;
type DecodeFn = unsafe extern "C" fn(*const c_char, usize, *mut u8, *mut usize) -> c_int;

/// `struct cryptobench_plugin`: same order, same C types.
#[repr(C)]
pub struct CryptobenchPlugin {
    abi_version: u32,
    table_size: u32,
    name: *const c_char,
    library: *const c_char,
    version: *const c_char,
    code_path: *const c_char,
    limits: *const c_char,
    modes: u32,
    key_sizes: u32,
    register_bits: u32,
    ctr_counter_bits: u32,
    gcm_nonce_12_only: u32,
    gcm_min_tag: u32,
    new_context: Option<unsafe extern "C" fn(u32) -> *mut Context>,
    free_context: Option<unsafe extern "C" fn(*mut Context)>,
    set_key: Option<unsafe extern "C" fn(*mut Context, *const u8, usize) -> c_int>,
    encrypt_blocks: Option<BlocksFn>,
    decrypt_blocks: Option<BlocksFn>,
    ctr_crypt: Option<BlocksFn>,
    gcm_seal: Option<SealFn>,
    gcm_open: Option<OpenFn>,
    codec: *const c_char,
    base64_encode: Option<EncodeFn>,
    base64_decode: Option<DecodeFn>,
    hex_encode: Option<EncodeFn>,
    hex_decode: Option<DecodeFn>,
    kdf: *const c_char,
    hmac_sha256: Option<
        unsafe extern "C" fn(*const u8, usize, *const u8, usize, *mut u8, usize) -> c_int,
    >,
    pbkdf2_sha256: Option<
        unsafe extern "C" fn(*const u8, usize, *const u8, usize, u32, *mut u8, usize) -> c_int,
    >,
    gcm_max_nonce: u32,
    gcm_register_bits: u32,
}

// ---- Helpers at the boundary. ----

/// Runs `f`, turning a panic into CRYPTOBENCH_PLUGIN_ERROR.
fn guarded<F: FnOnce() -> c_int>(f: F) -> c_int {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(ERROR)
}

/// A byte slice from C; empty (and never dereferenced) when `size` is 0.
unsafe fn bytes<'a>(p: *const u8, size: usize) -> Option<&'a [u8]> {
    if size == 0 {
        Some(&[])
    } else if p.is_null() {
        None
    } else {
        Some(std::slice::from_raw_parts(p, size))
    }
}

/// The output slice, holding a copy of the input first (`out` may equal `in`
/// but never overlaps it otherwise, and the crates work in place).
unsafe fn in_place<'a>(input: *const u8, out: *mut u8, size: usize) -> Option<&'a mut [u8]> {
    if size == 0 {
        return Some(&mut []);
    }
    if input.is_null() || out.is_null() {
        return None;
    }
    if input != out as *const u8 {
        ptr::copy(input, out, size);
    }
    Some(std::slice::from_raw_parts_mut(out, size))
}

type Block = GenericArray<u8, U16>;

/// 16-byte blocks over a byte slice whose length is a multiple of 16
/// (GenericArray<u8, U16> is 16 bytes with alignment 1).
fn as_blocks(data: &mut [u8]) -> &mut [Block] {
    debug_assert!(data.len() % 16 == 0);
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr() as *mut Block, data.len() / 16) }
}

unsafe fn context<'a>(ctx: *mut Context) -> Option<&'a mut Context> {
    ctx.as_mut()
}

// ---- Contexts. ----

unsafe extern "C" fn new_context(mode: u32) -> *mut Context {
    catch_unwind(|| match mode {
        ECB | CBC | CTR | GCM => Box::into_raw(Box::new(Context {
            mode,
            engine: Engine::NoKey,
            scratch: Vec::new(),
        })),
        _ => ptr::null_mut(),
    })
    .unwrap_or(ptr::null_mut())
}

unsafe extern "C" fn free_context(ctx: *mut Context) {
    if !ctx.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(ctx))));
    }
}

unsafe extern "C" fn set_key(ctx: *mut Context, key: *const u8, key_size: usize) -> c_int {
    guarded(|| {
        let (ctx, key) = match (context(ctx), bytes(key, key_size)) {
            (Some(c), Some(k)) if key_size == 16 || key_size == 32 => (c, k),
            _ => return ERROR,
        };
        let empty = GenericArray::default();
        ctx.engine = match (ctx.mode, key_size) {
            (ECB, 16) => Engine::Ecb128(Ecb::new(Aes128::new(GenericArray::from_slice(key)), &empty)),
            (ECB, _) => Engine::Ecb256(Ecb::new(Aes256::new(GenericArray::from_slice(key)), &empty)),
            (CBC, 16) => Engine::Cbc128(Aes128::new(GenericArray::from_slice(key))),
            (CBC, _) => Engine::Cbc256(Aes256::new(GenericArray::from_slice(key))),
            (CTR, 16) => Engine::Ctr128(Aes128::new(GenericArray::from_slice(key))),
            (CTR, _) => Engine::Ctr256(Aes256::new(GenericArray::from_slice(key))),
            (GCM, size) => {
                let algorithm = if size == 16 { &aead::AES_128_GCM } else { &aead::AES_256_GCM };
                match aead::UnboundKey::new(algorithm, key) {
                    Ok(unbound) => Engine::Gcm(aead::LessSafeKey::new(unbound)),
                    Err(_) => return ERROR,
                }
            }
            _ => return ERROR,
        };
        OK
    })
}

// ---- ECB and CBC: the aes crate through block-modes. ----

fn cbc_encrypt<C>(cipher: &C, iv: &[u8], blocks: &mut [Block])
where
    C: BlockCipher<BlockSize = U16> + NewBlockCipher + Clone,
{
    // block-modes 0.7 takes the IV only in its constructor: a Cbc per call,
    // over a copy of the expanded key.
    Cbc::<C, NoPadding>::new(cipher.clone(), GenericArray::from_slice(iv)).encrypt_blocks(blocks);
}

fn cbc_decrypt<C>(cipher: &C, iv: &[u8], blocks: &mut [Block])
where
    C: BlockCipher<BlockSize = U16> + NewBlockCipher + Clone,
{
    Cbc::<C, NoPadding>::new(cipher.clone(), GenericArray::from_slice(iv)).decrypt_blocks(blocks);
}

unsafe fn block_op(
    ctx: *mut Context,
    iv: *const u8,
    input: *const u8,
    out: *mut u8,
    blocks: usize,
    encrypt: bool,
) -> c_int {
    let ctx = match context(ctx) {
        Some(c) => c,
        None => return ERROR,
    };
    let size = match blocks.checked_mul(16) {
        Some(s) if s > 0 => s,
        _ => return ERROR,
    };
    let iv = if ctx.mode == CBC {
        match bytes(iv, 16) {
            Some(v) => v,
            None => return ERROR,
        }
    } else {
        &[][..]
    };
    let data = match in_place(input, out, size) {
        Some(d) => as_blocks(d),
        None => return ERROR,
    };
    match (&mut ctx.engine, encrypt) {
        (Engine::Ecb128(m), true) => m.encrypt_blocks(data),
        (Engine::Ecb128(m), false) => m.decrypt_blocks(data),
        (Engine::Ecb256(m), true) => m.encrypt_blocks(data),
        (Engine::Ecb256(m), false) => m.decrypt_blocks(data),
        (Engine::Cbc128(c), true) => cbc_encrypt(c, iv, data),
        (Engine::Cbc128(c), false) => cbc_decrypt(c, iv, data),
        (Engine::Cbc256(c), true) => cbc_encrypt(c, iv, data),
        (Engine::Cbc256(c), false) => cbc_decrypt(c, iv, data),
        _ => return ERROR, // no key, or not an ECB/CBC context
    }
    OK
}

unsafe extern "C" fn encrypt_blocks(
    ctx: *mut Context,
    iv: *const u8,
    input: *const u8,
    out: *mut u8,
    blocks: usize,
) -> c_int {
    guarded(|| block_op(ctx, iv, input, out, blocks, true))
}

unsafe extern "C" fn decrypt_blocks(
    ctx: *mut Context,
    iv: *const u8,
    input: *const u8,
    out: *mut u8,
    blocks: usize,
) -> c_int {
    guarded(|| block_op(ctx, iv, input, out, blocks, false))
}

// ---- CTR: a 128-bit big-endian counter over the aes crate's 8-block call. ----

fn ctr_apply<C>(cipher: &C, counter: &[u8], data: &mut [u8])
where
    C: BlockCipher<BlockSize = U16, ParBlocks = U8>,
{
    let mut block = [0u8; 16];
    block.copy_from_slice(counter);
    let mut counter = u128::from_be_bytes(block);
    let mut stream: GenericArray<Block, U8> = GenericArray::default();
    for chunk in data.chunks_mut(8 * 16) {
        let blocks = (chunk.len() + 15) / 16;
        for b in stream.iter_mut().take(blocks) {
            b.copy_from_slice(&counter.to_be_bytes());
            counter = counter.wrapping_add(1);
        }
        if blocks == 1 {
            cipher.encrypt_block(&mut stream[0]);
        } else {
            // One call for up to 8 blocks (aes-soft's fixsliced code takes
            // them 4 at a time; blocks past `blocks` are stale and unused).
            cipher.encrypt_blocks(&mut stream);
        }
        for (part, key) in chunk.chunks_mut(16).zip(stream.iter()) {
            for (byte, k) in part.iter_mut().zip(key.iter()) {
                *byte ^= k;
            }
        }
    }
}

unsafe extern "C" fn ctr_crypt(
    ctx: *mut Context,
    counter: *const u8,
    input: *const u8,
    out: *mut u8,
    size: usize,
) -> c_int {
    guarded(|| {
        let ctx = match context(ctx) {
            Some(c) => c,
            None => return ERROR,
        };
        let counter = match bytes(counter, 16) {
            Some(c) => c,
            None => return ERROR,
        };
        if size == 0 {
            return ERROR;
        }
        let data = match in_place(input, out, size) {
            Some(d) => d,
            None => return ERROR,
        };
        match &ctx.engine {
            Engine::Ctr128(c) => ctr_apply(c, counter, data),
            Engine::Ctr256(c) => ctr_apply(c, counter, data),
            _ => return ERROR,
        }
        OK
    })
}

// ---- GCM: ring. ----

/// ring's limit for one message (2^32 - 2 blocks); larger is an error, not a
/// tag mismatch.
const GCM_MAX_SIZE: u64 = ((1u64 << 32) - 2) * 16;

fn gcm_parts<'a>(
    ctx: &'a mut Context,
    nonce: Option<&[u8]>,
    tag_size: usize,
    size: usize,
) -> Option<(&'a aead::LessSafeKey, aead::Nonce, &'a mut Vec<u8>)> {
    let key = match &ctx.engine {
        Engine::Gcm(k) => k,
        _ => return None,
    };
    let nonce = nonce.filter(|n| n.len() == 12)?;
    if tag_size != 16 || size as u64 > GCM_MAX_SIZE {
        return None;
    }
    let mut n = [0u8; 12];
    n.copy_from_slice(nonce);
    Some((key, aead::Nonce::assume_unique_for_key(n), &mut ctx.scratch))
}

unsafe extern "C" fn gcm_seal(
    ctx: *mut Context,
    nonce: *const u8,
    nonce_size: usize,
    aad: *const u8,
    aad_size: usize,
    input: *const u8,
    out: *mut u8,
    size: usize,
    tag: *mut u8,
    tag_size: usize,
) -> c_int {
    guarded(|| {
        let ctx = match context(ctx) {
            Some(c) => c,
            None => return ERROR,
        };
        let (key, nonce, _) = match gcm_parts(ctx, bytes(nonce, nonce_size), tag_size, size) {
            Some(p) => p,
            None => return ERROR,
        };
        let aad = match bytes(aad, aad_size) {
            Some(a) => a,
            None => return ERROR,
        };
        if tag.is_null() {
            return ERROR;
        }
        let data = match in_place(input, out, size) {
            Some(d) => d,
            None => return ERROR,
        };
        match key.seal_in_place_separate_tag(nonce, aead::Aad::from(aad), data) {
            Ok(t) => {
                ptr::copy_nonoverlapping(t.as_ref().as_ptr(), tag, 16);
                OK
            }
            Err(_) => ERROR,
        }
    })
}

unsafe extern "C" fn gcm_open(
    ctx: *mut Context,
    nonce: *const u8,
    nonce_size: usize,
    aad: *const u8,
    aad_size: usize,
    input: *const u8,
    out: *mut u8,
    size: usize,
    tag: *const u8,
    tag_size: usize,
) -> c_int {
    guarded(|| {
        let ctx = match context(ctx) {
            Some(c) => c,
            None => return ERROR,
        };
        let (key, nonce, scratch) =
            match gcm_parts(ctx, bytes(nonce, nonce_size), tag_size, size) {
                Some(p) => p,
                None => return ERROR,
            };
        let (aad, input, tag) = match (bytes(aad, aad_size), bytes(input, size), bytes(tag, 16))
        {
            (Some(a), Some(i), Some(t)) => (a, i, t),
            _ => return ERROR,
        };
        if size > 0 && out.is_null() {
            return ERROR;
        }
        // ring 0.16 opens `ciphertext || tag` in place (no separate tag), so
        // both go through the context's scratch buffer; `out` receives the
        // plaintext only when the tag matched (ring compares in constant time).
        scratch.clear();
        scratch.extend_from_slice(input);
        scratch.extend_from_slice(tag);
        let result = match key.open_in_place(nonce, aead::Aad::from(aad), &mut scratch[..]) {
            Ok(plain) => {
                if size > 0 {
                    ptr::copy_nonoverlapping(plain.as_ptr(), out, size);
                }
                OK
            }
            Err(_) => BAD_TAG,
        };
        for b in scratch.iter_mut() {
            *b = 0;
        }
        result
    })
}

// ---- Codec: the base64 and hex crates. ----

unsafe extern "C" fn base64_encode(input: *const u8, size: usize, out: *mut c_char) -> c_int {
    guarded(|| {
        let input = match bytes(input, size) {
            Some(i) => i,
            None => return ERROR,
        };
        let encoded = match size.checked_add(2).map(|n| n / 3).and_then(|n| n.checked_mul(4)) {
            Some(n) => n,
            None => return ERROR,
        };
        if encoded == 0 {
            return OK;
        }
        if out.is_null() {
            return ERROR;
        }
        let out = std::slice::from_raw_parts_mut(out as *mut u8, encoded);
        if base64::encode_config_slice(input, base64::STANDARD, out) == encoded {
            OK
        } else {
            ERROR
        }
    })
}

unsafe extern "C" fn base64_decode(
    text: *const c_char,
    size: usize,
    out: *mut u8,
    written: *mut usize,
) -> c_int {
    guarded(|| {
        if written.is_null() {
            return ERROR;
        }
        let text = match bytes(text as *const u8, size) {
            Some(t) => t,
            None => return ERROR,
        };
        // Padded RFC 4648 only (the crate also takes unpadded text).
        if size % 4 != 0 {
            return BAD_INPUT;
        }
        if size == 0 {
            *written = 0;
            return OK;
        }
        if out.is_null() {
            return ERROR;
        }
        let out = std::slice::from_raw_parts_mut(out, size / 4 * 3);
        match base64::decode_config_slice(text, base64::STANDARD, out) {
            Ok(n) => {
                *written = n;
                OK
            }
            Err(_) => BAD_INPUT,
        }
    })
}

unsafe extern "C" fn hex_encode(input: *const u8, size: usize, out: *mut c_char) -> c_int {
    guarded(|| {
        let input = match bytes(input, size) {
            Some(i) => i,
            None => return ERROR,
        };
        let encoded = match size.checked_mul(2) {
            Some(n) => n,
            None => return ERROR,
        };
        if encoded == 0 {
            return OK;
        }
        if out.is_null() {
            return ERROR;
        }
        let out = std::slice::from_raw_parts_mut(out as *mut u8, encoded);
        match hex::encode_to_slice(input, out) {
            Ok(()) => OK,
            Err(_) => ERROR,
        }
    })
}

unsafe extern "C" fn hex_decode(
    text: *const c_char,
    size: usize,
    out: *mut u8,
    written: *mut usize,
) -> c_int {
    guarded(|| {
        if written.is_null() {
            return ERROR;
        }
        let text = match bytes(text as *const u8, size) {
            Some(t) => t,
            None => return ERROR,
        };
        if size % 2 != 0 {
            return BAD_INPUT;
        }
        if size == 0 {
            *written = 0;
            return OK;
        }
        if out.is_null() {
            return ERROR;
        }
        let out = std::slice::from_raw_parts_mut(out, size / 2);
        match hex::decode_to_slice(text, out) {
            Ok(()) => {
                *written = size / 2;
                OK
            }
            Err(_) => BAD_INPUT,
        }
    })
}

// ---- KDF: ring's HMAC-SHA256 and PBKDF2. ----

unsafe extern "C" fn hmac_sha256(
    secret: *const u8,
    secret_size: usize,
    message: *const u8,
    message_size: usize,
    out: *mut u8,
    out_size: usize,
) -> c_int {
    guarded(|| {
        let (secret, message) = match (bytes(secret, secret_size), bytes(message, message_size)) {
            (Some(s), Some(m)) => (s, m),
            _ => return ERROR,
        };
        if out.is_null() || out_size == 0 || out_size > 32 {
            return ERROR;
        }
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret);
        let tag = ring::hmac::sign(&key, message);
        ptr::copy_nonoverlapping(tag.as_ref().as_ptr(), out, out_size);
        OK
    })
}

unsafe extern "C" fn pbkdf2_sha256(
    password: *const u8,
    password_size: usize,
    salt: *const u8,
    salt_size: usize,
    iterations: u32,
    out: *mut u8,
    out_size: usize,
) -> c_int {
    guarded(|| {
        let (password, salt) = match (bytes(password, password_size), bytes(salt, salt_size)) {
            (Some(p), Some(s)) => (p, s),
            _ => return ERROR,
        };
        let iterations = match NonZeroU32::new(iterations) {
            Some(i) => i,
            None => return ERROR,
        };
        if out.is_null() || out_size == 0 || out_size > 64 {
            return ERROR;
        }
        let out = std::slice::from_raw_parts_mut(out, out_size);
        ring::pbkdf2::derive(ring::pbkdf2::PBKDF2_HMAC_SHA256, iterations, salt, password, out);
        OK
    })
}

// ---- What runs here. ----

// ring's own CPU-feature words (crypto/cpu-intel.c, the OpenSSL ia32cap
// layout), filled by ring at its first use: reading them tells which AES and
// GHASH code ring picks at run time.
#[cfg(target_arch = "x86_64")]
extern "C" {
    static GFp_ia32cap_P: [u32; 4];
}

/// The GCM path ring 0.16 takes on this CPU, by ring's own rules
/// (src/aead/aes.rs, gcm.rs and aes_gcm.rs detect_implementation /
/// integrated_aes_gcm). Returns (description, AES instructions used).
fn ring_gcm_path() -> (String, bool) {
    // Make ring run its CPUID setup (it does so once, on first use).
    let _ = aead::UnboundKey::new(&aead::AES_128_GCM, &[0u8; 16]);
    #[cfg(target_arch = "x86_64")]
    {
        let caps = unsafe { ptr::read_volatile(&GFp_ia32cap_P) };
        let bit = |word: usize, b: u32| caps[word] & (1u32 << b) != 0;
        let (aes, ssse3) = (bit(1, 25), bit(1, 9));
        let clmul = bit(0, 24) && bit(1, 1); // FXSR and PCLMULQDQ
        let avx_movbe = bit(1, 28) && bit(1, 22);
        let cipher = if aes {
            "AES-NI"
        } else if ssse3 {
            "vpaes (SSSE3, no AES instructions)"
        } else {
            "C (no AES instructions)"
        };
        let ghash = if clmul { "PCLMULQDQ GHASH" } else { "C GHASH" };
        let mut path = format!("{} + {}", cipher, ghash);
        if aes && clmul && avx_movbe {
            path.push_str(" (stitched aesni_gcm, AVX+MOVBE)");
        }
        (path, aes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ("ring's choice for this architecture".to_string(), false)
    }
}

/// The path the aes 0.6 crate was compiled to: it picks AES-NI only at
/// compile time (target features aes and sse2), else aes-soft's fixsliced
/// code. Debian's aes 0.6 has no aesni dependency, so only aes-soft builds.
fn aes_crate_path() -> (&'static str, bool) {
    if cfg!(all(
        target_feature = "aes",
        target_feature = "sse2",
        any(target_arch = "x86_64", target_arch = "x86")
    )) {
        ("aesni (AES-NI, compiled in)", true)
    } else if cfg!(target_pointer_width = "64") {
        ("aes-soft fixslice64 (bitsliced, no AES instructions)", false)
    } else {
        ("aes-soft fixslice32 (bitsliced, no AES instructions)", false)
    }
}

fn leak(text: String) -> *const c_char {
    CString::new(text).map(|c| c.into_raw() as *const c_char).unwrap_or(ptr::null())
}

fn build_table() -> CryptobenchPlugin {
    let (gcm_path, gcm_aesni) = ring_gcm_path();
    let (aes_path, aes_aesni) = aes_crate_path();
    let crates = format!(
        "ring {}, aes {} (aes-soft {}), block-modes {}, base64 {}, hex {}",
        env!("CB_RING_VERSION"),
        env!("CB_AES_VERSION"),
        env!("CB_AES_SOFT_VERSION"),
        env!("CB_BLOCK_MODES_VERSION"),
        env!("CB_BASE64_VERSION"),
        env!("CB_HEX_VERSION"),
    );
    CryptobenchPlugin {
        abi_version: ABI_VERSION,
        table_size: std::mem::size_of::<CryptobenchPlugin>() as u32,
        name: b"rust\0".as_ptr() as *const c_char,
        library: b"Rust crates (ring; aes + block-modes; base64; hex)\0".as_ptr() as *const c_char,
        version: leak(format!("{}; {}", crates, env!("CB_RUSTC_VERSION"))),
        code_path: leak(format!(
            "ECB/CBC/CTR: aes {} -> {}; GCM: ring {} {}",
            env!("CB_AES_VERSION"),
            aes_path,
            env!("CB_RING_VERSION"),
            gcm_path
        )),
        // At most 300 characters: cryptobench keeps no more of it.
        limits: b"AES-128/256 only (ring has no AES-192-GCM; the ABI has one key-size set for \
                  all modes); GCM: 12-byte nonces, 16-byte tags; the crates' APIs cost copies: \
                  GCM open copies ciphertext and tag to a scratch buffer, CBC clones the key \
                  schedule per call; CTR is this plugin's loop over the aes crate\0"
            .as_ptr() as *const c_char,
        modes: ECB | CBC | CTR | GCM,
        key_sizes: AES128 | AES256,
        // ECB and CBC decryption (the parallel-mode code this field describes)
        // run the aes crate; GCM's width is gcm_register_bits.
        register_bits: if aes_aesni { 128 } else { 0 },
        ctr_counter_bits: 128,
        gcm_nonce_12_only: 1,
        gcm_min_tag: 16,
        new_context: Some(new_context),
        free_context: Some(free_context),
        set_key: Some(set_key),
        encrypt_blocks: Some(encrypt_blocks),
        decrypt_blocks: Some(decrypt_blocks),
        ctr_crypt: Some(ctr_crypt),
        gcm_seal: Some(gcm_seal),
        gcm_open: Some(gcm_open),
        codec: leak(format!(
            "the base64 crate {} and the hex crate {}",
            env!("CB_BASE64_VERSION"),
            env!("CB_HEX_VERSION")
        )),
        base64_encode: Some(base64_encode),
        base64_decode: Some(base64_decode),
        hex_encode: Some(hex_encode),
        hex_decode: Some(hex_decode),
        kdf: leak(format!("ring {} HMAC-SHA256, PBKDF2", env!("CB_RING_VERSION"))),
        hmac_sha256: Some(hmac_sha256),
        pbkdf2_sha256: Some(pbkdf2_sha256),
        gcm_max_nonce: 12,
        // GCM is ring's: AES-NI where ring chose it, whatever the aes crate runs.
        gcm_register_bits: if gcm_aesni { 128 } else { 0 },
    }
}

static TABLE: AtomicPtr<CryptobenchPlugin> = AtomicPtr::new(ptr::null_mut());
static BUILD: Once = Once::new();

/// The one entry point: the table, built once (it lives as long as the
/// library); NULL if building it failed.
#[no_mangle]
pub extern "C" fn cryptobench_plugin_v1() -> *const CryptobenchPlugin {
    let _ = catch_unwind(|| {
        BUILD.call_once(|| {
            TABLE.store(Box::into_raw(Box::new(build_table())), Ordering::Release);
        })
    });
    TABLE.load(Ordering::Acquire) as *const CryptobenchPlugin
}
