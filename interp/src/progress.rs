//! [`Progress`]: counters a launch updates as it runs, for a caller on another thread to show
//! (the `ptx` command's progress bar) without slowing the launch: relaxed atomic updates, once
//! per scheduling round and once per finished cluster.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// How far a launch has got. Share it with [`crate::Launch::progress`] and read it from
/// another thread while the launch runs.
#[derive(Debug, Default)]
pub struct Progress {
    ctas_total: AtomicU64,
    ctas_done: AtomicU64,
    thread_instructions: AtomicU64,
}

impl Progress {
    /// Counters at zero.
    pub fn new() -> Progress {
        Progress::default()
    }

    /// The CTAs of the grid (0 until the launch has started).
    pub fn ctas_total(&self) -> u64 {
        self.ctas_total.load(Relaxed)
    }

    /// The CTAs that have finished.
    pub fn ctas_done(&self) -> u64 {
        self.ctas_done.load(Relaxed)
    }

    /// Thread-instructions executed so far.
    pub fn thread_instructions(&self) -> u64 {
        self.thread_instructions.load(Relaxed)
    }

    pub(crate) fn start(&self, ctas: u64) {
        self.ctas_total.store(ctas, Relaxed);
        self.ctas_done.store(0, Relaxed);
        self.thread_instructions.store(0, Relaxed);
    }

    pub(crate) fn ctas_finished(&self, ctas: u64) {
        self.ctas_done.fetch_add(ctas, Relaxed);
    }

    /// Adds thread-instructions executed since the last call (each worker of a parallel
    /// launch adds its own).
    pub(crate) fn executed(&self, thread_instructions: u64) {
        self.thread_instructions
            .fetch_add(thread_instructions, Relaxed);
    }
}
