//! CRC-64/NVME (polynomial 0xAD93D23594C93659, reflected 0x9A6C9329AC4BC9B5, init and xorout
//! all ones; check("123456789") = 0xAE8B14860A799888), the S3 `x-amz-checksum-crc64nvme`.
//! x86-64 with PCLMULQDQ: carry-less folding (clmul_fold.rs). Otherwise: slicing-by-8 tables.
//!
//! Functions here work on the internal state: `update_with(k, !0, data)` then `!state`.

pub use super::fold_kernel::{detect, Kernel};
use super::tables::{make_tables64, slice8_64};

const POLY: u64 = 0x9A6C_9329_AC4B_C9B5;
static TABLES: [[u64; 256]; 8] = make_tables64(POLY);

pub fn update_portable(crc: u64, data: &[u8]) -> u64 {
    slice8_64(&TABLES, crc, data)
}

pub fn update_with(kernel: Kernel, crc: u64, data: &[u8]) -> u64 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        // A kernel this CPU lacks (only `detect()` should give one) falls back to the tables.
        Kernel::Pclmulqdq if data.len() >= super::clmul_fold::MIN_LEN && kernel.available() => {
            use super::clmul_fold::{constants64, fold_prefix, FoldConstants};
            const K: FoldConstants = constants64(POLY);
            // SAFETY: `kernel.available()` found pclmulqdq and sse4.1, the features fold_prefix
            // is compiled for; it asserts the length it needs itself.
            let (folded, used) = unsafe { fold_prefix(crc, data, &K) };
            update_portable(update_portable(0, &folded), &data[used..])
        }
        _ => update_portable(crc, data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crc(kernel: Kernel, data: &[u8]) -> u64 {
        !update_with(kernel, !0, data)
    }

    #[test]
    fn check_value() {
        for k in [Kernel::Portable, detect()] {
            assert_eq!(crc(k, b"123456789"), 0xAE8B_1486_0A79_9888);
        }
    }

    #[test]
    fn kernels_agree() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect();
        for len in [0, 1, 15, 16, 127, 128, 129, 255, 256, 257, 271, 383, 384, 1000, 4096, 65_537, 70_000] {
            for off in [0, 1, 5] {
                let d = &data[off.min(len)..len];
                assert_eq!(crc(detect(), d), crc(Kernel::Portable, d), "len {len} off {off}");
                assert_eq!(update_with(detect(), 0x1234_5678_9abc_def0, d), update_portable(0x1234_5678_9abc_def0, d));
            }
        }
    }
}
