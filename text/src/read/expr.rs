//! Constant expressions of initialisers, sections and parenthesised operands.

use super::{fail, ws_inline, Reader};
use crate::error::PResult;
use crate::lex::{self, ident, ws, Number};
use ptx_ir_core::limits::MAX_EXPR_DEPTH;
use ptx_ir_core::{BinaryOp, Expr, UnaryOp};

/// The error for an expression past [`MAX_EXPR_DEPTH`], at `i`.
fn too_deep<T>(i: &[u8]) -> PResult<'_, T> {
    fail(
        i,
        format!("expression nests deeper than {MAX_EXPR_DEPTH} levels"),
    )
}

impl Reader<'_> {
    /// A constant expression. In sections, names may start with `.` (`.debug_abbrev`).
    pub(crate) fn expr<'a>(&mut self, i: &'a [u8], in_section: bool) -> PResult<'a, Expr> {
        let (r, (e, _)) = self.expr_bp(i, 0, in_section, 0)?;
        Ok((r, e))
    }

    /// An expression with operators of precedence `min_prec` or above, `depth` levels below
    /// the root, and its height (operator levels above its deepest leaf). `depth + height`
    /// is at most [`MAX_EXPR_DEPTH`]: the recursion is bounded by `depth`, and a flat chain
    /// `1+1+...`, which the loop builds into a left-deep tree without recursing, by its height.
    fn expr_bp<'a>(
        &mut self,
        i: &'a [u8],
        min_prec: u8,
        sec: bool,
        depth: u32,
    ) -> PResult<'a, (Expr, u32)> {
        let (mut r, (mut lhs, mut height)) = self.unary(i, sec, depth)?;
        loop {
            let (x, ()) = ws_inline(r);
            let Some((op, len)) = binop(x) else { break };
            if op.precedence() < min_prec {
                break;
            }
            // The operator's node is one level above both operands.
            if depth + height >= MAX_EXPR_DEPTH {
                return too_deep(x);
            }
            let (y, ()) = ws(&x[len..])?;
            let (y, (rhs, h)) = self.expr_bp(y, op.precedence() + 1, sec, depth + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
            height = height.max(h) + 1;
            r = y;
        }
        Ok((r, (lhs, height)))
    }

    fn unary<'a>(&mut self, i: &'a [u8], sec: bool, depth: u32) -> PResult<'a, (Expr, u32)> {
        match i.first() {
            Some(b'-') => {
                if let Some(lit) = negative_literal(i) {
                    return lit.map(|(r, e)| (r, (e, 0)));
                }
                if depth >= MAX_EXPR_DEPTH {
                    return too_deep(i);
                }
                let (r, ()) = ws(&i[1..])?;
                let (r, (e, h)) = self.unary(r, sec, depth + 1)?;
                Ok((r, (Expr::Unary(UnaryOp::Neg, Box::new(e)), h + 1)))
            }
            Some(&c @ (b'~' | b'!' | b'+')) => {
                if depth >= MAX_EXPR_DEPTH {
                    return too_deep(i);
                }
                let op = match c {
                    b'~' => UnaryOp::Not,
                    b'!' => UnaryOp::LogicalNot,
                    _ => UnaryOp::Plus,
                };
                let (r, ()) = ws(&i[1..])?;
                let (r, (e, h)) = self.unary(r, sec, depth + 1)?;
                Ok((r, (Expr::Unary(op, Box::new(e)), h + 1)))
            }
            Some(b'(') => {
                if depth >= MAX_EXPR_DEPTH {
                    return too_deep(i);
                }
                let (r, ()) = ws(&i[1..])?;
                let (r, (e, h)) = self.expr_bp(r, 0, sec, depth + 1)?;
                let (r, ()) = ws(r)?;
                let (r, ()) = lex::expect(r, b')', "expected `)`")?;
                Ok((r, (Expr::Paren(Box::new(e)), h + 1)))
            }
            Some(b) if b.is_ascii_digit() => {
                let (r, n) = lex::number(i)?;
                Ok((r, (number_expr(n), 0)))
            }
            Some(b'.') if sec => {
                let (r, w) = crate::lex::qual_word(&i[1..])?;
                // The name with its dot, as the text spells it.
                let n = self.name(i, &i[..=w.len()])?;
                Ok((r, (Expr::Sym(n), 0)))
            }
            Some(_) => {
                let Ok((r, w)) = ident(i) else {
                    return fail(i, "expected a constant expression");
                };
                if w == b"generic" {
                    let (x, ()) = ws_inline(r);
                    if x.first() == Some(&b'(') {
                        let (x, ()) = ws(&x[1..])?;
                        let (x, n) = self.ident_name(x)?;
                        let (x, ()) = ws(x)?;
                        let (x, ()) = lex::expect(x, b')', "expected `)` after `generic(name`")?;
                        return Ok((x, (Expr::Generic(n), 0)));
                    }
                }
                let n = self.name(i, w)?;
                Ok((r, (Expr::Sym(n), 0)))
            }
            None => fail(i, "expected a constant expression"),
        }
    }
}

