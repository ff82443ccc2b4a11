//! The printer: IR to canonical PTX.
//!
//! Instructions, the bulk of every module, are written directly; the `pretty` crate lays out the
//! parts whose shape depends on their length: function signatures (parameter lists break one
//! per line when they do not fit), initialiser lists and long operand lists (`wgmma`
//! accumulators, call arguments). Printing is a fixpoint: printing the re-read output gives the
//! same text, and reading it gives the same IR.

use pretty::RcDoc;
use ptx_ir_core::{
    Attribute, BodyRef, Declarator, Expr, FuncDirective, Function, FunctionKind, Init, InstRef,
    Item, LocRef, Module, Name, Operand, Operands, Param, Prototype, Section, SectionEntry,
    StmtRef, Type, UnaryOp, VarDecl,
};
use std::fmt::Write;

/// Line width for the laid-out parts.
const WIDTH: usize = 100;
/// Operand lists longer than this (in items) go through the layout engine.
const LONG_LIST: usize = 8;

/// Prints a module as canonical PTX.
pub fn print(m: &Module) -> String {
    let mut out = String::with_capacity(m.instruction_count() * 32 + 256);
    write_module(m, &mut out);
    out
}

/// Appends the canonical PTX of `m` to `out`.
pub fn write_module(m: &Module, out: &mut String) {
    let mut p = Printer { m, out };
    p.module();
}

struct Printer<'a> {
    m: &'a Module,
    out: &'a mut String,
}

fn render(doc: RcDoc<'_, ()>, out: &mut String) {
    // Writing into a String cannot fail.
    let _ = doc.render_fmt(WIDTH, out);
}

/// `docs` joined by `sep`, as a balanced tree of appends (the same layout as
/// `RcDoc::intersperse`, whose appends nest one level per item: dropping the document of a
/// list of 100,000 parameters or initialisers recursed that deep and overflowed the stack).
fn join<'d>(docs: &[RcDoc<'d, ()>], sep: &RcDoc<'d, ()>) -> RcDoc<'d, ()> {
    match docs {
        [] => RcDoc::nil(),
        [d] => d.clone(),
        _ => {
            let (a, b) = docs.split_at(docs.len() / 2);
            join(a, sep).append(sep.clone()).append(join(b, sep))
        }
    }
}

