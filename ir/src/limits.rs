//! How deep the recursive parts of a module may nest: one set of bounds for the reader (which
//! refuses deeper text), the bytecode encoder and decoder (which refuse deeper modules) and the
//! verifier, so that every module the reader accepts encodes, decodes and prints, and every
//! module the decoder accepts reads back from its text.
//!
//! Each bound counts levels of the IR tree, not of the text: a flat sum `1+1+...+1` of `n` terms
//! is a left-deep [`Expr::Binary`] chain `n - 1` levels deep. Every consumer that walks these
//! trees recursively (printing, the derived `Clone`, `PartialEq`, `Hash`, `Debug` and serde
//! impls, the interpreter's initialiser evaluation) stays well inside a 2 MiB thread stack in a
//! debug build at these depths (`tests/limits.rs` runs them all there).

use crate::operand::{Expr, Operand};

/// The deepest constant expression: operator levels (`-x`, `(x)`, `a+b`) on the longest path
/// from the root to a literal or name, which has depth 0; a flat sum of 257 terms is 256 levels.
///
/// ptxas 13.0 accepts 1,000 nested parentheses (and flat sums of 100,000 terms) and refuses
/// 10,000. The bound is lower because the reader's recursive descent takes about 6 KiB of stack
/// per level in a debug build and the serde decoder about 4 KiB: 384 levels overflow a 2 MiB
/// stack there (1,024 take about 7 MiB). Real PTX nests 2 or 3 levels.
pub const MAX_EXPR_DEPTH: u32 = 256;

/// The deepest nesting of `{ }` in an initialiser (`{{1, 2}, {3, 4}}` is two levels). Arrays
/// have far fewer dimensions.
pub const MAX_INIT_DEPTH: u32 = 64;

/// The deepest nesting of operands: levels of vectors, tuples, argument lists, pairs (`a|b`)
/// and negations (`-a`) around the innermost operand. Real instructions use two or three.
pub const MAX_OPERAND_DEPTH: u32 = 16;

/// The deepest nesting of `{ }` scopes inside a function body (the body itself is level 0).
pub const MAX_SCOPE_DEPTH: u32 = 64;

/// The depth of `e` in the sense of [`MAX_EXPR_DEPTH`]: operator levels above its deepest leaf.
/// Stops counting past `limit` (so it costs at most `limit` levels of work per path) and
/// returns `limit + 1` then. Iterative: `e` may be arbitrarily deep.
pub fn expr_depth(e: &Expr, limit: u32) -> u32 {
    let mut deepest = 0;
    let mut stack: Vec<(&Expr, u32)> = vec![(e, 0)];
    while let Some((e, d)) = stack.pop() {
        deepest = deepest.max(d);
        if d > limit {
            return limit + 1;
        }
        match e {
            Expr::Unary(_, x) | Expr::Paren(x) => stack.push((x, d + 1)),
            Expr::Binary(_, a, b) => {
                stack.push((b, d + 1));
                stack.push((a, d + 1));
            }
            Expr::Int(_)
            | Expr::Uint(_)
            | Expr::F32(_)
            | Expr::F64(_)
            | Expr::Dec(_)
            | Expr::Sym(_)
            | Expr::Generic(_) => {}
        }
    }
    deepest
}

/// The depth of `o` in the sense of [`MAX_OPERAND_DEPTH`]: levels of lists, pairs and
/// negations above its innermost operand (a register is 0, `{a, b}` 1, `{a, b}|p` 2). Stops
/// counting past `limit` and returns `limit + 1` then. Iterative.
pub fn operand_depth(o: &Operand, limit: u32) -> u32 {
    let mut deepest = 0;
    let mut stack: Vec<(&Operand, u32)> = vec![(o, 0)];
    while let Some((o, d)) = stack.pop() {
        if d > limit {
            return limit + 1;
        }
        match o {
            Operand::Vector(v) | Operand::Tuple(v) | Operand::Args(v) => {
                deepest = deepest.max(d + 1);
                stack.extend(v.iter().map(|x| (x, d + 1)));
            }
            Operand::Pair(p) => {
                deepest = deepest.max(d + 1);
                stack.extend(p.iter().map(|x| (x, d + 1)));
            }
            Operand::Neg(x) => {
                deepest = deepest.max(d + 1);
                stack.push((x, d + 1));
            }
            Operand::Reg { .. }
            | Operand::Special { .. }
            | Operand::Int(_)
            | Operand::Uint(_)
            | Operand::F32(_)
            | Operand::F64(_)
            | Operand::Dec(_)
            | Operand::Sym { .. }
            | Operand::Addr { .. }
            | Operand::Not(_)
            | Operand::Sink => {}
        }
    }
    deepest.min(limit + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operand::{BinaryOp, UnaryOp};

    fn chain(n: u32) -> Expr {
        let mut e = Expr::Int(1);
        for _ in 0..n {
            e = Expr::Binary(BinaryOp::Add, Box::new(e), Box::new(Expr::Int(1)));
        }
        e
    }

    #[test]
    fn depths_count_operator_levels() {
        assert_eq!(expr_depth(&Expr::Int(1), 10), 0);
        assert_eq!(expr_depth(&chain(5), 10), 5);
        let neg = Expr::Unary(UnaryOp::Neg, Box::new(Expr::Paren(Box::new(chain(3)))));
        assert_eq!(expr_depth(&neg, 10), 5);
        assert_eq!(expr_depth(&chain(50), 10), 11);
        assert_eq!(operand_depth(&Operand::Sink, 4), 0);
        let v = Operand::vector([Operand::Sink, Operand::Neg(Box::new(Operand::Sink))]);
        assert_eq!(operand_depth(&v, 4), 2);
        let pair = Operand::Pair(Box::new([v, Operand::Sink]));
        assert_eq!(operand_depth(&pair, 4), 3);
        assert_eq!(operand_depth(&pair, 1), 2);
    }

    #[test]
    fn dropping_a_deep_expression_does_not_recurse() {
        // Far deeper than any stack holds with a recursive drop.
        let e = chain(1_000_000);
        assert_eq!(expr_depth(&e, u32::MAX - 1), 1_000_000);
        drop(e);
        let mut e = Expr::Int(0);
        for _ in 0..1_000_000 {
            e = Expr::Unary(UnaryOp::Neg, Box::new(Expr::Paren(Box::new(e))));
        }
        drop(e);
    }
}
