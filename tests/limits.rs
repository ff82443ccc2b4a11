//! The nesting bounds of `ptx_ir_core::limits`: the reader refuses deeper text with a located
//! error, and every recursive consumer of the deepest module it accepts (printer, derived
//! `Clone`/`PartialEq`/`Hash`/`Debug`, encoder, decoder, validation, verifier, interpreter)
//! runs on a 2 MiB thread stack (the default for spawned threads), in debug builds too.

use ptx_ir::binary;
use ptx_ir_core::limits::{MAX_EXPR_DEPTH, MAX_INIT_DEPTH, MAX_OPERAND_DEPTH, MAX_SCOPE_DEPTH};
use std::hash::{Hash, Hasher};

const HEADER: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

/// `1+1+...+1` with `ops` operators: a left-deep tree `ops` levels deep.
fn chain(ops: usize) -> String {
    let mut s = "1".to_string();
    s.push_str(&"+1".repeat(ops));
    s
}

/// `((...(1)...))`, `n` levels.
fn parens(n: usize) -> String {
    format!("{}1{}", "(".repeat(n), ")".repeat(n))
}

/// `- -...- 1`, `n` levels (spaced: `-1` is a literal, `--1` too deep for nothing).
fn negs(n: usize) -> String {
    format!("{}1", "- ".repeat(n))
}

/// A module with expressions as deep as allowed, as scalars the interpreter evaluates.
fn scalars() -> String {
    let d = MAX_EXPR_DEPTH as usize;
    format!(
        "{HEADER}.global .u32 a = {};\n.global .u32 b = {};\n.global .u32 c = {};\n\
         .global .u32 e = {}+1;\n.entry k()\n{{\n\tret;\n}}\n",
        chain(d),
        parens(d),
        negs(d),
        parens(d - 1),
    )
}

/// A module with everything nested as deep as allowed: expressions inside initialiser lists,
/// in section data, scopes, operands.
fn deepest() -> String {
    let d = MAX_EXPR_DEPTH as usize;
    let lists = MAX_INIT_DEPTH as usize;
    let init = format!("{}{}{}", "{".repeat(lists), parens(d), "}".repeat(lists));
    let scopes = MAX_SCOPE_DEPTH as usize;
    let blocks = format!("{}ret;\n{}", "{\n".repeat(scopes), "}\n".repeat(scopes));
    // `{{...{%r1}...}}` as the vector operand of a `mov`: nonsense for the verifier, but read.
    let ops = MAX_OPERAND_DEPTH as usize;
    let operand = format!("{}%r1{}", "{".repeat(ops), "}".repeat(ops));
    format!(
        "{HEADER}.global .u32 x[1] = {init};\n.global .u32 y = {};\n\
         .section .debug_x\n{{\n\t.b32 {}\n}}\n\
         .entry k()\n{{\n.reg .b32 %r<2>;\n\tmov.b32 %r1, {operand};\n{blocks}}}\n",
        chain(d),
        chain(d),
    )
}

/// Runs `f` on a fresh thread with a 2 MiB stack.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawns")
        .join()
        .expect("no stack overflow or panic");
}

fn every_consumer(text: String, interp: bool) {
    let m = ptx_ir::text::parse(&text).unwrap_or_else(|e| panic!("parses: {e}"));
    let printed = ptx_ir::text::print(&m);
    assert_eq!(ptx_ir::text::parse(&printed).expect("reads back"), m);
    let c = m.clone();
    assert_eq!(c, m);
    // `Module` is not `Hash`; its expressions are.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for_each_expr(&m, &mut |e| e.hash(&mut h));
    let _ = h.finish();
    assert!(format!("{m:?}").len() > MAX_EXPR_DEPTH as usize);
    binary::validate(&m).expect("valid");
    let bytes = binary::encode(&m).expect("encodes");
    assert_eq!(binary::decode(&bytes).expect("decodes"), m);
    let _ = ptx_ir_core::verify::verify(&m);
    if interp {
        ptx_ir_interp::Program::load(&m).expect("loads");
    }
    drop(c);
}

/// Calls `f` on every expression outside function bodies.
fn for_each_expr(m: &ptx_ir_core::Module, f: &mut impl FnMut(&ptx_ir_core::Expr)) {
    use ptx_ir_core::{Init, Item, SectionEntry};
    fn init(i: &Init, f: &mut impl FnMut(&ptx_ir_core::Expr)) {
        match i {
            Init::Expr(e) => f(e),
            Init::List(l) => l.iter().for_each(|i| init(i, f)),
            Init::Packed(_) | Init::Opaque(_) => {}
        }
    }
    for item in &m.items {
        match item {
            Item::Variable(d) => d
                .names
                .iter()
                .filter_map(|d| d.init.as_ref())
                .for_each(|i| init(i, f)),
            Item::Section(s) => {
                for e in &s.entries {
                    if let SectionEntry::Data { values, .. } = e {
                        values.iter().for_each(&mut *f);
                    }
                }
            }
            _ => {}
        }
    }
}