impl<'a> Printer<'a> {
    fn name(&self, n: Name) -> &'a str {
        nm(self.m, n)
    }

    fn module(&mut self) {
        let m = self.m;
        // Without the formatting machinery: a module of its header alone (cuRAND ships such
        // files) prints in about the time it reads.
        self.out.push_str(".version ");
        push_int(self.out, m.version.major);
        self.out.push('.');
        push_int(self.out, m.version.minor);
        self.out.push_str("\n.target ");
        for (k, t) in m.target.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            t.write_text(self.out);
        }
        self.out.push('\n');
        if let Some(a) = m.address_size {
            self.out.push_str(".address_size ");
            push_int(self.out, a);
            self.out.push('\n');
        }
        for item in &m.items {
            self.out.push('\n');
            self.item(item);
        }
    }

    fn item(&mut self, item: &Item) {
        match item {
            Item::Function(f) => self.function(f),
            Item::Variable(v) => {
                self.decl(v);
                self.out.push('\n');
            }
            Item::File(f) => {
                let _ = write!(self.out, ".file {} \"{}\"", f.index, f.path);
                if let Some((ts, size)) = f.meta {
                    let _ = write!(self.out, ", {ts}, {size}");
                }
                self.out.push('\n');
            }
            Item::Section(s) => self.section(s),
            Item::Pragma(s) => {
                let _ = writeln!(self.out, ".pragma \"{s}\";");
            }
            Item::Alias { alias, aliasee } => {
                let _ = writeln!(
                    self.out,
                    ".alias {}, {};",
                    nm(self.m, *alias),
                    nm(self.m, *aliasee)
                );
            }
        }
    }

    fn section(&mut self, s: &Section) {
        let _ = writeln!(self.out, ".section {}\n{{", s.name);
        for e in &s.entries {
            match e {
                SectionEntry::Label(n) => {
                    let _ = writeln!(self.out, "{}:", nm(self.m, *n));
                }
                SectionEntry::Bytes(b) => {
                    self.out.push_str("\t.b8 ");
                    for (i, v) in b.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        let _ = write!(self.out, "{v}");
                    }
                    self.out.push('\n');
                }
                SectionEntry::Data { ty, values } => {
                    let _ = write!(self.out, "\t.{} ", ty.as_str());
                    for (i, v) in values.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.expr(v);
                    }
                    self.out.push('\n');
                }
                SectionEntry::Value { ty, value } => {
                    let _ = write!(self.out, "\t.{} ", ty.as_str());
                    self.expr(&value.to_expr());
                    self.out.push('\n');
                }
                SectionEntry::ByteColumn(c) => {
                    for &b in c.iter() {
                        byte_line(self.out, b);
                    }
                }
            }
        }
        self.out.push_str("}\n");
    }

    fn attributes(&self, attrs: &[Attribute]) -> String {
        if attrs.is_empty() {
            return String::new();
        }
        let parts: Vec<String> = attrs
            .iter()
            .map(|a| match a {
                Attribute::Managed => ".managed".to_string(),
                Attribute::Unified(x, y) => format!(".unified({x}U, {y}U)"),
            })
            .collect();
        format!(" .attribute({})", parts.join(", "))
    }

    fn param_text(&self, p: &Param) -> String {
        let mut s = format!(".{}", p.space.as_str());
        if let Some(a) = p.align {
            let _ = write!(s, " .align {a}");
        }
        if let Some(v) = p.vector {
            let _ = write!(s, " .{}", v.as_str());
        }
        let _ = write!(s, " .{}", p.ty.as_str());
        if let Some(ptr) = p.ptr {
            s.push_str(" .ptr");
            if let Some(sp) = ptr.space {
                let _ = write!(s, " .{}", sp.as_str());
            }
            if let Some(a) = ptr.align {
                let _ = write!(s, " .align {a}");
            }
        }
        let _ = write!(s, " {}", self.name(p.name));
        dims(&mut s, &p.dims);
        s
    }

    fn param_list<'d>(&self, params: &[Param]) -> RcDoc<'d, ()> {
        if params.is_empty() {
            return RcDoc::text("()");
        }
        let items: Vec<_> = params
            .iter()
            .map(|p| RcDoc::text(self.param_text(p)))
            .collect();
        RcDoc::text("(")
            .append(
                RcDoc::line_()
                    .append(join(&items, &RcDoc::text(",").append(RcDoc::line())))
                    .nest(4),
            )
            .append(RcDoc::line_())
            .append(RcDoc::text(")"))
            .group()
    }

    fn directives(&mut self, dirs: &[FuncDirective]) {
        for d in dirs {
            self.out.push('\n');
            let list = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            let _ = match d {
                FuncDirective::MaxNtid(v) => write!(self.out, ".maxntid {}", list(v)),
                FuncDirective::ReqNtid(v) => write!(self.out, ".reqntid {}", list(v)),
                FuncDirective::ReqNctaPerCluster(v) => {
                    write!(self.out, ".reqnctapercluster {}", list(v))
                }
                FuncDirective::MinNctaPerSm(n) => write!(self.out, ".minnctapersm {n}"),
                FuncDirective::MaxNctaPerSm(n) => write!(self.out, ".maxnctapersm {n}"),
                FuncDirective::MaxNreg(n) => write!(self.out, ".maxnreg {n}"),
                FuncDirective::MaxClusterRank(n) => write!(self.out, ".maxclusterrank {n}"),
                FuncDirective::AbiPreserve(n) => write!(self.out, ".abi_preserve {n}"),
                FuncDirective::AbiPreserveControl(n) => {
                    write!(self.out, ".abi_preserve_control {n}")
                }
                FuncDirective::ExplicitCluster => write!(self.out, ".explicitcluster"),
                FuncDirective::BlocksAreClusters => write!(self.out, ".blocksareclusters"),
                FuncDirective::NoReturn => write!(self.out, ".noreturn"),
                FuncDirective::Pragma(s) => write!(self.out, ".pragma \"{s}\";"),
            };
        }
    }

    fn function(&mut self, f: &Function) {
        let mut head = String::new();
        if let Some(l) = f.linkage {
            head.push_str(l.as_str());
            head.push(' ');
        }
        head.push_str(match f.kind {
            FunctionKind::Entry => ".entry",
            FunctionKind::Func => ".func",
        });
        head.push_str(&self.attributes(&f.attributes));
        let mut doc = RcDoc::text(head);
        if let Some(r) = &f.returns {
            doc = doc.append(RcDoc::text(" ")).append(self.param_list(r));
        }
        doc = doc
            .append(RcDoc::text(" "))
            .append(RcDoc::text(self.name(f.name).to_string()));
        if let Some(p) = &f.params {
            doc = doc.append(self.param_list(p));
        }
        render(doc, self.out);
        self.directives(&f.directives);
        match &f.body {
            None => self.out.push_str(";\n"),
            Some(body) => {
                self.out.push_str("\n{\n");
                self.statements(body.as_ref(), 1);
                self.out.push_str("}\n");
            }
        }
    }

    fn decl(&mut self, v: &VarDecl) {
        if let Some(l) = v.linkage {
            self.out.push_str(l.as_str());
            self.out.push(' ');
        }
        self.out.push('.');
        self.out.push_str(v.space.as_str());
        if !v.attributes.is_empty() {
            let a = self.attributes(&v.attributes);
            self.out.push_str(&a);
        }
        if let Some(a) = v.align {
            self.out.push_str(" .align ");
            push_int(self.out, a);
        }
        if let Some(vec) = v.vector {
            self.out.push_str(" .");
            self.out.push_str(vec.as_str());
        }
        self.out.push_str(" .");
        self.out.push_str(v.ty.as_str());
        for (i, d) in v.names.iter().enumerate() {
            self.out.push_str(if i == 0 { " " } else { ", " });
            self.declarator(d, v.ty);
        }
        self.out.push(';');
    }

    fn declarator(&mut self, d: &Declarator, ty: Type) {
        self.out.push_str(self.name(d.name));
        if let Some(n) = d.range {
            self.out.push('<');
            push_int(self.out, n);
            self.out.push('>');
        }
        dims(self.out, &d.dims);
        if let Some(init) = &d.init {
            self.out.push_str(" = ");
            match init {
                Init::Packed(bytes) => self.packed(bytes, ty),
                _ => {
                    let doc = self.init_doc(init);
                    render(doc, self.out);
                }
            }
        }
    }

    /// A packed integer list, filled to the line width.
    fn packed(&mut self, bytes: &[u8], ty: Type) {
        let w = ((ty.bits() / 8) as usize).max(1);
        self.out.push('{');
        let col = self.out.len() - self.out.rfind('\n').map_or(0, |p| p + 1);
        let signed = ty.is_signed();
        let fast = (w == 1 && !signed).then(|| byte_list(bytes, col));
        // Only ASCII was written; the check cannot fail.
        match fast.as_deref().map(std::str::from_utf8) {
            Some(Ok(text)) => self.out.push_str(text),
            _ => int_list(self.out, bytes, w, signed, col),
        }
        self.out.push('}');
    }

    fn init_doc<'d>(&self, init: &Init) -> RcDoc<'d, ()> {
        match init {
            Init::Expr(e) => {
                let mut s = String::new();
                self.expr_into(e, &mut s);
                RcDoc::text(s)
            }
            Init::List(items) => {
                let docs: Vec<_> = items.iter().map(|i| self.init_doc(i)).collect();
                RcDoc::text("{")
                    .append(join(&docs, &RcDoc::text(",").append(RcDoc::line())).nest(1))
                    .append(RcDoc::text("}"))
                    .group()
            }
            Init::Packed(_) => RcDoc::text("{}"),
            Init::Opaque(fields) => RcDoc::text(opaque_text(fields)),
        }
    }

    fn statements(&mut self, body: BodyRef<'_>, depth: usize) {
        for s in body {
            self.statement(s, depth);
        }
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push('\t');
        }
    }

    fn statement(&mut self, s: StmtRef<'_>, depth: usize) {
        match s {
            StmtRef::Inst(inst) => {
                self.indent(depth);
                self.inst(inst, depth);
                self.out.push('\n');
            }
            StmtRef::Label(n) => {
                self.out.push_str(nm(self.m, n));
                self.out.push_str(":\n");
            }
            StmtRef::Decl(d) => {
                self.indent(depth);
                self.decl(&d.get());
                self.out.push('\n');
            }
            StmtRef::Loc(l) => {
                self.indent(depth);
                self.loc(l);
                self.out.push('\n');
            }
            StmtRef::Pragma(p) => {
                self.indent(depth);
                let _ = writeln!(self.out, ".pragma \"{p}\";");
            }
            StmtRef::Block(b) => {
                self.indent(depth);
                self.out.push_str("{\n");
                self.statements(b, depth + 1);
                self.indent(depth);
                self.out.push_str("}\n");
            }
            StmtRef::BranchTargets { label, targets } | StmtRef::CallTargets { label, targets } => {
                self.indent(depth);
                let kind = if matches!(s, StmtRef::BranchTargets { .. }) {
                    "branchtargets"
                } else {
                    "calltargets"
                };
                let list: Vec<&str> = targets.iter().map(|t| self.name(*t)).collect();
                let _ = writeln!(
                    self.out,
                    "{}: .{} {};",
                    nm(self.m, label),
                    kind,
                    list.join(", ")
                );
            }
            StmtRef::CallPrototype { label, proto } => {
                self.indent(depth);
                let _ = write!(self.out, "{}: .callprototype", nm(self.m, label));
                self.prototype(proto);
                self.out.push_str(";\n");
            }
        }
    }

    fn prototype(&mut self, p: &Prototype) {
        let mut doc = RcDoc::nil();
        if let Some(r) = &p.returns {
            doc = doc.append(RcDoc::text(" ")).append(self.param_list(r));
        }
        doc = doc.append(RcDoc::text(" _"));
        if let Some(ps) = &p.params {
            doc = doc.append(RcDoc::text(" ")).append(self.param_list(ps));
        }
        render(doc, self.out);
        for d in &p.directives {
            let _ = match d {
                FuncDirective::NoReturn => write!(self.out, " .noreturn"),
                FuncDirective::AbiPreserve(n) => write!(self.out, " .abi_preserve {n}"),
                FuncDirective::AbiPreserveControl(n) => {
                    write!(self.out, " .abi_preserve_control {n}")
                }
                other => {
                    // Other directives are not legal on prototypes; print them so nothing is lost.
                    let mut tmp = String::new();
                    let mut p2 = Printer {
                        m: self.m,
                        out: &mut tmp,
                    };
                    p2.directives(std::slice::from_ref(other));
                    write!(self.out, " {}", tmp.trim())
                }
            };
        }
    }

    fn loc(&mut self, l: LocRef<'_>) {
        self.out.push_str(".loc ");
        push_int(self.out, l.file);
        self.out.push(' ');
        push_int(self.out, l.line);
        self.out.push(' ');
        push_int(self.out, l.col);
        if let Some(i) = l.inlined {
            let _ = write!(self.out, ", function_name {}", nm(self.m, i.function_name));
            if i.offset != 0 {
                let _ = write!(self.out, "{:+}", i.offset);
            }
            let _ = write!(self.out, ", inlined_at {} {} {}", i.file, i.line, i.col);
        }
    }

    // Kept out of line: inlined into the statement loop, it printed nvcc's and cuRAND's
    // modules 5% slower (measured), with fewer machine instructions.
    #[inline(never)]
    fn inst(&mut self, inst: InstRef<'_>, depth: usize) {
        if let Some(g) = inst.guard {
            let _ = write!(
                self.out,
                "@{}{} ",
                if g.negated { "!" } else { "" },
                nm(self.m, g.pred)
            );
        }
        self.out.push_str(inst.opcode.name());
        for m in inst.mods {
            self.out.push('.');
            self.out.push_str(m.as_str());
        }
        if inst.operands.is_empty() {
            self.out.push(';');
            return;
        }
        // Plain text unless an operand is a long list; then the operands are laid out again,
        // filled to the line width (long lists are calls and wide vectors).
        let start = self.out.len();
        self.out.push(' ');
        for (i, o) in inst.operands.iter().enumerate() {
            if o.items().is_some_and(|v| v.len() > LONG_LIST) {
                self.out.truncate(start);
                self.filled_operands(inst.operands, depth);
                return;
            }
            if i > 0 {
                self.out.push_str(", ");
            }
            let mut s = std::mem::take(self.out);
            self.operand_into(&o, &mut s);
            *self.out = s;
        }
        self.out.push(';');
    }

    /// The operands of an instruction with a long list (`wgmma`'s 64 accumulators, a call's
    /// arguments), filled to the line width: each operand, and each element of a long list,
    /// goes on the current line if it fits (with its `,`), otherwise on a new line one tab
    /// deeper than the instruction. The same fill as initialisers (see [`Printer::packed`]):
    /// one element per line, as a layout engine's broken group gives, made a `wgmma` 64
    /// lines long, and building its document cost more than reading the instruction.
    fn filled_operands(&mut self, operands: Operands<'_>, depth: usize) {
        let mut fill = Fill {
            col: self.out.len() - self.out.rfind('\n').map_or(0, |p| p + 1),
            first: true,
            depth,
        };
        let mut atom = String::new();
        self.out.push(' ');
        fill.col += 1;
        for o in operands.iter() {
            let (open, close, items) = match &*o {
                Operand::Vector(v) if v.len() > LONG_LIST => ("{", "}", v),
                Operand::Args(v) if v.len() > LONG_LIST => ("(", ")", v),
                Operand::Tuple(v) if v.len() > LONG_LIST => ("[", "]", v),
                other => {
                    atom.clear();
                    self.operand_into(other, &mut atom);
                    fill.place(self.out, &atom);
                    continue;
                }
            };
            for (k, item) in items.iter().enumerate() {
                atom.clear();
                if k == 0 {
                    atom.push_str(open);
                }
                self.operand_into(item, &mut atom);
                if k + 1 == items.len() {
                    atom.push_str(close);
                }
                fill.place(self.out, &atom);
            }
        }
        self.out.push(';');
    }

    fn operand_into(&self, o: &Operand, s: &mut String) {
        match o {
            Operand::Reg { name, sel } => {
                s.push_str(self.name(*name));
                if !sel.is_none() {
                    let _ = write!(s, "{sel}");
                }
            }
            Operand::Special { reg, sel } => {
                let _ = write!(s, "{reg}");
                if !sel.is_none() {
                    let _ = write!(s, "{sel}");
                }
            }
            Operand::Int(v) => push_int(s, *v),
            Operand::Uint(v) => {
                push_int(s, *v);
                s.push('U');
            }
            Operand::F32(b) => {
                let _ = write!(s, "0f{b:08X}");
            }
            Operand::F64(b) => {
                let _ = write!(s, "0d{b:016X}");
            }
            Operand::Dec(b) => dec(*b, s),
            Operand::Sym { name, offset } => {
                let _ = write!(s, "{}{}", self.name(*name), signed_offset(*offset));
            }
            Operand::Addr {
                base,
                offset,
                unified,
            } => {
                s.push('[');
                match base {
                    Some(b) => {
                        s.push_str(self.name(*b));
                        if *offset != 0 {
                            s.push('+');
                            push_int(s, *offset);
                        }
                    }
                    None => push_int(s, *offset),
                }
                s.push(']');
                if *unified {
                    s.push_str(".unified");
                }
            }
            Operand::Vector(v) => self.list_into(v, '{', '}', s),
            Operand::Tuple(v) => self.list_into(v, '[', ']', s),
            Operand::Args(v) => self.list_into(v, '(', ')', s),
            Operand::Pair(p) => {
                self.operand_into(&p[0], s);
                s.push('|');
                self.operand_into(&p[1], s);
            }
            Operand::Not(n) => {
                s.push('!');
                s.push_str(self.name(*n));
            }
            Operand::Neg(o) => {
                s.push('-');
                // `-5` would read back as a negative literal; `- 5` reads as this negation
                // everywhere (`-(5)` does not in a call's argument list, where `(5)` is a list).
                if matches!(
                    **o,
                    Operand::Int(0..)
                        | Operand::Uint(_)
                        | Operand::F32(_)
                        | Operand::F64(_)
                        | Operand::Dec(_)
                ) {
                    s.push(' ');
                }
                self.operand_into(o, s);
            }
            Operand::Sink => s.push('_'),
        }
    }

    fn list_into(&self, v: &[Operand], open: char, close: char, s: &mut String) {
        s.push(open);
        for (i, o) in v.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            self.operand_into(o, s);
        }
        s.push(close);
    }

    fn expr(&mut self, e: &Expr) {
        let mut s = std::mem::take(self.out);
        self.expr_into(e, &mut s);
        *self.out = s;
    }

    fn expr_into(&self, e: &Expr, s: &mut String) {
        match e {
            Expr::Int(v) => {
                let _ = write!(s, "{v}");
            }
            Expr::Uint(v) => {
                let _ = write!(s, "{v}U");
            }
            Expr::F32(b) => {
                let _ = write!(s, "0f{b:08X}");
            }
            Expr::F64(b) => {
                let _ = write!(s, "0d{b:016X}");
            }
            Expr::Dec(b) => dec(*b, s),
            Expr::Sym(n) => s.push_str(self.name(*n)),
            Expr::Generic(n) => {
                let _ = write!(s, "generic({})", self.name(*n));
            }
            Expr::Unary(op, e) => {
                s.push_str(op.as_str());
                // `-` before a digit would read back as a negative literal.
                if *op == UnaryOp::Neg
                    && matches!(
                        **e,
                        Expr::Int(0..) | Expr::Uint(_) | Expr::F32(_) | Expr::F64(_) | Expr::Dec(_)
                    )
                {
                    s.push(' ');
                }
                self.expr_into(e, s);
            }
            Expr::Binary(op, a, b) => {
                self.expr_into(a, s);
                s.push_str(op.as_str());
                self.expr_into(b, s);
            }
            Expr::Paren(e) => {
                s.push('(');
                self.expr_into(e, s);
                s.push(')');
            }
        }
    }
}

