//! Writes a batch of generated interpreter-agreement kernels for a run on real hardware
//! (`fuzz/tools/hw_run.py` on the GPU machine), with the reference's and the interpreter's
//! answers, so that `fuzz/tools/hw_compare.py` can check the reference (and the interpreter)
//! against the GPU.
//!
//! `cargo run --release -p ptx-ir-oracles --example hw_batch -- DIR [COUNT] [SEED]`
//! (`HW_FAMILIES=Carry,Half,...` restricts the families).

use arbitrary::Unstructured;
use ptx_ir_oracles::run::launch;
use ptx_ir_oracles::{regress::hex, Bytes};
use ptx_ir_refsem::eval;
use ptx_ir_smith::lower;
use ptx_ir_smith::{gen, model as prog};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(args.get(1).expect("usage: hw_batch DIR [COUNT] [SEED]"));
    let count: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let seed: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    std::fs::create_dir_all(&dir).expect("output directory");
    let mut src = Bytes::new(seed);
    let mut index = std::fs::File::create(dir.join("cases.jsonl")).expect("cases.jsonl");
    let mut launches = std::fs::File::create(dir.join("launch.jsonl")).expect("launch.jsonl");
    let mut written = 0;
    // Draws for the current case: a family that makes no instruction on its own (`Barrier`)
    // gets the batch's other families after a few tries instead of looping forever.
    let mut tries = 0;
    while written < count {
        tries += 1;
        let data = src.fill(4096);
        let mut u = Unstructured::new(&data);
        let Ok(mut swarm) = gen::Swarm::arbitrary(&mut u, &prog::SimtFamily::ALL) else {
            continue;
        };
        // Mostly one family and a few instructions, so that a difference names its cause.
        // `HW_FAMILIES=Carry,Half` restricts the batch to those families.
        let fams: Vec<prog::SimtFamily> = match std::env::var("HW_FAMILIES") {
            Ok(v) => prog::SimtFamily::ALL
                .into_iter()
                .filter(|f| v.split(',').any(|n| n == format!("{f:?}")))
                .collect(),
            Err(_) => prog::SimtFamily::ALL.to_vec(),
        };
        if !swarm.families.iter().any(|f| fams.contains(f)) {
            swarm.families = fams.clone();
        } else {
            swarm.families.retain(|f| fams.contains(f));
        }
        let fam = fams[(written / 2) % fams.len()];
        if written % 2 == 0 && tries < 20 {
            swarm.families = vec![fam];
            swarm.max_insts = 1 + (written / 2) % 4;
            swarm.branches = (written / 2) % 4 == 0;
            swarm.loops = false;
        }
        let Ok(mut p) = gen::Gen::new(&swarm).program(&mut u) else {
            continue;
        };
        if p.instruction_count() == 0 {
            continue;
        }
        avoid_ptxas_rewrites(&mut p.body);
        // Store only what the body writes (small records).
        let mut written_regs = Vec::new();
        dsts(&p.body, &mut written_regs);
        p.outputs.retain(|r| written_regs.contains(r));
        let m = lower::module(&p);
        let text = ptx_ir_text::print(&m);
        let input = lower::input(&p);
        let (offs, rec) = p.record_layout();
        let out_len = p.out_len() as usize;
        let interp = launch(&m, p.grid, p.block, &input, out_len);
        let exp = eval::run(&p);
        let name = format!("case{written:05}");
        std::fs::write(dir.join(format!("{name}.ptx")), &text).expect("write ptx");
        let outputs: Vec<String> = p
            .outputs
            .iter()
            .zip(&offs)
            .map(|(r, o)| {
                format!(
                    "[\"{}{}\", {o}, {}]",
                    r.class.prefix(),
                    r.idx,
                    match r.class {
                        prog::Class::P => 1,
                        c => c.bits() / 8,
                    }
                )
            })
            .collect();
        let (exp_hex, known_hex) = match &exp {
            Some(e) => (
                format!("\"{}\"", hex(&e.bytes)),
                format!(
                    "\"{}\"",
                    hex(&e.known.iter().map(|&k| k as u8).collect::<Vec<_>>())
                ),
            ),
            None => ("null".into(), "null".into()),
        };
        let (interp_hex, interp_err) = match &interp {
            Ok(b) => (format!("\"{}\"", hex(b)), "null".to_string()),
            Err(e) => ("null".to_string(), json_string(e)),
        };
        writeln!(
            launches,
            "{{\"name\": \"{name}\", \"grid\": {}, \"block\": {}, \"input\": \"{}\", \"out_len\": {out_len}}}",
            p.grid,
            p.block,
            hex(&input)
        )
        .expect("write launches");
        writeln!(
            index,
            "{{\"name\": \"{name}\", \"grid\": {}, \"block\": {}, \"input\": \"{}\", \"out_len\": {out_len}, \"record\": {rec}, \"outputs\": [{}], \"reference\": {exp_hex}, \"known\": {known_hex}, \"interp\": {interp_hex}, \"interp_error\": {interp_err}}}",
            p.grid,
            p.block,
            hex(&input),
            outputs.join(", ")
        )
        .expect("write index");
        written += 1;
        tries = 0;
    }
    eprintln!("{written} cases in {}", dir.display());
}

