//! The byte columns of the format: function bodies ([`body`]) and debug sections ([`section`])
//! are written as a few byte strings each rather than through serde element by element (see
//! `FORMAT.md`, "Bodies" and "Sections"), and the decoder's per-thread state for them: the bounds
//! each decoded body is checked against, the module's instruction words and the typed fault
//! that stopped a decode.

pub(crate) mod body;
pub(crate) mod section;

pub(crate) mod state;

pub(crate) use state::MAX_OPERAND_DEPTH;
use state::{replace_bounds, take_fault, Bounds, CheckStmt};

/// Runs `f` (which deserializes bodies and sections on this thread) with every body checked
/// while its columns are decoded: names against a string table of `names` names, operands
/// nested at most `operand_depth` deep (lists, pairs and negations), scopes at most
/// `scope_depth` deep, and the entries that come through serde by `check`. A body decoded here
/// holds only names below `names`, valid selectors, special registers and modifiers, and
/// entries `check` accepted, so validation need not walk it again.
pub(crate) fn with_decode_bounds<R>(
    names: usize,
    operand_depth: u32,
    scope_depth: u32,
    check: CheckStmt,
    f: impl FnOnce() -> R,
) -> R {
    struct Reset(Option<Bounds>);
    impl Drop for Reset {
        fn drop(&mut self) {
            replace_bounds(self.0);
            // The module's words hold at most one module's worth.
            if self.0.is_none() {
                body::clear_module_words();
            }
        }
    }
    let bounds = Bounds {
        names: u32::try_from(names)
            .unwrap_or(u32::MAX)
            .min(Bounds::STRUCTURAL.names),
        depth: operand_depth.min(MAX_OPERAND_DEPTH),
        scopes: scope_depth.min(Bounds::STRUCTURAL.scopes),
        reader_forms: true,
        check: Some(check),
    };
    let _reset = Reset(replace_bounds(Some(bounds)));
    take_fault();
    f()
}
