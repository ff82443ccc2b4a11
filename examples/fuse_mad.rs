//! A rewrite pass: fuse `mul` + `add` into `mad`, using def-use and the control-flow graph, then
//! show with the reference interpreter that the kernel computes the same results on several
//! inputs.
//!
//! ```sh
//! cargo run --release --example fuse_mad            # built-in kernel, checked in the interpreter
//! cargo run --release --example fuse_mad -- FILE    # rewrite FILE, print the result
//! ```
//!
//! `mul.{lo,hi,wide}.T d, a, b` followed by `add.U e, d, c` (or `c, d`) becomes
//! `mad.{lo,hi,wide}.T e, a, b, c` when:
//!
//! * `d` has exactly one definition (the `mul`, unguarded) and one use (the `add`);
//! * both are in the same basic block, and nothing between them redefines `a` or `b` (the `mad`
//!   reads them where the `add` was);
//! * `add` is a plain integer add (no `.sat`, no `.cc`) as wide as the product, so the sum wraps
//!   the same way;
//! * the `mad` is accepted by the instruction table.
//!
//! The demo also runs a naive version of the pass that skips the redefinition check, and shows
//! that the interpreter catches the difference.

use ptx_ir::interp::{Arg, Program};
use ptx_ir::ir::cfg::Cfg;
use ptx_ir::ir::defuse::{defs, DefUse};
use ptx_ir::ir::visit::renumber_names;
use ptx_ir::ir::walk::{self, instructions, Edit, Path};
use ptx_ir::ir::{Flag, Instruction, Modifier, Module, Name, Opcode, Operand, Statement, Type};
use ptx_ir::text;
use std::collections::HashMap;
use std::process::ExitCode;

const KERNEL: &str = r#".version 8.0
.target sm_80
.address_size 64

.visible .entry poly(.param .u64 out, .param .u64 in, .param .u32 n, .param .u32 k)
{
	.reg .pred %p<3>;
	.reg .b32 %r<22>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [n];
	ld.param.u32 %r2, [k];
	mov.u32 %r3, %ctaid.x;
	mov.u32 %r4, %ntid.x;
	mov.u32 %r5, %tid.x;
	mul.lo.s32 %r6, %r3, %r4;
	add.s32 %r7, %r6, %r5;
	setp.ge.u32 %p1, %r7, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd3, %rd2;
	mul.wide.u32 %rd4, %r7, 4;
	add.s64 %rd5, %rd3, %rd4;
	ld.global.u32 %r8, [%rd5];
	mul.lo.s32 %r9, %r8, %r2;
	add.s32 %r10, %r9, 3;
	mul.lo.s32 %r11, %r10, %r2;
	mov.u32 %r10, 7;
	add.s32 %r12, %r11, %r10;
	mul.hi.u32 %r13, %r8, %r2;
	add.u32 %r14, %r13, %r12;
	mul.lo.s32 %r15, %r14, %r14;
	add.s32 %r16, %r15, %r15;
	mul.wide.s32 %rd6, %r16, %r2;
	add.s64 %rd7, %rd6, %rd4;
	cvt.u32.u64 %r17, %rd7;
	{
	mul.lo.s32 %r18, %r17, 3;
	add.s32 %r19, %r1, %r18;
	}
	mul.lo.s32 %r20, %r19, 5;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra SKIP;
SKIP:
	add.s32 %r21, %r20, 1;
	cvta.to.global.u64 %rd3, %rd1;
	add.s64 %rd5, %rd3, %rd4;
	st.global.u32 [%rd5], %r21;
DONE:
	ret;
}
"#;

/// The `mul` flag (`.lo`, `.hi`, `.wide`) and type of an integer multiply.
fn mul_kind(i: &Instruction) -> Option<(Flag, Type)> {
    match i.mods[..] {
        [Modifier::Flag(f @ (Flag::Lo | Flag::Hi | Flag::Wide)), Modifier::Type(t)] => Some((f, t)),
        _ => None,
    }
}