/// Keeps the batch clear of forms where ptxas (CUDA 13.0) compiles the PTX into something else,
/// so that a difference names the interpreter or the reference:
/// - ptxas drops the guard of a predicated `testp` (the H200 writes the destination of
///   `@!p testp` whatever `p` is);
/// - a predicated `set.CMP.(u32|s32).(f16|bf16)` widens the destination's old low half into
///   the upper half even where the guard is false (three kernels of a batch);
/// - a predicated `set.CMP.f32.T` converts the destination's old bits to a float where the
///   guard is false (0.5, bits 0x3f000000, became 1056964608.0; nine kernels of a batch), and
///   so does a predicated `set.CMP.f16.f16` (0x75cb, read as the integer 30155, became
///   0x775d = 30160.0; a contraction batch, H200);
/// - `min`/`max` of a register with itself is folded to the register, so a NaN keeps its
///   payload instead of becoming the canonical NaN (probe on the H100: `min.f16` of 0xffb6
///   with itself gives 0xffb6; of two different NaNs, 0x7fff; `min.f32` of 0x7fa00001 with
///   itself gives 0x7fa00001 on the H200);
/// - and of `activemask`, whose value depends on how the hardware happens to schedule the
///   warp's threads.
fn avoid_ptxas_rewrites(ns: &mut [prog::Node]) {
    for n in ns {
        match n {
            prog::Node::Inst(i) => match i.op {
                prog::Operation::Testp { .. } => i.guard = None,
                prog::Operation::Hset {
                    x2: false,
                    d: prog::HSetD::U32 | prog::HSetD::S32 | prog::HSetD::Half,
                    ..
                }
                | prog::Operation::Set {
                    d: ptx_ir_core::Type::F32,
                    ..
                } => i.guard = None,
                prog::Operation::Hminmax { .. } | prog::Operation::Fminmax { .. } => {
                    if let [prog::Src::Reg(a), prog::Src::Reg(b), ..] = &mut i.srcs[..] {
                        if a == b {
                            b.idx = (b.idx + 1) % b.class.count();
                        }
                    }
                }
                // `activemask` reports the threads that happen to run together: the H100 left
                // lanes out after `brx.idx` arms had rejoined (0xdd55dd55 instead of all 32)
                // and inside a branch arm, where the interpreter (and the reference) run every
                // thread of the arm together. Not a rewrite, but not comparable either.
                prog::Operation::Activemask => {
                    i.op = prog::Operation::Mov(prog::Class::R);
                    i.srcs = vec![prog::Src::Imm(0)];
                }
                _ => {}
            },
            prog::Node::If { then, els, .. } => {
                avoid_ptxas_rewrites(then);
                avoid_ptxas_rewrites(els);
            }
            prog::Node::Loop { body, .. } => avoid_ptxas_rewrites(body),
            prog::Node::Switch { arms, .. } => {
                arms.iter_mut().for_each(|a| avoid_ptxas_rewrites(a))
            }
            prog::Node::Barrier(_) => {}
        }
    }
}

fn dsts(ns: &[prog::Node], out: &mut Vec<prog::Reg>) {
    for n in ns {
        match n {
            prog::Node::Inst(i) => {
                out.push(i.dst);
                out.extend(i.dst2);
                // Vector loads write the registers after `dst` too.
                if let prog::Operation::Ld { vec, class, .. }
                | prog::Operation::LdIn { vec, class, .. } = i.op
                {
                    out.extend((1..vec).map(|k| prog::Reg {
                        class,
                        idx: (i.dst.idx + k) % class.count(),
                    }));
                }
            }
            prog::Node::If { then, els, .. } => {
                dsts(then, out);
                dsts(els, out);
            }
            prog::Node::Loop { body, .. } => dsts(body, out),
            prog::Node::Switch { arms, .. } => arms.iter().for_each(|a| dsts(a, out)),
            prog::Node::Barrier(b) => out.extend(b.regs().map(|(d, _)| d)),
        }
    }
}

fn json_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}