/// Appends an integer in decimal.
#[inline]
fn push_int(s: &mut String, v: impl itoa::Integer) {
    s.push_str(itoa::Buffer::new().format(v));
}

/// Appends the line `\t.b8 b` of one byte of a [`SectionEntry::ByteColumn`].
#[inline]
fn byte_line(s: &mut String, b: u8) {
    s.push_str("\t.b8 ");
    push_int(s, b);
    s.push('\n');
}

fn nm(m: &Module, n: Name) -> &str {
    m.names.try_get(n).unwrap_or("<invalid-name>")
}

fn dims(s: &mut String, dims: &[Option<u64>]) {
    for d in dims {
        match d {
            Some(n) => {
                s.push('[');
                push_int(s, *n);
                s.push(']');
            }
            None => s.push_str("[]"),
        }
    }
}

fn signed_offset(off: i64) -> String {
    if off < 0 {
        format!("-{}", off.unsigned_abs())
    } else {
        format!("+{off}")
    }
}

/// Where [`Printer::filled_operands`] stands on its line.
struct Fill {
    /// Bytes since the line's start (a tab counts one).
    col: usize,
    /// Nothing placed yet: no separator before the next text.
    first: bool,
    /// The instruction's indentation; continuation lines take one tab more.
    depth: usize,
}