#[test]
fn the_deepest_readable_modules_go_through_every_consumer_on_a_small_stack() {
    on_small_stack(|| every_consumer(scalars(), true));
    on_small_stack(|| every_consumer(deepest(), false));
}

/// The message and place of a refusal, as `line:col: message`.
fn refusal(text: &str) -> String {
    let e = ptx_ir::text::parse(text).expect_err("refused");
    e.to_string()
}

#[test]
fn one_level_more_is_a_located_error() {
    let expr_msg = format!("expression nests deeper than {MAX_EXPR_DEPTH} levels");
    let d = MAX_EXPR_DEPTH as usize;
    for deep in [chain(d + 1), parens(d + 1), negs(d + 1), chain(100_000)] {
        let text = format!("{HEADER}.global .u32 a = {deep};\n");
        let e = refusal(&text);
        assert!(e.contains(&expr_msg), "{e}");
        // At the operator (or parenthesis) that goes one level too deep, on line 4.
        assert!(e.contains("4:"), "{e}");
    }
    // A flat chain is refused where its tree passes the bound: at its `MAX_EXPR_DEPTH + 1`th `+`.
    let e = refusal(&format!("{HEADER}.global .u32 a = {};\n", chain(d + 1)));
    let col = ".global .u32 a = ".len() + 1 + 2 * d + 1;
    assert!(e.contains(&format!("4:{col}")), "{e} (column {col})");

    let lists = MAX_INIT_DEPTH as usize + 1;
    let text = format!(
        "{HEADER}.global .u32 x[1] = {}1{};\n",
        "{".repeat(lists),
        "}".repeat(lists)
    );
    assert!(refusal(&text).contains("nested too deeply"));

    let ops = MAX_OPERAND_DEPTH as usize + 1;
    let text = format!(
        "{HEADER}.entry k()\n{{\n.reg .b32 %r<2>;\n\tmov.b32 %r1, {}%r1{};\n}}\n",
        "{".repeat(ops),
        "}".repeat(ops)
    );
    let e = refusal(&text);
    assert!(
        e.contains(&format!(
            "operand nests deeper than {MAX_OPERAND_DEPTH} levels"
        )),
        "{e}"
    );
    // Negations of operands nest too, and pairs count their first operand's levels.
    let text = format!(
        "{HEADER}.entry k()\n{{\n.reg .b32 %r<2>;\n\tmov.b32 %r1, {}%r1;\n}}\n",
        "- ".repeat(100_000)
    );
    assert!(refusal(&text).contains("operand nests deeper"));
    let inner = MAX_OPERAND_DEPTH as usize;
    let text = format!(
        "{HEADER}.entry k()\n{{\n.reg .b32 %r<2>;\n\tmov.b32 %r1, {}%r1{}|%r1;\n}}\n",
        "{".repeat(inner),
        "}".repeat(inner)
    );
    assert!(refusal(&text).contains("operand nests deeper"));

    let scopes = MAX_SCOPE_DEPTH as usize + 1;
    let text = format!(
        "{HEADER}.entry k()\n{{\n{}ret;\n{}}}\n",
        "{\n".repeat(scopes),
        "}\n".repeat(scopes)
    );
    assert!(refusal(&text).contains("scopes nested too deeply"));
}

/// A library user who builds a deep tree through the API can drop it, and the encoder refuses
/// it rather than writing a file the decoder would refuse.
#[test]
fn deep_trees_built_through_the_api() {
    use ptx_ir_core::{BinaryOp, Expr, Init, Item};
    let mut m = ptx_ir::text::parse(&format!("{HEADER}.global .u32 x = 1;\n")).unwrap();
    let mut e = Expr::Int(1);
    for _ in 0..(MAX_EXPR_DEPTH + 1) {
        e = Expr::Binary(BinaryOp::Add, Box::new(e), Box::new(Expr::Int(1)));
    }
    let Some(Item::Variable(d)) = m.items.last_mut() else {
        panic!("a variable")
    };
    d.names[0].init = Some(Init::Expr(e));
    let err = binary::encode(&m).expect_err("too deep to decode");
    assert!(
        err.to_string().contains("expressions nest deeper than"),
        "{err}"
    );
    drop(m);

    // A million levels: dropping does not recurse.
    on_small_stack(|| {
        let mut e = Expr::Int(1);
        for _ in 0..1_000_000 {
            e = Expr::Binary(BinaryOp::Add, Box::new(e), Box::new(Expr::Int(1)));
        }
        drop(e);
    });
}

/// The bytecode's default limits hold the bytecode of the largest text the reader takes by
/// default (`load::DEFAULT_MAX_INPUT`) at twice its size; real PTX encodes to 32-50% of its
/// text (binary/FORMAT.md).
#[test]
fn the_decoder_limits_hold_the_reader_s_largest_input() {
    let d = binary::DecodeLimits::DEFAULT;
    assert!(d.max_section as u64 + 1 >= 2 * ptx_ir::load::DEFAULT_MAX_INPUT);
    assert!(d.max_input as u64 >= 2 * ptx_ir::load::DEFAULT_MAX_INPUT);
}
