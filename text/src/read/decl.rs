//! Declarations: variables, parameters, function headers and initialisers.

use super::{directive, fail, ws_inline, Reader};
use crate::error::{PErr, PResult};
use crate::lex::{self, expect, ws, Number};
use nom::Err;
use ptx_ir_core::opaque::ValueKind;
use ptx_ir_core::packed_element;
use ptx_ir_core::{
    AddressMode, Attribute, Declarator, FilterMode, FuncDirective, Function, FunctionKind, Init,
    Linkage, Modifier, OpaqueField, OpaqueMember, OpaqueValue, Param, PlainDecl, PlainShape,
    PtrAttr, Space, Type, VarDecl, Vector,
};
use smallvec::SmallVec;
use std::num::NonZeroU32;

/// A list of plain names `a, b, c;` from its first name up to and including the `;`, with
/// nothing but spaces and tabs around the commas: the rest and each name (where it starts, and
/// its spelling). `None` for anything else (ranges, dimensions, initialisers, comments, line
/// breaks), which the general reader then reads.
#[allow(clippy::type_complexity)]
fn plain_names(mut r: &[u8]) -> Option<(&[u8], SmallVec<[(&[u8], &[u8]); 4]>)> {
    let mut out = SmallVec::new();
    loop {
        let (x, w) = lex::ident(r).ok()?;
        out.push((r, w));
        let x = blanks(x);
        match x.first() {
            Some(b',') => r = blanks(&x[1..]),
            Some(b';') => return Some((&x[1..], out)),
            _ => return None,
        }
    }
}

/// `i` after its leading spaces and tabs.
fn blanks(i: &[u8]) -> &[u8] {
    let n = i.iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    &i[n..]
}

/// The value of at most nine decimal digits.
fn decimal(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0u32, |v, &d| v * 10 + u32::from(d - b'0'))
}

/// A declaration's vector width or type (`v2`, `b32`), the common ones without a hash lookup.
#[inline]
fn decl_word(w: &[u8]) -> Option<Modifier> {
    let t = match w {
        b"b32" => Type::B32,
        b"b64" => Type::B64,
        b"pred" => Type::Pred,
        b"b16" => Type::B16,
        b"f32" => Type::F32,
        b"f16" => Type::F16,
        b"b8" => Type::B8,
        b"f64" => Type::F64,
        b"u32" => Type::U32,
        b"u64" => Type::U64,
        _ => return Modifier::lookup(w),
    };
    Some(Modifier::Type(t))
}

/// The qualifiers of a declaration or parameter, before its name.
struct Quals {
    space: Space,
    attributes: Vec<Attribute>,
    align: Option<u32>,
    vector: Option<Vector>,
    ty: Type,
    ptr: Option<PtrAttr>,
}