impl Fill {
    /// Appends `text` after a `,`, on this line if it fits with the `,` or `;` that follows
    /// it, otherwise on the next.
    fn place(&mut self, out: &mut String, text: &str) {
        if !self.first {
            out.push(',');
            if self.col + 2 + text.len() + 1 > WIDTH {
                out.push('\n');
                for _ in 0..=self.depth {
                    out.push('\t');
                }
                self.col = self.depth + 1;
            } else {
                out.push(' ');
                self.col += 2;
            }
        }
        self.first = false;
        out.push_str(text);
        self.col += text.len();
    }
}

/// A decimal float literal that reads back to the same bits.
/// The elements of a packed list of `w`-byte integers, `, ` between them, filled to the line
/// width from column `col`.
fn int_list(out: &mut String, bytes: &[u8], w: usize, signed: bool, mut col: usize) {
    let mut ibuf = itoa::Buffer::new();
    for (i, chunk) in bytes.chunks(w).enumerate() {
        let mut buf = [0u8; 8];
        buf[..chunk.len()].copy_from_slice(chunk);
        let raw = u64::from_le_bytes(buf);
        let text = if signed {
            let shift = 64 - 8 * chunk.len() as u32;
            ibuf.format(((raw << shift) as i64) >> shift)
        } else {
            ibuf.format(raw)
        };
        if i > 0 {
            out.push(',');
            if col + text.len() + 2 > WIDTH {
                out.push_str("\n\t");
                col = 0;
            } else {
                out.push(' ');
            }
        }
        col += text.len() + 2;
        out.push_str(text);
    }
}

