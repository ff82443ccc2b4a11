//! `multimem.*` over simulated devices (ISA-derived, not hardware-checked: multicast objects
//! need NVLink SHARP, which the single GPU here lacks).

use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread with `%rd1` = the multimem address of `reps`, `%rd2` = device 1's
/// unicast address and `%rd3` = a 16-byte output; returns the output and the replicas.
fn run(body: &str, reps: Vec<Vec<u8>>) -> Result<(Vec<u8>, Vec<Vec<u8>>), String> {
    let src = format!(
        ".version 8.7\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 mc, .param .u64 uc, .param .u64 out) {{\n\
         .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .f32 %f<4>; .reg .b16 %h<4>;\n\
         ld.param.u64 %rd1, [mc]; ld.param.u64 %rd2, [uc]; ld.param.u64 %rd3, [out];\n\
         {body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let n = reps.len();
    let o = p
        .launch("k")
        .args(vec![
            Arg::Multicast(reps),
            Arg::Unicast { arg: 0, device: 1 },
            Arg::Buffer(vec![0; 16]),
        ])
        .run()
        .map_err(|f| f.error.to_string())?;
    let mut b = o.buffers;
    let out = b.pop().unwrap();
    assert_eq!(b.len(), n);
    Ok((out, b))
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn word(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap())
}

#[test]
fn ld_reduce_st_and_red_touch_every_device() {
    let reps = vec![
        words(&[1, 0xffff_ffff, 1f32.to_bits(), 0]),
        words(&[2, 3, 2f32.to_bits(), 0]),
        words(&[3, 5, 3f32.to_bits(), 0xa000_0000]),
    ];
    let body = "multimem.ld_reduce.add.u32 %r1, [%rd1];\n\
                multimem.ld_reduce.relaxed.gpu.global.max.s32 %r2, [%rd1+4];\n\
                multimem.ld_reduce.add.f32 %f1, [%rd1+8];\n\
                st.global.v2.u32 [%rd3], {%r1, %r2};\n\
                st.global.f32 [%rd3+8], %f1;\n\
                multimem.red.add.u32 [%rd1+12], 5;\n\
                multimem.st.u32 [%rd1+4], 77;\n\
                ld.global.u32 %r3, [%rd2+12];\n\
                st.global.u32 [%rd3+12], %r3;";
    let (out, reps) = run(body, reps).unwrap();
    assert_eq!(word(&out, 0), 6);
    assert_eq!(word(&out, 1), 5);
    assert_eq!(f32::from_bits(word(&out, 2)), 6.0);
    assert_eq!(
        word(&out, 3),
        5,
        "device 1's word after the reduction, through its unicast address"
    );
    for (d, r) in reps.iter().enumerate() {
        assert_eq!(word(r, 1), 77, "device {d}");
    }
    assert_eq!(word(&reps[2], 3), 0xa000_0005);
}

#[test]
fn half_precision_sums_round_each_step_unless_accumulated_in_f32() {
    // 2048 + 1 + 1: in f16 each step rounds 2049 back to 2048; in f32 the sum is 2050.
    let h = |x: u16| x.to_le_bytes().to_vec();
    let reps = [h(0x6800), h(0x3c00), h(0x3c00)];
    let body = "multimem.ld_reduce.add.v2.f16 {%h1, %h2}, [%rd1];";
    // A .v2.f16 access needs 4 bytes: pad the replicas.
    let reps4: Vec<Vec<u8>> = reps
        .iter()
        .map(|r| [r.clone(), vec![0, 0]].concat())
        .collect();
    run(body, reps4.clone()).unwrap();
    let body = "multimem.ld_reduce.add.f16x2 %r1, [%rd1];\nst.global.u32 [%rd3], %r1;";
    let (out, _) = run(body, reps4.clone()).unwrap();
    assert_eq!(word(&out, 0) & 0xffff, 0x6800);
    let body = "multimem.ld_reduce.add.acc::f32.f16x2 %r1, [%rd1];\nst.global.u32 [%rd3], %r1;";
    let (out, _) = run(body, reps4).unwrap();
    assert_eq!(word(&out, 0) & 0xffff, 0x6801);
}

#[test]
fn misuse_is_reported() {
    let reps = vec![vec![0; 16], vec![0; 16]];
    // Not a multimem address: the unicast pointer.
    let e = run("multimem.ld_reduce.add.u32 %r1, [%rd2];", reps.clone()).unwrap_err();
    assert!(e.contains("not a multimem address"), "{e}");
    // An ordinary load of a multimem address has no memory behind it.
    let e = run("ld.global.u32 %r1, [%rd1];", reps.clone()).unwrap_err();
    assert!(e.contains("out-of-bounds"), "{e}");
    // Past the object's end.
    let e = run("multimem.st.u32 [%rd1+16], 1;", reps).unwrap_err();
    assert!(e.contains("not a multimem address"), "{e}");
    // Specifications.
    assert!(
        Arg::parse_spec("mc:0102/03").is_err(),
        "replicas of different sizes"
    );
    assert!(
        Arg::parse_spec("mc:9*16").is_err(),
        "more than eight devices"
    );
    let (a, _) = Arg::parse_spec("mc:4*64").unwrap();
    assert!(matches!(a, Arg::Multicast(ref r) if r.len() == 4 && r[0].len() == 64));
}