impl Reader<'_> {
    /// Reads `.space .qual* name...;` starting at the state-space directive.
    pub(crate) fn var_decl<'a>(
        &mut self,
        i: &'a [u8],
        linkage: Option<Linkage>,
        _module: bool,
    ) -> PResult<'a, VarDecl> {
        let (r, q) = self.quals(i)?;
        if q.ptr.is_some() {
            return fail(i, "`.ptr` is only allowed on kernel parameters");
        }
        self.declarators(r, q, linkage)
    }

    /// The names of a declaration whose qualifiers `q` were read, up to and including its `;`.
    fn declarators<'a>(
        &mut self,
        r: &'a [u8],
        q: Quals,
        linkage: Option<Linkage>,
    ) -> PResult<'a, VarDecl> {
        // Most declarations name one variable, which the declaration holds inline.
        let mut names: SmallVec<[_; 2]> = SmallVec::new();
        let mut r = r;
        loop {
            let (x, ()) = ws(r)?;
            let (x, d) = self.declarator(x, q.ty, q.vector, true)?;
            names.push(d);
            let (x, ()) = ws(x)?;
            match x.first() {
                Some(b',') => r = &x[1..],
                Some(b';') => {
                    r = &x[1..];
                    break;
                }
                _ => return fail(x, "expected `,` or `;` after a declaration"),
            }
        }
        // Declarations stay in the IR: no growth slack.
        names.shrink_to_fit();
        let decl = VarDecl {
            linkage,
            space: q.space,
            attributes: q.attributes,
            align: q.align,
            vector: q.vector,
            ty: q.ty,
            names,
        };
        Ok((r, decl))
    }

    /// The common body declaration `.reg .b32 %r<9>;` (`.space [.align N] [.vN] .type
    /// name[<N>];`, or one array `name[N]`), read from after its space directive `space`
    /// straight into a body entry; other names after
    /// those qualifiers (`.reg .f16 low, high;`) are read as [`Self::var_decl`] reads them.
    /// `None` (having interned nothing) for other qualifiers, which [`Self::var_decl`] then
    /// reads from the start, giving what it would have given.
    pub(crate) fn plain_decl<'a>(
        &mut self,
        i: &'a [u8],
        space: &[u8],
    ) -> Result<Option<&'a [u8]>, Err<PErr>> {
        let space = match space {
            _ if super::general_only() => return Ok(None),
            b"reg" => Space::Reg,
            b"local" => Space::Local,
            b"shared" => Space::Shared,
            b"param" => Space::Param,
            _ => return Ok(None),
        };
        let qual = |r: &'a [u8]| -> Option<(&'a [u8], Modifier)> {
            let (x, ()) = ws(r).ok()?;
            let (x, w) = directive(x).ok()?;
            Some((x, decl_word(w)?))
        };
        // nvcc's `.local .align 8 .b8 __local_depot0[16];`
        let mut align = None;
        let mut i = i;
        if let Ok((x, ())) = ws(i) {
            if let Some(x) = x.strip_prefix(b".align ") {
                let n = x.iter().take_while(|b| b.is_ascii_digit()).count();
                if !(1..=9).contains(&n) || x[0] == b'0' {
                    return Ok(None);
                }
                let v = decimal(&x[..n]);
                if !v.is_power_of_two() {
                    return Ok(None);
                }
                align = Some(v);
                i = &x[n..];
            }
        }
        let Some((r, m)) = qual(i) else {
            return Ok(None);
        };
        let (r, vector, ty) = match m {
            Modifier::Type(t) => (r, None, t),
            Modifier::Vector(v) => match qual(r) {
                Some((r, Modifier::Type(t))) => (r, Some(v), t),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let Ok((r, ())) = ws(r) else {
            return Ok(None);
        };
        let Ok((mut x, w)) = lex::ident(r) else {
            return Ok(None);
        };
        let mut shape = PlainShape::One;
        // Plain decimal only (a leading `0` is octal, and a range of 0 is not plain).
        let digits = |x: &'a [u8], close: u8| {
            let n = x[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            ((1..=9).contains(&n) && x[1] != b'0' && x.get(n + 1) == Some(&close))
                .then(|| (decimal(&x[1..=n]), &x[n + 2..]))
        };
        match x.first() {
            Some(b'<') => {
                let Some((Some(n), y)) = digits(x, b'>').map(|(n, y)| (NonZeroU32::new(n), y))
                else {
                    return Ok(None);
                };
                shape = PlainShape::Range(n);
                x = y;
            }
            // nvcc's local depots and call parameters: `__local_depot0[16]`, `param0[8]`.
            Some(b'[') => {
                if let Some((len, y)) = digits(x, b']') {
                    shape = PlainShape::Array {
                        align_log2: align.map(|a: u32| a.trailing_zeros() as u8),
                        len,
                    };
                    x = y;
                }
            }
            _ => {}
        }
        let Ok((x, ())) = ws(x) else {
            return Ok(None);
        };
        if x.first() == Some(&b',') && shape == PlainShape::One && align.is_none() {
            // NCCL's `{.reg .f16 low,high; ...}` around each conversion: two names, kept in
            // the body entry.
            let b = blanks(&x[1..]);
            if let Ok((y, wb)) = lex::ident(b) {
                if let [b';', rest @ ..] = blanks(y) {
                    let name = self.name(r, w)?;
                    let second = self.name(b, wb)?;
                    self.body.push_plain_decl(PlainDecl {
                        space,
                        ty,
                        vector,
                        name,
                        shape: PlainShape::Pair(second),
                    });
                    return Ok(Some(rest));
                }
            }
            if let Some((x, spans)) = plain_names(r) {
                let mut names = SmallVec::new();
                for (at, w) in spans {
                    names.push(Declarator {
                        name: self.name(at, w)?,
                        range: None,
                        dims: SmallVec::new(),
                        init: None,
                    });
                }
                self.body.push_decl(VarDecl {
                    linkage: None,
                    space,
                    attributes: Vec::new(),
                    align: None,
                    vector,
                    ty,
                    names,
                });
                return Ok(Some(x));
            }
        }
        let aligned_array = matches!(shape, PlainShape::Array { .. });
        if x.first() != Some(&b';') || (align.is_some() && !aligned_array) {
            // Several names, dimensions, an initialiser: the same qualifiers, read generally.
            let q = Quals {
                space,
                attributes: Vec::new(),
                align,
                vector,
                ty,
                ptr: None,
            };
            let (x, d) = self.declarators(r, q, None)?;
            self.body.push_decl(d);
            return Ok(Some(x));
        }
        let name = self.name(r, w)?;
        self.body.push_plain_decl(PlainDecl {
            space,
            ty,
            vector,
            name,
            shape,
        });
        Ok(Some(&x[1..]))
    }

    fn quals<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Quals> {
        let at = i;
        let (mut r, d) = directive(i)?;
        let space = match d {
            b"param" => Some(Modifier::Space(Space::Param)),
            b"reg" => Some(Modifier::Space(Space::Reg)),
            _ => Modifier::lookup(d),
        };
        let space = match space {
            Some(Modifier::Space(s)) => s,
            _ => {
                return fail(
                    at,
                    "expected a state space (`.reg`, `.param`, `.global`, ...)",
                )
            }
        };
        let mut q = Quals {
            space,
            attributes: Vec::new(),
            align: None,
            vector: None,
            ty: Type::B8,
            ptr: None,
        };
        let mut ty = None;
        loop {
            let (x, ()) = ws(r)?;
            if x.first() != Some(&b'.') {
                r = x;
                break;
            }
            let at = x;
            let (x, d) = directive(x)?;
            r = x;
            match d {
                b"align" => {
                    let (x, ()) = ws(x)?;
                    let (x, n) = lex::uint_u32(x)?;
                    if n == 0 || !n.is_power_of_two() {
                        return fail(at, "alignment must be a power of two");
                    }
                    match &mut q.ptr {
                        Some(p) if p.align.is_none() => p.align = Some(n),
                        _ if q.align.is_none() => q.align = Some(n),
                        _ => return fail(at, "duplicate `.align`"),
                    }
                    r = x;
                }
                b"ptr" => {
                    if q.ptr.is_some() {
                        return fail(at, "duplicate `.ptr`");
                    }
                    q.ptr = Some(PtrAttr {
                        space: None,
                        align: None,
                    });
                }
                b"attribute" => {
                    let (x, a) = self.attributes(x)?;
                    q.attributes.extend(a);
                    r = x;
                }
                _ => match decl_word(d) {
                    Some(Modifier::Vector(v)) if q.vector.is_none() => q.vector = Some(v),
                    Some(Modifier::Type(t)) if ty.is_none() => ty = Some(t),
                    Some(Modifier::Space(s)) if matches!(&q.ptr, Some(p) if p.space.is_none()) => {
                        if let Some(p) = &mut q.ptr {
                            p.space = Some(s);
                        }
                    }
                    _ => {
                        return fail(
                            at,
                            format!(
                                "unexpected `.{}` in a declaration",
                                String::from_utf8_lossy(d)
                            ),
                        )
                    }
                },
            }
        }
        match ty {
            Some(t) => q.ty = t,
            None => return fail(r, "expected a type in the declaration"),
        }
        Ok((r, q))
    }

    /// `( .managed | .unified(a, b) ... )` after `.attribute`.
    fn attributes<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Vec<Attribute>> {
        let (r, ()) = ws(i)?;
        let (mut r, ()) = expect(r, b'(', "expected `(` after `.attribute`")?;
        let mut out = Vec::new();
        loop {
            let (x, ()) = ws(r)?;
            let at = x;
            let (x, d) = directive(x)?;
            match d {
                b"managed" => {
                    out.push(Attribute::Managed);
                    r = x;
                }
                b"unified" => {
                    let (x, ()) = ws(x)?;
                    let (x, ()) = expect(x, b'(', "expected `(` after `.unified`")?;
                    let (x, ()) = ws(x)?;
                    let (x, a) = lex::uint_u64(x)?;
                    let (x, ()) = ws(x)?;
                    let (x, ()) =
                        expect(x, b',', "expected `,` between the two halves of the UUID")?;
                    let (x, ()) = ws(x)?;
                    let (x, b) = lex::uint_u64(x)?;
                    let (x, ()) = ws(x)?;
                    let (x, ()) = expect(x, b')', "expected `)`")?;
                    out.push(Attribute::Unified(a, b));
                    r = x;
                }
                _ => return fail(at, "expected `.managed` or `.unified(...)`"),
            }
            let (x, ()) = ws(r)?;
            match x.first() {
                Some(b',') => r = &x[1..],
                Some(b')') => return Ok((&x[1..], out)),
                _ => return fail(x, "expected `,` or `)` in `.attribute(...)`"),
            }
        }
    }

    /// A declared name with its range, dimensions and initialiser.
    fn declarator<'a>(
        &mut self,
        i: &'a [u8],
        ty: Type,
        vector: Option<Vector>,
        allow_init: bool,
    ) -> PResult<'a, Declarator> {
        let (mut r, name) = self.ident_name(i)?;
        let mut range = None;
        let mut dims = SmallVec::new();
        if r.first() == Some(&b'<') {
            let (x, ()) = ws(&r[1..])?;
            let (x, n) = lex::uint_u32(x)?;
            let (x, ()) = ws(x)?;
            let (x, ()) = expect(x, b'>', "expected `>` after the register count")?;
            range = Some(n);
            r = x;
        }
        loop {
            let (x, ()) = ws_inline(r);
            if x.first() != Some(&b'[') {
                break;
            }
            let (x, ()) = ws(&x[1..])?;
            if x.first() == Some(&b']') {
                dims.push(None);
                r = &x[1..];
                continue;
            }
            let (x, n) = lex::uint_u64(x)?;
            let (x, ()) = ws(x)?;
            let (x, ()) = expect(x, b']', "expected `]` after the array size")?;
            dims.push(Some(n));
            r = x;
        }
        let (x, ()) = ws(r)?;
        let mut init = None;
        if x.first() == Some(&b'=') {
            if !allow_init {
                return fail(x, "initialisers are not allowed here");
            }
            let (x, ()) = ws(&x[1..])?;
            if ptx_ir_core::opaque::is_opaque(ty) {
                let (x, v) = opaque_init(x, ty)?;
                return Ok((
                    x,
                    Declarator {
                        name,
                        range,
                        dims,
                        init: Some(v),
                    },
                ));
            }
            let packable = Init::packs(ty, vector);
            // Elements the declaration says the initialiser has, to size the packed bytes.
            let hint = match dims.as_slice() {
                [Some(n)] => usize::try_from(*n).unwrap_or(0),
                _ => 0,
            };
            let (x, v) = self.init(x, ty, packable.then_some(hint), 0)?;
            init = Some(v);
            r = x;
        }
        Ok((
            r,
            Declarator {
                name,
                range,
                dims,
                init,
            },
        ))
    }

    /// An initialiser; `packable` (with the expected element count, or 0) allows the packed
    /// form.
    fn init<'a>(
        &mut self,
        i: &'a [u8],
        ty: Type,
        packable: Option<usize>,
        depth: u32,
    ) -> PResult<'a, Init> {
        if i.first() != Some(&b'{') {
            let (r, e) = self.expr(i, false)?;
            return Ok((r, Init::Expr(e)));
        }
        if let Some(hint) = packable {
            if let Some((r, bytes)) = packed_list(i, ty, hint) {
                return Ok((r, Init::Packed(bytes.into_boxed_slice())));
            }
        }
        if depth >= MAX_INIT_DEPTH {
            return fail(i, "initialiser lists nested too deeply");
        }
        let (mut r, ()) = ws(&i[1..])?;
        let mut items = Vec::new();
        if r.first() == Some(&b'}') {
            return Ok((&r[1..], Init::List(items)));
        }
        loop {
            let (x, item) = self.init(r, ty, None, depth + 1)?;
            items.push(item);
            let (x, ()) = ws(x)?;
            match x.first() {
                Some(b',') => {
                    let (y, ()) = ws(&x[1..])?;
                    r = y;
                }
                Some(b'}') => {
                    // Literals the fast path did not take (`- 1`, `+7`) still make a list
                    // of plain integers, which must read the same as its printed form does.
                    if packable.is_some() {
                        if let Some(bytes) = Init::pack_literals(&items, ty) {
                            return Ok((&x[1..], Init::Packed(bytes.into_boxed_slice())));
                        }
                    }
                    return Ok((&x[1..], Init::List(items)));
                }
                _ => return fail(x, "expected `,` or `}` in an initialiser"),
            }
        }
    }

    /// After `.entry`/`.func`: the signature, directives and body or `;`.
    pub(crate) fn function<'a>(
        &mut self,
        i: &'a [u8],
        linkage: Option<Linkage>,
        entry: bool,
    ) -> PResult<'a, Function> {
        let kind = if entry {
            FunctionKind::Entry
        } else {
            FunctionKind::Func
        };
        let (mut r, ()) = ws(i)?;
        let mut attributes = Vec::new();
        if r.starts_with(b".attribute") {
            let (x, a) = self.attributes(&r[10..])?;
            attributes = a;
            let (x, ()) = ws(x)?;
            r = x;
        }
        let mut returns = None;
        if r.first() == Some(&b'(') {
            if entry {
                return fail(r, "`.entry` has no return parameters");
            }
            let (x, p) = self.params(r)?;
            returns = Some(p);
            let (x, ()) = ws(x)?;
            r = x;
        }
        let (r, name) = self.ident_name(r)?;
        let (x, ()) = ws(r)?;
        let (r, params) = if x.first() == Some(&b'(') {
            let (x, p) = self.params(x)?;
            (x, Some(p))
        } else {
            (r, None)
        };
        let (r, directives) = self.func_directives(r)?;
        let (r, ()) = ws(r)?;
        let (r, body) = match r.first() {
            Some(b';') => (&r[1..], None),
            Some(b'{') => {
                let (x, b) = self.block(&r[1..])?;
                (x, Some(b))
            }
            _ => return fail(r, "expected `{` or `;` after the function header"),
        };
        Ok((
            r,
            Function {
                linkage,
                kind,
                attributes,
                returns,
                name,
                params,
                directives,
                body,
            },
        ))
    }

    /// `( param, ... )`
    pub(crate) fn params<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Vec<Param>> {
        let (r, ()) = expect(i, b'(', "expected `(`")?;
        let (mut r, ()) = ws(r)?;
        // Collected inline, then moved into an exact-size array: one allocation for the usual
        // short list rather than a growth and a shrink.
        let mut out: SmallVec<[Param; 4]> = SmallVec::new();
        if r.first() == Some(&b')') {
            return Ok((&r[1..], Vec::new()));
        }
        loop {
            let x = match self.plain_param(r)? {
                Some((x, p)) => {
                    out.push(p);
                    x
                }
                None => {
                    let at = r;
                    let (x, q) = self.quals(r)?;
                    if !matches!(q.space, Space::Param | Space::Reg) {
                        return fail(at, "parameters are `.param` or `.reg`");
                    }
                    let (x, ()) = ws(x)?;
                    let (x, d) = self.declarator(x, q.ty, q.vector, false)?;
                    if d.range.is_some() {
                        return fail(at, "a parameter cannot declare a register range");
                    }
                    out.push(Param {
                        space: q.space,
                        align: q.align,
                        vector: q.vector,
                        ty: q.ty,
                        ptr: q.ptr,
                        name: d.name,
                        dims: d.dims,
                    });
                    ws(x)?.0
                }
            };
            match x.first() {
                Some(b',') => {
                    let (y, ()) = ws(&x[1..])?;
                    r = y;
                }
                Some(b')') => return Ok((&x[1..], super::exact_vec(out))),
                _ => return fail(x, "expected `,` or `)` in the parameter list"),
            }
        }
    }

    /// The common parameter, `.param .b64 name` or `.param .align 8 .b8 name[16]` with single
    /// spaces (nvcc's), read without the qualifier loop up to the `,` or `)` after it; `None`
    /// (having interned nothing) for anything else, which the general path then reads from the
    /// start. Parameters were an eighth of the reading time of nvcc's debug builds, whose
    /// small functions each declare and define theirs.
    fn plain_param<'a>(&mut self, i: &'a [u8]) -> Result<Option<(&'a [u8], Param)>, Err<PErr>> {
        if super::general_only() {
            return Ok(None);
        }
        let Some(mut x) = i.strip_prefix(b".param ") else {
            return Ok(None);
        };
        let mut align = None;
        if let Some(y) = x.strip_prefix(b".align ") {
            let n = y.iter().take_while(|b| b.is_ascii_digit()).count();
            if !(1..=9).contains(&n) || y[0] == b'0' || y.get(n) != Some(&b' ') {
                return Ok(None);
            }
            let v = decimal(&y[..n]);
            if !v.is_power_of_two() {
                return Ok(None);
            }
            align = Some(v);
            x = &y[n + 1..];
        }
        let Ok((y, w)) = directive(x) else {
            return Ok(None);
        };
        let (Some(Modifier::Type(ty)), [b' ', at @ ..]) = (decl_word(w), y) else {
            return Ok(None);
        };
        let Ok((mut y, w)) = lex::ident(at) else {
            return Ok(None);
        };
        let mut dims = SmallVec::new();
        if let [b'[', d @ ..] = y {
            // Plain decimal only: a leading `0` is octal (or the size 0).
            let n = d.iter().take_while(|b| b.is_ascii_digit()).count();
            if !(1..=18).contains(&n) || d[0] == b'0' || d.get(n) != Some(&b']') {
                return Ok(None);
            }
            let v = d[..n]
                .iter()
                .fold(0u64, |v, &b| v * 10 + u64::from(b - b'0'));
            dims.push(Some(v));
            y = &d[n + 1..];
        }
        let Ok((y, ())) = ws(y) else {
            return Ok(None);
        };
        if !matches!(y.first(), Some(b',' | b')')) {
            return Ok(None);
        }
        let name = self.name(at, w)?;
        Ok(Some((
            y,
            Param {
                space: Space::Param,
                align,
                vector: None,
                ty,
                ptr: None,
                name,
                dims,
            },
        )))
    }

    /// Performance-tuning and ABI directives up to `{` or `;`.
    pub(crate) fn func_directives<'a>(&mut self, i: &'a [u8]) -> PResult<'a, Vec<FuncDirective>> {
        let mut out = Vec::new();
        let mut r = i;
        loop {
            let (x, ()) = ws(r)?;
            if x.first() != Some(&b'.') {
                return Ok((x, out));
            }
            let at = x;
            let (x, d) = directive(x)?;
            let (x, dir) = match d {
                b"noreturn" => (x, FuncDirective::NoReturn),
                b"explicitcluster" => (x, FuncDirective::ExplicitCluster),
                b"blocksareclusters" => (x, FuncDirective::BlocksAreClusters),
                b"maxntid" | b"reqntid" | b"reqnctapercluster" => {
                    let (x, v) = dims3(x)?;
                    let dir = match d {
                        b"maxntid" => FuncDirective::MaxNtid(v),
                        b"reqntid" => FuncDirective::ReqNtid(v),
                        _ => FuncDirective::ReqNctaPerCluster(v),
                    };
                    (x, dir)
                }
                b"minnctapersm"
                | b"maxnctapersm"
                | b"maxnreg"
                | b"maxclusterrank"
                | b"abi_preserve"
                | b"abi_preserve_control" => {
                    let (x, ()) = ws(x)?;
                    let (x, n) = lex::uint_u32(x)?;
                    let dir = match d {
                        b"minnctapersm" => FuncDirective::MinNctaPerSm(n),
                        b"maxnctapersm" => FuncDirective::MaxNctaPerSm(n),
                        b"maxnreg" => FuncDirective::MaxNreg(n),
                        b"maxclusterrank" => FuncDirective::MaxClusterRank(n),
                        b"abi_preserve" => FuncDirective::AbiPreserve(n),
                        _ => FuncDirective::AbiPreserveControl(n),
                    };
                    (x, dir)
                }
                b"pragma" => {
                    let (x, s) = self.pragma(x)?;
                    (x, FuncDirective::Pragma(s))
                }
                _ => {
                    return fail(
                        at,
                        format!(
                            "unknown function directive `.{}`",
                            String::from_utf8_lossy(d)
                        ),
                    )
                }
            };
            out.push(dir);
            r = x;
        }
    }
}

