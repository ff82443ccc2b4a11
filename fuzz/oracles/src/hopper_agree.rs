//! The interpreter-agreement oracle for the Hopper/Blackwell families.
//!
//! Each family's generator ([`ptx_ir_smith::hopper`]) draws a *protocol* — a list of steps that
//! is well defined by construction — and builds it as a kernel for `sm_90a` through the IR
//! builder, printed as PTX text; the reference
//! semantics ([`ptx_ir_refsem::hopper`]) computes the output from the protocol as the kernel
//! runs it. The kernel is then checked exactly like the other oracle's: it is run by the
//! interpreter from its IR, from its printed-and-reparsed text and from its decoded bytecode
//! ([`crate::run::three_ways`]), the three must agree, the run must not fail, and the output
//! buffer must equal the reference's wherever the reference knows it. A failure is shrunk
//! (steps removed while the kernel still fails the same way) and reported as a regression file
//! (`expect: run`, [`crate::regress`]).
//!
//! Two families check something else: the tensor-memory allocation family ([`ProtocolFamily::Tmem`])
//! checks invariants of the addresses (the ISA fixes no placement), and both it and the tensor
//! family have misuse arms whose kernels must stop with the interpreter's undefined-behaviour
//! report citing the rule.
//!
//! Every kernel has the signature `k(.param .u64 in, .param .u64 out)` (tensor kernels add
//! their maps): a random input buffer and a zeroed output buffer, so that a finding is an
//! ordinary `ptx run` regression file.

use crate::regress;
use crate::run::{three_ways, three_ways_maps, Failure};
use arbitrary::Unstructured;
use ptx_ir_refsem::hopper::Reference;
use ptx_ir_smith::hopper::{
    bulk, clc, cluster, copy, fmma, matrix, mbar, mcast, tensor, tmem, wgmma, Launch,
};
use std::fmt::Write;

pub use ptx_ir_smith::hopper::{Protocol, ProtocolFamily};

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
    /// The kernel of protocol `p` with the reference's answer.
    pub fn of<P: Reference>(p: &P) -> Kernel {
        let (l, trace) = p.build();
        let a = p.answer(&l, &trace);
        debug_assert_eq!(a.expected.len(), l.out_len);
        Kernel {
            text: l.text,
            grid: l.grid,
            block: l.block,
            input: l.input,
            expected: a.expected,
            known: a.known,
            tmaps: l.tmaps,
        }
    }

    /// The interpreter's output buffer for the kernel's launch.
    pub fn interpret(&self) -> Result<Vec<u8>, String> {
        let m = ptx_ir_text::parse(&self.text).map_err(|e| e.to_string())?;
        crate::run::launch_maps(
            &m,
            self.grid,
            self.block,
            &self.input,
            self.expected.len(),
            &self.tmaps,
        )
    }

    /// The kernel's line of a GPU batch's `cases.jsonl` (the `hopper_batch` and `tensor_probe`
    /// examples; read by `fuzz/tools/hw_run_maps.py` and `hw_compare_maps.py`): its launch,
    /// the reference's answer and the interpreter's, with `extra` (`"key": value, ` pairs)
    /// after the tensor maps.
    pub fn batch_line(&self, name: &str, family: &str, extra: &str) -> String {
        let (ihex, ierr) = match self.interpret() {
            Ok(b) => (format!("\"{}\"", regress::hex(&b)), "null".to_string()),
            Err(e) => ("null".to_string(), format!("{e:?}")),
        };
        let tmaps: Vec<String> = self.tmaps.iter().map(|t| format!("\"{t}\"")).collect();
        format!(
            "{{\"name\": \"{name}\", \"family\": \"{family}\", \"grid\": {}, \"block\": {}, \"input\": \"{}\", \"out_len\": {}, \"tmaps\": [{}], {extra}\"reference\": \"{}\", \"known\": \"{}\", \"interp\": {ihex}, \"interp_error\": {ierr}}}",
            self.grid,
            self.block,
            regress::hex(&self.input),
            self.expected.len(),
            tmaps.join(", "),
            regress::hex(&self.expected),
            regress::hex(&self.known.iter().map(|&b| b as u8).collect::<Vec<_>>()),
        )
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

/// The `ptx run` arguments of a launch (for the kernels without a reference answer).
fn launch_args(l: &Launch) -> String {
    let mut s = format!(
        "--entry k --grid {} --block {} --arg hex:{} --arg zeros:{}",
        l.grid,
        l.block,
        regress::hex(&l.input),
        l.out_len
    );
    for t in &l.tmaps {
        let _ = write!(s, " --arg tmap:{t}");
    }
    s
}

/// Runs the oracle on one input: the first byte picks the family.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let f = *u.choose(&ProtocolFamily::ALL)?;
    run_family(u, f)
}

