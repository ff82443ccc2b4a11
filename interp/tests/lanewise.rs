//! The warp-wide forms chosen at load compute what the handlers compute: one kernel runs
//! every form the load step picks (and neighbours it must leave to the handlers) on random and
//! edge-case lane values, under random guards, with register and immediate operands, and its
//! memory after the run equals, byte for byte, that of the same program run through the
//! handlers only.

use ptx_ir_interp::{Arg, Program};

/// Register classes: prefix, declaration type, store type.
#[derive(Clone, Copy, PartialEq)]
enum C {
    H,
    R,
    Rd,
    F,
    Fd,
    P,
}

impl C {
    fn reg(self, k: u32) -> String {
        let p = match self {
            C::H => "h",
            C::R => "r",
            C::Rd => "rd",
            C::F => "f",
            C::Fd => "fd",
            C::P => "p",
        };
        format!("%{p}{k}")
    }

    /// Immediates worth trying in this class.
    fn imms(self) -> &'static [&'static str] {
        match self {
            C::H => &["0", "1", "15", "16", "17", "0x7FFF", "0x8000", "0xFFFF"],
            C::R => &[
                "0",
                "1",
                "5",
                "31",
                "32",
                "33",
                "0x7FFFFFFF",
                "0x80000000",
                "0xFFFFFFF9",
            ],
            C::Rd => &[
                "0",
                "1",
                "63",
                "64",
                "0x8000000000000000",
                "0xFFFFFFFFFFFFFFFD",
            ],
            C::F => &[
                "0f00000000",
                "0f80000000",
                "0f3F800000",
                "0f7F800000",
                "0fFF800000",
                "0f7FC00000",
                "0f7F800001",
                "0f00000001",
                "0f807FFFFF",
                "0f7F7FFFFF",
            ],
            C::Fd => &[
                "0d0000000000000000",
                "0d8000000000000000",
                "0d3FF0000000000000",
                "0d7FF0000000000000",
                "0d7FF8000000000000",
                "0d7FF0000000000001",
                "0d0000000000000001",
            ],
            C::P => &[],
        }
    }

    fn of(t: &str) -> C {
        match t {
            "u16" | "s16" | "b16" => C::H,
            "u32" | "s32" | "b32" => C::R,
            "u64" | "s64" | "b64" => C::Rd,
            "f32" => C::F,
            "f64" => C::Fd,
            "pred" => C::P,
            _ => panic!("{t}"),
        }
    }

    fn wider(self) -> C {
        match self {
            C::H => C::R,
            C::R => C::Rd,
            _ => panic!("no wider class"),
        }
    }
}

/// One instruction shape: mnemonic with qualifiers, destination class, source classes.
struct Shape {
    op: String,
    d: C,
    s: Vec<C>,
}

fn sh(op: impl Into<String>, d: C, s: &[C]) -> Shape {
    Shape {
        op: op.into(),
        d,
        s: s.to_vec(),
    }
}

