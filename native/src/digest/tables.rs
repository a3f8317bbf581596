//! Table-driven reflected CRCs (slicing-by-8), the portable kernels, and x^n mod P, from which
//! the SIMD kernels derive their folding constants at compile time.
//!
//! Every function works on the *internal* state (no pre/post inversion).

/// The 32-bit tables are the 64-bit ones of the same polynomial: a reflected CRC whose polynomial
/// fits in 32 bits never sets the upper half.
pub const fn make_tables32(poly: u32) -> [[u32; 256]; 8] {
    let wide = make_tables64(poly as u64);
    let mut t = [[0u32; 256]; 8];
    let mut s = 0;
    while s < 8 {
        let mut i = 0;
        while i < 256 {
            t[s][i] = wide[s][i] as u32;
            i += 1;
        }
        s += 1;
    }
    t
}

pub const fn make_tables64(poly: u64) -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ poly } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut s = 1;
    while s < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        s += 1;
    }
    t
}

pub fn slice8_32(t: &[[u32; 256]; 8], mut crc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let lo = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) ^ crc;
        let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        crc = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xff) as usize]
            ^ t[2][((hi >> 8) & 0xff) as usize]
            ^ t[1][((hi >> 16) & 0xff) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        crc = t[0][((crc ^ b as u32) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

pub fn slice8_64(t: &[[u64; 256]; 8], mut crc: u64, data: &[u8]) -> u64 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let v = u64::from_le_bytes(c.try_into().unwrap()) ^ crc;
        crc = t[7][(v & 0xff) as usize]
            ^ t[6][((v >> 8) & 0xff) as usize]
            ^ t[5][((v >> 16) & 0xff) as usize]
            ^ t[4][((v >> 24) & 0xff) as usize]
            ^ t[3][((v >> 32) & 0xff) as usize]
            ^ t[2][((v >> 40) & 0xff) as usize]
            ^ t[1][((v >> 48) & 0xff) as usize]
            ^ t[0][(v >> 56) as usize];
    }
    for &b in chunks.remainder() {
        crc = t[0][((crc ^ b as u64) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

/// x^n mod P for a reflected 32-bit polynomial (bit 31 is x^0).
pub const fn xpow32(poly: u32, n: u32) -> u32 {
    let mut v = 1u32 << 31;
    let mut i = 0;
    while i < n {
        v = if v & 1 == 1 { (v >> 1) ^ poly } else { v >> 1 };
        i += 1;
    }
    v
}

/// x^n mod P for a reflected 64-bit polynomial (bit 63 is x^0).
pub const fn xpow64(poly: u64, n: u32) -> u64 {
    let mut v = 1u64 << 63;
    let mut i = 0;
    while i < n {
        v = if v & 1 == 1 { (v >> 1) ^ poly } else { v >> 1 };
        i += 1;
    }
    v
}
