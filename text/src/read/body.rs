//! Function bodies: statements, labels, scopes, declarations and debug directives.

use super::{directive, fail, ws_inline, Reader};
use crate::error::PResult;
use crate::lex::{self, expect, is_ident_char, ws};
use ptx_ir_core::{Body, InlinedAt, Loc, Name, Prototype, Statement};

/// Nesting bound for `{ }` scopes, shared with the bytecode.
use ptx_ir_core::limits::MAX_SCOPE_DEPTH as MAX_BLOCK_DEPTH;

impl Reader<'_> {
    /// A function body: statements up to and including the closing `}`.
    pub(crate) fn block<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Body> {
        self.take_spare();
        self.body.clear();
        let (r, ()) = self.block_at(i, 0)?;
        Ok((r, self.body.finish()))
    }

    /// Appends the statements of a scope, up to and including its `}`, to the body being built.
    fn block_at<'a>(&mut self, i: &'a [u8], depth: u32) -> PResult<'a, ()> {
        if depth > MAX_BLOCK_DEPTH {
            return fail(i, "scopes nested too deeply");
        }
        let mut r = i;
        loop {
            // A line break, or nvcc's line break and tab, before most statements.
            let x = match r {
                [b'\n', c, ..] if !lex::is_blank_or_slash(*c) => &r[1..],
                [b'\n', b'\t', c, ..] if !lex::is_blank_or_slash(*c) => &r[2..],
                _ => ws(r)?.0,
            };
            let Some(&c) = x.first() else {
                return fail(x, "unexpected end of input: missing `}`");
            };
            if c != b'}' {
                self.mark_statement(x);
            }
            let (y, s) = match c {
                b'}' => return Ok((&x[1..], ())),
                b'{' => {
                    let open = self.body.open_block();
                    let (y, ()) = self.block_at(&x[1..], depth + 1)?;
                    if let Err(e) = self.body.close_block(open) {
                        return fail(x, e.to_string());
                    }
                    r = y;
                    continue;
                }
                b'@' => {
                    r = self.guarded(x)?.0;
                    continue;
                }
                b'.' => match self.body_directive(x)? {
                    (y, Some(s)) => (y, s),
                    (y, None) => {
                        r = y;
                        continue;
                    }
                },
                // nvcc's and Triton's labels (`$L__BB0_2:`).
                b'$' => match self.label(x)? {
                    Some(found) => found,
                    None => {
                        r = self.instruction(x, None)?.0;
                        continue;
                    }
                },
                _ => match self.instruction(x, None) {
                    Ok((y, ())) => {
                        r = y;
                        continue;
                    }
                    // A label that is no instruction (`loop:`) is not read as one twice: an
                    // instruction never has a `:` after its word.
                    Err(e) => match self.label(x)? {
                        Some(found) => found,
                        None => return Err(e),
                    },
                },
            };
            if let Err(e) = self.body.push_statement(s) {
                return fail(x, e.to_string());
            }
            r = y;
        }
    }

    /// The label statement at `i`, if `i` starts with an identifier followed by `:` (not `::`).
    fn label<'a>(
        &mut self,
        i: &'a [u8],
    ) -> Result<Option<(&'a [u8], Statement)>, nom::Err<crate::error::PErr>> {
        // A label is an identifier: `%` only first, no digit first (`2L_loop:` and
        // `a%b:` are not labels; ptxas: syntax errors).
        let n = match i.first() {
            Some(&b) if crate::lex::is_ident_start(b) => {
                1 + i[1..]
                    .iter()
                    .position(|&b| !is_ident_char(b))
                    .unwrap_or(i.len() - 1)
            }
            _ => 0,
        };
        let (after, ()) = ws_inline(&i[n..]);
        if n > 0 && after.first() == Some(&b':') && after.get(1) != Some(&b':') {
            let name = self.name(i, &i[..n])?;
            return self.after_label(&after[1..], name).map(Some);
        }
        Ok(None)
    }

    /// A label, or a label naming a `.branchtargets`, `.calltargets` or `.callprototype`.
    fn after_label<'a>(&mut self, i: &'a [u8], label: Name) -> PResult<'a, Statement> {
        let (x, ()) = ws(i)?;
        let word =
            |w: &[u8]| x.starts_with(w) && !x.get(w.len()).is_some_and(|&b| is_ident_char(b));
        if word(b".branchtargets") || word(b".calltargets") {
            let branch = word(b".branchtargets");
            let (mut r, _) = directive(x)?;
            let mut targets = Vec::new();
            loop {
                let (y, ()) = ws(r)?;
                let (y, n) = self.ident_name(y)?;
                targets.push(n);
                let (y, ()) = ws(y)?;
                match y.first() {
                    Some(b',') => r = &y[1..],
                    Some(b';') => {
                        let s = if branch {
                            Statement::BranchTargets { label, targets }
                        } else {
                            Statement::CallTargets { label, targets }
                        };
                        return Ok((&y[1..], s));
                    }
                    _ => return fail(y, "expected `,` or `;` in the target list"),
                }
            }
        }
        if word(b".callprototype") {
            let (r, _) = directive(x)?;
            let (r, ()) = ws(r)?;
            let (r, returns) = if r.first() == Some(&b'(') {
                let (y, p) = self.params(r)?;
                (y, Some(p))
            } else {
                (r, None)
            };
            let (r, ()) = ws(r)?;
            let (r, ()) = expect(
                r,
                b'_',
                "expected `_` in place of the function name in `.callprototype`",
            )?;
            let (r, ()) = ws(r)?;
            let (r, params) = if r.first() == Some(&b'(') {
                let (y, p) = self.params(r)?;
                (y, Some(p))
            } else {
                (r, None)
            };
            let (r, directives) = self.func_directives(r)?;
            let (r, ()) = ws(r)?;
            let (r, ()) = expect(r, b';', "expected `;` after `.callprototype`")?;
            let proto = Box::new(Prototype {
                returns,
                params,
                directives,
            });
            return Ok((r, Statement::CallPrototype { label, proto }));
        }
        Ok((i, Statement::Label(label)))
    }

    /// A directive in a body: a declaration, appended to the body at once (`None`), or the
    /// statement of another directive.
    fn body_directive<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Option<Statement>> {
        let (r, d) = directive(i)?;
        match d {
            b"reg" | b"local" | b"shared" | b"param" | b"const" | b"global" | b"tex" | b"sreg" => {
                if let Some(r) = self.plain_decl(r, d)? {
                    return Ok((r, None));
                }
                let (r, v) = self.var_decl(i, None, false)?;
                self.body.push_decl(v);
                Ok((r, None))
            }
            b"loc" => self.loc(r).map(|(r, s)| (r, Some(s))),
            b"pragma" => {
                let (r, s) = self.pragma(r)?;
                Ok((r, Some(Statement::Pragma(s))))
            }
            b"branchtargets" | b"calltargets" | b"callprototype" => fail(
                i,
                "this directive must be preceded by a label (`name: .branchtargets ...`)",
            ),
            _ => fail(
                i,
                format!(
                    "unknown directive `.{}` in a function body",
                    String::from_utf8_lossy(d)
                ),
            ),
        }
    }

    fn loc<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Statement> {
        let (r, ()) = ws_inline(i);
        let (r, file) = lex::uint_u32(r)?;
        let (r, ()) = ws_inline(r);
        let (r, line) = lex::uint_u32(r)?;
        let (r, ()) = ws_inline(r);
        let (r, col) = lex::uint_u32(r)?;
        // Most `.loc`s end their line (LLVM's after a padded comment): read to the newline
        // once, rather than the padding here and again as the space before the next line.
        let plain = |rest| {
            Ok((
                rest,
                Statement::Loc(Loc {
                    file,
                    line,
                    col,
                    inlined: None,
                }),
            ))
        };
        if let Some(rest) = lex::line_end(r) {
            return plain(rest);
        }
        let (x, ()) = ws_inline(r);
        if x.first() != Some(&b',') {
            return plain(r);
        }
        let (x, ()) = ws_inline(&x[1..]);
        if !x.starts_with(b"function_name") {
            return fail(x, "expected `function_name` in `.loc`");
        }
        let (x, ()) = ws_inline(&x[13..]);
        let (x, function_name) = self.ident_name(x)?;
        let (x, ()) = ws_inline(x);
        let (x, offset) = if matches!(x.first(), Some(b'+' | b'-')) {
            let neg = x[0] == b'-';
            let (y, ()) = ws_inline(&x[1..]);
            let at = y;
            let (y, v) = lex::uint_u64(y)?;
            // `-9223372036854775808` is the one offset whose magnitude does not fit `i64`.
            let v = if neg {
                0i64.checked_sub_unsigned(v)
            } else {
                i64::try_from(v).ok()
            };
            match v {
                Some(v) => (y, v),
                None => return fail(at, "`.loc` label offset out of range"),
            }
        } else {
            (x, 0)
        };
        let (x, ()) = ws_inline(x);
        let (x, ()) = expect(x, b',', "expected `, inlined_at` in `.loc`")?;
        let (x, ()) = ws_inline(x);
        if !x.starts_with(b"inlined_at") {
            return fail(x, "expected `inlined_at` in `.loc`");
        }
        let (x, ()) = ws_inline(&x[10..]);
        let (x, f2) = lex::uint_u32(x)?;
        let (x, ()) = ws_inline(x);
        let (x, l2) = lex::uint_u32(x)?;
        let (x, ()) = ws_inline(x);
        let (x, c2) = lex::uint_u32(x)?;
        let inlined = Some(Box::new(InlinedAt {
            function_name,
            offset,
            file: f2,
            line: l2,
            col: c2,
        }));
        Ok((
            x,
            Statement::Loc(Loc {
                file,
                line,
                col,
                inlined,
            }),
        ))
    }
}
