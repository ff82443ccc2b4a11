//! Checking one generated program: it runs alike three ways without an error and agrees with
//! the reference semantics, as ptxas compiles it (contraction) and one instruction at a time.

use crate::run::{launch_mode, three_ways, Failure};
use ptx_ir_interp::Contraction;
use ptx_ir_refsem::eval;
use ptx_ir_smith::lower;
use ptx_ir_smith::model::{Class, Program};

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
                Class::P => 1,
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
