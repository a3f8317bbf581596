//! CRC-32 (ISO-HDLC, as zlib; reflected polynomial 0xEDB88320, init and xorout all ones;
//! check("123456789") = 0xCBF43926), the S3 `x-amz-checksum-crc32`.
//! x86-64 with PCLMULQDQ: carry-less folding (clmul_fold.rs). Otherwise: slicing-by-8 tables.
//!
//! Functions here work on the internal state: `update_with(k, !0, data)` then `!state`.

pub use super::fold_kernel::{detect, Kernel};
use super::tables::{make_tables32, slice8_32};

const POLY: u32 = 0xEDB8_8320;
static TABLES: [[u32; 256]; 8] = make_tables32(POLY);

pub fn update_portable(crc: u32, data: &[u8]) -> u32 {
    slice8_32(&TABLES, crc, data)
}

pub fn update_with(kernel: Kernel, crc: u32, data: &[u8]) -> u32 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // A kernel this CPU lacks (only `detect()` should give one) falls back to the tables.
        Kernel::Pclmulqdq if data.len() >= super::clmul_fold::MIN_LEN && kernel.available() => {
            use super::clmul_fold::{constants32, fold_prefix, FoldConstants};
            const K: FoldConstants = constants32(POLY);
            // SAFETY: `kernel.available()` found pclmulqdq and sse4.1, the features fold_prefix
            // is compiled for; it asserts the length it needs itself.
            let (folded, used) = unsafe { fold_prefix(crc as u64, data, &K) };
            update_portable(update_portable(0, &folded), &data[used..])
        }
        _ => update_portable(crc, data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crc(kernel: Kernel, data: &[u8]) -> u32 {
        !update_with(kernel, !0, data)
    }

    #[test]
    fn check_value() {
        for k in [Kernel::Portable, detect()] {
            assert_eq!(crc(k, b"123456789"), 0xCBF4_3926);
        }
    }

    #[test]
    fn kernels_agree() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        for len in [0, 1, 15, 16, 127, 128, 129, 255, 256, 257, 271, 383, 384, 1000, 4096, 65_537, 70_000] {
            for off in [0, 1, 5] {
                let d = &data[off.min(len)..len];
                assert_eq!(crc(detect(), d), crc(Kernel::Portable, d), "len {len} off {off}");
                assert_eq!(update_with(detect(), 0x1234_5678, d), update_portable(0x1234_5678, d));
            }
        }
    }
}
