//! Kernel choice shared by the CRCs that use carry-less multiply folding (CRC32, CRC64NVME).

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kernel {
    Pclmulqdq,
    Portable,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Pclmulqdq => "pclmulqdq-fold8",
            Kernel::Portable => "slicing-by-8",
        }
    }

    /// Whether this CPU can run the kernel (the features `clmul_fold::fold_prefix` is built for).
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Pclmulqdq => is_x86_feature_detected!("pclmulqdq") && is_x86_feature_detected!("sse4.1"),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Pclmulqdq => false,
            Kernel::Portable => true,
        }
    }
}

pub fn detect() -> Kernel {
    if Kernel::Pclmulqdq.available() {
        Kernel::Pclmulqdq
    } else {
        Kernel::Portable
    }
}
