//! `wmma`: a whole tile through memory against an exact scalar product, and the misuse the
//! interpreter reports (a misaligned row stride, a warp that is not whole). The fragment
//! layouts and the floating-point sums are checked against the GPU by the recorded vectors
//! (`corpus/vectors/wmma.jsonl.xz`, `tests/vectors.rs`).

use ptx_ir_interp::{Arg, Error, Program};

/// A CTA of `threads` runs `body` after loading `%rd1` = out, `%rd2` = a, `%rd3` = b,
/// `%rd4` = c.
fn run(body: &str, threads: u32, bufs: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, Box<Error>> {
    let src = format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 p0, .param .u64 p1, .param .u64 p2, .param .u64 p3) {{\n\
         .reg .b32 %r<40>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p0]; ld.param.u64 %rd2, [p1];\n\
         ld.param.u64 %rd3, [p2]; ld.param.u64 %rd4, [p3];\n\
         {body}\n\
         ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).expect("parse");
    let p = Program::load(&m).expect("load");
    let mut l = p.launch("k").block([threads, 1, 1]);
    for b in bufs {
        l = l.arg(Arg::Buffer(b));
    }
    match l.run() {
        Ok(o) => Ok(o.buffers),
        Err(f) => Err(Box::new(f.error)),
    }
}

fn regs(prefix: &str, from: usize, n: usize) -> String {
    let r: Vec<String> = (from..from + n).map(|i| format!("{prefix}{i}")).collect();
    format!("{{{}}}", r.join(", "))
}

/// `s8` A (row-major) times `s8` B (column-major) plus `s32` C, `m16n16k16`, stored row-major:
/// every element is the exact dot product.
#[test]
fn an_integer_tile_is_the_exact_product() {
    let a: Vec<u8> = (0..256).map(|i| (i * 37 % 251) as u8).collect();
    let b: Vec<u8> = (0..256).map(|i| (i * 91 % 241) as u8).collect();
    let c: Vec<u8> = (0..256i32)
        .flat_map(|i| (i * 1000 - 77_000).to_le_bytes())
        .collect();
    let body = format!(
        "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {a}, [%rd2];\n\
         wmma.load.b.sync.aligned.col.m16n16k16.global.s8 {b}, [%rd3];\n\
         wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {c}, [%rd4];\n\
         wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {d}, {a}, {b}, {c};\n\
         wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd1], {d};",
        a = regs("%r", 0, 2),
        b = regs("%r", 2, 2),
        c = regs("%r", 4, 8),
        d = regs("%r", 12, 8),
    );
    let out = run(
        &body,
        32,
        vec![vec![0; 1024], a.clone(), b.clone(), c.clone()],
    )
    .unwrap();
    for i in 0..16 {
        for j in 0..16 {
            let mut want = i32::from_le_bytes(c[4 * (16 * i + j)..][..4].try_into().unwrap());
            for k in 0..16 {
                // B is column-major: element (k, j) at j * 16 + k.
                want += i32::from(a[16 * i + k] as i8) * i32::from(b[16 * j + k] as i8);
            }
            let got = i32::from_le_bytes(out[0][4 * (16 * i + j)..][..4].try_into().unwrap());
            assert_eq!(got, want, "D[{i}][{j}]");
        }
    }
}

#[test]
fn misuse_is_reported() {
    let load = |stride: &str| {
        format!(
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {}, [%rd2]{stride};",
            regs("%r", 0, 8)
        )
    };
    let bufs = || vec![vec![0; 16], vec![0; 4096], vec![0; 16], vec![0; 16]];
    // A stride of 24 halves puts row 1 at byte 48, not a multiple of the 32-byte fragment.
    let e = run(&load(", 24"), 32, bufs()).unwrap_err().to_string();
    assert!(e.contains("misaligned"), "{e}");
    // 32 halves (64 bytes) is aligned.
    run(&load(", 32"), 32, bufs()).unwrap();
    // A base address off the fragment size.
    let off = load("").replace("[%rd2]", "[%rd2+16]");
    let e = run(&off, 32, bufs()).unwrap_err().to_string();
    assert!(e.contains("misaligned"), "{e}");
    // `.sync.aligned`: the whole warp must execute it.
    let e = run(&load(""), 16, bufs()).unwrap_err().to_string();
    assert!(e.contains("all 32 threads"), "{e}");
}
