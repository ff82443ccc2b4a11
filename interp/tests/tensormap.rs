//! `tensormap.replace` and `tensormap.cp_fenceproxy`: fields rewritten in the interpreter's
//! tensor-map encoding, and what is reported instead of computing. Copies through rewritten maps
//! are checked against the GPU by `corpus/vectors/tmreplace.jsonl` (`tests/vectors.rs`).

use ptx_ir_interp::tmap::{self, Field, TensorMapArg};
use ptx_ir_interp::{Arg, Program};

fn map_bytes() -> Vec<u8> {
    let mut t = TensorMapArg::parse("buf=1,type=u32,dims=40x6,box=8x4,strides=160").unwrap();
    t.map.addr = 0x1000;
    t.map.encode().to_vec()
}

#[test]
fn fields_land_where_a_copy_reads_them() {
    let mut b = map_bytes();
    tmap::replace(&mut b, Field::BoxDim, 1, 2).unwrap();
    tmap::replace(&mut b, Field::GlobalStride, 0, 320).unwrap();
    tmap::replace(&mut b, Field::GlobalAddress, 0, 0x2000).unwrap();
    // Table 33 numbers f32 7 and f64 9 (CUtensorMapDataType has f64 8).
    tmap::replace(&mut b, Field::Elemtype, 0, 9).unwrap();
    tmap::replace(&mut b, Field::Elemtype, 0, 7).unwrap();
    tmap::replace(&mut b, Field::FillMode, 0, 1).unwrap();
    let m = tmap::TensorMap::decode(&b).unwrap();
    assert_eq!((m.boxdim[1], m.strides[0], m.addr), (2, 320, 0x2000));
    assert_eq!(m.elem, tmap::ElemType::F32);
    assert!(m.nan_fill);
    // The rank field holds the rank less one.
    tmap::replace(&mut b, Field::Rank, 0, 0).unwrap();
    assert_eq!(tmap::TensorMap::decode(&b).unwrap().rank, 1);
}

/// Table 33's sub-byte types (13..15), the 96-byte swizzle (4) and the atomicities land in the
/// map; the rules of PTX ISA 9.7.9.25.5.1 and Table 14 apply when the map is read.
#[test]
fn sub_byte_types_and_swizzle_fields() {
    use tmap::{Atom, ElemType, TensorMap};
    // u8 rows of 256, a box of 128 x 2, 128-byte strides: a map .b4x16_p64 suits as well.
    let mut t = TensorMapArg::parse("buf=1,type=u8,dims=256x4,box=128x2,strides=128").unwrap();
    t.map.addr = 0x1000;
    let mut b = t.map.encode().to_vec();
    tmap::replace(&mut b, Field::Elemtype, 0, 14).unwrap();
    tmap::replace(&mut b, Field::SwizzleMode, 0, 3).unwrap();
    tmap::replace(&mut b, Field::SwizzleAtomicity, 0, 1).unwrap();
    let m = TensorMap::decode(&b).unwrap();
    assert_eq!(
        (m.elem, m.swizzle, m.atom),
        (ElemType::B4x16P64, 128, Atom::B32)
    );
    assert_eq!(TensorMap::decode(&m.encode()).unwrap(), m);
    // 15 is .b6x16_p32 (loads) and .b6p2x16 (stores) alike; 13 .b4x16.
    tmap::replace(&mut b, Field::Elemtype, 0, 15).unwrap();
    assert_eq!(TensorMap::decode(&b).unwrap().elem, ElemType::B6x16P32);
    // The padded types take no 8-byte flip.
    tmap::replace(&mut b, Field::SwizzleAtomicity, 0, 2).unwrap();
    let e = TensorMap::decode(&b).unwrap_err().to_string();
    assert!(e.contains("8-byte flip"), "{e}");
    tmap::replace(&mut b, Field::Elemtype, 0, 13).unwrap();
    assert_eq!(TensorMap::decode(&b).unwrap().atom, Atom::B32Flip8);
    // The 96-byte swizzle: 16-byte atoms (Table 14) and rows of at most 96 bytes.
    tmap::replace(&mut b, Field::SwizzleMode, 0, 4).unwrap();
    let e = TensorMap::decode(&b).unwrap_err().to_string();
    assert!(e.contains("Table 14"), "{e}");
    tmap::replace(&mut b, Field::SwizzleAtomicity, 0, 0).unwrap();
    tmap::replace(&mut b, Field::Elemtype, 0, 0).unwrap();
    let e = TensorMap::decode(&b).unwrap_err().to_string();
    assert!(e.contains("exceeds the 96-byte"), "{e}");
    tmap::replace(&mut b, Field::BoxDim, 0, 96).unwrap();
    let m = TensorMap::decode(&b).unwrap();
    assert_eq!((m.elem, m.swizzle, m.boxdim[0]), (ElemType::U8, 96, 96));
}

#[test]
fn invalid_values_are_refused() {
    let mut b = map_bytes();
    for (f, ord, v, want) in [
        (Field::Rank, 0, 5, "rank field 5"),
        (Field::BoxDim, 5, 1, "ordinal 5"),
        (Field::GlobalStride, 4, 16, "ordinal 4"),
        (Field::Elemtype, 0, 16, "element type 16"),
        (Field::SwizzleMode, 0, 5, "swizzle mode 5"),
        (Field::SwizzleAtomicity, 0, 4, "swizzle atomicity 4"),
        (Field::FillMode, 0, 2, "fill mode 2"),
    ] {
        let e = tmap::replace(&mut b, f, ord, v).unwrap_err();
        assert!(e.contains(want), "{f:?}: {e}");
    }
    let e = tmap::replace(&mut [0u8; 128], Field::Rank, 0, 1).unwrap_err();
    assert!(e.contains("not a tensor map"), "{e}");
}

/// Runs `body` in one warp with `%rd1` = a 128-byte global scratch buffer.
fn run(body: &str) -> Result<(), String> {
    let src = format!(
        ".version 8.7\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 p) {{\n\
         .reg .b32 %r<8>; .reg .b64 %rd<8>;\n.shared .align 128 .b8 sm[128];\n\
         ld.param.u64 %rd1, [p]; mov.u32 %r1, sm;\n{body}\nret; }}\n"
    );
    let m = ptx_ir_text::parse(&src).map_err(|e| e.to_string())?;
    let p = Program::load(&m).map_err(|e| e.to_string())?;
    p.launch("k")
        .block([32, 1, 1])
        .args(vec![Arg::Buffer(vec![0; 128])])
        .run()
        .map(|_| ())
        .map_err(|f| f.error.to_string())
}

#[test]
fn misuse_is_reported() {
    // Zero bytes are no tensor map.
    let e = run("tensormap.replace.tile.box_dim.global.b1024.b32 [%rd1], 0, 4;").unwrap_err();
    assert!(
        e.contains("undefined") && e.contains("not a tensor map"),
        "{e}"
    );
    // The copy moves 128 bytes; it runs on a whole warp.
    run("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128;")
        .unwrap();
}
