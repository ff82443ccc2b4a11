//! Opaque-variable initialisers (`Init::Opaque`) through the bytecode: what the encoder writes
//! the decoder reads, and a member list the reader would refuse is refused by the decoder too.

use ptx_ir_core::{Init, Item, OpaqueField, OpaqueMember, OpaqueValue};

const SRC: &str = ".version 8.0\n.target sm_90, texmode_independent\n.address_size 64\n\
    .global .texref t = { width = 16, normalized_coords = 1, filter_mode = linear };\n\
    .global .samplerref s = { addr_mode_0 = clamp_to_border, filter_mode = nearest, \
    force_unnormalized_coords = 1 };\n\
    .global .surfref f = { memory_layout = 1, array_size = 3 };\n\
    .global .samplerref d;\n";

#[test]
fn opaque_initialisers_survive_the_bytecode() {
    let m = ptx_ir_text::parse(SRC).unwrap();
    let bytes = ptx_ir_binary::encode(&m).unwrap();
    let back = ptx_ir_binary::decode(&bytes).unwrap();
    assert_eq!(back, m);
    assert_eq!(ptx_ir_text::print(&back), ptx_ir_text::print(&m));
}

#[test]
fn invalid_member_lists_are_refused() {
    let m = ptx_ir_text::parse(SRC).unwrap();
    let with = |f: &dyn Fn(&mut Vec<OpaqueField>)| {
        let mut m = m.clone();
        if let Item::Variable(v) = &mut m.items[1] {
            if let Some(Init::Opaque(fields)) = &mut v.names[0].init {
                f(fields);
            }
        }
        m
    };
    let bad = [
        // A member `.samplerref` does not have.
        with(&|f| f[0].member = OpaqueMember::Width),
        // Twice the same member.
        with(&|f| f[1].member = OpaqueMember::AddrMode0),
        // A flag other than 0 or 1, and a value of the wrong kind.
        with(&|f| f[2].value = OpaqueValue::Int(2)),
        with(&|f| f[1].value = OpaqueValue::Int(0)),
        // No members.
        with(&|f| f.clear()),
    ];
    for m in bad {
        // The encoder validates as the decoder does.
        assert!(ptx_ir_binary::encode(&m).is_err());
        let bytes = ptx_ir_binary::encode_unvalidated(&m, ptx_ir_binary::Codec::Stored).unwrap();
        assert!(ptx_ir_binary::decode(&bytes).is_err());
    }
    // An opaque type initialised by an expression, and a member list on a `.b32`.
    let mut m2 = m.clone();
    if let Item::Variable(v) = &mut m2.items[1] {
        v.names[0].init = Some(Init::Expr(ptx_ir_core::Expr::Int(1)));
    }
    assert!(ptx_ir_binary::encode(&m2).is_err());
    let mut m3 = m.clone();
    if let Item::Variable(v) = &mut m3.items[2] {
        v.ty = ptx_ir_core::Type::B64;
    }
    assert!(ptx_ir_binary::encode(&m3).is_err());
}
