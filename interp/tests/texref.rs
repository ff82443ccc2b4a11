//! Module-scope texture, sampler and surface references (PTX ISA 5.3): `.texref` and `.surfref`
//! variables bound to objects with `Launch::bind`, `.samplerref` variables described by their
//! initialisers (or the zero defaults) in independent mode, and the queries on them. The
//! sampling itself is the objects' (`tests/texture.rs`, measured on an H200).

use ptx_ir_interp::texture::{SurfaceArg, TextureArg};
use ptx_ir_interp::{Arg, Program};

/// Runs `body` in one thread of `k(.param .u64 po, .param .u64 pt)` in a module with `decls`
/// (and `.target texmode_independent` if `independent`), `%rd1` holding the output address,
/// argument 1 the texels; binds each `(name, object)`. Returns the output and the texels after
/// the run, or the error.
fn run(
    independent: bool,
    decls: &str,
    body: &str,
    texels: Vec<u8>,
    binds: Vec<(&str, Arg)>,
) -> Result<(Vec<u32>, Vec<u8>), String> {
    let mode = if independent {
        ", texmode_independent"
    } else {
        ""
    };
    let src = format!(
        ".version 8.7\n.target sm_90{mode}\n.address_size 64\n{decls}\n\
         .visible .entry k(.param .u64 po, .param .u64 pt) {{\n\
         .reg .b32 %r<16>; .reg .f32 %f<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [po];\n{body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    // What the reader gives, the printer and the reader give back.
    assert_eq!(ptx_ir_text::parse(&ptx_ir_text::print(&m)).unwrap(), m);
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    let mut l = p
        .launch("k")
        .args(vec![Arg::Buffer(vec![0; 64]), Arg::Buffer(texels)]);
    for (n, a) in binds {
        l = l.bind(n, a);
    }
    let o = l.run().map_err(|f| f.error.to_string())?;
    let mut b = o.buffers.into_iter();
    let out = b.next().unwrap();
    let words = out
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ok((words, b.next().unwrap()))
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn tex(spec: &str) -> Arg {
    Arg::Texture(TextureArg::parse(spec).unwrap())
}

fn surf(spec: &str) -> Arg {
    Arg::Surface(SurfaceArg::parse(spec).unwrap())
}

/// Four texels 10, 20, 30, 40.
fn texels() -> Vec<u8> {
    f32s(&[10.0, 20.0, 30.0, 40.0])
}

/// `tex` at `%f1` = `u` through `[obj]` (`t1` or `t1, s`), the first channel stored at word `k`.
fn fetch(obj: &str, u: f32, k: u32) -> String {
    format!(
        "mov.b32 %f1, 0f{:08X};\ntex.1d.v4.f32.f32 {{%f2, %f3, %f4, %f5}}, [{obj}, {{%f1}}];\n\
         st.global.f32 [%rd1+{}], %f2;",
        u.to_bits(),
        4 * k
    )
}

/// Unified mode: a bound `.texref` samples with the texture's own settings, directly and
/// through its address (indirect access); `txq` answers the bound texture's attributes;
/// `istypep` knows the variable's address and type.
#[test]
fn unified_texref_reads_the_bound_texture() {
    let body = format!(
        "{}\n{}\nmov.u64 %rd2, t1;\n{}\n\
         txq.width.b32 %r1, [t1]; st.global.u32 [%rd1+12], %r1;\n\
         txq.addr_mode_0.b32 %r1, [t1]; st.global.u32 [%rd1+16], %r1;\n\
         txq.normalized_coords.b32 %r1, [t1]; st.global.u32 [%rd1+20], %r1;\n\
         istypep.texref %p1, %rd2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1+24], %r1;\n\
         istypep.samplerref %p1, %rd2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1+28], %r1;\n\
         istypep.texref %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1+32], %r1;",
        fetch("t1", 2.5, 0),
        fetch("t1", 9.0, 1),
        fetch("%rd2", 1.5, 2),
    );
    let (w, _) = run(
        false,
        ".global .texref t1;",
        &body,
        texels(),
        vec![("t1", tex("buf=1,type=f32,ch=1,dims=4,addr=border"))],
    )
    .unwrap();
    assert_eq!(f32::from_bits(w[0]), 30.0);
    assert_eq!(f32::from_bits(w[1]), 0.0, "border colour outside");
    assert_eq!(f32::from_bits(w[2]), 20.0);
    assert_eq!(w[3], 4, "txq.width");
    assert_eq!(w[4], 4, "clamp_to_border");
    assert_eq!(w[5], 0);
    assert_eq!(&w[6..9], &[1, 0, 0], "istypep");
}

/// Independent mode: the `.samplerref` operand's initialiser gives the filter and address
/// modes, the bound texture the texels and the border colour; without a sampler operand the
/// texture's own settings apply.
#[test]
fn independent_sampler_from_its_initialiser() {
    let decls = ".global .texref t1;\n\
                 .global .samplerref sb = { addr_mode_0 = clamp_to_border, filter_mode = nearest };\n\
                 .global .samplerref sl = { filter_mode = linear, addr_mode_0 = clamp_to_edge };";
    let body = format!(
        "{}\n{}\n{}\n{}\n\
         txq.addr_mode_0.b32 %r1, [sb]; st.global.u32 [%rd1+16], %r1;\n\
         txq.filter_mode.b32 %r1, [sl]; st.global.u32 [%rd1+20], %r1;\n\
         txq.addr_mode_1.b32 %r1, [sb]; st.global.u32 [%rd1+24], %r1;\n\
         txq.force_unnormalized_coords.b32 %r1, [sb]; st.global.u32 [%rd1+28], %r1;",
        fetch("t1, sb", 5.5, 0),
        fetch("t1", 5.5, 1),
        fetch("t1, sl", 2.0, 2),
        fetch("t1, sb", 1.5, 3),
    );
    let (w, _) = run(
        true,
        decls,
        &body,
        texels(),
        vec![("t1", tex("buf=1,type=f32,ch=1,dims=4,border=7/7/7/7"))],
    )
    .unwrap();
    assert_eq!(f32::from_bits(w[0]), 7.0, "the sampler's clamp_to_border");
    assert_eq!(f32::from_bits(w[1]), 40.0, "the texture's clamp");
    assert_eq!(f32::from_bits(w[2]), 25.0, "the sampler's linear filter");
    assert_eq!(f32::from_bits(w[3]), 20.0);
    assert_eq!(&w[4..8], &[4, 1, 0, 0], "txq of the samplers");
}

/// `clamp_ogl` (OpenGL's `GL_CLAMP`): nearest filtering reads the edge texel; linear filtering
/// clamps the coordinate to the texture and blends the border colour in at the edges.
#[test]
fn independent_clamp_ogl() {
    let decls = ".global .texref t1;\n\
                 .global .samplerref sn = { addr_mode_0 = clamp_ogl, filter_mode = nearest };\n\
                 .global .samplerref sl = { addr_mode_0 = clamp_ogl, filter_mode = linear };";
    let body = format!(
        "{}\n{}\n{}\n{}\n{}\n{}\ntxq.addr_mode_0.b32 %r1, [sl]; st.global.u32 [%rd1+24], %r1;",
        fetch("t1, sn", 9.0, 0),
        fetch("t1, sl", -3.0, 1),
        fetch("t1, sl", 0.25, 2),
        fetch("t1, sl", 4.0, 3),
        fetch("t1, sl", 9.0, 4),
        fetch("t1, sl", 2.0, 5),
    );
    let (w, _) = run(
        true,
        decls,
        &body,
        texels(),
        vec![("t1", tex("buf=1,type=f32,ch=1,dims=4,border=100/0/0/0"))],
    )
    .unwrap();
    let f: Vec<f32> = w[..6].iter().map(|&b| f32::from_bits(b)).collect();
    assert_eq!(f[0], 40.0, "nearest reads the edge texel");
    // Clamped to 0: half the border texel at -1, half texel 0.
    assert_eq!(f[1], 55.0);
    // 0.25: the footprint's lower texel (-1, the border) weighs 1/4.
    assert_eq!(f[2], 0.25 * 100.0 + 0.75 * 10.0);
    // Clamped to 4: half texel 3, half the border.
    assert_eq!(f[3], 70.0);
    assert_eq!(f[4], 70.0);
    assert_eq!(f[5], 25.0, "inside, an ordinary linear fetch");
    assert_eq!(w[6], 2, "txq gives clamp_ogl's position in the enumeration");
}

/// A `.samplerref` without an initialiser reads as zero: `nearest`, `wrap` (clamp with
/// unnormalized coordinates), the texture's coordinate mode; `force_unnormalized_coords = 1`
/// overrides a normalized texture.
#[test]
fn independent_sampler_defaults_and_forced_unnormalized() {
    let decls = ".global .texref t1;\n.global .samplerref s0;\n\
                 .global .samplerref su = { force_unnormalized_coords = 1 };";
    let body = format!(
        "{}\n{}\n{}\n\
         txq.addr_mode_2.b32 %r1, [s0]; st.global.u32 [%rd1+12], %r1;\n\
         txq.filter_mode.b32 %r1, [s0]; st.global.u32 [%rd1+16], %r1;",
        fetch("t1, s0", 1.25, 0),
        fetch("t1, su", 1.5, 1),
        fetch("t1", 1.5, 2),
    );
    let (w, _) = run(
        true,
        decls,
        &body,
        texels(),
        vec![(
            "t1",
            tex("buf=1,type=f32,ch=1,dims=4,coords=normalized,addr=clamp"),
        )],
    )
    .unwrap();
    // 1.25 * 4 = texel 5, wrapped to 1.
    assert_eq!(f32::from_bits(w[0]), 20.0, "wrap by default");
    assert_eq!(f32::from_bits(w[1]), 20.0, "forced unnormalized: texel 1");
    // The texture alone: normalized 1.5 * 4 = 6, clamped to texel 3.
    assert_eq!(f32::from_bits(w[2]), 40.0);
    assert_eq!(&w[3..5], &[0, 0]);
    // Without a sampler the unnormalized default makes wrap a clamp.
    let (w, _) = run(
        true,
        decls,
        &fetch("t1, s0", 6.5, 0),
        texels(),
        vec![("t1", tex("buf=1,type=f32,ch=1,dims=4"))],
    )
    .unwrap();
    assert_eq!(f32::from_bits(w[0]), 40.0);
}

/// A bound `.surfref` stores into and loads from its buffer; `suq` answers its size.
#[test]
fn surfref_load_store_and_query() {
    let body = "mov.u32 %r1, 4; mov.u32 %r2, 99;\n\
                sust.b.1d.b32.trap [sr, {%r1}], %r2;\n\
                mov.u32 %r4, 0; suld.b.1d.b32.trap %r3, [sr, {%r4}];\n\
                st.global.u32 [%rd1], %r3;\n\
                suld.b.1d.b32.trap %r3, [sr, {%r1}]; st.global.u32 [%rd1+4], %r3;\n\
                suq.width.b32 %r5, [sr]; st.global.u32 [%rd1+8], %r5;\n\
                mov.u64 %rd2, sr; istypep.surfref %p1, %rd2; selp.u32 %r1, 1, 0, %p1;\n\
                st.global.u32 [%rd1+12], %r1;";
    let texels: Vec<u8> = [5u32, 6, 7, 8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (w, t) = run(
        false,
        ".global .surfref sr;",
        body,
        texels,
        vec![("sr", surf("buf=1,type=u32,ch=1,dims=4"))],
    )
    .unwrap();
    assert_eq!(&w[..4], &[5, 99, 4, 1]);
    assert_eq!(u32::from_le_bytes(t[4..8].try_into().unwrap()), 99);
}

/// An instruction on an unbound reference is undefined behaviour naming the variable; bad
/// bindings fail the launch.
#[test]
fn unbound_references_and_bad_bindings() {
    let decls = ".global .texref t1;\n.global .surfref sr;\n.global .samplerref s0;";
    let e = run(false, decls, &fetch("t1", 0.0, 0), texels(), vec![]).unwrap_err();
    assert!(e.contains("`t1` is not bound"), "{e}");
    let e = run(
        false,
        decls,
        "mov.u32 %r1, 0; suld.b.1d.b32.trap %r3, [sr, {%r1}];",
        texels(),
        vec![],
    )
    .unwrap_err();
    assert!(e.contains("`sr` is not bound"), "{e}");
    let e = run(false, decls, "txq.width.b32 %r1, [s0];", texels(), vec![]).unwrap_err();
    assert!(e.contains("`s0`, a `.samplerref`"), "{e}");
    let t = || tex("buf=1,type=f32,ch=1,dims=4");
    for (name, obj, want) in [
        ("nope", t(), "no .global .texref or .surfref `nope`"),
        ("sr", t(), "`sr` is a .surfref"),
        ("s0", t(), "described by its initialiser"),
        (
            "t1",
            surf("buf=1,type=f32,ch=1,dims=4"),
            "`t1` is a .texref",
        ),
        ("t1", tex("buf=0,type=f32,ch=1,dims=64"), "needs 256 bytes"),
        ("t1", Arg::u32(1), "only texture and surface objects"),
    ] {
        let e = run(false, decls, "", texels(), vec![(name, obj)]).unwrap_err();
        assert!(e.contains(want), "{name}: {e}");
    }
    let e = run(false, decls, "", texels(), vec![("t1", t()), ("t1", t())]).unwrap_err();
    assert!(e.contains("bound twice"), "{e}");
}
