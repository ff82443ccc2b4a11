//! The interpreter-agreement oracle for the Hopper/Blackwell families.
//!
//! The generator of [`crate::interp_agree`] draws straight-line SIMT arithmetic over a register
//! file; the asynchronous and cluster instructions need protocols instead (a copy must be
//! waited for before its destination is read, an mbarrier phase must be observed before the
//! next arrive, a cluster barrier separates a remote store from the load that reads it). So
//! each family here has its own small generator that draws a *protocol* — a list of steps that
//! is well defined by construction — and prints it as PTX text for `sm_90a`, together with the
//! answer of a reference model written from the PTX ISA in plain Rust (no code shared with
//! `interp/`).
//!
//! The kernel is then checked exactly like the other oracle's: it is run by the interpreter
//! from its IR, from its printed-and-reparsed text and from its decoded bytecode
//! ([`crate::run::three_ways`]), the three must agree, the run must not fail, and the
//! output buffer must equal the reference's wherever the reference knows it. A failure is
//! shrunk (steps removed while the kernel still fails the same way) and reported as a
//! regression file (`expect: run`, [`crate::regress`]).
//!
//! | family | module |
//! | --- | --- |
//! | `cp.async` with groups and `cp.async.mbarrier.arrive` | [`copy`] |
//! | `cp.async.bulk`, `cp.reduce.async.bulk` | [`bulk`] |
//! | `mbarrier` phase sequences | [`mbar`] |
//! | clusters, distributed shared memory, `elect.sync` | [`cluster`] |
//! | `ldmatrix`, `stmatrix`, `movmatrix`, `mma.sync` | [`matrix`] |
//! | floating-point `mma.sync` | [`fmma`] (arithmetic: [`tcref`]) |
//! | `wgmma.mma_async` | [`wgmma`] |
//! | multicast and CTA-to-CTA `cp.async.bulk` in a cluster | [`mcast`] |
//! | `tcgen05.alloc`, `dealloc`, `relinquish_alloc_permit` (`sm_100a`) | [`tmem`] |
//! | `clusterlaunchcontrol` work stealing (`sm_100a`) | [`clc`] |
//! | tile-mode `cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor` | [`tensor`] |
//!
//! Every kernel has the signature `k(.param .u64 in, .param .u64 out)`: a random input buffer
//! and a zeroed output buffer, so that a finding is an ordinary `ptx run` regression file.

pub mod bulk;
pub mod clc;
pub mod cluster;
pub mod copy;
pub mod fmma;
pub mod matrix;
pub mod mbar;
pub mod mcast;
pub mod tcref;
pub mod tensor;
pub mod tmem;
pub mod wgmma;

use crate::regress;
use crate::run::{three_ways_maps, Failure};
use arbitrary::Unstructured;
use std::fmt::Write;

/// A generated kernel with its launch and the reference's answer.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The PTX module text (entry `k`).
    pub text: String,
    /// CTAs in the grid (x only; clusters come from `.reqnctapercluster` in the text).
    pub grid: u32,
    /// Threads per CTA (x only).
    pub block: u32,
    /// The input buffer.
    pub input: Vec<u8>,
    /// The reference's output buffer.
    pub expected: Vec<u8>,
    /// Which bytes of `expected` the reference knows (the rest are not compared).
    pub known: Vec<bool>,
    /// Tensor-map arguments after the two buffers (`ptx run --arg tmap:DESC`, `buf=0` the
    /// input, `buf=1` the output); empty for kernels without tensor maps.
    pub tmaps: Vec<String>,
}

impl Kernel {
    /// A kernel without tensor maps whose whole output the reference knows.
    pub fn known(text: String, grid: u32, block: u32, input: Vec<u8>, expected: Vec<u8>) -> Kernel {
        let n = expected.len();
        Kernel {
            text,
            grid,
            block,
            input,
            expected,
            known: vec![true; n],
            tmaps: Vec::new(),
        }
    }

