//! Placeholder.
use super::{Asm, Kernel, Protocol};
use arbitrary::Unstructured;

/// Placeholder.
#[derive(Clone, Debug)]
pub struct Spec;

impl Spec {
    /// Placeholder.
    pub fn arbitrary(_u: &mut Unstructured) -> arbitrary::Result<Spec> {
        Ok(Spec)
    }
}

impl Protocol for Spec {
    fn build(&self) -> Kernel {
        let a = Asm::new("", &[]);
        Kernel { text: a.finish(), grid: 1, block: 32, input: vec![0; 4], expected: vec![0; 4], known: vec![true; 4] }
    }
    fn smaller(&self) -> Vec<Spec> {
        Vec::new()
    }
}