fn shapes() -> Vec<Shape> {
    let mut v = Vec::new();
    let ints = ["u16", "s16", "u32", "s32", "u64", "s64"];
    for t in ints {
        let c = C::of(t);
        for op in ["add", "sub", "mul.lo", "mul.hi", "min", "max"] {
            v.push(sh(format!("{op}.{t}"), c, &[c, c]));
        }
        for op in ["mad.lo", "mad.hi"] {
            v.push(sh(format!("{op}.{t}"), c, &[c, c, c]));
        }
        if c != C::Rd {
            v.push(sh(format!("mul.wide.{t}"), c.wider(), &[c, c]));
            v.push(sh(format!("mad.wide.{t}"), c.wider(), &[c, c, c.wider()]));
        }
        v.push(sh(format!("shr.{t}"), c, &[c, C::R]));
        let unsigned = ["lo", "ls", "hi", "hs"];
        let signed = ["eq", "ne", "lt", "le", "gt", "ge"];
        for cmp in signed.iter().chain(if t.starts_with('u') {
            &unsigned[..]
        } else {
            &[]
        }) {
            v.push(sh(format!("setp.{cmp}.{t}"), C::P, &[c, c]));
        }
    }
    for t in ["s16", "s32", "s64"] {
        let c = C::of(t);
        v.push(sh(format!("abs.{t}"), c, &[c]));
        v.push(sh(format!("neg.{t}"), c, &[c]));
    }
    v.push(sh("max.relu.s32", C::R, &[C::R, C::R]));
    v.push(sh("min.u16x2", C::R, &[C::R, C::R]));
    v.push(sh("max.s16x2", C::R, &[C::R, C::R]));
    v.push(sh("add.sat.s32", C::R, &[C::R, C::R]));
    v.push(sh("sub.sat.s32", C::R, &[C::R, C::R]));
    for t in ["b16", "b32", "b64", "pred"] {
        let c = C::of(t);
        for op in ["and", "or", "xor"] {
            v.push(sh(format!("{op}.{t}"), c, &[c, c]));
        }
        v.push(sh(format!("not.{t}"), c, &[c]));
        v.push(sh(format!("mov.{t}"), c, &[c]));
        if c != C::P {
            v.push(sh(format!("cnot.{t}"), c, &[c]));
            v.push(sh(format!("shl.{t}"), c, &[c, C::R]));
            v.push(sh(format!("selp.{t}"), c, &[c, c, C::P]));
            for cmp in ["eq", "ne"] {
                v.push(sh(format!("setp.{cmp}.{t}"), C::P, &[c, c]));
            }
        }
    }
    for t in ["f32", "f64"] {
        let c = C::of(t);
        v.push(sh(format!("mov.{t}"), c, &[c]));
        v.push(sh(format!("selp.{t}"), c, &[c, c, C::P]));
        let mut rounds = vec!["", ".rn", ".rz", ".rm", ".rp"];
        if c == C::F {
            rounds.extend([".rn.ftz", ".ftz", ".sat", ".rn.sat"]);
        }
        for r in &rounds {
            for op in ["add", "sub", "mul"] {
                v.push(sh(format!("{op}{r}.{t}"), c, &[c, c]));
            }
            if !r.is_empty() && *r != ".ftz" && *r != ".sat" {
                v.push(sh(format!("fma{r}.{t}"), c, &[c, c, c]));
                v.push(sh(format!("mad{r}.{t}"), c, &[c, c, c]));
            }
        }
        let cmps = [
            "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num",
            "nan",
        ];
        for cmp in cmps {
            v.push(sh(format!("setp.{cmp}.{t}"), C::P, &[c, c]));
            if c == C::F {
                v.push(sh(format!("setp.{cmp}.ftz.{t}"), C::P, &[c, c]));
            }
        }
    }
    let cvts = [
        ("cvt.u32.u16", C::R, C::H),
        ("cvt.s32.s16", C::R, C::H),
        ("cvt.u64.u32", C::Rd, C::R),
        ("cvt.s64.s32", C::Rd, C::R),
        ("cvt.u16.u32", C::H, C::R),
        ("cvt.u32.u64", C::R, C::Rd),
        ("cvt.s32.s64", C::R, C::Rd),
        ("cvt.sat.s16.s32", C::H, C::R),
        ("cvt.sat.u32.s64", C::R, C::Rd),
        ("cvt.rn.f32.s32", C::F, C::R),
        ("cvt.rz.f32.u32", C::F, C::R),
        ("cvt.rn.f32.u64", C::F, C::Rd),
        ("cvt.rn.f64.s32", C::Fd, C::R),
        ("cvt.rzi.s32.f32", C::R, C::F),
        ("cvt.rni.u32.f32", C::R, C::F),
        ("cvt.rmi.s64.f64", C::Rd, C::Fd),
        ("cvt.f64.f32", C::Fd, C::F),
        ("cvt.ftz.f64.f32", C::Fd, C::F),
        ("cvt.rn.f32.f64", C::F, C::Fd),
        ("cvt.rz.ftz.f32.f64", C::F, C::Fd),
        ("cvt.rni.f32.f32", C::F, C::F),
        ("cvt.sat.f32.f32", C::F, C::F),
        ("cvt.rzi.ftz.s32.f32", C::R, C::F),
    ];
    for (op, d, s) in cvts {
        v.push(sh(op, d, &[s]));
    }
    v
}