    /// The `ptx run` arguments of the kernel's launch.
    pub fn run_args(&self) -> String {
        let mut s = format!(
            "--entry k --grid {} --block {} --arg hex:{} --arg zeros:{}",
            self.grid,
            self.block,
            regress::hex(&self.input),
            self.expected.len()
        );
        for t in &self.tmaps {
            let _ = write!(s, " --arg tmap:{t}");
        }
        s
    }
}

/// A generated protocol of one family: it prints as a [`Kernel`] and can be made smaller.
pub trait Protocol: Clone + std::fmt::Debug {
    /// The kernel and the reference's answer.
    fn build(&self) -> Kernel;
    /// Candidate protocols one step smaller (for shrinking); each must still be well defined.
    fn smaller(&self) -> Vec<Self>;
}

/// `spec` with each of its `n` steps removed in turn (`remove(spec, k)` removes step `k`): the
/// shrinking candidates most protocols start from.
pub(crate) fn drop_each<S: Clone>(spec: &S, n: usize, remove: impl Fn(&mut S, usize)) -> Vec<S> {
    (0..n)
        .map(|k| {
            let mut s = spec.clone();
            remove(&mut s, k);
            s
        })
        .collect()
}

/// The families of this oracle.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    /// `cp.async` (non-bulk).
    Async,
    /// Bulk copies and reductions.
    Bulk,
    /// mbarrier phases.
    Mbarrier,
    /// Clusters and distributed shared memory.
    Cluster,
    /// Matrix load/store/transpose and `mma.sync`.
    Matrix,
    /// Floating-point `mma.sync`.
    Fmma,
    /// `wgmma.mma_async`.
    Wgmma,
    /// Tile-mode tensor copies over launch-supplied tensor maps.
    Tensor,
    /// Multicast and CTA-to-CTA bulk copies in a cluster.
    Multicast,
    /// Tensor-memory allocation.
    Tmem,
    /// Cluster launch control work stealing.
    Clc,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 11] = [
        Family::Async,
        Family::Bulk,
        Family::Mbarrier,
        Family::Cluster,
        Family::Matrix,
        Family::Fmma,
        Family::Wgmma,
        Family::Tensor,
        Family::Multicast,
        Family::Tmem,
        Family::Clc,
    ];
}

/// Runs the oracle on one input: the first byte picks the family.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let f = *u.choose(&Family::ALL)?;
    run_family(u, f)
}

/// Runs the oracle on one input for one family.
pub fn run_family(u: &mut Unstructured, f: Family) -> arbitrary::Result<()> {
    match f {
        Family::Async => run_protocol(copy::Spec::arbitrary(u)?),
        Family::Bulk => run_protocol(bulk::Spec::arbitrary(u)?),
        Family::Mbarrier => run_protocol(mbar::Spec::arbitrary(u)?),
        Family::Cluster => run_protocol(cluster::Spec::arbitrary(u)?),
        Family::Matrix => run_protocol(matrix::Spec::arbitrary(u)?),
        Family::Fmma => run_protocol(fmma::Spec::arbitrary(u)?),
        Family::Wgmma => run_protocol(wgmma::Spec::arbitrary(u)?),
        Family::Tensor => {
            if u.ratio(1, 8)? {
                tensor::check_misaligned(&tensor::Misaligned::arbitrary(u)?)
            } else {
                run_protocol(tensor::Spec::arbitrary(u)?)
            }
        }
        Family::Multicast => run_protocol(mcast::Spec::arbitrary(u)?),
        Family::Tmem => tmem::check(&tmem::Spec::arbitrary(u)?),
        Family::Clc => run_protocol(clc::Spec::arbitrary(u)?),
    }
    Ok(())
}

fn run_protocol<P: Protocol>(p: P) {
    if let Err(f) = check(&p.build()) {
        report(&p, f);
    }
}

fn kind(f: &Failure) -> u8 {
    match f {
        Failure::Text(_) => 0,
        Failure::Error(_) => 1,
        Failure::Disagree(_) => 2,
        Failure::Reference { .. } => 3,
    }
}

