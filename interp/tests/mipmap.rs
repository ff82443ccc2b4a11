//! Mipmapped and multi-sample texture objects: the `levels=`/`samples=` specifications, the
//! buffer layout, which level `tex`, `tex.level` and `tex.grad` read, and the queries. The
//! arithmetic is checked against the GPU by `corpus/vectors/mipmap.jsonl.xz`
//! (`tests/vectors.rs`); these tests pin the rules with values worked out by hand.

use ptx_ir_interp::texture::TextureArg;
use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread of `k(.param .u64 out, .param .u64 texels, .param .u64 obj)`
/// with `%rd1` = the output address and `%rd3` = the object handle; returns the output words.
fn run(body: &str, texels: Vec<u8>, spec: &str) -> Result<Vec<u32>, String> {
    let src = format!(
        ".version 8.7\n.target sm_90\n.address_size 64\n\
         .visible .entry k(.param .u64 po, .param .u64 pt, .param .u64 ph) {{\n\
         .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [po]; ld.param.u64 %rd3, [ph];\n{body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let obj = Arg::Texture(TextureArg::parse(spec)?);
    let o = p
        .launch("k")
        .args(vec![Arg::Buffer(vec![0; 64]), Arg::Buffer(texels), obj])
        .run()
        .map_err(|f| f.error.to_string())?;
    Ok(o.buffers[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 1D mipmap of width 8 (levels 8, 4, 2, 1): level `k` holds `10 k + i` at texel `i`.
fn ramp_levels() -> Vec<u8> {
    let mut v = Vec::new();
    for (k, w) in [8, 4, 2, 1].into_iter().enumerate() {
        v.extend((0..w).map(|i| (10 * k + i) as f32));
    }
    f32s(&v)
}

/// `tex.level` at normalized `u` and level of detail `lod`, the first channel at word `k`.
fn level(u: f32, lod: f32, k: u32) -> String {
    format!(
        "mov.b32 %f1, 0f{:08X}; mov.b32 %f2, 0f{:08X};\n\
         tex.level.1d.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f1}}], %f2;\n\
         st.global.f32 [%rd1+{}], %f4;",
        u.to_bits(),
        lod.to_bits(),
        4 * k
    )
}

#[test]
fn level_of_detail_picks_and_blends_levels() {
    let spec = "buf=1,type=f32,ch=1,dims=8,levels=4,mipfilter=linear";
    // u = 0.3: texel 2 of level 0 (2.4), texel 1 of level 1 (1.2), texel 0 of level 2.
    let body = [
        level(0.3, 0.0, 0),
        level(0.3, 1.0, 1),
        level(0.3, 0.5, 2),
        level(0.3, 7.0, 3),
        level(0.3, -3.0, 4),
        level(0.3, 2.0 + 1.0 / 1024.0, 5),
    ]
    .join("\n");
    let w = run(&body, ramp_levels(), spec).unwrap();
    let f: Vec<f32> = w[..6].iter().map(|&b| f32::from_bits(b)).collect();
    assert_eq!(f[0], 2.0);
    assert_eq!(f[1], 11.0);
    // Halfway: the two levels' texels weigh 128/256 each.
    assert_eq!(f[2], 6.5);
    // Past the last level, and below the first: clamped.
    assert_eq!(f[3], 30.0);
    assert_eq!(f[4], 2.0);
    // A level of detail is held in 1/256, rounded down: 2 + 1/1024 reads level 2 alone.
    assert_eq!(f[5], 20.0);
    // Nearest level: half up.
    let spec = "buf=1,type=f32,ch=1,dims=8,levels=4,mipfilter=point";
    let body = [level(0.3, 0.5, 0), level(0.3, 0.49, 1), level(0.3, 1.5, 2)].join("\n");
    let w = run(&body, ramp_levels(), spec).unwrap();
    assert_eq!(
        w[..3]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect::<Vec<_>>(),
        [11.0, 2.0, 20.0]
    );
}

#[test]
fn bias_and_clamps() {
    // The bias moves `tex.level` (held as -332/256), not `tex.base`; the least level wins
    // over the greatest when they cross.
    let spec = "buf=1,type=f32,ch=1,dims=8,levels=4,mipfilter=linear,lodbias=-1.3";
    let body = [
        level(0.3, 1.3125, 0),
        "tex.base.1d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1}];\n\
         st.global.f32 [%rd1+4], %f4;"
            .to_string(),
    ]
    .join("\n");
    let w = run(&body, ramp_levels(), spec).unwrap();
    // Level 0 (2) and level 1 (11) weighed 252/256 and 4/256.
    assert_eq!(f32::from_bits(w[0]), (2.0 * 252.0 + 11.0 * 4.0) / 256.0);
    assert_eq!(f32::from_bits(w[1]), 2.0);
    let spec = "buf=1,type=f32,ch=1,dims=8,levels=4,mipfilter=point,minlod=2.5,maxlod=1";
    let w = run(&level(0.3, 0.0, 0), ramp_levels(), spec).unwrap();
    assert_eq!(f32::from_bits(w[0]), 30.0);
}

#[test]
fn gradients_choose_the_level() {
    // A 2D 16x16 mipmap: level k holds k everywhere.
    let mut v = Vec::new();
    for k in 0..5 {
        let n = 16usize >> k;
        v.extend(std::iter::repeat_n(k as f32, n * n));
    }
    let spec = "buf=1,type=f32,ch=1,dims=16x16,levels=5,mipfilter=linear";
    let grad = |gx: f32, gy: f32, k: u32| {
        format!(
            "mov.b32 %f1, 0f3E99999A; mov.b32 %f2, 0f{:08X}; mov.b32 %f3, 0f{:08X};\n\
             mov.b32 %f8, 0f00000000;\n\
             tex.grad.2d.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f1, %f1}}], \
             {{%f2, %f3}}, {{%f8, %f8}};\nst.global.f32 [%rd1+{}], %f4;",
            gx.to_bits(),
            gy.to_bits(),
            4 * k
        )
    };
    // Normalized gradients times the size: 4 texels per step is level 2; 1/16 is level 0;
    // none at all reads the least level.
    let body = [
        grad(0.25, 0.0, 0),
        grad(1.0 / 16.0, 0.0, 1),
        grad(0.0, 0.0, 2),
        grad(0.0, 0.5, 3),
    ]
    .join("\n");
    let w = run(&body, f32s(&v), spec).unwrap();
    assert_eq!(
        w[..4]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect::<Vec<_>>(),
        [2.0, 0.0, 0.0, 3.0]
    );
}

#[test]
fn integer_coordinates_name_a_level_and_clamp() {
    let spec = "buf=1,type=f32,ch=1,dims=8x2,levels=2";
    // Level 0: 8x2 texels 0..16; level 1: 4x1 texels 100..104.
    let mut v: Vec<f32> = (0..16).map(|i| i as f32).collect();
    v.extend((0..4).map(|i| 100.0 + i as f32));
    let fetch = |x: i32, lod: i32, k: u32| {
        format!(
            "mov.b32 %r1, {x}; mov.b32 %r2, 1; mov.b32 %r3, {lod};\n\
             tex.level.2d.v4.f32.s32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%r1, %r2}}], %r3;\n\
             st.global.f32 [%rd1+{}], %f4;",
            4 * k
        )
    };
    let body = [
        fetch(3, 0, 0),
        fetch(3, 1, 1),
        fetch(9, 1, 2),
        fetch(1, 2, 3),
    ]
    .join("\n");
    let w = run(&body, f32s(&v), spec).unwrap();
    assert_eq!(
        w[..4]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect::<Vec<_>>(),
        [11.0, 103.0, 103.0, 0.0]
    );
}

#[test]
fn queries_of_levels_and_samples() {
    let spec = "buf=1,type=f32,ch=1,dims=20x13,levels=5";
    let body = "txq.num_mipmap_levels.b32 %r1, [%rd3]; st.global.u32 [%rd1], %r1;\n\
                txq.level.width.b32 %r1, [%rd3], 2; st.global.u32 [%rd1+4], %r1;\n\
                txq.level.height.b32 %r1, [%rd3], 3; st.global.u32 [%rd1+8], %r1;\n\
                txq.level.width.b32 %r1, [%rd3], 5; st.global.u32 [%rd1+12], %r1;\n\
                txq.num_samples.b32 %r1, [%rd3]; st.global.u32 [%rd1+16], %r1;";
    let bytes = 4 * (20 * 13 + 10 * 6 + 5 * 3 + 2 + 1);
    let w = run(body, vec![0; bytes], spec).unwrap();
    assert_eq!(&w[..5], &[5, 5, 1, 0, 0]);
    let w = run(
        "txq.num_samples.b32 %r1, [%rd3]; st.global.u32 [%rd1], %r1;",
        vec![0; 4 * 4 * 2 * 4],
        "buf=1,type=u32,ch=1,dims=4x2,samples=4",
    )
    .unwrap();
    assert_eq!(w[0], 4);
}

#[test]
fn multi_sample_fetches() {
    // 2x2 texels of 2 samples, layered twice: value = 100 layer + 10 texel + sample.
    let mut v = Vec::new();
    for layer in 0..2u32 {
        for t in 0..4u32 {
            for s in 0..2u32 {
                v.extend((100 * layer + 10 * t + s).to_le_bytes());
            }
        }
    }
    let ms = "buf=1,type=u32,ch=1,dims=2x2,samples=2";
    let body = "mov.b32 %r1, 1; mov.b32 %r2, 1; mov.b32 %r3, 0;\n\
                tex.2dms.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r2, %r3, %r3}];\n\
                st.global.u32 [%rd1], %r4;\n\
                mov.b32 %r8, 5;\n\
                tex.2dms.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r8, %r3, %r3}];\n\
                st.global.u32 [%rd1+4], %r4;";
    let w = run(body, v[..32].to_vec(), ms).unwrap();
    // Sample 1 of texel (1, 0); x = 5 is outside: 0.
    assert_eq!(&w[..2], &[11, 0]);
    let body = "mov.b32 %r1, 1; mov.b32 %r2, 0; mov.b32 %r3, 1;\n\
                tex.a2dms.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r2, %r3, %r3}];\n\
                st.global.u32 [%rd1], %r4;";
    let w = run(body, v.clone(), &format!("{ms},layers=2")).unwrap();
    assert_eq!(w[0], 130);
    // A sample the texture lacks is undefined; a multi-sample texture read as 2D is a
    // geometry mismatch.
    let body = "mov.b32 %r1, 2; mov.b32 %r2, 0;\n\
                tex.2dms.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r2, %r2, %r2}];";
    let e = run(body, v[..32].to_vec(), ms).unwrap_err();
    assert!(e.contains("sample 2 of a texture of 2 samples"), "{e}");
    let body = "mov.b32 %r1, 0;\n\
                tex.2d.v4.u32.s32 {%r4, %r5, %r6, %r7}, [%rd3, {%r1, %r1}];";
    let e = run(body, v[..32].to_vec(), ms).unwrap_err();
    assert!(e.contains("geometry does not match"), "{e}");
}

#[test]
fn specifications_are_checked() {
    let bad = [
        ("buf=1,type=f32,ch=1,dims=8,levels=5", "at most 4 levels"),
        (
            "buf=1,type=f32,ch=1,dims=8,res=linear,levels=2",
            "no mipmap levels",
        ),
        (
            "buf=1,type=f32,ch=1,dims=8,levels=2,mipfilter=cubic",
            "mipfilter",
        ),
        ("buf=1,type=f32,ch=1,dims=8,levels=2,lodbias=inf", "finite"),
        ("buf=1,type=f32,ch=1,dims=8x8,levels=2,aniso=17", "0..16"),
        (
            "buf=1,type=f32,ch=1,dims=8x8,samples=2,aniso=2",
            "multi-sample texture is not modelled",
        ),
        (
            "buf=1,type=u32,ch=1,dims=8,levels=2,mipfilter=linear",
            "read=normalized",
        ),
        (
            "buf=1,type=f32,ch=1,dims=8,samples=2",
            "multi-sample texture is 2D",
        ),
        (
            "buf=1,type=f32,ch=1,dims=8x8,samples=2,levels=2",
            "without mipmaps",
        ),
    ];
    for (spec, want) in bad {
        let e = TextureArg::parse(spec).unwrap_err();
        assert!(e.contains(want), "{spec}: {e}");
    }
    // Anisotropic filtering of every geometry but multi-sample, and a bias with any
    // `maxAnisotropy` (docs/INTERP.md, "Anisotropic filtering").
    for spec in [
        "buf=1,type=f32,ch=1,dims=8,levels=2,aniso=8",
        "buf=1,type=f32,ch=1,dims=8,layers=2,levels=2,aniso=2",
        "buf=1,type=f32,ch=1,dims=8x8,layers=2,levels=2,aniso=2",
        "buf=1,type=f32,ch=1,dims=8x8x8,levels=2,aniso=16",
        "buf=1,type=f32,ch=1,dims=8x8,cube=1,levels=2,aniso=4",
        "buf=1,type=f32,ch=1,dims=8x8,cube=1,layers=2,levels=2,aniso=4",
        "buf=1,type=f32,ch=1,dims=8x8,cube=1,levels=2,aniso=4,seamless=1",
        "buf=1,type=f32,ch=1,dims=8x8,cube=1,layers=2,levels=2,aniso=16,seamless=1",
        "buf=1,type=f32,ch=1,dims=8x8,levels=2,aniso=4,lodbias=0.5",
        "buf=1,type=f32,ch=1,dims=8x8,levels=2,aniso=2,lodbias=-1.3",
    ] {
        assert!(TextureArg::parse(spec).is_ok(), "{spec}");
    }
    // Every level is texels the buffer must hold: 8 + 4 + 2 + 1 floats.
    let e = run(
        "",
        vec![0; 56],
        "buf=1,type=f32,ch=1,dims=8,levels=4,mipfilter=linear",
    )
    .unwrap_err();
    assert!(e.contains("needs 60 bytes of texels"), "{e}");
}

/// `tex.level` of a 2D texture whose level `k` holds `k` (8 x 8, four levels, linear between
/// levels): the first channel is the level of detail the fetch used, in levels.
fn aniso_level(spec: &str, lods: &[f32]) -> Result<Vec<f32>, String> {
    let mut tex = Vec::new();
    for (k, n) in [64, 16, 4, 1].into_iter().enumerate() {
        tex.extend(std::iter::repeat_n(k as f32, n));
    }
    let mut body = String::new();
    for (i, l) in lods.iter().enumerate() {
        body += &format!(
            "mov.b32 %f1, 0f3E99999A; mov.b32 %f2, 0f{:08X};\n\
             tex.level.2d.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f1, %f1}}], %f2;\n\
             st.global.f32 [%rd1+{}], %f4;\n",
            l.to_bits(),
            4 * i
        );
    }
    let w = run(&body, f32s(&tex), spec)?;
    Ok(w[..lods.len()].iter().map(|&b| f32::from_bits(b)).collect())
}

#[test]
fn anisotropic_filtering_sharpens_the_level_of_detail() {
    let base = "buf=1,type=f32,ch=1,dims=8x8,levels=4,mipfilter=linear,filter=linear";
    // Isotropic: the level of detail as given (in 1/256).
    let lods = [
        1.0 + 60.0 / 256.0,
        1.0 + 100.0 / 256.0,
        1.0 + 200.0 / 256.0,
        2.5,
    ];
    let iso = aniso_level(base, &lods).unwrap();
    assert_eq!(iso, lods.to_vec());
    // maxAnisotropy 16: fractions below 1/4 read the level alone, above 3/4 the next one, and
    // between them the blend is twice as steep (2 f - 128 in 1/256).
    let a16 = aniso_level(&format!("{base},aniso=16"), &lods).unwrap();
    assert_eq!(a16, vec![1.0, 1.0 + 72.0 / 256.0, 2.0, 2.5]);
    // maxAnisotropy 4: (7 f - 378) / 4 rounded down.
    let a4 = aniso_level(&format!("{base},aniso=4"), &lods).unwrap();
    assert_eq!(
        a4,
        vec![
            1.0 + 10.0 / 256.0,
            1.0 + 80.0 / 256.0,
            1.0 + 255.0 / 256.0,
            2.0 + 129.0 / 256.0
        ]
    );
    // Without the trilinear optimisation nothing is sharpened.
    let off = aniso_level(&format!("{base},aniso=16,trilinopt=0"), &lods).unwrap();
    assert_eq!(off, lods.to_vec());
    // With 8 or more the bias is held to the nearest 1/128: 0.1 is 26/256, so 40/256 reads
    // as 66/256, sharpened to 4/256.
    let b = aniso_level(&format!("{base},aniso=16,lodbias=0.1"), &[40.0 / 256.0]).unwrap();
    assert_eq!(b, vec![4.0 / 256.0]);
    // `tex.grad` spreads an anisotropic footprint (`ptx_ir_interp::aniso`); its gradients
    // here are any pair, the texels 0.
    let body = "mov.b32 %f1, 0f3E99999A; mov.b32 %f2, 0f3E000000; mov.b32 %f3, 0f3D000000;\n\
                tex.grad.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1, %f1}], {%f2, %f3}, \
                {%f3, %f2};";
    let tex = f32s(&[0.0; 85]);
    assert!(run(body, tex.clone(), &format!("{base},aniso=2")).is_ok());
    assert!(run(body, tex, &format!("{base},aniso=1")).is_ok());
}

/// `tex.grad` of an 8 x 8 texture (four levels) whose level 0 holds `x^2` at column `x` and
/// the other levels 0, at `(u, 0.5)` with gradients of 4 texels along x and 1 along y: the
/// first channel. `f16` texels when `spec` says so.
fn aniso_grad(spec: &str, u: f32) -> Result<f32, String> {
    let mut tex: Vec<f32> = (0..64).map(|i| ((i % 8) * (i % 8)) as f32).collect();
    tex.extend([0.0; 21]);
    let texels = if spec.contains("type=f16") {
        tex.iter()
            .flat_map(|&v| (half_bits(v) as u16).to_le_bytes())
            .collect()
    } else {
        f32s(&tex)
    };
    // gx = (0.5, 0), gy = (0, 0.125) normalized.
    let body = format!(
        "mov.b32 %f1, 0f{:08X}; mov.b32 %f9, 0f3F000000;\n\
         mov.b32 %f2, 0f3F000000; mov.b32 %f3, 0f00000000; mov.b32 %f8, 0f3E000000;\n\
         tex.grad.2d.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f1, %f9}}], {{%f2, %f3}}, \
         {{%f3, %f8}};\n\
         st.global.f32 [%rd1], %f4;",
        u.to_bits()
    );
    let w = run(&body, texels, spec)?;
    Ok(f32::from_bits(w[0]))
}

/// The `f16` bits of a small whole number (exact).
fn half_bits(v: f32) -> u32 {
    if v == 0.0 {
        return 0;
    }
    let e = v.log2().floor() as u32;
    let m = ((v / 2f32.powi(e as i32) - 1.0) * 1024.0) as u32;
    ((e + 15) << 10) | m
}

#[test]
fn anisotropic_grad_reads_a_row_of_taps() {
    let base = "buf=1,type=f32,ch=1,dims=8x8,levels=4,mipfilter=linear,filter=linear";
    // Isotropic: level of detail log2 4 = 2, a level of zeros.
    assert_eq!(aniso_grad(base, 0.5), Ok(0.0));
    // maxAnisotropy 4: the minor axis (det / rho = 1 texel) picks level 0, and a ratio of 4
    // gives four taps of 1/4 along x, one texel apart: from x = 4 less half a texel, at
    // -1.5, -0.5, 0.5 and 1.5 texels, each on the centre of a column (2, 3, 4, 5):
    // (4 + 9 + 16 + 25) / 4. A bilinear tap there would read (9 + 16) / 2.
    let a4 = format!("{base},aniso=4");
    assert_eq!(aniso_grad(&a4, 0.5), Ok(13.5));
    // maxAnisotropy 2 holds the ratio to 2: level 1 (zeros).
    assert_eq!(aniso_grad(&format!("{base},aniso=2"), 0.5), Ok(0.0));
    // Point texel filtering: each tap reads the column its position (x = 4 plus -1.5 ...
    // 1.5 texels, not shifted by half a texel) falls in, 2 to 5 again.
    let point = a4.replace(",filter=linear", ",filter=point");
    assert_eq!(aniso_grad(&point, 0.5), Ok(13.5));
    // At x = 1 the first tap lies a texel past the edge: clamped to column 0 (0 + 0 + 1 + 4),
    // or, wrapped, column 7 (49 + 0 + 1 + 4).
    assert_eq!(aniso_grad(&a4, 0.125), Ok(1.25));
    assert_eq!(aniso_grad(&format!("{a4},addr=wrap"), 0.125), Ok(13.5));
    // `f16` texels: the same taps, the sum rounded to f16.
    assert_eq!(
        aniso_grad(&a4.replace("type=f32", "type=f16"), 0.5),
        Ok(13.5)
    );
    // Mirrored and border addressing address each texel of each tap (`anisoaddr`): at x =
    // 7.5 texels the taps lie at 5.5 ... 8.5 texels, reading columns 5 to 9 in pairs; clamped
    // (30.5 + 42.5 + 49 + 49) / 4, mirrored (8 and 9 read 7 and 6) (30.5 + 42.5 + 49 + 42.5)
    // / 4, border (8 and 9 read 0) (30.5 + 42.5 + 24.5 + 0) / 4.
    assert_eq!(aniso_grad(&a4, 0.9375), Ok(42.75));
    assert_eq!(aniso_grad(&format!("{a4},addr=mirror"), 0.9375), Ok(41.125));
    assert_eq!(aniso_grad(&format!("{a4},addr=border"), 0.9375), Ok(24.375));
}

/// Word 0 of an anisotropic `tex.grad` (destination type `dtype`) at x = 4 texels of an 8 x 8
/// texture of four levels whose every row of level 0 is `row` (`ty` texels, one channel; the
/// other levels 0), with `aniso_grad`'s gradients: four taps of 1/4 on columns 2 to 5.
fn aniso_row(spec: &str, ty: &str, dtype: &str, row: [i64; 8]) -> Result<u32, String> {
    let bytes = match ty {
        "u8" | "s8" => 1,
        "u16" | "s16" => 2,
        _ => 4,
    };
    let mut texels = Vec::new();
    for i in 0..85 {
        let v = if i < 64 { row[i % 8] } else { 0 };
        texels.extend(&v.to_le_bytes()[..bytes]);
    }
    let body = format!(
        "mov.b32 %f1, 0f3F000000; mov.b32 %f2, 0f3F000000; mov.b32 %f3, 0f00000000;\n\
         mov.b32 %f8, 0f3E000000;\n\
         tex.grad.2d.v4.{dtype}.f32 {{%r4, %r5, %r6, %r7}}, [%rd3, {{%f1, %f1}}], {{%f2, %f3}}, \
         {{%f3, %f8}};\n\
         st.global.b32 [%rd1], %r4;"
    );
    let spec = format!("buf=1,type={ty},ch=1,dims=8x8,levels=4,aniso=4,{spec}");
    Ok(run(&body, texels, &spec)?[0])
}

#[test]
fn anisotropic_grad_rounds_16_bit_and_integer_texels() {
    let norm = "mipfilter=linear,filter=point,read=normalized";
    // Normalized 16-bit texels: the exact sum rounded half up to 1/65535 or 1/32767.
    let u16n = |row| aniso_row(norm, "u16", "f32", row).map(f32::from_bits);
    assert_eq!(u16n([0, 0, 1, 0, 0, 0, 0, 0]), Ok(0.0));
    assert_eq!(u16n([0, 0, 1, 1, 0, 0, 0, 0]), Ok(1.0 / 65535.0));
    // `s16` -32768 is summed as it is (a bilinear tap clamps it to -32767 first): -16384,
    // not -16383.5 rounded half up to -16383.
    let s16n = |row| aniso_row(norm, "s16", "f32", row).map(f32::from_bits);
    assert_eq!(
        s16n([0, 0, -32768, -32768, 0, 0, 0, 0]),
        Ok(-16384.0 / 32767.0)
    );
    assert_eq!(s16n([0, 0, -32768, -32768, -32768, -32768, 0, 0]), Ok(-1.0));
    // Integer texels read as integers (point texel and nearest level filtering): 32-bit
    // channels rounded down, 8- and 16-bit ones half up.
    let int = "mipfilter=point,filter=point";
    assert_eq!(
        aniso_row(int, "u32", "u32", [0, 0, 1, 1, 1, 0, 0, 0]),
        Ok(0)
    );
    assert_eq!(
        aniso_row(int, "s32", "s32", [0, 0, -1, 0, 0, 0, 0, 0]),
        Ok(-1i32 as u32)
    );
    assert_eq!(
        aniso_row(int, "u32", "u32", [0, 0, -1, -1, -1, -1, 0, 0]),
        Ok(u32::MAX)
    );
    assert_eq!(
        aniso_row(int, "u16", "u32", [0, 0, 1, 1, 0, 0, 0, 0]),
        Ok(1)
    );
    assert_eq!(aniso_row(int, "u8", "u32", [0, 0, 1, 0, 0, 0, 0, 0]), Ok(0));
    assert_eq!(
        aniso_row(int, "s8", "s32", [0, 0, -1, -1, 0, 0, 0, 0]),
        Ok(0)
    );
    assert_eq!(
        aniso_row(int, "s16", "s32", [0, 0, -1, -1, -1, 0, 0, 0]),
        Ok(-1i32 as u32)
    );
}

/// Anisotropic `tex.grad` takes any gradients and coordinates: zero, subnormal, huge,
/// infinite and NaN components in every combination give a value (no error, no panic), with
/// linear and point texel filtering, clamped and wrapped addressing, `f32`, normalized `u8`
/// and `s16` texels, and `u32` and `s32` texels read as integers.
/// Runs kernel `k` of `p` over `n` lanes' operands `ops` and the texels `tex` through the
/// texture object `spec` (`case` names the case): it must give a value in every lane (no
/// error, no panic).
fn runs_on_any_operands(p: &Program, n: usize, ops: &[u8], tex: &[u8], spec: &str, case: &str) {
    let o = p
        .launch("k")
        .grid([(n / 128) as u32, 1, 1])
        .block([128, 1, 1])
        .args(vec![
            Arg::Buffer(vec![0; 4 * n]),
            Arg::Buffer(ops.to_vec()),
            Arg::Buffer(tex.to_vec()),
            Arg::Texture(TextureArg::parse(spec).unwrap()),
        ])
        .run();
    assert!(
        o.is_ok(),
        "{case} {spec}: {:?}",
        o.err().map(|f| f.error.to_string())
    );
}

#[test]
fn anisotropic_grad_takes_any_operands() {
    let vals: [f32; 11] = [
        0.0,
        -0.0,
        f32::from_bits(1),
        1e-39,
        0.3,
        -2.5,
        1e30,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    // Thread t: gradient components from the digits of t in base 11, coordinates from t too.
    // Every combination of the four components, rounded up to whole blocks.
    let n = vals.len().pow(4).div_ceil(128) * 128;
    let mut ops = Vec::with_capacity(n * 32);
    for t in 0..n {
        let g = [t % 11, t / 11 % 11, t / 121 % 11, t / 1331 % 11].map(|k| vals[k]);
        let c = [vals[(t * 7) % 11], vals[(t * 5 + 4) % 11]];
        for v in [c[0], c[1], 0.0, 0.0, g[0], g[1], g[2], g[3]] {
            ops.extend(v.to_le_bytes());
        }
    }
    let src = ".version 8.7\n.target sm_90\n.address_size 64\n\
        .visible .entry k(.param .u64 po, .param .u64 pg, .param .u64 pt, .param .u64 ph) {\n\
        .reg .b32 %r<4>; .reg .f32 %f<16>; .reg .b64 %rd<8>;\n\
        ld.param.u64 %rd1, [po]; ld.param.u64 %rd2, [pg]; ld.param.u64 %rd3, [ph];\n\
        mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n\
        mad.lo.u32 %r1, %r1, %r2, %r3;\n\
        mul.wide.u32 %rd4, %r1, 32; add.s64 %rd4, %rd2, %rd4;\n\
        ld.global.v2.f32 {%f1, %f2}, [%rd4];\n\
        ld.global.v4.f32 {%f3, %f4, %f5, %f6}, [%rd4+16];\n\
        tex.grad.2d.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd3, {%f1, %f2}], {%f3, %f4}, {%f5, %f6};\n\
        mul.wide.u32 %rd5, %r1, 4; add.s64 %rd5, %rd1, %rd5;\n\
        st.global.f32 [%rd5], %f8;\n\
        ret; }\n";
    let m = ptx_ir_text::parse(src).unwrap();
    let p = Program::load(&m).unwrap();
    let f32_tex: Vec<u8> = f32s(&(0..85).map(|i| i as f32 - 40.0).collect::<Vec<_>>());
    let u8_tex: Vec<u8> = (0..85 * 4).map(|i| (i * 37 % 256) as u8).collect();
    for spec in [
        "type=f32,ch=1,filter=linear,mipfilter=linear",
        "type=f32,ch=1,filter=point,addr=wrap,mipfilter=linear",
        "type=u8,ch=4,filter=linear,read=normalized,addr=wrap/clamp,mipfilter=linear",
        "type=s16,ch=2,filter=linear,read=normalized,mipfilter=linear",
        "type=s32,ch=1,filter=point,addr=wrap,mipfilter=point",
        "type=u32,ch=1,filter=point,mipfilter=point",
    ] {
        for a in [2, 16] {
            let spec = format!("buf=2,{spec},dims=8x8,levels=4,aniso={a}");
            let tex = if spec.contains("u8") || spec.contains("s16") {
                &u8_tex
            } else {
                &f32_tex
            };
            runs_on_any_operands(&p, n, &ops, tex, &spec, "");
        }
    }
}

/// Anisotropic `tex.grad` of the other geometries takes any operands too: a cube map (plain,
/// seamless and layered, gradients crossing faces or not), a 1D and a 3D texture, with zero,
/// subnormal, huge, infinite and NaN components of the direction or coordinates and of both
/// gradients give a value (no error, no panic).
#[test]
fn anisotropic_grad_of_every_geometry_takes_any_operands() {
    let vals: [f32; 11] = [
        0.0,
        -0.0,
        f32::from_bits(1),
        1e-39,
        0.3,
        -2.5,
        1e30,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    // Thread t: twelve operands (a direction or coordinates, two gradients) from the digits
    // of t in base 11, shifted per operand so that each meets every value.
    let n = 11usize.pow(4).div_ceil(128) * 128;
    let mut ops = Vec::with_capacity(n * 48);
    for t in 0..n {
        for k in 0..12 {
            let digit = (t / 11usize.pow((k % 4) as u32) + k) % 11;
            ops.extend(vals[digit].to_le_bytes());
        }
    }
    let kernel = |form: &str| {
        format!(
            ".version 8.7\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 po, .param .u64 pg, .param .u64 pt, .param .u64 ph) {{\n\
             .reg .b32 %r<4>; .reg .f32 %f<16>; .reg .b64 %rd<8>;\n\
             ld.param.u64 %rd1, [po]; ld.param.u64 %rd2, [pg]; ld.param.u64 %rd3, [ph];\n\
             mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n\
             mad.lo.u32 %r1, %r1, %r2, %r3;\n\
             mul.wide.u32 %rd4, %r1, 48; add.s64 %rd4, %rd2, %rd4;\n\
             ld.global.v4.f32 {{%f0, %f1, %f2, %f3}}, [%rd4];\n\
             ld.global.v4.f32 {{%f4, %f5, %f6, %f7}}, [%rd4+16];\n\
             ld.global.v4.f32 {{%f8, %f9, %f10, %f11}}, [%rd4+32];\n\
             mov.u32 %r0, 1;\n\
             {form}\n\
             mul.wide.u32 %rd5, %r1, 4; add.s64 %rd5, %rd1, %rd5;\n\
             st.global.f32 [%rd5], %f12;\n\
             ret; }}\n"
        )
    };
    let out = "{%f12, %f13, %f14, %f15}";
    let forms = [
        (
            format!("tex.grad.cube.v4.f32.f32 {out}, [%rd3, {{%f0, %f1, %f2, %f2}}], {{%f4, %f5, %f6, %f7}}, {{%f8, %f9, %f10, %f11}};"),
            vec![
                "dims=8x8,cube=1,levels=4",
                "dims=8x8,cube=1,levels=4,seamless=1",
            ],
        ),
        (
            format!("tex.grad.acube.v4.f32.f32 {out}, [%rd3, {{%r0, %f1, %f2, %f3}}], {{%f4, %f5, %f6, %f7}}, {{%f8, %f9, %f10, %f11}};"),
            vec![
                "dims=8x8,cube=1,layers=2,levels=4",
                "dims=8x8,cube=1,layers=2,levels=4,seamless=1",
            ],
        ),
        (
            format!("tex.grad.1d.v4.f32.f32 {out}, [%rd3, {{%f0}}], {{%f4}}, {{%f8}};"),
            vec!["dims=64,levels=4", "dims=64,levels=4,addr=border"],
        ),
        (
            format!("tex.grad.3d.v4.f32.f32 {out}, [%rd3, {{%f0, %f1, %f2, %f2}}], {{%f4, %f5, %f6, %f7}}, {{%f8, %f9, %f10, %f11}};"),
            vec!["dims=8x8x8,levels=4"],
        ),
    ];
    let tex: Vec<u8> = f32s(
        &(0..8 * 8 * 8 * 2)
            .map(|i| (i % 85) as f32 - 40.0)
            .collect::<Vec<_>>(),
    );
    for (form, specs) in &forms {
        let m = ptx_ir_text::parse(&kernel(form)).unwrap();
        let p = Program::load(&m).unwrap();
        for spec in specs {
            for a in [2, 16] {
                let spec =
                    format!("buf=2,type=f32,ch=1,filter=linear,mipfilter=linear,{spec},aniso={a}");
                runs_on_any_operands(&p, n, &ops, &tex, &spec, form);
            }
        }
    }
}

/// Anisotropic `tex.grad` of a seamless cube map (8-texel faces, one level, `maxAnisotropy`
/// 16): a tap whose bilinear footprint would hold two or more texels past a corner of the cube
/// has its position clamped to `[-256, 256 n - 1]` (1/256 texel, less half a texel), so it
/// holds one, whose weight goes to the other three (docs/INTERP.md, "Anisotropic filtering").
/// The expected values are two of the H200's impulse probes (`seamcornerprobe.jsonl.xz`,
/// `scp.hi.lin.*` and `scp.lo.lin.*`), with one-hot texels made distinct powers of two.
#[test]
fn seamless_anisotropic_tap_past_a_corner_is_clamped_back_to_it() {
    let at = |face: usize, i: usize, j: usize| (face * 8 + j) * 8 + i;
    let mut tex = vec![0f32; 6 * 64];
    // Face +z's corner (+1, +1): two taps half a texel either side of the corner's column
    // (s = 1): the outer one, at 256 n, comes back to 256 n - 1.
    tex[at(4, 7, 7)] = 1.0;
    tex[at(0, 0, 7)] = 1024.0;
    // Face +z's corner (-1, -1): four taps a texel apart along s, the outermost at -512
    // (clamped to -256, where the next one lies).
    for (k, (f, i, j)) in [(1, 7, 0), (2, 0, 7), (2, 1, 7), (4, 0, 0), (4, 1, 0)]
        .into_iter()
        .enumerate()
    {
        tex[at(f, i, j)] = (1u32 << (4 * k)) as f32;
    }
    let fetch = |v: [f32; 3], g: f32, k: usize| {
        format!(
            "mov.b32 %f0, 0f{:08X}; mov.b32 %f1, 0f{:08X}; mov.b32 %f2, 0f{:08X};\n\
             mov.b32 %f8, 0f{:08X}; mov.b32 %f9, 0f00000000;\n\
             tex.grad.cube.v4.f32.f32 {{%f4, %f5, %f6, %f7}}, [%rd3, {{%f0, %f1, %f2, %f2}}], \
             {{%f8, %f9, %f9, %f9}}, {{%f9, %f9, %f9, %f9}};\n\
             st.global.f32 [%rd1+{}], %f4;\n",
            v[0].to_bits(),
            v[1].to_bits(),
            v[2].to_bits(),
            g.to_bits(),
            4 * k
        )
    };
    let body = fetch([1.0, -0.875, 1.0], -0.5, 0) + &fetch([-1.0, 1.0, 1.0], 1.0, 1);
    let spec = "buf=1,type=f32,ch=1,dims=8x8,cube=1,levels=1,filter=linear,mipfilter=linear,\
                aniso=16,seamless=1";
    let w = run(&body, f32s(&tex), spec).unwrap();
    // Weights in 1/1024: 514 and 510 (H200).
    assert_eq!(f32::from_bits(w[0]), (514.0 + 510.0 * 1024.0) / 1024.0);
    // 342, 214, 128, 212, 128.
    let lo = 342.0 + 214.0 * 16.0 + 128.0 * 256.0 + 212.0 * 4096.0 + 128.0 * 65536.0;
    assert_eq!(f32::from_bits(w[1]), lo / 1024.0);
}