/// `n{, n{, n}}`
fn dims3(i: &[u8]) -> PResult<'_, SmallVec<[u32; 3]>> {
    let mut v = SmallVec::new();
    let mut r = i;
    loop {
        let (x, ()) = ws(r)?;
        let (x, n) = lex::uint_u32(x)?;
        v.push(n);
        let (y, ()) = ws_inline(x);
        if y.first() == Some(&b',') && v.len() < 3 {
            r = &y[1..];
        } else {
            return Ok((x, v));
        }
    }
}

/// The fast path for `{1, 2, 3, ...}` of plain integers that fit `ty`: packed little-endian.
/// Returns `None` (and the caller re-reads the list generally) if any element is not one.
/// `hint` is the expected number of elements (0 if unknown).
// The bound on `{ }` in an initialiser is shared with the bytecode (`limits`).
use ptx_ir_core::limits::MAX_INIT_DEPTH;

/// Reads the run of `N, ` elements (`N` a [`lex::plain_byte`]) at the start of `r` into `out`
/// and returns the rest, which starts at the first element it did not take (the last one,
/// before `}`, a negative one, a hexadecimal one...).
#[inline]
fn plain_bytes<'a>(r: &'a [u8], out: &mut Vec<u8>) -> &'a [u8] {
    // Elements are found from a mask of the commas of 64 bytes at a time, so that where the
    // next element starts does not wait on the digits of this one (a chain of dependent
    // loads and shifts per element otherwise). Each element is then checked as the scalar
    // loop below checks it: one to three digits, then `, `; text after the list (`}`, the
    // next line) fails that check at its first comma.
    let mut start = 0;
    let mut base = 0;
    while let Some(block) = r.get(base..base + 64) {
        let mut commas = comma_mask(block);
        while commas != 0 {
            let c = base + commas.trailing_zeros() as usize;
            commas &= commas - 1;
            let len = c.wrapping_sub(start);
            let word = match r.get(start..start + 4) {
                Some(&[b0, b1, b2, b3]) => [b0, b1, b2, b3],
                _ => return &r[start..],
            };
            match lex::plain_byte_in(word) {
                Some((v, k)) if k == len && r.get(c + 1) == Some(&b' ') => {
                    out.push(v);
                    start = c + 2;
                }
                _ => return &r[start..],
            }
        }
        base += 64;
    }
    let mut r = &r[start..];
    while let Some(&[b0, b1, b2, b3]) = r.get(..4) {
        let Some((v, k)) = lex::plain_byte_in([b0, b1, b2, b3]) else {
            break;
        };
        if r.get(k..k + 2) != Some(b", ") {
            break;
        }
        out.push(v);
        r = &r[k + 2..];
    }
    r
}

