//! Initialisers of the opaque types `.texref`, `.samplerref` and `.surfref` (PTX ISA 5.3,
//! Tables 10 and 11): read into typed member lists, printed back on one line, and rejected
//! with a located diagnostic when a member or value is wrong.

use ptx_ir_core::{AddressMode, FilterMode, Init, Item, OpaqueField, OpaqueMember, OpaqueValue};

const HEAD: &str = ".version 8.0\n.target sm_90, texmode_independent\n.address_size 64\n";

fn module(decls: &str) -> String {
    format!("{HEAD}{decls}\n")
}

/// The ISA's example and one of each member kind read as typed fields, print as a fixpoint and
/// read back to the same module.
#[test]
fn opaque_initialisers_round_trip() {
    let src = module(
        ".global .texref tex1;\n\
         .global .samplerref tsamp1 = { addr_mode_0 = clamp_to_border,\n\
                                        filter_mode = nearest\n\
                                      };\n\
         .global .samplerref s2 = { force_unnormalized_coords = 1, addr_mode_2 = clamp_ogl, \
         addr_mode_1 = mirror, filter_mode = linear };\n\
         .global .texref t2 = { width = 0x10, height = 8, depth = 1, channel_data_type = 4318, \
         channel_order = 4277, normalized_coords = 0, filter_mode = linear, addr_mode_0 = wrap, \
         array_size = 2, num_mipmap_levels = 0, num_samples = 0 };\n\
         .global .surfref sf = { width = 4, memory_layout = 1, array_size = 3 };",
    );
    let m = ptx_ir_text::parse(&src).unwrap();
    let inits: Vec<Option<Init>> = m
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Variable(v) => Some(v.names[0].init.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(inits[0], None);
    assert_eq!(
        inits[1],
        Some(Init::Opaque(vec![
            OpaqueField {
                member: OpaqueMember::AddrMode0,
                value: OpaqueValue::Address(AddressMode::ClampToBorder),
            },
            OpaqueField {
                member: OpaqueMember::FilterMode,
                value: OpaqueValue::Filter(FilterMode::Nearest),
            },
        ]))
    );
    match &inits[3] {
        Some(Init::Opaque(f)) => {
            assert_eq!(f.len(), 11);
            assert_eq!(f[0].value, OpaqueValue::Int(16));
        }
        other => panic!("{other:?}"),
    }
    let printed = ptx_ir_text::print(&m);
    assert!(
        printed.contains(
            ".global .samplerref tsamp1 = { addr_mode_0 = clamp_to_border, filter_mode = nearest };"
        ),
        "{printed}"
    );
    let again = ptx_ir_text::parse(&printed).unwrap();
    assert_eq!(again, m);
    assert_eq!(ptx_ir_text::print(&again), printed);
}

/// Each wrong member or value is an error at its own line and column.
#[test]
fn bad_opaque_initialisers_are_located() {
    let cases = [
        (
            ".global .samplerref s = { width = 4 };",
            27,
            "has no member `width`",
        ),
        (
            ".global .texref t = { memory_layout = 1 };",
            23,
            "has no member `memory_layout`",
        ),
        (
            ".global .surfref s = { filter_mode = linear };",
            24,
            "has no member `filter_mode`",
        ),
        (
            ".global .samplerref s = { sharpness = 1 };",
            27,
            "unknown member `sharpness`",
        ),
        (
            ".global .samplerref s = { filter_mode = bilinear };",
            41,
            "`nearest` or `linear`",
        ),
        (
            ".global .samplerref s = { addr_mode_1 = clamp };",
            41,
            "`clamp_to_edge`",
        ),
        (
            ".global .texref t = { normalized_coords = 2 };",
            43,
            "is 0 or 1",
        ),
        (
            ".global .texref t = { width = -1 };",
            31,
            "unsigned integer",
        ),
        (
            ".global .texref t = { width = 1, width = 2 };",
            34,
            "assigned twice",
        ),
        (".global .texref t = { width 1 };", 29, "expected `=`"),
        (
            ".global .texref t = { width = 1 height = 2 };",
            33,
            "expected `,` or `}`",
        ),
        (
            ".global .texref t = { };",
            23,
            "expected a member of `.texref`",
        ),
        (".global .texref t = 5;", 21, "member list"),
    ];
    for (decl, col, want) in cases {
        let src = module(decl);
        let e = ptx_ir_text::parse(&src).unwrap_err().to_string();
        assert!(e.contains(&format!("4:{col}")), "{decl}: {e}");
        assert!(e.contains(want), "{decl}: {e}");
    }
}