/// Each byte value's text after a separator: `, ` and its digits, zero padded to 8 bytes, with
/// the number of digits last.
static BYTE_TEXT: [[u8; 8]; 256] = {
    let mut t = [[0u8; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut e = [b',', b' ', 0, 0, 0, 0, 0, 0];
        let n = if v >= 100 {
            3
        } else if v >= 10 {
            2
        } else {
            1
        };
        let mut k = 0;
        let mut x = v;
        while k < n {
            e[2 + n - 1 - k] = b'0' + (x % 10) as u8;
            x /= 10;
            k += 1;
        }
        e[7] = n as u8;
        t[v] = e;
        v += 1;
    }
    t
};

/// The elements of a list of unsigned bytes in decimal, `, ` between them, filled to the line
/// width from column `col` as [`Printer::packed`] fills other lists. A byte table is one
/// element per byte of text in the hundreds of kilobytes (cuRAND's): each element is a copy
/// of 8 bytes from a table, then the length set.
fn byte_list(bytes: &[u8], mut col: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 5 + 8);
    for (i, &b) in bytes.iter().enumerate() {
        let e = &BYTE_TEXT[b as usize];
        let n = e[7] as usize;
        if i == 0 {
            out.extend_from_slice(&e[2..2 + n]);
        } else if col + n + 2 > WIDTH {
            out.extend_from_slice(b",\n\t");
            out.extend_from_slice(&e[2..2 + n]);
            col = 0;
        } else {
            let at = out.len();
            out.extend_from_slice(e);
            out.truncate(at + 2 + n);
        }
        col += n + 2;
    }
    out
}

