//! Typed errors: every way a launch can fail to produce the GPU's answer.

use thiserror::Error;

/// Where an error happened: the function, the instruction (as PTX text) and its index in the
/// function's flattened body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The function's name.
    pub function: String,
    /// Index of the instruction in the flattened body.
    pub index: u32,
    /// The instruction, printed.
    pub inst: String,
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` ({} #{})", self.inst, self.function, self.index)
    }
}

/// A thread's coordinates, for messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Thread {
    /// `%ctaid`
    pub ctaid: [u32; 3],
    /// `%tid`
    pub tid: [u32; 3],
    /// `%laneid`
    pub lane: u32,
}

impl std::fmt::Display for Thread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "lane {} (ctaid {},{},{} tid {},{},{})",
            self.lane,
            self.ctaid[0],
            self.ctaid[1],
            self.ctaid[2],
            self.tid[0],
            self.tid[1],
            self.tid[2]
        )
    }
}

/// Kinds of memory fault.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The access leaves every allocation of its state space.
    OutOfBounds,
    /// The address is not a multiple of the access size.
    Misaligned,
    /// A store to read-only memory (`.const`, kernel parameters).
    ReadOnly,
}

impl std::fmt::Display for FaultKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FaultKind::OutOfBounds => "out-of-bounds",
            FaultKind::Misaligned => "misaligned",
            FaultKind::ReadOnly => "read-only",
        })
    }
}

/// Every failure of loading or running a program.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum Error {
    /// The module cannot be turned into a program (undeclared register, unknown label, ...).
    #[error("load error in {function}: {message}{}", inst.as_ref().map(|i| format!(" at `{i}`")).unwrap_or_default())]
    Load {
        /// The function.
        function: String,
        /// The instruction, when there is one.
        inst: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The launch itself is invalid (unknown entry, bad dimensions, wrong arguments).
    #[error("launch error: {0}")]
    Launch(String),
    /// The instruction (or this form of it) is not implemented by the interpreter.
    #[error("unsupported: {site}: {what}")]
    Unsupported {
        /// The instruction.
        site: Site,
        /// What is missing.
        what: String,
    },
    /// The program does something PTX leaves undefined, or that the hardware traps on.
    #[error("undefined behaviour at {site}, {thread}: {rule}")]
    Undefined {
        /// The instruction.
        site: Site,
        /// The first offending thread.
        thread: Thread,
        /// The rule broken.
        rule: String,
    },
    /// A checked memory access failed.
    #[error("{kind} {space} access of {size} bytes at {addr:#x} by {site}, {thread}")]
    Memory {
        /// The instruction.
        site: Site,
        /// The faulting thread.
        thread: Thread,
        /// The fault.
        kind: FaultKind,
        /// The state space as written (`global`, `shared`, `generic`, ...).
        space: String,
        /// The address.
        addr: u64,
        /// Access size in bytes.
        size: u32,
    },
    /// Every remaining thread waits for something that can no longer happen.
    #[error("deadlock: {0}")]
    Deadlock(String),
    /// The launch ran out of fuel (thread-instructions).
    #[error("fuel exhausted after {0} thread-instructions")]
    FuelExhausted(u64),
    /// A thread's call chain (with its frames and `alloca` memory) outgrew the per-thread stack
    /// ([`crate::Launch::stack`]).
    #[error("stack overflow: call depth {depth} needs {bytes} bytes, over the per-thread stack limit of {limit} bytes, at {site}, {thread}")]
    StackOverflow {
        /// The `call` (or `alloca`).
        site: Site,
        /// The first overflowing thread.
        thread: Thread,
        /// Call depth the thread would reach (0 in the kernel).
        depth: u64,
        /// Stack bytes it would need.
        bytes: u64,
        /// The per-thread stack limit.
        limit: u64,
    },
    /// The launch would allocate more host memory than its budget allows
    /// ([`crate::Launch::mem_limit`]).
    #[error("memory limit: {what} needs {bytes} bytes, over the interpreter's memory limit of {limit} bytes ({used} bytes already in use)")]
    MemoryLimit {
        /// What asked for the memory.
        what: String,
        /// Bytes asked for.
        bytes: u64,
        /// Bytes already allocated.
        used: u64,
        /// The budget.
        limit: u64,
    },
    /// A thread executed `trap` or `brkpt`.
    #[error("trap at {site}, {thread}")]
    Trap {
        /// The instruction.
        site: Site,
        /// The first trapping thread.
        thread: Thread,
    },
}

/// What is wrong with an argument specification ([`crate::Arg::parse_spec`]).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    /// Not `TYPE:VALUE`.
    #[error("bad argument `{0}` (expected TYPE:VALUE)")]
    Syntax(String),
    /// A type the specifications do not have.
    #[error("unknown argument type `{0}`")]
    UnknownType(String),
    /// A value that does not read as the type asks (`what` is `integer`, `float`, `size`,
    /// `count` or `hex`).
    #[error("bad {what} `{value}`")]
    BadValue {
        /// What was expected.
        what: &'static str,
        /// The value given.
        value: String,
    },
    /// A buffer over the memory limit, or one the host could not allocate.
    #[error(
        "argument `{spec}` needs {bytes} bytes, over the interpreter's memory limit of {limit} bytes{}",
        if *out_of_memory { " (the host is out of memory)" } else { "" }
    )]
    TooBig {
        /// The specification (its first 60 characters).
        spec: String,
        /// The bytes it needs.
        bytes: u64,
        /// The limit.
        limit: u64,
        /// Within the limit, but the host could not allocate it.
        out_of_memory: bool,
    },
    /// A `buf:PATH` file that cannot be read.
    #[error("{path}: {message}")]
    File {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// A `tmap:` specification that does not describe a tensor map.
    #[error("{0}")]
    TensorMap(crate::tmap::TensorMapError),
    /// A `tex:` or `surf:` specification that does not describe an object (the message says
    /// why).
    #[error("{0}")]
    Image(String),
}
