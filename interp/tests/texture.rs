//! Texture and surface objects: the `tex:`/`surf:` specifications, what a launch makes of them,
//! and what the instructions report instead of computing. The sampling arithmetic is checked
//! against the GPU by `corpus/vectors/texture.jsonl.xz` (`tests/vectors.rs`).

use ptx_ir_interp::texture::{SurfaceArg, TextureArg};
use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread of `k(.param .u64 out, .param .u64 texels, .param .u64 obj)`
/// with `%rd1` = the output address and `%rd3` = the object handle; returns the output buffer
/// and the texel buffer after the run.
fn run(
    body: &str,
    texels: Vec<u8>,
    obj: Arg,
    out_bytes: usize,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let src = format!(
        ".version 8.7\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 po, .param .u64 pt, .param .u64 ph) {{\n\
         .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [po]; ld.param.u64 %rd3, [ph];\n{body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let o = p
        .launch("k")
        .args(vec![
            Arg::Buffer(vec![0; out_bytes]),
            Arg::Buffer(texels),
            obj,
        ])
        .run()
        .map_err(|f| f.error.to_string())?;
    let mut b = o.buffers.into_iter();
    Ok((b.next().unwrap(), b.next().unwrap()))
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn tex(spec: &str) -> Arg {
    Arg::Texture(TextureArg::parse(spec).unwrap())
}

fn surf(spec: &str) -> Arg {
    Arg::Surface(SurfaceArg::parse(spec).unwrap())
}

#[test]
fn specifications_are_checked() {
    let bad = [
        ("type=f32,ch=1,dims=4", "without `buf=ARG`"),
        ("buf=1,type=f32,ch=3,dims=4", "channels must be 1, 2 or 4"),
        ("buf=1,type=f64,ch=1,dims=4", "unknown texel type"),
        ("buf=1,type=f32,ch=1,dims=4x0", "1 to 3 sizes"),
        ("buf=1,type=f32,ch=1,dims=4x2,cube=1", "square 2D faces"),
        (
            "buf=1,type=u8,ch=1,dims=4,filter=linear",
            "needs `read=normalized`",
        ),
        (
            "buf=1,type=f32,ch=1,dims=4,addr=edge",
            "wrap, clamp, mirror or border",
        ),
        ("buf=1,type=f32,ch=1,dims=4,border=1/2", "four floats"),
        (
            "buf=1,type=f32,ch=1,dims=4x4,res=linear",
            "linear-memory resource is 1D",
        ),
        (
            "buf=1,type=f32,ch=1,dims=4,sharpness=2",
            "unknown texture field",
        ),
    ];
    for (s, want) in bad {
        let e = TextureArg::parse(s).unwrap_err();
        assert!(e.contains(want), "{s}: {e}");
    }
    let e = SurfaceArg::parse("buf=1,type=u8,ch=4,dims=8,res=linear").unwrap_err();
    assert!(e.contains("CUDA arrays"), "{e}");
    // As cudaCreateTextureObject does: wrap becomes clamp with unnormalized coordinates.
    let t = TextureArg::parse("buf=1,type=f32,ch=1,dims=4,addr=wrap").unwrap();
    assert_eq!(t.sampler.addr[0], ptx_ir_interp::texture::AddrMode::Clamp);
    let (a, _) = Arg::parse_spec("tex:buf=1,type=u8,ch=4,dims=8x8,read=normalized").unwrap();
    assert!(matches!(a, Arg::Texture(_)));
    assert!(Arg::parse_spec("surf:buf=1,type=u8").is_err());
}

#[test]
fn point_sampling_reads_the_texel_under_the_coordinate() {
    // A 4 x 2 f32 texture with values 0..8; clamp, unnormalized.
    let texels = f32s(&(0..8).map(|v| v as f32).collect::<Vec<_>>());
    let body = "mov.f32 %f1, 0f40200000; mov.f32 %f2, 0f3FC00000;\n\
                tex.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1, %f2}];\n\
                st.global.v4.f32 [%rd1], {%f4, %f5, %f6, %f7};";
    let (out, _) = run(body, texels, tex("buf=1,type=f32,ch=1,dims=4x2"), 16).unwrap();
    // (2.5, 1.5) is texel (2, 1) = 6; the missing channels read 0.
    assert_eq!(words(&out), [6f32.to_bits(), 0, 0, 0]);
}

#[test]
fn linear_filtering_weights_the_four_texels() {
    let texels = f32s(&[0.0, 1.0, 2.0, 3.0]);
    // x = 1.25: between texels 0 and 1 with weight 0.75 on texel 1.
    let body = "mov.f32 %f1, 0f3FA00000;\n\
                tex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1}];\n\
                st.global.f32 [%rd1], %f4;";
    let (out, _) = run(
        body,
        texels,
        tex("buf=1,type=f32,ch=1,dims=4,filter=linear"),
        4,
    )
    .unwrap();
    assert_eq!(f32::from_bits(words(&out)[0]), 0.75);
}

/// A normalized coordinate is floored to a multiple of 2^-21 before it is scaled to texels
/// (H200, `corpus/aniso/npotpos.jsonl.xz`, `npotpos2.jsonl.xz`): on a size that is not a power
/// of two (or one of 8192 and more) positions just above a rounding boundary fall below it.
/// Ramp textures (each texel holds its x index), `v` = 0.5.
#[test]
fn normalized_coordinates_are_floored_to_21_fraction_bits() {
    let read = |w: u32, u: u32, filter: &str| {
        let texels = f32s(&(0..w * 20).map(|i| (i % w) as f32).collect::<Vec<_>>());
        let body = format!(
            "mov.b32 %f1, 0x{u:08x}; mov.f32 %f2, 0f3F000000;\n\
             tex.2d.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f1, %f2}}];\n\
             st.global.f32 [%rd1], %f4;"
        );
        let spec = format!("buf=1,type=f32,ch=1,dims={w}x20,filter={filter},coords=normalized");
        let (out, _) = run(&body, texels, tex(&spec), 4).unwrap();
        f32::from_bits(words(&out)[0])
    };
    // 0.27176926 x 48 = 13.0449243: the filter's position 3211.5002 / 256 rounds up to 3212 as
    // it is, but the coordinate floored to 2^-21 gives 3211.49 (`np.48x20.lin`, fetch 16).
    assert_eq!(read(48, 0x3e8b_2557, "linear"), 3211.0 / 256.0);
    // 0.58333337 x 12 = 7.0000005: texel 7 as it is, texel 6 floored (`np.12x20.point`).
    assert_eq!(read(12, 0x3f15_5556, "point"), 6.0);
    // On a power of two up to 4096 the floor crosses no boundary: 0.27176926 x 64 =
    // 17.393232, position 4324.67 rounds up.
    assert_eq!(read(64, 0x3e8b_2557, "linear"), 4325.0 / 256.0);
    // From 8192 on it does: 0.74559289 x 8192 = 6107.897, position 1563493.6 rounds up to
    // 1563494 as it is, floored 1563493 (`np2.8192x2.lin`, fetch 4; 8192 x 20 here).
    assert_eq!(read(8192, 0x3f3e_df2d, "linear"), 1563493.0 / 256.0);
}

#[test]
fn surface_stores_land_in_the_buffer() {
    // A 4 x 2 surface of u32; x is a byte offset.
    let body = "mov.u32 %r1, 8; mov.u32 %r2, 1; mov.u32 %r3, 0xabcd;\n\
                sust.b.2d.b32.trap [%rd3, {%r1, %r2}], %r3;\n\
                mov.u32 %r1, 64;\n\
                sust.b.2d.b32.zero [%rd3, {%r1, %r2}], %r3;\n\
                mov.u32 %r1, 8;\n\
                suld.b.2d.b32.trap %r4, [%rd3, {%r1, %r2}];\n\
                suq.width.b32 %r5, [%rd3];\n\
                st.global.v2.u32 [%rd1], {%r4, %r5};";
    let (out, texels) = run(body, vec![0; 32], surf("buf=1,type=u32,ch=1,dims=4x2"), 8).unwrap();
    assert_eq!(words(&out), [0xabcd, 4]);
    let mut want = [0u32; 8];
    want[6] = 0xabcd; // element (2, 1); the .zero store out of range was dropped
    assert_eq!(words(&texels), want);
}

#[test]
fn misuse_is_reported() {
    let s = || surf("buf=1,type=u32,ch=1,dims=4x2");
    // Out of range under .trap: the GPU traps.
    let e = run(
        "mov.u32 %r1, 16; mov.u32 %r2, 0;\nsust.b.2d.b32.trap [%rd3, {%r1, %r2}], %r1;",
        vec![0; 32],
        s(),
        4,
    )
    .unwrap_err();
    assert!(e.contains("trap"), "{e}");
    // A byte offset that is not a multiple of the access size (the H200 faults).
    let e = run(
        "mov.u32 %r1, 2; mov.u32 %r2, 0;\nsuld.b.2d.b32.clamp %r4, [%rd3, {%r1, %r2}];",
        vec![0; 32],
        s(),
        4,
    )
    .unwrap_err();
    assert!(e.contains("misaligned"), "{e}");
    // A surface handle used as a texture, and a geometry the object does not have.
    let e = run(
        "mov.f32 %f1, 0f00000000;\ntex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1}];",
        vec![0; 32],
        s(),
        4,
    )
    .unwrap_err();
    assert!(e.contains("not a texture object"), "{e}");
    let e = run(
        "mov.f32 %f1, 0f00000000;\ntex.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1}];",
        vec![0; 32],
        tex("buf=1,type=f32,ch=1,dims=4x2"),
        4,
    )
    .unwrap_err();
    assert!(e.contains("geometry does not match"), "{e}");
    // Texels the buffer does not hold.
    let e = run("", vec![0; 8], tex("buf=1,type=f32,ch=1,dims=4x2"), 4).unwrap_err();
    assert!(e.contains("needs 32 bytes of texels"), "{e}");
}

#[test]
fn seamless_cube_neighbours_fold_the_cube() {
    use ptx_ir_interp::texture::cube_neighbor;
    for n in [1i64, 2, 5, 8] {
        for face in 0..6u32 {
            for k in 0..n {
                // Past each of the four edges, at each position along it.
                for (i, j) in [(-1, k), (n, k), (k, -1), (k, n)] {
                    let (f, a, b) = cube_neighbor(face, n, i, j).expect("one edge");
                    assert_ne!(f, face);
                    assert!((0..n).contains(&a) && (0..n).contains(&b));
                    // The texel found lies on an edge of its face, and stepping back across
                    // that edge returns to the texel of `face` beside the one we started from.
                    let back = [(a - 1, b), (a + 1, b), (a, b - 1), (a, b + 1)]
                        .into_iter()
                        .filter(|&(x, y)| !(0..n).contains(&x) || !(0..n).contains(&y))
                        .filter_map(|(x, y)| cube_neighbor(f, n, x, y))
                        .any(|(g, x, y)| {
                            g == face
                                && (x - i.clamp(0, n - 1)).abs() + (y - j.clamp(0, n - 1)).abs()
                                    == 0
                        });
                    assert!(
                        back,
                        "face {face} ({i}, {j}) -> face {f} ({a}, {b}), n = {n}"
                    );
                }
            }
            assert_eq!(cube_neighbor(face, n, -1, -1), None);
            assert_eq!(cube_neighbor(face, n, n, -1), None);
            assert_eq!(cube_neighbor(face, n, 0, 0), Some((face, 0, 0)));
        }
    }
    // Face +x's left edge (s < 0) is face +z's right edge, the same rows.
    assert_eq!(cube_neighbor(0, 8, -1, 3), Some((4, 7, 3)));
}

#[test]
fn seamless_corner_weight_is_spread_over_the_other_three() {
    use ptx_ir_interp::texture::{corner_weights, weights};
    // Halfway in both directions: 64/256 each; the corner's 64 becomes 21 + 21 + 22.
    let mut w = weights(&[128, 128]);
    corner_weights(&mut w, 0);
    assert_eq!(w, vec![0, 85 << 8, 85 << 8, 86 << 8]);
    for (fs, ft) in [(130, 200), (255, 129), (1, 1), (77, 250)] {
        for k in 0..4 {
            let mut w = weights(&[fs, ft]);
            let total: i64 = w.iter().sum();
            corner_weights(&mut w, k);
            assert_eq!(w[k], 0);
            assert_eq!(w.iter().sum::<i64>(), total);
        }
    }
    // `tld4` of integer texels read as integers past a corner: the same spread summed
    // exactly, rounded down for 32-bit channels, to nearest for 8- and 16-bit ones
    // (`seamtld4int`). 85 (100 + 200) + 86 v, in 1/256.
    use ptx_ir_interp::texture::corner_gather_int;
    let texels = |ty: &str, v: [i32; 4]| {
        let t =
            TextureArg::parse(&format!("buf=1,type={ty},ch=1,dims=8x8,cube=1,seamless=1")).unwrap();
        let n = t.layout.format.bytes() as usize;
        let ts = v.map(|x| {
            let mut b = [0u8; 16];
            b[..n].copy_from_slice(&x.to_le_bytes()[..n]);
            b
        });
        corner_gather_int(&t, &ts, 0, 0)
    };
    assert_eq!(texels("u32", [0, 100, 200, 301]), 200); // 200.73
    assert_eq!(texels("s32", [0, -100, -200, -301]), -201i32 as u32); // -200.73
    assert_eq!(texels("u8", [0, 100, 200, 250]), 184); // 183.59
    assert_eq!(texels("u8", [0, 100, 200, 201]), 167); // 167.13
    assert_eq!(texels("s16", [0, -100, -200, -250]), -184i32 as u32);
    // Only cube maps filter seamlessly.
    let e = TextureArg::parse("buf=1,type=f32,ch=1,dims=8x8,seamless=1").unwrap_err();
    assert!(e.contains("cube"), "{e}");
    assert!(TextureArg::parse("buf=1,type=f32,ch=1,dims=8x8,cube=1,seamless=1").is_ok());
}