/// Runs the oracle on one input for one family.
pub fn run_family(u: &mut Unstructured, f: ProtocolFamily) -> arbitrary::Result<()> {
    match f {
        ProtocolFamily::Async => run_protocol(copy::Spec::arbitrary(u)?),
        ProtocolFamily::Bulk => run_protocol(bulk::Spec::arbitrary(u)?),
        ProtocolFamily::Mbarrier => run_protocol(mbar::Spec::arbitrary(u)?),
        ProtocolFamily::Cluster => run_protocol(cluster::Spec::arbitrary(u)?),
        ProtocolFamily::Matrix => run_protocol(matrix::Spec::arbitrary(u)?),
        ProtocolFamily::Fmma => run_protocol(fmma::Spec::arbitrary(u)?),
        ProtocolFamily::Wgmma => run_protocol(wgmma::Spec::arbitrary(u)?),
        ProtocolFamily::Tensor => {
            if u.ratio(1, 8)? {
                check_misaligned(&tensor::Misaligned::arbitrary(u)?)
            } else {
                run_protocol(tensor::Spec::arbitrary(u)?)
            }
        }
        ProtocolFamily::Multicast => run_protocol(mcast::Spec::arbitrary(u)?),
        ProtocolFamily::Tmem => check_tmem(&tmem::Spec::arbitrary(u)?),
        ProtocolFamily::Clc => run_protocol(clc::Spec::arbitrary(u)?),
    }
    Ok(())
}