/// Bits of the product of `mul.<flag>.<ty>`.
fn product_bits(flag: Flag, ty: Type) -> u32 {
    if flag == Flag::Wide {
        2 * ty.bits()
    } else {
        ty.bits()
    }
}

/// Finds the fusions of one body: the path of each `mul` to remove, and the `mad` to put in
/// place of its `add`. With `careful` off, the check that `a` and `b` are not redefined in
/// between is skipped (the bug the interpreter is to catch).
fn plan(body: &[Statement], careful: bool) -> (Vec<Path>, HashMap<Path, Instruction>) {
    let du = DefUse::new(body);
    let Ok(cfg) = Cfg::new(body) else {
        return Default::default();
    };
    let mut removed = Vec::new();
    let mut replaced: HashMap<Path, Instruction> = HashMap::new();
    for (at, mul) in instructions(body) {
        if mul.opcode != Opcode::Mul || mul.guard.is_some() {
            continue;
        }
        let Some((flag, ty)) = mul_kind(mul) else {
            continue;
        };
        let Some(d) = mul.operands[0].as_name() else {
            continue;
        };
        if du.single_def(d) != Some(&at) {
            continue;
        }
        let Some(use_at) = du.single_use(d) else {
            continue;
        };
        let Some(add) = walk::instruction(body, use_at) else {
            continue;
        };
        let add_ty = match add.mods[..] {
            [Modifier::Type(t)] if add.opcode == Opcode::Add => t,
            _ => continue,
        };
        if add_ty.is_float() || add_ty.bits() != product_bits(flag, ty) {
            continue;
        }
        if replaced.contains_key(use_at) {
            continue; // `add e, m1, m2`: fuse one of the two products only
        }
        let c = if add.operands[1].as_name() == Some(d) {
            add.operands[2].clone()
        } else {
            add.operands[1].clone()
        };
        let block = cfg.block_of(&at);
        if block.is_none() || block != cfg.block_of(use_at) {
            continue;
        }
        if careful && redefined_between(body, &cfg, &at, use_at, &mul.operands[1..]) {
            continue;
        }
        let mad = Instruction {
            guard: add.guard,
            opcode: Opcode::Mad,
            mods: mul.mods.clone(),
            operands: [
                add.operands[0].clone(),
                mul.operands[1].clone(),
                mul.operands[2].clone(),
                c,
            ]
            .into_iter()
            .collect(),
        };
        if ptx_ir::ir::check::check(mad.opcode, &mad.mods, &mad.operands).is_err() {
            continue;
        }
        removed.push(at.clone());
        replaced.insert(use_at.clone(), mad);
    }
    (removed, replaced)
}

/// Whether an instruction strictly between `from` and `to` (same block) writes a name of
/// `sources`.
fn redefined_between(
    body: &[Statement],
    cfg: &Cfg,
    from: &Path,
    to: &Path,
    sources: &[Operand],
) -> bool {
    let mut names: Vec<Name> = Vec::new();
    for o in sources {
        o.for_each_name(&mut |n| names.push(n));
    }
    let Some(b) = cfg.block_of(from) else {
        return true;
    };
    cfg.block(b)
        .stmts
        .iter()
        .filter(|p| *p > from && *p < to)
        .filter_map(|p| walk::instruction(body, p))
        .any(|i| defs(i).iter().any(|n| names.contains(n)))
}

/// Applies the pass to every function; returns the number of fusions.
fn fuse(m: &mut Module, careful: bool) -> usize {
    let mut total = 0;
    for f in m.functions_mut() {
        let Some(body) = f.statements_mut() else {
            continue;
        };
        let (removed, mut replaced) = plan(body, careful);
        total += removed.len();
        // Paths are those of the body before the rewrite: `rewrite` reports them unchanged.
        walk::rewrite(body, &mut |p, _| {
            if removed.contains(p) {
                Edit::Remove
            } else if let Some(mad) = replaced.remove(p) {
                Edit::Replace(vec![Statement::Inst(mad)])
            } else {
                Edit::Keep
            }
        });
    }
    total
}

