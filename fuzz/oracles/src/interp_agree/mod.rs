//! The interpreter-agreement oracle.
//!
//! A typed generator ([`prog`]) draws a well-defined kernel under a swarm configuration
//! ([`prog::Swarm`]: which instruction families, roundings, `.ftz`/`.sat`, guards, branches,
//! loops and immediates may appear, and whether float families draw contraction chains). The
//! kernel is lowered to IR ([`lower`]) and run by the interpreter three ways — from the IR,
//! from its printed-and-reparsed text, and from its decoded bytecode — which must give
//! identical results (buffers and errors alike). Where the reference ([`eval`], [`fref`])
//! knows the answer (every family but the approximate functions), the output must equal it bit
//! for bit. The interpreter contracts `mul`/`add` pairs as ptxas does by default; the reference
//! decides the same independently ([`contract`]), and a second run of the interpreter with
//! `Contraction::Never` must equal the reference's one-by-one reading.
//!
//! A failure is shrunk (instructions and regions removed, stores narrowed to the registers that
//! differ, launch reduced) and reported as a regression file with `expect: run`.
//!
//! Adding a family: a variant of [`prog::Family`], its operations in [`prog::Op`] with a
//! [`prog::signature`], a generator arm in [`prog::Gen`], the lowering in [`lower`] and the
//! semantics in [`eval::eval`] (or none, for three-way agreement only).

pub mod contract;
pub mod eval;
pub mod fref;
pub mod lower;
pub mod prog;

use crate::regress;
use arbitrary::Unstructured;
use prog::{Family, Gen, Node, Program, Swarm};
use ptx_ir_core::Module;
use ptx_ir_interp::{Arg, Contraction, Program as Loaded};

/// Fuel for one launch (thread-instructions): generated kernels need far less.
const FUEL: u64 = 20_000_000;

/// Runs the oracle on one input.
pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    run_families(u, &Family::ALL)
}

/// Runs the oracle on one input with the swarm drawn from `families` only (focused smoke
/// tests: every configuration then exercises the families under test).
pub fn run_families(u: &mut Unstructured, families: &[Family]) -> arbitrary::Result<()> {
    let swarm = Swarm::arbitrary(u, families)?;
    let p = Gen::new(&swarm).program(u)?;
    if let Err(f) = check(&p) {
        report(&p, f);
    }
    Ok(())
}

/// How a generated program failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The printed kernel does not read back, or reads back as different IR.
    Text(String),
    /// The interpreter rejected or failed on the kernel (from its IR).
    Error(String),
    /// The three runs disagree.
    Disagree(String),
    /// The interpreter's output differs from the reference's.
    Reference {
        /// First differing thread.
        thread: u32,
        /// Registers whose stored value differs (in any thread).
        regs: Vec<prog::Reg>,
        /// Description of the first difference.
        detail: String,
        /// With `Contraction::Never` (every instruction rounding on its own).
        never: bool,
    },
}

impl Failure {
    fn kind(&self) -> u8 {
        match self {
            Failure::Text(_) => 0,
            Failure::Error(_) => 1,
            Failure::Disagree(_) => 2,
            Failure::Reference { never: false, .. } => 3,
            Failure::Reference { never: true, .. } => 4,
        }
    }

    fn message(&self) -> String {
        match self {
            Failure::Text(s) => format!("text round trip: {s}"),
            Failure::Error(s) => format!("interpreter error on a well-defined kernel: {s}"),
            Failure::Disagree(s) => format!("IR, text and bytecode runs disagree: {s}"),
            Failure::Reference {
                detail,
                never: false,
                ..
            } => format!("differs from the reference: {detail}"),
            Failure::Reference {
                detail,
                never: true,
                ..
            } => format!("differs from the reference (--contract never): {detail}"),
        }
    }
}

/// Launches `m` with the given input and a zeroed output of `out_len` bytes; returns the
/// output buffer or the error text.
pub fn launch(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
) -> Result<Vec<u8>, String> {
    launch_maps(m, grid, block, input, out_len, &[])
}

/// As [`launch`], with tensor-map arguments after the two buffers: each is the description
/// `ptx run --arg tmap:DESC` takes (`buf=0` is the input buffer, `buf=1` the output).
pub fn launch_maps(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
    tmaps: &[String],
) -> Result<Vec<u8>, String> {
    launch_mode(m, grid, block, input, out_len, tmaps, Contraction::Ptxas)
}

