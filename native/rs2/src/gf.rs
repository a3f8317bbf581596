//! GF(2^16) arithmetic in reed-solomon-simd's Cantor-basis representation (walrus.md §5.1, §5.4).
//!
//! A 16-bit value `u` stands for the field element `φ(u) = XOR of CANTOR_BASIS[i] over the bits i
//! of u`; `log(u)` is the discrete logarithm of `φ(u)` to base x, and `log(0)` is written
//! `MODULUS`. Inside FFT butterflies a multiplier log of `MODULUS` means "skip the multiply".

use std::sync::OnceLock;

pub const BITS: usize = 16;
pub const ORDER: usize = 1 << BITS;
pub const MODULUS: u16 = u16::MAX;
const POLYNOMIAL: usize = 0x1002D;
const CANTOR_BASIS: [u16; BITS] = [
    0x0001, 0xACCA, 0x3C0E, 0x163E, 0xC582, 0xED2E, 0x914C, 0x4012, 0x6C98, 0x10D8, 0x6A72, 0xB900, 0xFDB8, 0xFB34,
    0xFF38, 0x991E,
];

pub struct Tables {
    /// `exp[l]` = the value whose log is `l`; `exp[MODULUS] == exp[0] == 1`.
    pub exp: Box<[u16]>,
    /// `log[u]` for every value; `log[0] == MODULUS`.
    pub log: Box<[u16]>,
    /// FFT skew factors (logs), `MODULUS` where the factor is zero.
    pub skew: Box<[u16]>,
}

pub fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(Tables::build)
}

/// `(a + b) mod 65535`, with 65535 itself allowed as a representation of 0.
#[inline]
pub fn add_mod(a: u16, b: u16) -> u16 {
    let sum = a as u32 + b as u32;
    (sum + (sum >> 16)) as u16
}

impl Tables {
    fn build() -> Tables {
        let (exp, log) = build_exp_log();
        let mut t = Tables { exp, log, skew: Box::new([]) };
        t.skew = build_skew(&t);
        t
    }

    /// `x ⊗ g^log_m` (`log_m == MODULUS` multiplies by one here, as in the library's tables).
    #[inline]
    pub fn mul(&self, x: u16, log_m: u16) -> u16 {
        if x == 0 {
            0
        } else {
            self.exp[add_mod(self.log[x as usize], log_m) as usize]
        }
    }

    /// Product of two values.
    #[inline]
    pub fn mul_values(&self, a: u16, b: u16) -> u16 {
        if a == 0 || b == 0 {
            0
        } else {
            self.mul(a, self.log[b as usize])
        }
    }

    #[inline]
    pub fn inverse(&self, a: u16) -> u16 {
        debug_assert!(a != 0);
        self.exp[(MODULUS - self.log[a as usize]) as usize % MODULUS as usize]
    }

    /// The 16 images `(1 << b) ⊗ g^log_m`: multiplication by a constant is GF(2)-linear, so these
    /// determine it completely (the SIMD engines build their tables from them).
    pub fn basis_images(&self, log_m: u16) -> [u16; BITS] {
        let mut img = [0u16; BITS];
        for (b, v) in img.iter_mut().enumerate() {
            *v = self.mul(1 << b, log_m);
        }
        img
    }
}

fn build_exp_log() -> (Box<[u16]>, Box<[u16]>) {
    let mut exp = vec![0u16; ORDER];
    let mut log = vec![0u16; ORDER];
    // Discrete logs in the polynomial basis, from the LFSR x^i mod POLYNOMIAL.
    let mut state = 1usize;
    for i in 0..MODULUS as usize {
        exp[state] = i as u16;
        state <<= 1;
        if state >= ORDER {
            state ^= POLYNOMIAL;
        }
    }
    exp[0] = MODULUS;
    // log[u] = φ(u) in the polynomial basis ...
    log[0] = 0;
    for (i, basis) in CANTOR_BASIS.iter().enumerate() {
        let width = 1 << i;
        for j in 0..width {
            log[j + width] = log[j] ^ basis;
        }
    }
    // ... then its discrete log.
    for l in log.iter_mut() {
        *l = exp[*l as usize];
    }
    for (i, &l) in log.iter().enumerate() {
        exp[l as usize] = i as u16;
    }
    exp[MODULUS as usize] = exp[0];
    (exp.into_boxed_slice(), log.into_boxed_slice())
}

/// `skew[x-1] = log(Ŵ_t(x ⊕ 2^t))`, t = trailing zeros of x (walrus.md §5.4 closed form).
#[allow(clippy::needless_range_loop, reason = "the loops index rows k and k + 1 of one table as the formulas do")]
fn build_skew(t: &Tables) -> Box<[u16]> {
    // w[t][b] = W_t(2^b); W_{t+1}(y) = W_t(y) ⊗ (W_t(y) ⊕ W_t(2^t)) since W_t is linear.
    let mut w = [[0u16; BITS]; BITS];
    for (b, w0b) in w[0].iter_mut().enumerate() {
        *w0b = 1 << b;
    }
    for k in 0..BITS - 1 {
        let pivot = w[k][k];
        for b in 0..BITS {
            w[k + 1][b] = t.mul_values(w[k][b], w[k][b] ^ pivot);
        }
    }
    let mut normalised = [[0u16; BITS]; BITS];
    for k in 0..BITS {
        let inv = t.inverse(w[k][k]);
        for b in 0..BITS {
            normalised[k][b] = t.mul_values(w[k][b], inv);
        }
    }
    let mut skew = vec![0u16; MODULUS as usize];
    for x in 1..ORDER {
        let k = x.trailing_zeros() as usize;
        let y = x ^ (1 << k);
        let mut value = 0u16;
        for (b, img) in normalised[k].iter().enumerate() {
            if y >> b & 1 == 1 {
                value ^= img;
            }
        }
        skew[x - 1] = t.log[value as usize];
    }
    skew.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_check_values() {
        let t = tables();
        assert_eq!(t.mul_values(2, 2), 3);
        assert_eq!(t.mul_values(2, 3), 1);
        assert_eq!(t.mul_values(0x1234, 0x5678), 0x35C9);
        assert_eq!(t.mul_values(0xFFFF, 0xFFFF), 0x8000);
        let logs: Vec<u16> = (0..8).map(|u| t.log[u]).collect();
        assert_eq!(logs, [MODULUS, 0, 21845, 43690, 17476, 4369, 34952, 8738]);
        assert_eq!(
            &t.skew[..16],
            &[
                65535, 65535, 21845, 65535, 17476, 21845, 34952, 65535, 56797, 17476, 30583, 21845, 48059, 34952,
                13107, 65535
            ]
        );
        for k in 0..16 {
            assert_eq!(t.skew[(1 << k) - 1], MODULUS);
        }
    }
}