/// Bit `k` set where byte `k` of the 64 is a comma.
#[inline(always)]
fn comma_mask(block: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const COMMAS: u64 = 0x2c2c_2c2c_2c2c_2c2c;
    // Gathers the high bit of each byte into the top byte, byte k to bit k.
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let mut mask = 0;
    for (k, w) in block.chunks_exact(8).enumerate() {
        let mut b = [0; 8];
        b.copy_from_slice(w);
        let x = u64::from_le_bytes(b) ^ COMMAS;
        // The high bit of each byte that is zero in `x`, with no carry between bytes.
        let zero = !(((x & LOW7) + LOW7) | x) & HIGH;
        mask |= ((zero >> 7).wrapping_mul(GATHER) >> 56) << (8 * k);
    }
    mask
}

fn packed_list(i: &[u8], ty: Type, hint: usize) -> Option<(&[u8], Vec<u8>)> {
    let width = (ty.bits() / 8) as usize;
    // Each element takes at least two bytes of text: trust the hint only that far.
    let mut out = Vec::with_capacity(hint.min(i.len() / 2 + 1) * width);
    let (mut r, ()) = ws(&i[1..]).ok()?;
    if r.first() == Some(&b'}') {
        return None;
    }
    loop {
        if width == 1 {
            r = plain_bytes(r, &mut out);
        }
        let neg = r.first() == Some(&b'-');
        if neg {
            r = &r[1..];
        }
        // Plain decimal digits inline; anything else through the lexer.
        let mut k = 0;
        let mut mag = 0u64;
        for &c in r.iter().take(19) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            mag = mag * 10 + u64::from(d);
            k += 1;
        }
        let plain = k > 0
            && (k == 1 || r[0] != b'0')
            && !r
                .get(k)
                .is_some_and(|&b| lex::is_ident_char(b) || b == b'.');
        let (x, mag) = if plain {
            (&r[k..], mag)
        } else {
            let (x, n) = lex::number(r).ok()?;
            match n {
                Number::Int(v) => (x, v as u64),
                Number::Uint(v) => (x, v),
                _ => return None,
            }
        };
        let v = packed_element(neg, mag, ty.bits())?;
        let bytes = v.to_le_bytes();
        if width == 1 {
            out.push(bytes[0]);
        } else {
            out.extend_from_slice(&bytes[..width]);
        }
        // `, ` is the usual separator.
        let x = match x {
            [b',', b' ', rest @ ..] if rest.first().is_some_and(u8::is_ascii_digit) => {
                r = rest;
                continue;
            }
            _ => ws(x).ok()?.0,
        };
        match x.first() {
            Some(b',') => {
                let (y, ()) = ws(&x[1..]).ok()?;
                r = y;
            }
            Some(b'}') => return Some((&x[1..], out)),
            _ => return None,
        }
    }
}