fn run_protocol<P: Reference>(p: P) {
    if let Err(f) = check(&Kernel::of(&p)) {
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
pub fn shrink<P: Reference>(p: &P, f: &Failure) -> (P, Failure) {
    let (mut best, mut fail) = (p.clone(), f.clone());
    let mut budget = 300;
    'outer: while budget > 0 {
        for q in best.smaller() {
            budget -= 1;
            if budget == 0 {
                break 'outer;
            }
            if let Err(g) = check(&Kernel::of(&q)) {
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
fn report<P: Reference>(p: &P, f: Failure) -> ! {
    let (q, g) = shrink(p, &f);
    let k = Kernel::of(&q);
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

/// Runs one kernel: a well-defined one must run alike three ways without an error and keep the
/// invariants; a misuse must be reported as undefined behaviour citing its rule.
fn check_tmem(s: &tmem::Spec) {
    let (k, want) = s.build();
    let m = ptx_ir_text::parse(&k.text).expect("generated kernel parses");
    let r = three_ways(&m, k.grid, k.block, &k.input, k.out_len);
    let fail = |why: String| -> ! {
        panic!(
            "hopper_agree tcgen05 oracle: {why}\n--- kernel:\n{}\n--- ptx run {}",
            k.text,
            launch_args(&k)
        )
    };
    match (r, want) {
        (Ok(Ok(got)), None) => {
            if let Err(e) = ptx_ir_refsem::hopper::tmem::invariants(s, &got) {
                fail(e)
            }
        }
        (Ok(Err(e)), Some(w)) if e.contains("undefined behaviour") && e.contains(w) => {}
        (Ok(Err(e)), None) => fail(format!("interpreter error on a well-defined kernel: {e}")),
        (Ok(r), Some(w)) => fail(format!(
            "expected an undefined-behaviour report containing `{w}`, got {:?}",
            r.map(|_| "a normal end")
        )),
        (Err(f), _) => fail(format!("three-way failure: {}", message(&f))),
    }
}

/// Runs the misuse arm: the interpreter must stop with undefined behaviour citing the offset.
fn check_misaligned(m: &tensor::Misaligned) {
    let (k, off) = m.build();
    let module = ptx_ir_text::parse(&k.text).expect("generated kernel parses");
    let r = three_ways_maps(&module, k.grid, k.block, &k.input, k.out_len, &k.tmaps);
    let want = format!("starts {off} bytes into the innermost dimension");
    match r {
        Ok(Err(e)) if e.contains("undefined behaviour") && e.contains(&want) => {}
        other => panic!(
            "hopper_agree tensor oracle: a box starting {off} bytes into the innermost dimension must be reported as undefined behaviour ({want}); got {:?}\n--- kernel:\n{}\n--- ptx run {}",
            other.map(|r| r.map(|_| "a normal end")),
            k.text,
            launch_args(&k)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smoke_family(f: ProtocolFamily, seed: u64, iters: usize) -> usize {
        // `crate::smoke` takes a plain function: one per family.
        let oracle: fn(&mut Unstructured) -> arbitrary::Result<()> = match f {
            ProtocolFamily::Async => |u| run_family(u, ProtocolFamily::Async),
            ProtocolFamily::Bulk => |u| run_family(u, ProtocolFamily::Bulk),
            ProtocolFamily::Mbarrier => |u| run_family(u, ProtocolFamily::Mbarrier),
            ProtocolFamily::Cluster => |u| run_family(u, ProtocolFamily::Cluster),
            ProtocolFamily::Matrix => |u| run_family(u, ProtocolFamily::Matrix),
            ProtocolFamily::Fmma => |u| run_family(u, ProtocolFamily::Fmma),
            ProtocolFamily::Wgmma => |u| run_family(u, ProtocolFamily::Wgmma),
            ProtocolFamily::Tensor => |u| run_family(u, ProtocolFamily::Tensor),
            ProtocolFamily::Multicast => |u| run_family(u, ProtocolFamily::Multicast),
            ProtocolFamily::Tmem => |u| run_family(u, ProtocolFamily::Tmem),
            ProtocolFamily::Clc => |u| run_family(u, ProtocolFamily::Clc),
        };
        crate::smoke(oracle, seed, iters, 2048)
    }

    #[test]
    fn smoke_async() {
        let done = smoke_family(ProtocolFamily::Async, 0x5eed_0101, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_bulk() {
        let done = smoke_family(ProtocolFamily::Bulk, 0x5eed_0102, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_mbarrier() {
        let done = smoke_family(ProtocolFamily::Mbarrier, 0x5eed_0103, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_cluster() {
        let done = smoke_family(ProtocolFamily::Cluster, 0x5eed_0104, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_matrix() {
        let done = smoke_family(ProtocolFamily::Matrix, 0x5eed_0105, 150);
        assert!(done >= 100, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_fmma() {
        let done = smoke_family(ProtocolFamily::Fmma, 0x5eed_0106, 300);
        assert!(done >= 200, "only {done} of 300 inputs completed");
    }

    #[test]
    fn smoke_wgmma() {
        let done = smoke_family(ProtocolFamily::Wgmma, 0x5eed_0107, 100);
        assert!(done >= 60, "only {done} of 100 inputs completed");
    }

    #[test]
    fn smoke_tensor() {
        let done = smoke_family(ProtocolFamily::Tensor, 0x5eed_0108, 500);
        assert!(done >= 350, "only {done} of 500 inputs completed");
    }

    #[test]
    fn smoke_multicast() {
        let done = smoke_family(ProtocolFamily::Multicast, 0x5eed_0109, 200);
        assert!(done >= 130, "only {done} of 200 inputs completed");
    }

    #[test]
    fn smoke_tmem() {
        let done = smoke_family(ProtocolFamily::Tmem, 0x5eed_010a, 300);
        assert!(done >= 200, "only {done} of 300 inputs completed");
    }

    /// A tensor kernel's regression file (its `ptx run` line carries the `tmap:` arguments)
    /// replays to the reference's output.
    #[test]
    fn regression_file_carries_tensor_maps() {
        let mut src = crate::Bytes::new(0x7e45_0a11);
        let mut checked = 0;
        for _ in 0..40 {
            let data = src.fill(1024);
            let mut u = Unstructured::new(&data);
            let Ok(s) = tensor::Spec::arbitrary(&mut u) else {
                continue;
            };
            if !s.steps.iter().any(|x| matches!(x, tensor::Step::Load(..))) {
                continue;
            }
            let k = Kernel::of(&s);
            let file =
                crate::regress::Case::run("replay", &k.text, &k.run_args(), &k.expected).render();
            let case = crate::regress::Case::parse_file(&file).expect("regression file parses");
            crate::replay::check(&case).expect("regression file replays");
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} kernels with a load");
    }

    #[test]
    fn smoke_clc() {
        let done = smoke_family(ProtocolFamily::Clc, 0x5eed_010b, 100);
        assert!(done >= 70, "only {done} of 100 inputs completed");
    }
}