fn count(m: &Module, op: Opcode) -> usize {
    m.functions()
        .filter_map(|f| f.statements())
        .map(|b| instructions(b).filter(|(_, i)| i.opcode == op).count())
        .sum()
}

/// Runs `poly` on one input; returns the output buffer.
fn run(m: &Module, n: u32, k: u32, seed: u32) -> Result<Vec<u8>, String> {
    let prog = Program::load(m).map_err(|e| e.to_string())?;
    let mut x = seed;
    let input: Vec<u8> = (0..n)
        .flat_map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            x.to_le_bytes()
        })
        .collect();
    let out = prog
        .launch("poly")
        .grid([n.div_ceil(32).max(1), 1, 1])
        .block([32, 1, 1])
        .args([
            Arg::Buffer(vec![0; 4 * n as usize]),
            Arg::Buffer(input),
            Arg::u32(n),
            Arg::u32(k),
        ])
        .run()
        .map_err(|e| e.to_string())?;
    Ok(out.buffers[0].clone())
}

fn demo() -> Result<(), String> {
    let original = text::parse(KERNEL).map_err(|e| e.to_string())?;
    let mut fused = original.clone();
    let n = fuse(&mut fused, true);
    let mut naive = original.clone();
    let n_naive = fuse(&mut naive, false);
    println!(
        "fused {n} mul+add pairs into mad (mul: {} -> {}, add: {} -> {}, mad: {} -> {})",
        count(&original, Opcode::Mul),
        count(&fused, Opcode::Mul),
        count(&original, Opcode::Add),
        count(&fused, Opcode::Add),
        count(&original, Opcode::Mad),
        count(&fused, Opcode::Mad),
    );
    // The rewritten module is ordinary IR: it prints, and reads back as itself once its names
    // are renumbered into print order (the removed `mul`s named some of them first).
    renumber_names(&mut fused).map_err(|i| format!("name #{i} out of range"))?;
    let printed = text::print(&fused);
    let back = text::parse(&printed).map_err(|e| e.to_string())?;
    if back != fused {
        return Err("the rewritten module does not round-trip".into());
    }
    for line in printed.lines().filter(|l| l.contains("mad.")) {
        println!("  {}", line.trim());
    }

    let inputs: &[(u32, u32, u32)] = &[
        (1, 3, 1),
        (37, 3, 2),
        (64, 0, 3),
        (100, 0xffff_fff1, 4),
        (257, 12345, 5),
        (33, 1, 6),
    ];
    let mut naive_differs = 0;
    for &(len, k, seed) in inputs {
        let want = run(&original, len, k, seed)?;
        let got = run(&fused, len, k, seed)?;
        let same = want == got;
        println!(
            "n = {len:>3}, k = {k:>10}: {} ({} bytes)",
            if same { "identical" } else { "DIFFERENT" },
            want.len()
        );
        if !same {
            return Err(format!(
                "the rewrite changed the result for n = {len}, k = {k}"
            ));
        }
        naive_differs += usize::from(run(&naive, len, k, seed)? != want);
    }
    println!(
        "naive pass (no redefinition check): {n_naive} fusions, results differ on {naive_differs} of {} inputs",
        inputs.len()
    );
    if n != 5 || n_naive != 6 || naive_differs == 0 {
        return Err("unexpected fusion counts".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [] => demo(),
        [file] => match ptx_ir::load::load_path(std::path::Path::new(file)) {
            Ok(loaded) => {
                let mut m = loaded.module;
                let n = fuse(&mut m, true);
                eprintln!("{file}: fused {n} mul+add pairs");
                print!("{}", text::print(&m));
                Ok(())
            }
            Err(e) => Err(e.to_string()),
        },
        _ => Err("usage: fuse_mad [FILE]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