fn binop(i: &[u8]) -> Option<(BinaryOp, usize)> {
    Some(match (i.first()?, i.get(1)) {
        (b'<', Some(b'<')) => (BinaryOp::Shl, 2),
        (b'>', Some(b'>')) => (BinaryOp::Shr, 2),
        (b'*', _) => (BinaryOp::Mul, 1),
        (b'/', Some(b'/' | b'*')) => return None,
        (b'/', _) => (BinaryOp::Div, 1),
        (b'%', _) => (BinaryOp::Rem, 1),
        (b'+', _) => (BinaryOp::Add, 1),
        (b'-', _) => (BinaryOp::Sub, 1),
        (b'&', Some(b'&')) => return None,
        (b'&', _) => (BinaryOp::And, 1),
        (b'^', _) => (BinaryOp::Xor, 1),
        (b'|', Some(b'|')) => return None,
        (b'|', _) => (BinaryOp::Or, 1),
        _ => return None,
    })
}

/// The expression for a literal.
pub(crate) fn number_expr(n: Number) -> Expr {
    match n {
        Number::Int(v) => Expr::Int(v),
        Number::Uint(v) => Expr::Uint(v),
        Number::F32(v) => Expr::F32(v),
        Number::F64(v) => Expr::F64(v),
        Number::Dec(v) => Expr::Dec(v),
    }
}

/// `-literal`, folded into the literal (sign bit flipped for floats).
/// At a `-`: the negative literal it starts when a digit follows directly (`-5`), else `None`.
/// `- 5`, which the printer writes for a negated literal, stays a negation, so that both read
/// back as they print.
pub(crate) fn negative_literal(i: &[u8]) -> Option<PResult<'_, Expr>> {
    if !i.get(1).is_some_and(|b| b.is_ascii_digit()) {
        return None;
    }
    let r = &i[1..];
    Some(lex::number(r).and_then(|(rest, n)| match negate(n) {
        Some(e) => Ok((rest, e)),
        None => fail(r, "literal out of range"),
    }))
}

pub(crate) fn negate(n: Number) -> Option<Expr> {
    Some(match n {
        Number::Int(v) => Expr::Int(v.checked_neg()?),
        Number::Uint(v) if v == 1 << 63 => Expr::Int(i64::MIN),
        Number::Uint(_) => return None,
        Number::F32(v) => Expr::F32(v ^ 0x8000_0000),
        Number::F64(v) => Expr::F64(v ^ (1 << 63)),
        Number::Dec(v) => Expr::Dec(v ^ (1 << 63)),
    })
}

/// Folds an expression without symbols to an integer (for address offsets and operands).
pub(crate) fn eval_int(e: &Expr) -> Option<i64> {
    Some(match e {
        Expr::Int(v) => *v,
        Expr::Uint(v) => *v as i64,
        Expr::Paren(e) => eval_int(e)?,
        Expr::Unary(op, e) => {
            let v = eval_int(e)?;
            match op {
                UnaryOp::Neg => v.wrapping_neg(),
                UnaryOp::Not => !v,
                UnaryOp::LogicalNot => (v == 0) as i64,
                UnaryOp::Plus => v,
            }
        }
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval_int(a)?, eval_int(b)?);
            match op {
                BinaryOp::Mul => a.wrapping_mul(b),
                BinaryOp::Div => a.checked_div(b)?,
                BinaryOp::Rem => a.checked_rem(b)?,
                BinaryOp::Add => a.wrapping_add(b),
                BinaryOp::Sub => a.wrapping_sub(b),
                BinaryOp::Shl => a.wrapping_shl(u32::try_from(b).ok()?),
                BinaryOp::Shr => a.wrapping_shr(u32::try_from(b).ok()?),
                BinaryOp::And => a & b,
                BinaryOp::Xor => a ^ b,
                BinaryOp::Or => a | b,
            }
        }
        _ => return None,
    })
}
