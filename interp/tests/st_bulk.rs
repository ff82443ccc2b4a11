//! `st.bulk` (sm_100, derived from the PTX ISA: no Blackwell GPU was available to record it):
//! zeroes a range of the executing CTA's shared memory, through `.shared::cta` or a generic
//! address; a nonzero `initval`, a size that is not a multiple of 8, a misaligned address and
//! an address outside the CTA's shared memory are reported, not run.

use ptx_ir_interp::{Arg, Error, Program};

/// Fills 64 bytes of shared memory with 0xff, runs `op`, and copies the 64 bytes out.
fn run(op: &str) -> Result<Vec<u8>, Box<Error>> {
    let src = format!(
        ".version 8.6\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out) {{\n\
         .shared .align 8 .b8 sh[64];\n\
         .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .pred %p1;\n\
         ld.param.u64 %rd1, [out];\n\
         mov.u32 %r2, sh; mov.u32 %r4, -1; mov.u32 %r1, 0;\n\
         FILL: add.u32 %r3, %r2, %r1; st.shared.u32 [%r3], %r4; add.u32 %r1, %r1, 4;\n\
         setp.lt.u32 %p1, %r1, 64; @%p1 bra FILL;\n\
         cvta.shared.u64 %rd2, sh;\n\
         {op}\n\
         mov.u32 %r1, 0;\n\
         COPY: add.u32 %r3, %r2, %r1; ld.shared.u32 %r5, [%r3];\n\
         cvt.u64.u32 %rd3, %r1; add.s64 %rd4, %rd1, %rd3; st.global.u32 [%rd4], %r5;\n\
         add.u32 %r1, %r1, 4; setp.lt.u32 %p1, %r1, 64; @%p1 bra COPY;\n\
         ret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).expect("parse");
    let p = Program::load(&m).expect("load");
    match p.launch("k").arg(Arg::Buffer(vec![0; 64])).run() {
        Ok(o) => Ok(o.buffers[0].clone()),
        Err(f) => Err(Box::new(f.error)),
    }
}

fn zeroed(from: usize, to: usize) -> Vec<u8> {
    (0..64)
        .map(|i| if (from..to).contains(&i) { 0 } else { 0xff })
        .collect()
}

#[test]
fn st_bulk_zeroes_the_range() {
    let r = run("add.u32 %r6, %r2, 16; st.bulk.weak.shared::cta [%r6], 24, 0;").unwrap();
    assert_eq!(r, zeroed(16, 40));
    // Generic addressing, with an offset and a register size.
    let r = run("mov.u64 %rd5, 16; st.bulk [%rd2+8], %rd5, 0;").unwrap();
    assert_eq!(r, zeroed(8, 24));
    // A size of zero writes nothing.
    let r = run("st.bulk.shared::cta [%r2], 0, 0;").unwrap();
    assert_eq!(r, zeroed(0, 0));
}

#[test]
fn st_bulk_misuse_is_reported() {
    let text = |op: &str| match run(op) {
        Ok(_) => panic!("`{op}` ran"),
        Err(e) => e.to_string(),
    };
    assert!(text("st.bulk.shared::cta [%r2], 12, 0;").contains("multiple of 8"));
    assert!(text("st.bulk.shared::cta [%r2], 8, 1;").contains("initval"));
    let e = text("add.u32 %r6, %r2, 4; st.bulk.shared::cta [%r6], 8, 0;");
    assert!(e.contains("misaligned"), "{e}");
    let e = text("st.bulk.shared::cta [%r2], 72, 0;");
    assert!(e.to_lowercase().contains("bounds"), "{e}");
    // A size near 2^63 is refused at once (the range is not walked).
    let e = text("mov.u64 %rd5, 0x7ffffffffffffff8; st.bulk [%rd2], %rd5, 0;");
    assert!(e.to_lowercase().contains("bounds"), "{e}");
    let e = text("st.bulk [%rd1], 8, 0;");
    assert!(e.contains("outside the .shared::cta window"), "{e}");
}
