//! `wgmma.mma_async` (placeholder).
use arbitrary::Unstructured;

/// A generated kernel.
#[derive(Clone, Debug)]
pub struct Spec;

impl Spec {
    /// Draws a kernel.
    pub fn arbitrary(_u: &mut Unstructured) -> arbitrary::Result<Spec> {
        Err(arbitrary::Error::NotEnoughData)
    }
}

impl super::Protocol for Spec {
    fn build(&self) -> super::Kernel {
        unreachable!()
    }
    fn smaller(&self) -> Vec<Spec> {
        Vec::new()
    }
}