/// As [`launch_maps`], with contraction `c`.
pub fn launch_mode(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
    tmaps: &[String],
    c: Contraction,
) -> Result<Vec<u8>, String> {
    let prog = Loaded::load(m).map_err(|e| format!("load: {e}"))?;
    let mut l = prog
        .launch("k")
        .grid([grid, 1, 1])
        .block([block, 1, 1])
        .fuel(FUEL)
        .contraction(c)
        .arg(Arg::Buffer(input.to_vec()))
        .arg(Arg::Buffer(vec![0; out_len]));
    for t in tmaps {
        l = l.arg(Arg::TensorMap(ptx_ir_interp::tmap::TensorMapArg::parse(t)?));
    }
    let o = l.run().map_err(|f| f.error.to_string())?;
    o.buffers
        .last()
        .cloned()
        .ok_or_else(|| "no buffers".to_string())
}

/// The `ptx run` arguments of a program's launch (`never`: with `--contract never`).
pub fn run_args(p: &Program, never: bool) -> String {
    format!(
        "--entry k --grid {} --block {} --arg hex:{} --arg zeros:{}{}",
        p.grid,
        p.block,
        regress::hex(&lower::input(p)),
        p.out_len(),
        if never { " --contract never" } else { "" }
    )
}

/// Runs `m` from its IR, its printed-and-reparsed text and its decoded bytecode; all three
/// must agree. Returns the common result.
pub fn three_ways(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
) -> Result<Result<Vec<u8>, String>, Failure> {
    three_ways_maps(m, grid, block, input, out_len, &[])
}

/// As [`three_ways`], with tensor-map arguments (see [`launch_maps`]).
pub fn three_ways_maps(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
    tmaps: &[String],
) -> Result<Result<Vec<u8>, String>, Failure> {
    three_ways_mode(m, grid, block, input, out_len, tmaps, Contraction::Ptxas)
}

/// As [`three_ways_maps`], with contraction `c`.
pub fn three_ways_mode(
    m: &Module,
    grid: u32,
    block: u32,
    input: &[u8],
    out_len: usize,
    tmaps: &[String],
    c: Contraction,
) -> Result<Result<Vec<u8>, String>, Failure> {
    let text = ptx_ir_text::print(m);
    let m2 = ptx_ir_text::parse(&text)
        .map_err(|e| Failure::Text(format!("printed kernel does not parse: {e}")))?;
    if &m2 != m {
        return Err(Failure::Text(format!(
            "printed kernel reads back differently: {}",
            crate::roundtrip::first_difference(m, &m2)
        )));
    }
    // A generated kernel must be one ptxas accepts: the verifier holds the rules that GPU
    // batches found the generators breaking (so a local run catches them).
    if let Some(d) = ptx_ir_core::verify::verify(m)
        .into_iter()
        .find(|d| d.severity() == ptx_ir_core::verify::Severity::Error)
    {
        return Err(Failure::Text(format!(
            "the verifier rejects the kernel: {d}"
        )));
    }
    let bytes = ptx_ir_binary::encode(m).map_err(|e| Failure::Text(format!("encode: {e}")))?;
    let m3 = ptx_ir_binary::decode(&bytes).map_err(|e| Failure::Text(format!("decode: {e}")))?;
    let r1 = launch_mode(m, grid, block, input, out_len, tmaps, c);
    let r2 = launch_mode(&m2, grid, block, input, out_len, tmaps, c);
    let r3 = launch_mode(&m3, grid, block, input, out_len, tmaps, c);
    if r1 != r2 || r1 != r3 {
        let show = |r: &Result<Vec<u8>, String>| match r {
            Ok(b) => format!("ok ({} bytes, hash {:016x})", b.len(), fnv(b)),
            Err(e) => format!("error: {e}"),
        };
        return Err(Failure::Disagree(format!(
            "IR: {}; text: {}; bytecode: {}",
            show(&r1),
            show(&r2),
            show(&r3)
        )));
    }
    Ok(r1)
}