fn message(f: &Failure) -> String {
    match f {
        Failure::Text(s) => format!("text round trip: {s}"),
        Failure::Error(s) => format!("interpreter error on a well-defined kernel: {s}"),
        Failure::Disagree(s) => format!("IR, text and bytecode runs disagree: {s}"),
        Failure::Reference { detail, .. } => format!("differs from the reference: {detail}"),
    }
}

/// Checks one kernel: it reads back, runs three ways alike without an error, and its output
/// equals the reference's known bytes.
pub fn check(k: &Kernel) -> Result<(), Failure> {
    let m = ptx_ir_text::parse(&k.text)
        .map_err(|e| Failure::Text(format!("generated kernel does not parse: {e}")))?;
    let got = three_ways_maps(&m, k.grid, k.block, &k.input, k.expected.len(), &k.tmaps)?
        .map_err(Failure::Error)?;
    // Compare in 4-byte words so that a difference reads as a value.
    for at in (0..got.len()).step_by(4) {
        let end = (at + 4).min(got.len());
        let differs = (at..end).any(|i| k.known[i] && got[i] != k.expected[i]);
        if differs {
            let word = |b: &[u8]| {
                let mut w = [0u8; 4];
                w[..end - at].copy_from_slice(&b[at..end]);
                u32::from_le_bytes(w)
            };
            return Err(Failure::Reference {
                thread: 0,
                regs: Vec::new(),
                detail: format!(
                    "output word at byte {at} is {:#010x}, expected {:#010x}",
                    word(&got),
                    word(&k.expected)
                ),
                never: false,
            });
        }
    }
    Ok(())
}

/// Shrinks a failing protocol: removes steps while the kernel fails the same way.
pub fn shrink<P: Protocol>(p: &P, f: &Failure) -> (P, Failure) {
    let (mut best, mut fail) = (p.clone(), f.clone());
    let mut budget = 300;
    'outer: while budget > 0 {
        for q in best.smaller() {
            budget -= 1;
            if budget == 0 {
                break 'outer;
            }
            if let Err(g) = check(&q.build()) {
                if kind(&g) == kind(&fail) {
                    best = q;
                    fail = g;
                    continue 'outer;
                }
            }
        }
        break;
    }
    (best, fail)
}

/// Shrinks the failure and panics with a ready-to-commit regression file.
fn report<P: Protocol>(p: &P, f: Failure) -> ! {
    let (q, g) = shrink(p, &f);
    let k = q.build();
    // The printed module, so that the file is in the printer's canonical form.
    let text = ptx_ir_text::parse(&k.text)
        .map(|m| ptx_ir_text::print(&m))
        .unwrap_or_else(|_| k.text.clone());
    let file = regress::Case::run(&message(&g), &text, &k.run_args(), &k.expected).render();
    panic!(
        "hopper_agree oracle: {}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}",
        message(&g)
    );
}

/// PTX text under construction: the common prologue, numbered labels, and the epilogue that
/// copies a shared array to the output buffer.
pub struct Asm {
    out: String,
    label: u32,
}

/// Registers every kernel has: `%rin`/`%rout` (buffer addresses), `%tx`, `%cta` (`%ctaid.x`),
/// `%nt` (`%ntid.x`), `%gtid` (global thread index).
impl Asm {
    /// Starts a kernel for `sm_90a`: `directives` go between the parameter list and the body
    /// (`.reqnctapercluster`), `decls` are the body's declarations besides the scratch
    /// registers `%p<16>`, `%h<16>`, `%r<128>`, `%rd<64>`.
    pub fn new(directives: &str, decls: &[String]) -> Asm {
        let mut a = Asm {
            out: String::new(),
            label: 0,
        };
        a.raw(".version 8.7\n.target sm_90a\n.address_size 64\n\n");
        a.raw(".visible .entry k(.param .u64 pin, .param .u64 pout)\n");
        if !directives.is_empty() {
            a.raw(directives);
            a.raw("\n");
        }
        a.raw("{\n");
        for d in [
            ".reg .pred %p<16>;",
            ".reg .b16 %h<16>;",
            ".reg .b32 %r<128>;",
            ".reg .b64 %rd<64>;",
            ".reg .b32 %tx, %cta, %nt, %gtid;",
            ".reg .b64 %rin, %rout;",
        ] {
            a.i(d);
        }
        for d in decls {
            a.i(d);
        }
        for s in [
            "ld.param.u64 %rin, [pin];",
            "ld.param.u64 %rout, [pout];",
            "cvta.to.global.u64 %rin, %rin;",
            "cvta.to.global.u64 %rout, %rout;",
            "mov.u32 %tx, %tid.x;",
            "mov.u32 %cta, %ctaid.x;",
            "mov.u32 %nt, %ntid.x;",
            "mad.lo.u32 %gtid, %cta, %nt, %tx;",
        ] {
            a.i(s);
        }
        a
    }

    fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// One instruction or declaration.
    pub fn i(&mut self, s: impl AsRef<str>) {
        let _ = writeln!(self.out, "\t{}", s.as_ref());
    }

    /// A fresh label name.
    pub fn label(&mut self) -> String {
        self.label += 1;
        format!("$L{}", self.label)
    }

    /// Places a label.
    pub fn place(&mut self, l: &str) {
        let _ = writeln!(self.out, "{l}:");
    }

    /// Spins until the mbarrier at the shared address in `%r7` completes the phase of parity
    /// `phase & 1` (`try_wait.parity` in a loop, result in `%p2`).
    pub fn wait_phase(&mut self, phase: u32) {
        let l = self.label();
        self.place(&l);
        self.i(format!(
            "mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r7], {};",
            phase & 1
        ));
        self.i(format!("@!%p2 bra {l};"));
    }

    /// Copies `bytes` (a multiple of `16 * block`) from the global address in `%rd22` (plus
    /// `16 * %tx`, which the caller has added) to the shared address in `%r8` (likewise), 16
    /// bytes per thread and round.
    pub fn fill_shared(&mut self, bytes: u32, block: u32) {
        for w in (0..bytes).step_by(16 * block as usize) {
            self.i(format!(
                "ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd22+{w}];"
            ));
            self.i(format!(
                "st.shared.v4.u32 [%r8+{w}], {{%r10, %r11, %r12, %r13}};"
            ));
        }
    }

    /// Stores the u32 register `reg` to output byte offset `%gtid * per + at` (a per-thread
    /// result slot); `per` and `at` are multiples of 4.
    pub fn slot(&mut self, reg: &str, per: u32, at: u32) {
        self.i(format!("mul.wide.u32 %rd60, %gtid, {per};"));
        self.i("add.s64 %rd60, %rout, %rd60;");
        self.i(format!("st.global.u32 [%rd60+{at}], {reg};"));
    }

    /// As [`Asm::slot`], for the threads where predicate `pred` holds.
    pub fn slot_if(&mut self, pred: &str, reg: &str, per: u32, at: u32) {
        self.i(format!("mul.wide.u32 %rd60, %gtid, {per};"));
        self.i("add.s64 %rd60, %rout, %rd60;");
        self.i(format!("@{pred} st.global.u32 [%rd60+{at}], {reg};"));
    }

    /// Copies `bytes` (a multiple of 4) of shared memory from the shared address in `base` to
    /// the output at byte `at + %cta * bytes`, word `i` by thread `i % ntid`. The caller makes
    /// the shared memory complete and visible first (a barrier).
    pub fn dump_shared(&mut self, base: &str, bytes: u32, block: u32, at: u64) {
        self.i(format!("mul.wide.u32 %rd61, %cta, {bytes};"));
        self.i(format!("add.s64 %rd61, %rd61, {at};"));
        self.i("add.s64 %rd61, %rout, %rd61;");
        self.i("shl.b32 %r120, %tx, 2;");
        self.i(format!("add.u32 %r121, {base}, %r120;"));
        self.i("mul.wide.u32 %rd62, %tx, 4;");
        self.i("add.s64 %rd62, %rd61, %rd62;");
        for w in (0..bytes / 4).step_by(block as usize) {
            let k = bytes / 4 - w;
            if k < block {
                self.i(format!("setp.lt.u32 %p15, %tx, {k};"));
                self.i(format!("@%p15 ld.shared.u32 %r122, [%r121+{}];", w * 4));
                self.i(format!("@%p15 st.global.u32 [%rd62+{}], %r122;", w * 4));
            } else {
                self.i(format!("ld.shared.u32 %r122, [%r121+{}];", w * 4));
                self.i(format!("st.global.u32 [%rd62+{}], %r122;", w * 4));
            }
        }
    }