/// The initialiser of an opaque variable of type `ty` (PTX ISA 5.3): `{ member = value, ... }`,
/// at least one member, each a member of `ty` ([`OpaqueMember::TABLE`]) assigned once, with a
/// value of its kind. Every error points at the offending member or value.
fn opaque_init(i: &[u8], ty: Type) -> PResult<'_, Init> {
    let tyname = ty.as_str();
    if i.first() != Some(&b'{') {
        return fail(
            i,
            format!("a `.{tyname}` is initialised by a member list `{{ member = value, ... }}`"),
        );
    }
    let (mut r, ()) = ws(&i[1..])?;
    if r.first() == Some(&b'}') {
        return fail(
            r,
            format!(
                "expected a member of `.{tyname}` ({})",
                OpaqueMember::members_of(ty)
            ),
        );
    }
    let mut fields: Vec<OpaqueField> = Vec::new();
    loop {
        let at = r;
        let Ok((x, word)) = lex::ident(r) else {
            return fail(
                r,
                format!(
                    "expected a member of `.{tyname}` ({})",
                    OpaqueMember::members_of(ty)
                ),
            );
        };
        let spelled = String::from_utf8_lossy(word);
        let member = match OpaqueMember::parse(word) {
            Some(m) if m.belongs_to(ty) => m,
            Some(_) => {
                return fail(
                    at,
                    format!(
                        "`.{tyname}` has no member `{spelled}` (its members: {})",
                        OpaqueMember::members_of(ty)
                    ),
                )
            }
            None => {
                return fail(
                    at,
                    format!(
                        "unknown member `{spelled}` of `.{tyname}` (its members: {})",
                        OpaqueMember::members_of(ty)
                    ),
                )
            }
        };
        if fields.iter().any(|f| f.member == member) {
            return fail(at, format!("`{spelled}` is assigned twice"));
        }
        let (x, ()) = ws(x)?;
        let (x, ()) = expect(x, b'=', "expected `=` after the member's name")?;
        let (x, ()) = ws(x)?;
        let vat = x;
        let (x, value) = match member.kind() {
            ValueKind::Count | ValueKind::Flag => match lex::number(x) {
                Ok((y, Number::Int(v))) if v >= 0 => (y, OpaqueValue::Int(v as u64)),
                Ok((y, Number::Uint(v))) => (y, OpaqueValue::Int(v)),
                _ => (x, OpaqueValue::Filter(FilterMode::Nearest)), // reported just below
            },
            ValueKind::Filter => match lex::ident(x) {
                Ok((y, w)) => match FilterMode::parse(w) {
                    Some(f) => (y, OpaqueValue::Filter(f)),
                    None => (x, OpaqueValue::Int(0)),
                },
                Err(_) => (x, OpaqueValue::Int(0)),
            },
            ValueKind::Address => match lex::ident(x) {
                Ok((y, w)) => match AddressMode::parse(w) {
                    Some(a) => (y, OpaqueValue::Address(a)),
                    None => (x, OpaqueValue::Int(0)),
                },
                Err(_) => (x, OpaqueValue::Int(0)),
            },
        };
        if let Some(e) = OpaqueField::value_error(member, value) {
            return fail(vat, e);
        }
        fields.push(OpaqueField { member, value });
        let (x, ()) = ws(x)?;
        match x.first() {
            Some(b',') => {
                let (y, ()) = ws(&x[1..])?;
                r = y;
            }
            Some(b'}') => return Ok((&x[1..], Init::Opaque(fields))),
            _ => return fail(x, "expected `,` or `}` in a member list"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{packed_list, plain_bytes};
    use ptx_ir_core::Type;

    #[test]
    fn plain_bytes_stops_where_the_general_path_takes_over() {
        let mut out = Vec::new();
        let r = plain_bytes(b"0, 7, 42, 255, 100, 9}", &mut out);
        assert_eq!(out, [0, 7, 42, 255, 100]);
        assert_eq!(r, b"9}");
        // Above a byte, a leading zero (octal), four digits, hexadecimal, a sign, `,` without
        // a space: each stops the run at that element.
        for (src, rest) in [
            (&b"1, 256, 2}"[..], &b"256, 2}"[..]),
            (b"1, 010, 2}", b"010, 2}"),
            (b"1, 1000, 2}", b"1000, 2}"),
            (b"1, 0x1f, 2}", b"0x1f, 2}"),
            (b"1, -1, 2}", b"-1, 2}"),
            (b"1, 2,3}", b"2,3}"),
            (b"5, 6", b"6"),
        ] {
            let mut out = Vec::new();
            assert_eq!(
                plain_bytes(src, &mut out),
                rest,
                "{}",
                String::from_utf8_lossy(src)
            );
            assert_eq!(out, [src[0] - b'0']);
        }
    }

    /// The element-by-element reading that the block scan must agree with.
    fn plain_bytes_reference<'a>(mut r: &'a [u8], out: &mut Vec<u8>) -> &'a [u8] {
        while let Some((v, k)) = crate::lex::plain_byte(r) {
            if r.get(k..k + 2) != Some(b", ") {
                break;
            }
            out.push(v);
            r = &r[k + 2..];
        }
        r
    }

    #[test]
    fn block_scan_agrees_with_reading_element_by_element() {
        // Long runs with one flaw placed at every offset, so that flaws fall on every position
        // in and across the 64-byte blocks.
        let flaws: [&[u8]; 9] = [
            b"}", b"256", b"0012", b"1,2", b"7,  8", b"-3", b"1000", b"\n", b"",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for flaw in flaws {
            for at in 0..150 {
                let mut text = Vec::new();
                let mut k = 0;
                while text.len() < 400 {
                    if k == at {
                        text.extend_from_slice(flaw);
                        text.extend_from_slice(b", ");
                    }
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    text.extend_from_slice((seed >> 56).to_string().as_bytes());
                    text.extend_from_slice(b", ");
                    k += 1;
                }
                text.extend_from_slice(b"9};\n.global .b8 x[2] = {1, 2};");
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let ra = plain_bytes(&text, &mut a);
                let rb = plain_bytes_reference(&text, &mut b);
                assert_eq!(
                    (ra, &a),
                    (rb, &b),
                    "flaw {:?} at {at}",
                    String::from_utf8_lossy(flaw)
                );
            }
        }
    }

    #[test]
    fn packed_bytes_match_the_values() {
        // Every byte value, in every digit count, with the separators the general path reads.
        let values: Vec<u8> = (0..=255u8).rev().chain(0..=255).collect();
        let mut text = String::from("{");
        for (k, v) in values.iter().enumerate() {
            let sep = match k % 7 {
                0 => ",\n  ",
                3 => " ,",
                _ => ", ",
            };
            if k > 0 {
                text.push_str(sep);
            }
            text.push_str(&v.to_string());
        }
        text.push_str("};");
        let (rest, bytes) = packed_list(text.as_bytes(), Type::B8, values.len()).unwrap();
        assert_eq!(bytes, values);
        assert_eq!(rest, b";");
        let (_, bytes) = packed_list(b"{1, -1, 0x10, 255, 010}", Type::U8, 5).unwrap();
        assert_eq!(bytes, [1, 255, 16, 255, 8]);
    }
}