fn fnv(b: &[u8]) -> u64 {
    b.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Checks one program: three-way agreement, no error, and agreement with the reference, as
/// ptxas compiles it (contraction) and as the ISA reads it one instruction at a time (a second
/// run of the interpreter with `Contraction::Never`).
pub fn check(p: &Program) -> Result<(), Failure> {
    let m = lower::module(p);
    let input = lower::input(p);
    let out_len = p.out_len() as usize;
    let got = three_ways(&m, p.grid, p.block, &input, out_len)?.map_err(Failure::Error)?;
    if let Some(exp) = eval::run(p) {
        compare(p, &got, &exp, false)?;
    }
    let got = launch_mode(
        &m,
        p.grid,
        p.block,
        &input,
        out_len,
        &[],
        Contraction::Never,
    )
    .map_err(|e| Failure::Error(format!("with --contract never: {e}")))?;
    if let Some(exp) = eval::run_never(p) {
        compare(p, &got, &exp, true)?;
    }
    Ok(())
}

/// Compares the interpreter's output `got` with the reference's `exp`.
fn compare(p: &Program, got: &[u8], exp: &eval::Expected, never: bool) -> Result<(), Failure> {
    let (offs, rec) = p.record_layout();
    let out_len = p.out_len() as usize;
    let mut first = None;
    let mut regs = Vec::new();
    for th in 0..p.block * p.grid {
        for (r, &o) in p.outputs.iter().zip(&offs) {
            let n = match r.class {
                prog::Class::P => 1,
                c => (c.bits() / 8) as usize,
            };
            let at = (th * rec + o) as usize;
            let range = at..at + n;
            if !exp.known[range.clone()].iter().all(|&k| k) {
                continue;
            }
            if got[range.clone()] != exp.bytes[range.clone()] {
                if !regs.contains(r) {
                    regs.push(*r);
                }
                if first.is_none() {
                    let le = |b: &[u8]| {
                        let mut w = [0u8; 8];
                        w[..b.len()].copy_from_slice(b);
                        u64::from_le_bytes(w)
                    };
                    first = Some((
                        th,
                        format!(
                            "thread {th}: {}{} is {:#x}, expected {:#x}",
                            r.class.prefix(),
                            r.idx,
                            le(&got[range.clone()]),
                            le(&exp.bytes[range])
                        ),
                    ));
                }
            }
        }
    }
    // The global scratch area after the records (memory family): whole 8-byte words.
    let tail = (rec * p.block * p.grid) as usize;
    for at in (tail..out_len).step_by(8) {
        let range = at..at + 8;
        if first.is_none()
            && exp.known[range.clone()].iter().all(|&k| k)
            && got[range.clone()] != exp.bytes[range.clone()]
        {
            let le = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
            first = Some((
                0,
                format!(
                    "global scratch word at byte {at} is {:#x}, expected {:#x}",
                    le(&got[range.clone()]),
                    le(&exp.bytes[range])
                ),
            ));
        }
    }
    match first {
        None => Ok(()),
        Some((thread, detail)) => Err(Failure::Reference {
            thread,
            regs,
            detail,
            never,
        }),
    }
}

/// Whether `p` fails the same way as `f` did (same kind of failure).
fn fails_like(p: &Program, f: &Failure) -> Option<Failure> {
    match check(p) {
        Err(g) if g.kind() == f.kind() => Some(g),
        _ => None,
    }
}

/// Every way of removing one node (or unwrapping one region) from `ns`.
fn variants(ns: &[Node]) -> Vec<Vec<Node>> {
    let mut out = Vec::new();
    for k in 0..ns.len() {
        let mut v = ns.to_vec();
        v.remove(k);
        out.push(v);
        match &ns[k] {
            Node::If { cond, then, els } => {
                for (arm, other) in [(then, false), (els, true)] {
                    let mut v = ns.to_vec();
                    v.splice(k..=k, arm.iter().cloned());
                    out.push(v);
                    let _ = other;
                }
                for sub in variants(then) {
                    let mut v = ns.to_vec();
                    v[k] = Node::If {
                        cond: *cond,
                        then: sub,
                        els: els.clone(),
                    };
                    out.push(v);
                }
                for sub in variants(els) {
                    let mut v = ns.to_vec();
                    v[k] = Node::If {
                        cond: *cond,
                        then: then.clone(),
                        els: sub,
                    };
                    out.push(v);
                }
            }
            Node::Loop { trips, body } => {
                let mut v = ns.to_vec();
                v.splice(k..=k, body.iter().cloned());
                out.push(v);
                for sub in variants(body) {
                    let mut v = ns.to_vec();
                    v[k] = Node::Loop {
                        trips: *trips,
                        body: sub,
                    };
                    out.push(v);
                }
            }
            Node::Switch { sel, arms } => {
                for (a, arm) in arms.iter().enumerate() {
                    let mut v = ns.to_vec();
                    v.splice(k..=k, arm.iter().cloned());
                    out.push(v);
                    for sub in variants(arm) {
                        let mut v = ns.to_vec();
                        let mut arms2 = arms.clone();
                        arms2[a] = sub;
                        v[k] = Node::Switch {
                            sel: *sel,
                            arms: arms2,
                        };
                        out.push(v);
                    }
                }
            }
            Node::Inst(_) | Node::Barrier(_) => {}
        }
    }
    out
}

/// Shrinks a failing program: narrower stores, fewer nodes, a smaller launch.
pub fn shrink(p: &Program, f: &Failure) -> (Program, Failure) {
    let mut best = p.clone();
    let mut fail = f.clone();
    let mut budget = 400;
    if let Failure::Reference { regs, .. } = &fail {
        let mut q = best.clone();
        q.outputs = regs.clone();
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    if best.exit.is_some() {
        let mut q = best.clone();
        q.exit = None;
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    for (grid, block) in [(1, best.block), (1, 32)] {
        let mut q = best.clone();
        q.grid = grid;
        q.block = block.min(best.block);
        if q != best {
            if let Some(g) = fails_like(&q, &fail) {
                best = q;
                fail = g;
            }
        }
    }
    let mut progress = true;
    while progress && budget > 0 {
        progress = false;
        for body in variants(&best.body) {
            budget -= 1;
            if budget == 0 {
                break;
            }
            let mut q = best.clone();
            q.body = body;
            if let Some(g) = fails_like(&q, &fail) {
                best = q;
                fail = g;
                progress = true;
                break;
            }
        }
    }
    if let Failure::Reference { regs, .. } = &fail {
        let mut q = best.clone();
        q.outputs = regs.clone();
        if let Some(g) = fails_like(&q, &fail) {
            best = q;
            fail = g;
        }
    }
    (best, fail)
}

/// Shrinks the failure and panics with a ready-to-commit regression file.
fn report(p: &Program, f: Failure) -> ! {
    let (q, g) = shrink(p, &f);
    let m = lower::module(&q);
    let text = ptx_ir_text::print(&m);
    let never = matches!(g, Failure::Reference { never: true, .. });
    let mode = if never {
        Contraction::Never
    } else {
        Contraction::Ptxas
    };
    let expected = match &g {
        // The reference's answer where it has one, the interpreter's elsewhere.
        Failure::Reference { .. } => {
            let exp = eval::run_mode(&q, !never).expect("the reference ran before");
            let input = lower::input(&q);
            let got = launch_mode(&m, q.grid, q.block, &input, q.out_len() as usize, &[], mode)
                .unwrap_or_default();
            exp.bytes
                .iter()
                .zip(&exp.known)
                .enumerate()
                .map(|(k, (&b, &known))| {
                    if known {
                        b
                    } else {
                        got.get(k).copied().unwrap_or(b)
                    }
                })
                .collect()
        }
        _ => eval::run(&q).map(|e| e.bytes).unwrap_or_default(),
    };
    let file = regress::Case::run(&g.message(), &text, &run_args(&q, never), &expected).render();
    panic!(
        "interp_agree oracle: {}\n--- regression file (save as corpus/regress/NAME.ptx):\n{file}",
        g.message()
    );
}

/// Runs a regression file's kernel with `run` (the arguments of `ptx run`) three ways and
/// compares the last buffer with `out`.
pub fn check_run(text: &str, run: &str, out: &[u8]) -> Result<(), String> {
    let m = ptx_ir_text::parse(text).map_err(|e| format!("does not parse: {e}"))?;
    let toks: Vec<&str> = run.split_whitespace().collect();
    let (mut grid, mut block, mut entry) = (1u32, 32u32, "k");
    let mut contraction = Contraction::Ptxas;
    let mut args = Vec::new();
    let mut tmaps = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let v = toks.get(i + 1).copied().unwrap_or("");
        match toks[i] {
            "--entry" => entry = v,
            "--grid" => {
                grid = v
                    .split(',')
                    .next()
                    .unwrap_or("1")
                    .parse()
                    .map_err(|_| "bad --grid")?
            }
            "--block" => {
                block = v
                    .split(',')
                    .next()
                    .unwrap_or("1")
                    .parse()
                    .map_err(|_| "bad --block")?
            }
            // Tensor maps (after the two buffers) go to the launch as their descriptions.
            "--arg" if v.starts_with("tmap:") => tmaps.push(v["tmap:".len()..].to_string()),
            "--arg" => args.push(Arg::parse_spec(v)?.0),
            "--contract" => {
                contraction = match v {
                    "ptxas" => Contraction::Ptxas,
                    "never" => Contraction::Never,
                    _ => return Err(format!("unknown --contract `{v}`")),
                }
            }
            t => return Err(format!("unknown RUN token `{t}`")),
        }
        i += 2;
    }
    if entry != "k" || args.len() != 2 {
        return Err("expected `--entry k` with an input and an output buffer".into());
    }
    let (Arg::Buffer(input), Arg::Buffer(zeros)) = (&args[0], &args[1]) else {
        return Err("expected two buffer arguments".into());
    };
    let got = three_ways_mode(&m, grid, block, input, zeros.len(), &tmaps, contraction)
        .map_err(|f| f.message())?
        .map_err(|e| format!("interpreter error: {e}"))?;
    if got != out {
        // The differing 8-byte words (the slots of most regression kernels), first few.
        let word = |b: &[u8], k: usize| {
            let mut w = [0u8; 8];
            let chunk = b.get(8 * k..(8 * k + 8).min(b.len())).unwrap_or(&[]);
            w[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(w)
        };
        let words = got.len().max(out.len()).div_ceil(8);
        let diffs: Vec<String> = (0..words)
            .filter(|&k| word(&got, k) != word(out, k))
            .take(4)
            .map(|k| {
                format!(
                    "word {k}: {:#018x} instead of {:#018x}",
                    word(&got, k),
                    word(out, k)
                )
            })
            .collect();
        return Err(format!("output differs from `out:`: {}", diffs.join("; ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke() {
        let done = crate::smoke(run, 0x5eed_0004, 300, 4096);
        assert!(done >= 100, "only {done} of 300 inputs completed");
    }

    fn run_half(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Half])
    }

    fn run_carry_bits(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Carry, Family::Bits])
    }

    fn run_call(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Call, Family::Int, Family::Float, Family::Half])
    }

    #[test]
    fn smoke_call() {
        let done = crate::smoke(run_call, 0x5eed_0009, 100, 4096);
        assert!(done >= 30, "only {done} of 100 inputs completed");
    }

    fn run_mem(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Mem, Family::Int])
    }

    #[test]
    fn smoke_mem() {
        let done = crate::smoke(run_mem, 0x5eed_0007, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// The memory family's protocol (own slots, peers' slots from the other buffer, one
    /// operation per cell) keeps segments race-free: the reference, which gives up on a race,
    /// answers for (nearly) every generated kernel, and the kernels do use barriers and read
    /// other threads' slots.
    #[test]
    fn mem_kernels_are_race_free() {
        let mut src = crate::Bytes::new(0x5eed_0008);
        let (mut mem, mut answered, mut barriers, mut peers) = (0, 0, 0, 0);
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[Family::Mem, Family::Int]) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            if !p.uses_mem() {
                continue;
            }
            mem += 1;
            answered += eval::run(&p).is_some() as usize;
            barriers += p
                .body
                .iter()
                .filter(|n| matches!(n, Node::Barrier(_)))
                .count();
            peers += p
                .insts()
                .iter()
                .filter(|i| matches!(i.op, prog::Op::Ld { peer, .. } if peer > 0))
                .count();
        }
        assert!(mem >= 100, "{mem} kernels use memory");
        assert!(answered * 100 >= mem * 95, "{answered} of {mem} answered");
        assert!(
            barriers >= 30 && peers >= 100,
            "{barriers} barriers, {peers} peer loads"
        );
    }

    fn run_generic(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Generic, Family::Mem, Family::Int])
    }

    #[test]
    fn smoke_generic() {
        let done = crate::smoke(run_generic, 0x5eed_000a, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// Counts, over generated kernels of `families`, those the reference answers and the
    /// instructions matching each predicate of `kinds`.
    fn census(
        seed: u64,
        families: &[Family],
        kinds: &[fn(&prog::Op) -> bool],
    ) -> (usize, usize, Vec<usize>) {
        let mut src = crate::Bytes::new(seed);
        let (mut kernels, mut answered) = (0, 0);
        let mut counts = vec![0; kinds.len()];
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, families) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            kernels += 1;
            answered += eval::run(&p).is_some() as usize;
            for i in p.insts() {
                for (c, k) in counts.iter_mut().zip(kinds) {
                    *c += k(&i.op) as usize;
                }
            }
        }
        (kernels, answered, counts)
    }

    /// The generic-addressing kernels use every kind of instruction, and the reference answers
    /// (nearly) all of them.
    #[test]
    fn generic_kernels_are_answered() {
        use prog::{AddrKind, Op};
        let (kernels, answered, c) = census(
            0x5eed_000b,
            &[Family::Generic, Family::Int],
            &[
                |o| matches!(o, Op::Isspacep { .. }),
                |o| {
                    matches!(
                        o,
                        Op::Isspacep {
                            ptr: prog::Win::Const | prog::Win::Param,
                            ..
                        }
                    )
                },
                |o| matches!(o, Op::CvtaRound { .. }),
                |o| {
                    matches!(
                        o,
                        Op::Ld {
                            addr: AddrKind::Generic,
                            ..
                        } | Op::St {
                            addr: AddrKind::Generic,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::Atom {
                            addr: AddrKind::Generic,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::Atom {
                            t: prog::AtomT::Half(..) | prog::AtomT::F64,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::Atom {
                            sem: Some(_),
                            scope: Some(_),
                            ..
                        }
                    )
                },
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 5), "instruction counts {c:?}");
    }

    fn run_hint(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Hint, Family::Warp, Family::Int])
    }

    #[test]
    fn smoke_hint() {
        let done = crate::smoke(run_hint, 0x5eed_0010, 200, 4096);
        assert!(done >= 60, "only {done} of 200 inputs completed");
    }

    /// The hint family draws every kind of instruction (`setmaxnreg` too, which needs a
    /// kernel of whole warpgroups), and the reference answers (nearly) every kernel.
    #[test]
    fn hint_kernels_are_answered() {
        use prog::{HintOp, LdHow, Op};
        let (kernels, answered, c) = census(
            0x5eed_0011,
            &[Family::Hint, Family::Warp],
            &[
                |o| matches!(o, Op::PackSat(t) if t.with_c()),
                |o| matches!(o, Op::PackSat(t) if !t.with_c()),
                |o| {
                    matches!(
                        o,
                        Op::LdIn {
                            how: LdHow::Ldu,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::LdIn {
                            how: LdHow::Nc(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::LdIn {
                            how: LdHow::Policy(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::LdIn {
                            how: LdHow::Prefetch(_),
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::LdIn {
                            how: LdHow::Applypriority,
                            ..
                        }
                    )
                },
                |o| matches!(o, Op::LdIn { vec: 4, .. }),
                |o| matches!(o, Op::Hint(HintOp::Setmaxnreg { inc: true, .. })),
                |o| matches!(o, Op::Hint(HintOp::Setmaxnreg { inc: false, .. })),
                |o| matches!(o, Op::Hint(HintOp::Fence { .. } | HintOp::Membar(_))),
                |o| matches!(o, Op::Hint(HintOp::Proxy(_))),
                |o| matches!(o, Op::Hint(HintOp::Sleep(_) | HintOp::SleepReg)),
                |o| matches!(o, Op::Hint(HintOp::Pmevent(_) | HintOp::PmeventMask(_))),
                |o| matches!(o, Op::Hint(HintOp::Griddep(_))),
                |o| matches!(o, Op::Hint(HintOp::Discard)),
                |o| matches!(o, Op::Activemask),
                |o| matches!(o, Op::Alloca { restore: true, .. }),
                |o| matches!(o, Op::Alloca { restore: false, .. }),
                |o| {
                    matches!(
                        o,
                        Op::Alloca {
                            lane_size: true,
                            generic: true,
                            ..
                        }
                    )
                },
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 3), "instruction counts {c:?}");
    }

    /// Some kernels end with a divergent `exit` (its lanes store nothing), `bar.warp.sync`
    /// appears, and such kernels agree three ways and with the reference.
    #[test]
    fn exit_and_warp_sync_are_generated() {
        let mut src = crate::Bytes::new(0x5eed_0012);
        let (mut exits, mut syncs, mut checked) = (0, 0, 0);
        for _ in 0..200 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[Family::Warp, Family::Int]) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            exits += p.exit.is_some() as usize;
            syncs += p
                .insts()
                .iter()
                .filter(|i| i.op == prog::Op::WarpSync)
                .count();
            if p.exit.is_some() {
                if let Err(f) = check(&p) {
                    panic!("{}", f.message());
                }
                checked += 1;
            }
        }
        assert!(
            exits >= 20 && syncs >= 20,
            "{exits} exits, {syncs} bar.warp.sync"
        );
        assert_eq!(checked, exits);
    }

    fn run_barrier(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Barrier, Family::Mem, Family::Cmp])
    }

    #[test]
    fn smoke_barrier() {
        let done = crate::smoke(run_barrier, 0x5eed_000c, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    /// Barrier kernels have barriers in loops, reductions and producer/consumer hand-offs, and
    /// the reference answers (nearly) all of them.
    #[test]
    fn barrier_kernels_are_answered() {
        let mut src = crate::Bytes::new(0x5eed_000d);
        let (mut kernels, mut answered) = (0, 0);
        // Barriers in loops, reductions, hand-offs.
        let mut c = [0usize; 3];
        fn walk(ns: &[Node], in_loop: bool, c: &mut [usize; 3]) {
            for n in ns {
                match n {
                    Node::Barrier(b) => {
                        c[0] += in_loop as usize;
                        c[1] += matches!(b, prog::Bar::Red { .. }) as usize;
                        c[2] += matches!(b, prog::Bar::Arrive { .. }) as usize;
                    }
                    Node::Loop { body, .. } => walk(body, true, c),
                    _ => {}
                }
            }
        }
        for _ in 0..300 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(swarm) = Swarm::arbitrary(&mut u, &[Family::Barrier, Family::Cmp]) else {
                continue;
            };
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            if !p.has_barrier() {
                continue;
            }
            kernels += 1;
            answered += eval::run(&p).is_some() as usize;
            walk(&p.body, false, &mut c);
        }
        assert!(kernels >= 100, "{kernels} kernels with barriers");
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(
            c[0] >= 20 && c[1] >= 50 && c[2] >= 20,
            "{} in loops, {} reductions, {} hand-offs",
            c[0],
            c[1],
            c[2]
        );
    }

    /// Call kernels use indirect calls of both kinds and both recursive functions, and the
    /// reference answers (nearly) all of them.
    #[test]
    fn call_kernels_are_answered() {
        use prog::{Op, Via};
        let (kernels, answered, c) = census(
            0x5eed_000e,
            &[Family::Call, Family::Int],
            &[
                |o| {
                    matches!(
                        o,
                        Op::Call {
                            via: Via::Proto,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::Call {
                            via: Via::Targets,
                            ..
                        }
                    )
                },
                |o| matches!(o, Op::Rec { reg: false }),
                |o| matches!(o, Op::Rec { reg: true }),
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 20), "instruction counts {c:?}");
    }

    /// Half kernels use the half conversions and `set`, and the reference answers (nearly) all
    /// of them.
    #[test]
    fn half_kernels_are_answered() {
        use prog::{HPeer, Op};
        let (kernels, answered, c) = census(
            0x5eed_000f,
            &[Family::Half],
            &[
                |o| {
                    matches!(
                        o,
                        Op::CvtHalfX {
                            peer: HPeer::Int(..),
                            to_half: true,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::CvtHalfX {
                            peer: HPeer::Int(..),
                            to_half: false,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::CvtHalfX {
                            peer: HPeer::F64,
                            ..
                        }
                    )
                },
                |o| {
                    matches!(
                        o,
                        Op::CvtHalfX {
                            peer: HPeer::Half,
                            ..
                        }
                    )
                },
                |o| matches!(o, Op::Hset { .. }),
            ],
        );
        assert!(
            answered * 100 >= kernels * 90,
            "{answered} of {kernels} answered"
        );
        assert!(c.iter().all(|&n| n >= 20), "instruction counts {c:?}");
    }

    /// A regression file's `RUN:` line may ask for `--contract never`.
    #[test]
    fn check_run_takes_the_contraction_mode() {
        let text = ".version 8.7\n.target sm_90\n.address_size 64\n\
            .visible .entry k(.param .u64 in, .param .u64 out)\n{\n\
            .reg .f32 %f<4>;\n.reg .b64 %rd<2>;\n\
            ld.param.u64 %rd0, [in];\nld.param.u64 %rd1, [out];\n\
            cvta.to.global.u64 %rd0, %rd0;\ncvta.to.global.u64 %rd1, %rd1;\n\
            ld.global.f32 %f1, [%rd0];\nld.global.f32 %f2, [%rd0+4];\n\
            mul.rn.f32 %f3, %f1, %f2;\nmul.f32 %f0, %f1, %f2;\nsub.f32 %f0, %f0, %f3;\n\
            st.global.f32 [%rd1], %f0;\nret;\n}\n";
        // (1 + 2^-23)(1 - 2^-24) - round(...): 2^-24 - 2^-47 fused, 0 one by one.
        let run = "--entry k --grid 1 --block 1 --arg hex:0100803fffff7f3f --arg zeros:4";
        let fused = (2f32.powi(-24) - 2f32.powi(-47)).to_le_bytes();
        assert_eq!(check_run(text, run, &fused), Ok(()));
        let never = format!("{run} --contract never");
        assert_eq!(check_run(text, &never, &[0; 4]), Ok(()));
        assert!(check_run(text, &never, &fused).is_err());
    }

    fn run_contract(u: &mut Unstructured) -> arbitrary::Result<()> {
        run_families(u, &[Family::Float, Family::Half, Family::Cmp])
    }

    #[test]
    fn smoke_contract() {
        let done = crate::smoke(run_contract, 0x5eed_0013, 200, 4096);
        assert!(done >= 60, "only {done} of 200 inputs completed");
    }

    /// With the contraction knob, float and half kernels fuse `mul`/`add` pairs of every type
    /// (through moves and `neg`s, with guards, `.ftz` and `.sat`), the fused results often
    /// differ from the one-by-one reading, the `neg` folds appear, and the reference rarely
    /// leaves a fusion undecided.
    #[test]
    fn contraction_is_generated() {
        use contract::{Fty, Plan};
        let mut src = crate::Bytes::new(0x5eed_0014);
        let (mut kernels, mut differ, mut unsure, mut candidates) = (0, 0, 0, 0);
        let mut with_fused = 0;
        let mut fused = std::collections::HashMap::new();
        let (mut sat, mut ftz, mut guarded, mut negated, mut folds) = (0, 0, 0, 0, [0; 3]);
        for _ in 0..400 {
            let data = src.fill(4096);
            let mut u = Unstructured::new(&data);
            let Ok(mut swarm) = Swarm::arbitrary(&mut u, &[Family::Float, Family::Half]) else {
                continue;
            };
            swarm.contract = true;
            let Ok(p) = Gen::new(&swarm).program(&mut u) else {
                continue;
            };
            kernels += 1;
            let plans = contract::Plans::of(&p);
            with_fused += plans.all().any(|pl| matches!(pl, Plan::Fused { .. })) as usize;
            for i in p.insts() {
                let add = contract::add_of(&i.op);
                candidates += add.is_some() as usize;
                match plans.get(i) {
                    Some(Plan::Fused { neg_product, .. }) => {
                        let (ty, _, f, s) = add.expect("an add");
                        *fused.entry(format!("{ty:?}")).or_insert(0usize) += 1;
                        sat += s as usize;
                        ftz += f as usize;
                        guarded += i.guard.is_some() as usize;
                        negated += neg_product as usize;
                    }
                    Some(Plan::Unsure) => unsure += 1,
                    Some(Plan::Copy(_) | Plan::CopySaved(_)) => folds[0] += 1,
                    Some(Plan::SignFlip) => folds[1] += 1,
                    Some(Plan::SelectNeg { .. }) => folds[2] += 1,
                    _ => {}
                }
            }
            let (a, b) = (eval::run(&p), eval::run_never(&p));
            if let (Some(a), Some(b)) = (a, b) {
                differ += (a
                    .bytes
                    .iter()
                    .zip(&a.known)
                    .zip(b.bytes.iter().zip(&b.known)))
                .any(|((x, kx), (y, ky))| *kx && *ky && x != y) as usize;
            }
        }
        let n: usize = fused.values().sum();
        eprintln!(
            "{kernels} kernels ({with_fused} with fused adds), {candidates} candidate adds, fused {fused:?}, {unsure} unsure, \
             {differ} kernels differ, sat {sat} ftz {ftz} guarded {guarded} negated {negated}, \
             folds {folds:?}"
        );
        let _ = Fty::F32;
        assert!(
            fused.len() == 6 && fused.values().all(|&k| k >= 20),
            "{fused:?}"
        );
        assert!(unsure * 20 <= n, "{unsure} undecided of {n}");
        assert!(
            differ * 4 >= with_fused,
            "{differ} of {with_fused} kernels with fused adds differ"
        );
        assert!(sat >= 10 && ftz >= 10 && guarded >= 10 && negated >= 10);
        assert!(folds.iter().all(|&k| k >= 5), "folds {folds:?}");
    }

    #[test]
    fn smoke_half() {
        let done = crate::smoke(run_half, 0x5eed_0005, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }

    #[test]
    fn smoke_carry_bits() {
        let done = crate::smoke(run_carry_bits, 0x5eed_0006, 150, 4096);
        assert!(done >= 50, "only {done} of 150 inputs completed");
    }
}
