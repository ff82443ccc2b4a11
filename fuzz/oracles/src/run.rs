//! Running a kernel in the interpreter the ways the oracles compare: from its IR, from its
//! printed-and-reparsed text and from its decoded bytecode ([`three_ways`]), with the launch of a
//! generated kernel (an input and a zeroed output buffer, tensor maps after them) or the `RUN:`
//! line of a regression file ([`check_run`]); and how a run can fail ([`Failure`]).

use ptx_ir_core::Module;
use ptx_ir_interp::{Arg, Contraction, Program as Loaded};

/// Fuel for one launch (thread-instructions): generated kernels need far less.
const FUEL: u64 = 20_000_000;

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
        regs: Vec<ptx_ir_smith::model::Reg>,
        /// Description of the first difference.
        detail: String,
        /// With `Contraction::Never` (every instruction rounding on its own).
        never: bool,
    },
}

impl Failure {
    /// The kind of failure, for shrinking: a smaller case must fail the same way.
    pub fn kind(&self) -> u8 {
        match self {
            Failure::Text(_) => 0,
            Failure::Error(_) => 1,
            Failure::Disagree(_) => 2,
            Failure::Reference { never: false, .. } => 3,
            Failure::Reference { never: true, .. } => 4,
        }
    }

    /// The failure as the first line of a regression file says it.
    pub fn message(&self) -> String {
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
        // The generators' programs are race-free, initialise what they read and synchronise
        // correctly by construction: any finding of a check is a bug of one side or the other.
        .checks(ptx_ir_interp::Checks::all())
        .arg(Arg::Buffer(input.to_vec()))
        .arg(Arg::Buffer(vec![0; out_len]));
    for t in tmaps {
        l = l.arg(Arg::TensorMap(
            ptx_ir_interp::tmap::TensorMapArg::parse(t).map_err(|e| e.to_string())?,
        ));
    }
    let o = l.run().map_err(|f| f.error.to_string())?;
    if let Some(f) = o.findings.first() {
        return Err(format!("check finding: {f}"));
    }
    o.buffers
        .last()
        .cloned()
        .ok_or_else(|| "no buffers".to_string())
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
            ptx_ir::roundtrip::first_difference(m, &m2)
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
            "--arg" => args.push(Arg::parse_spec(v).map_err(|e| e.to_string())?.0),
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
}
