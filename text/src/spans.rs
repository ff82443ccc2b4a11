//! Where the statements of a module read with spans start ([`Spans`]): what diagnostics about
//! a module read from text point at. A leaf, so that the reader fills it without importing the
//! crate root.

/// Statement offsets of a module read by [`parse_with_spans`](crate::parse_with_spans).
///
/// For each module item, in order, the byte offsets of the statements of its body in pre-order
/// (a `{ }` block comes before the statements inside it), which is the order
/// `ptx_ir_core::verify` numbers statements in. Items without a body have no offsets.
///
/// Also where each module item starts (its linkage or directive) and the offsets of the
/// header's `.version` and `.target`, for the diagnostics about a whole item or the header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    pub(crate) items: Vec<Vec<u32>>,
    pub(crate) starts: Vec<u32>,
    pub(crate) header: Option<(u32, u32)>,
}

impl Spans {
    /// Byte offset of the start of module item `item` (a function, variable or directive).
    pub fn item(&self, item: usize) -> Option<usize> {
        self.starts.get(item).map(|&o| o as usize)
    }

    /// Byte offset of the module's `.version` directive.
    pub fn version_directive(&self) -> Option<usize> {
        self.header.map(|(v, _)| v as usize)
    }

    /// Byte offset of the module's `.target` directive.
    pub fn target_directive(&self) -> Option<usize> {
        self.header.map(|(_, t)| t as usize)
    }

    /// Byte offset of statement `stmt` (pre-order index) of the body of module item `item`.
    pub fn statement(&self, item: usize, stmt: usize) -> Option<usize> {
        self.items.get(item)?.get(stmt).map(|&o| o as usize)
    }
}