/// The store of a result register to `[%rdo + off]`.
fn store(c: C, reg: &str, off: usize) -> String {
    match c {
        C::H => format!("\tst.global.b16 [%rdo+{off}], {reg};\n"),
        C::R | C::F => format!("\tst.global.b32 [%rdo+{off}], {reg};\n"),
        C::Rd | C::Fd => format!("\tst.global.b64 [%rdo+{off}], {reg};\n"),
        C::P => format!("\tselp.u32 %rs, 1, 0, {reg};\n\tst.global.b32 [%rdo+{off}], %rs;\n"),
    }
}

const THREADS: usize = 64;

/// The kernel: every shape with register sources, with each source in turn an immediate (a
/// few per class), unguarded and under a per-lane guard; returns the text and the instruction
/// of each result.
fn kernel() -> (String, Vec<String>) {
    let mut body = String::new();
    let mut tested = Vec::new();
    let mut imm_pick = 0usize;
    for s in shapes() {
        let mut variants: Vec<Vec<String>> = Vec::new();
        let regs: Vec<String> =
            s.s.iter()
                .enumerate()
                .map(|(i, c)| c.reg(i as u32))
                .collect();
        variants.push(regs.clone());
        for (i, c) in s.s.iter().enumerate() {
            let imms = c.imms();
            for _ in 0..3.min(imms.len()) {
                let mut v = regs.clone();
                v[i] = imms[imm_pick % imms.len()].to_string();
                imm_pick += 1;
                variants.push(v);
            }
        }
        for srcs in variants {
            for guard in ["", "@%pg ", "@!%pg "] {
                let d = s.d.reg(3);
                // A known value first, so that lanes the guard skips keep it.
                body.push_str(&match s.d {
                    C::P => "\tsetp.ne.u32 %p3, %rs, 0;\n".to_string(),
                    c => format!("\tmov.b{} {d}, {};\n", bits(c), 0x5a),
                });
                let inst = format!("{guard}{} {d}, {};", s.op, srcs.join(", "));
                body.push_str(&format!("\t{inst}\n"));
                body.push_str(&store(s.d, &d, tested.len() * THREADS * 8));
                tested.push(inst);
            }
        }
    }
    let text = format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 inp, .param .u64 out)
{{
	.reg .pred %p<4>, %pg;
	.reg .b16 %h<4>;
	.reg .b32 %r<4>, %rs, %tx;
	.reg .b64 %rd<5>, %rdi, %rdo;
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	ld.param.u64 %rdi, [inp];
	ld.param.u64 %rdo, [out];
	mov.u32 %tx, %tid.x;
	mul.wide.u32 %rd4, %tx, 32;
	add.s64 %rdi, %rdi, %rd4;
	mul.wide.u32 %rd4, %tx, 8;
	add.s64 %rdo, %rdo, %rd4;
	ld.global.u64 %rd0, [%rdi];
	ld.global.u64 %rd1, [%rdi+8];
	ld.global.u64 %rd2, [%rdi+16];
	ld.global.u64 %rd4, [%rdi+24];
	cvt.u32.u64 %r0, %rd0;
	cvt.u32.u64 %r1, %rd1;
	cvt.u32.u64 %r2, %rd2;
	cvt.u16.u64 %h0, %rd0;
	cvt.u16.u64 %h1, %rd1;
	cvt.u16.u64 %h2, %rd2;
	mov.b32 %f0, %r0;
	mov.b32 %f1, %r1;
	mov.b32 %f2, %r2;
	mov.b64 %fd0, %rd0;
	mov.b64 %fd1, %rd1;
	mov.b64 %fd2, %rd2;
	cvt.u32.u64 %rs, %rd4;
	and.b32 %rs, %rs, 15;
	setp.ne.u32 %pg, %rs, 0;
	shr.u64 %rd4, %rd4, 4;
	cvt.u32.u64 %rs, %rd4;
	and.b32 %rs, %rs, 1;
	setp.ne.u32 %p0, %rs, 0;
	shr.u64 %rd4, %rd4, 1;
	cvt.u32.u64 %rs, %rd4;
	and.b32 %rs, %rs, 1;
	setp.ne.u32 %p1, %rs, 0;
	shr.u64 %rd4, %rd4, 1;
	cvt.u32.u64 %rs, %rd4;
	and.b32 %rs, %rs, 1;
	setp.ne.u32 %p2, %rs, 0;
{body}	ret;
}}
"#
    );
    (text, tested)
}