    /// Closes the kernel and returns the module text.
    pub fn finish(mut self) -> String {
        self.i("ret;");
        self.raw("}\n");
        self.out
    }
}

/// `n` input bytes: expanded from a seed drawn from `u`, so that short fuzzer inputs still give
/// a full buffer of varied data; some words are made small (counts and bounds near zero).
pub fn input(u: &mut Unstructured, n: usize) -> arbitrary::Result<Vec<u8>> {
    let mut src = crate::Bytes::new(u.arbitrary()?);
    let mut v = src.fill(n);
    for w in v.chunks_exact_mut(4) {
        if src.next_u64() % 4 == 0 {
            let x = (src.next_u64() % 16) as u32;
            w.copy_from_slice(&x.to_le_bytes());
        }
    }
    Ok(v)
}

/// Little-endian u32 of `b` at `at`.
pub fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Writes `v` little-endian at `at`.
pub fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smoke_family(f: Family, seed: u64, iters: usize) -> usize {
        // `crate::smoke` takes a plain function: one per family.
        let oracle: fn(&mut Unstructured) -> arbitrary::Result<()> = match f {
            Family::Async => |u| run_family(u, Family::Async),
            Family::Bulk => |u| run_family(u, Family::Bulk),
            Family::Mbarrier => |u| run_family(u, Family::Mbarrier),
            Family::Cluster => |u| run_family(u, Family::Cluster),
            Family::Matrix => |u| run_family(u, Family::Matrix),
            Family::Fmma => |u| run_family(u, Family::Fmma),
            Family::Wgmma => |u| run_family(u, Family::Wgmma),
            Family::Tensor => |u| run_family(u, Family::Tensor),
            Family::Multicast => |u| run_family(u, Family::Multicast),
            Family::Tmem => |u| run_family(u, Family::Tmem),
            Family::Clc => |u| run_family(u, Family::Clc),
        };
        crate::smoke(oracle, seed, iters, 2048)
    }

    #[test]
    fn smoke_async() {
        let done = smoke_family(Family::Async, 0x5eed_0101, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_bulk() {
        let done = smoke_family(Family::Bulk, 0x5eed_0102, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_mbarrier() {
        let done = smoke_family(Family::Mbarrier, 0x5eed_0103, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_cluster() {
        let done = smoke_family(Family::Cluster, 0x5eed_0104, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_matrix() {
        let done = smoke_family(Family::Matrix, 0x5eed_0105, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_fmma() {
        let done = smoke_family(Family::Fmma, 0x5eed_0106, 300);
        assert!(done >= 200, "only {done} of 300 inputs completed");
    }

    #[test]
    fn smoke_wgmma() {
        let done = smoke_family(Family::Wgmma, 0x5eed_0107, 100);
        assert!(done >= 60, "only {done} of 100 inputs completed");
    }

    #[test]
    fn smoke_tensor() {
        let done = smoke_family(Family::Tensor, 0x5eed_0108, 500);
        assert!(done >= 350, "only {done} of 500 inputs completed");
    }

    #[test]
    fn smoke_multicast() {
        let done = smoke_family(Family::Multicast, 0x5eed_0109, 200);
        assert!(done >= 130, "only {done} of 200 inputs completed");
    }

    #[test]
    fn smoke_tmem() {
        let done = smoke_family(Family::Tmem, 0x5eed_010a, 300);
        assert!(done >= 200, "only {done} of 300 inputs completed");
    }

    #[test]
    fn smoke_clc() {
        let done = smoke_family(Family::Clc, 0x5eed_010b, 100);
        assert!(done >= 70, "only {done} of 100 inputs completed");
    }
}
