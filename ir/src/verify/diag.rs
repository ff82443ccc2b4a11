//! What the verifier reports: the rules it checks ([`Rule`], with their [`Severity`]), where a
//! finding is ([`Location`]), the finding ([`Diagnostic`]) and what to check against
//! ([`Options`]). A leaf of the verifier's modules.

use crate::module::{Target, Version};
use std::fmt;

/// How bad a finding is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// `ptxas` rejects the module.
    Error,
    /// Suspicious, but the verifier does not know that `ptxas` rejects it.
    Warning,
}

macro_rules! rules {
    ( $( $(#[$m:meta])* $var:ident = $id:literal, $sev:ident; )* ) => {
        /// The rule a diagnostic reports, with a stable id.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $( $(#[$m])* $var, )*
        }

        impl Rule {
            /// Every rule.
            pub const ALL: &'static [Rule] = &[$(Rule::$var),*];

            /// The stable id (`undeclared-register`, `target-too-old`, ...).
            pub const fn id(self) -> &'static str {
                match self { $(Rule::$var => $id,)* }
            }

            /// Error or warning.
            pub const fn severity(self) -> Severity {
                match self { $(Rule::$var => Severity::$sev,)* }
            }
        }
    };
}

rules! {
    /// A register operand names nothing declared in scope.
    UndeclaredRegister = "undeclared-register", Error;
    /// An address or symbol operand names nothing declared in scope.
    UndeclaredSymbol = "undeclared-symbol", Error;
    /// A branch target is not a label of the current function.
    UndeclaredLabel = "undeclared-label", Error;
    /// A called function is not declared in the module.
    UndeclaredFunction = "undeclared-function", Error;
    /// A name is declared twice in one scope (or a function defined twice).
    DuplicateDeclaration = "duplicate-declaration", Error;
    /// A label is defined twice in one function.
    DuplicateLabel = "duplicate-label", Error;
    /// The instruction matches none of its opcode's forms (IR built in memory).
    BadForm = "bad-form", Error;
    /// An operand's declared type is not compatible with the instruction type.
    OperandType = "operand-type", Error;
    /// An immediate operand is outside the range the instruction allows.
    ImmediateRange = "immediate-range", Error;
    /// An integer literal does not fit the instruction type.
    ImmediateWidth = "immediate-width", Warning;
    /// A vector operand or `.vN` qualifier of the wrong width.
    VectorWidth = "vector-width", Error;
    /// A declaration's `.align` is not a power of two.
    Alignment = "alignment", Error;
    /// `brx.idx` without a `.branchtargets` list declared before it in the function.
    BranchTargets = "branch-targets", Error;
    /// An indirect call without a valid `.calltargets` / `.callprototype` / call table, or a
    /// `.calltargets` entry or call-table initialiser naming a function declared after it.
    CallTargets = "call-targets", Error;
    /// Call arguments that do not match the callee's (or prototype's) parameters.
    CallSignature = "call-signature", Error;
    /// A variable used through an instruction of another state space.
    StateSpace = "state-space", Error;
    /// The instruction (or modifier, or special register) needs a later `sm_XX` target.
    TargetTooOld = "target-too-old", Error;
    /// The feature is architecture- or family-specific and the target is not one that has it.
    TargetUnsupported = "target-unsupported", Error;
    /// The feature needs a later PTX ISA version than the module declares.
    PtxTooOld = "ptx-version-too-old", Error;
    /// The `.target` itself needs a later PTX ISA version than the module declares.
    TargetNeedsNewerPtx = "target-needs-newer-ptx", Error;
    /// The `.target` names an architecture the PTX ISA does not have.
    UnknownTarget = "unknown-target", Error;
    /// An instruction removed for the target (`shfl`/`vote` without `.sync` on `sm_70`+ from
    /// PTX 6.4).
    RemovedInstruction = "removed-instruction", Error;
    /// tcgen05 instructions of one function with different `.cta_group` qualifiers.
    CtaGroupMismatch = "cta-group-mismatch", Error;
    /// A predicated `ld.param` of a call's return parameter (ptxas: "Illegal to predicate
    /// instruction 'ld.param'").
    PredicatedParamLoad = "predicated-param-load", Error;
    /// A modifier that the instruction takes, but not with these types or this shape (`cvt.sat`
    /// to or from `.bf16`; `.im2col` on a 1d or 2d tensor copy).
    ModifierType = "modifier-type", Error;
    /// A `.version` later than the newest PTX ISA version known ([`crate::avail::LATEST`]);
    /// ptxas: "Unsupported .version".
    UnknownVersion = "unknown-ptx-version", Error;
    /// An array whose size in bytes does not fit in 64 bits (ptxas: "Constant overflow").
    ArraySize = "array-size", Error;
    /// More than 64 KiB of `.const` data defined in the module (ptxas: "File uses too much
    /// global constant data").
    ConstSize = "const-size", Error;
    /// A function directive where it is not allowed: `.reqnctapercluster` on a `.func` (kernel
    /// entries only), `.reqnctapercluster` together with `.maxclusterrank`.
    FunctionDirective = "function-directive", Error;
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// Where a diagnostic points.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Location {
    /// Index of the module item (function or variable) in [`Module::items`](crate::Module::items); `None` for the
    /// module header.
    pub item: Option<usize>,
    /// The function's name.
    pub function: Option<String>,
    /// Pre-order index of the statement in the function body.
    pub stmt: Option<usize>,
}

/// One finding of the verifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule.
    pub rule: Rule,
    /// Where.
    pub location: Location,
    /// The instruction, printed, when the finding is about one.
    pub inst: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Diagnostic {
    /// The rule's severity.
    pub fn severity(&self) -> Severity {
        self.rule.severity()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{sev}[{}]: {}", self.rule.id(), self.message)?;
        if let Some(i) = &self.inst {
            write!(f, " in `{i}`")?;
        }
        if let Some(func) = &self.location.function {
            write!(f, " (function `{func}`")?;
            if let Some(s) = self.location.stmt {
                write!(f, ", statement {s}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// What to check against: by default the module's own `.target` and `.version`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Check against this target instead of the module's.
    pub target: Option<Target>,
    /// Check against this PTX ISA version instead of the module's.
    pub version: Option<Version>,
}