fn bits(c: C) -> u32 {
    match c {
        C::H => 16,
        C::R | C::F => 32,
        C::Rd | C::Fd => 64,
        C::P => 1,
    }
}

/// Lane inputs: three operands and a guard word per thread, half of them edge values.
fn inputs(seed: u64) -> Vec<u8> {
    const EDGE: [u64; 24] = [
        0,
        1,
        2,
        0xffff_ffff_ffff_ffff,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0x7fff,
        0x8000,
        0xffff,
        0x3f80_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x807f_ffff,
        0x8000_0000_0000_0000,
        0x7ff0_0000_0000_0000,
        0x7ff8_0000_0000_0000,
        0x3ff0_0000_0000_0000,
        0x0000_0000_0000_0001,
        31,
        32,
        64,
    ];
    let mut x = seed;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut out = Vec::new();
    for _ in 0..THREADS {
        for k in 0..4 {
            let r = next();
            let v = if k < 3 && r & 1 == 0 {
                EDGE[(r >> 1) as usize % EDGE.len()]
            } else {
                next()
            };
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

#[test]
fn warp_wide_forms_equal_the_handlers() {
    let (text, tested) = kernel();
    let n = tested.len();
    let m = ptx_ir_text::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let fast = Program::load(&m).expect("load");
    let slow = Program::load(&m).expect("load").handlers_only();
    assert_eq!(slow.lanewise_forms(), 0);
    // Most of the kernel is instructions with a warp-wide form (the rest: stores, saturating,
    // packed and `.relu` forms, `.ftz` and directed-rounding float forms).
    assert!(
        fast.lanewise_forms() > n * 2,
        "{} forms for {n} tested instructions",
        fast.lanewise_forms()
    );
    for seed in [1u64, 0x9e37_79b9_7f4a_7c15, 0xdead_beef_1234_5678] {
        let run = |p: &Program| {
            let o = p
                .launch("k")
                .grid([1, 1, 1])
                .block([THREADS as u32, 1, 1])
                .args(vec![
                    Arg::Buffer(inputs(seed)),
                    Arg::Buffer(vec![0xa5; n * THREADS * 8]),
                ])
                .run()
                .expect("run");
            o.buffers[1].clone()
        };
        let (a, b) = (run(&fast), run(&slow));
        if a != b {
            let i = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0);
            let (inst, lane) = (i / 8 / THREADS, i / 8 % THREADS);
            panic!(
                "seed {seed:#x}: `{}` differs in lane {lane}: {:02x?} (warp-wide) against {:02x?}",
                tested[inst],
                &a[i / 8 * 8..i / 8 * 8 + 8],
                &b[i / 8 * 8..i / 8 * 8 + 8]
            );
        }
    }
}