fn dec(bits: u64, s: &mut String) {
    let v = f64::from_bits(bits);
    if v.is_infinite() {
        s.push_str(if v < 0.0 { "-1e999" } else { "1e999" });
    } else if v.is_nan() {
        // No decimal spelling exists; the exact bits keep the value.
        let _ = write!(s, "0d{bits:016X}");
    } else {
        let t = format!("{v:?}");
        s.push_str(&t);
    }
}

/// An opaque variable's member list on one line, `{ addr_mode_0 = wrap, filter_mode = linear }`
/// (at most 15 short members, so it never needs filling).
fn opaque_text(fields: &[ptx_ir_core::OpaqueField]) -> String {
    let mut s = String::from("{ ");
    for (k, f) in fields.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        f.write_text(&mut s);
    }
    s.push_str(" }");
    s
}

#[cfg(test)]
mod tests {
    use super::{byte_list, int_list};

    /// The byte-table path writes what the general integer path writes, wherever the list
    /// starts on its line and whatever the values' widths.
    #[test]
    fn byte_lists_print_as_integer_lists() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut bytes: Vec<u8> = (0..=255).collect();
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            bytes.push(match seed % 3 {
                0 => (seed >> 8) as u8 % 10,
                1 => 10 + (seed >> 8) as u8 % 90,
                _ => (seed >> 8) as u8,
            });
        }
        for len in [0, 1, 2, 37, bytes.len()] {
            for col in [0, 1, 40, 97, 98, 99, 100, 120] {
                let mut want = String::new();
                int_list(&mut want, &bytes[..len], 1, false, col);
                let got = byte_list(&bytes[..len], col);
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    want,
                    "{len} bytes from {col}"
                );
            }
        }
    }
}
