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
}

pub fn detect() -> Kernel {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("pclmulqdq") && is_x86_feature_detected!("sse4.1") {
            return Kernel::Pclmulqdq;
        }
    }
    Kernel::Portable
}
