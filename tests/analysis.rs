//! Def-use, control-flow graphs and traversal on small PTX functions.

use ptx_ir::ir::cfg::{Cfg, CfgError, EndKind};
use ptx_ir::ir::defuse::{defs, registers, roles, uses, DefUse, Role};
use ptx_ir::ir::walk::{self, instructions, Edit, Path, Visit, VisitMut};
use ptx_ir::ir::{Function, Module, Name, Opcode, Operand, Statement};
use ptx_ir::text;

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

fn parse(body: &str) -> Module {
    let src = format!("{HEADER}{body}");
    text::parse(&src).unwrap_or_else(|e| panic!("{e}"))
}

fn func<'m>(m: &'m Module, name: &str) -> &'m Function {
    m.function(name).unwrap()
}

fn names(m: &Module, v: &[Name]) -> Vec<String> {
    v.iter().map(|&n| m.names.get(n).to_string()).collect()
}

const DEFUSE: &str = r#"
.func (.param .b32 r) twice(.param .b32 x)
{
	.reg .b32 %t;
	ld.param.b32 %t, [x];
	shl.b32 %t, %t, 1;
	st.param.b32 [r], %t;
	ret;
}

.visible .entry k(.param .u64 out, .param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	mul.lo.s32 %r3, %r2, 4;
	add.s32 %r4, %r3, %r1;
	setp.lt.s32 %p1|%p2, %r4, 10;
	ld.global.v2.u32 {%r5, %r6}, [%rd1];
	atom.global.add.u32 %r7, [%rd1], %r5;
	st.global.u32 [%rd1+4], %r6;
	red.global.add.u32 [%rd1], %r7;
	{
	.param .b32 a0;
	.param .b32 r0;
	st.param.b32 [a0], %r4;
	call.uni (r0), twice, (a0);
	ld.param.b32 %r8, [r0];
	}
	@%p1 add.s32 %r8, %r8, %r8;
	shfl.sync.bfly.b32 %r9|%p2, %r8, 1, 31, -1;
	ret;
}
"#;

#[test]
fn defs_and_uses_per_instruction() {
    let m = parse(DEFUSE);
    let body = func(&m, "k").statements().unwrap();
    let by_op = |op: Opcode, k: usize| {
        instructions(body)
            .filter(|(_, i)| i.opcode == op)
            .nth(k)
            .map(|(_, i)| i.clone())
            .unwrap()
    };
    let check = |op: Opcode, k: usize, d: &[&str], u: &[&str]| {
        let i = by_op(op, k);
        assert_eq!(names(&m, &defs(&i)), d, "defs of {op:?} #{k}");
        assert_eq!(names(&m, &uses(&i)), u, "uses of {op:?} #{k}");
    };
    check(Opcode::Ld, 0, &["%rd1"], &["out"]);
    check(Opcode::Mov, 0, &["%r2"], &[]);
    check(Opcode::Mul, 0, &["%r3"], &["%r2"]);
    check(Opcode::Setp, 0, &["%p1", "%p2"], &["%r4"]);
    check(Opcode::Ld, 2, &["%r5", "%r6"], &["%rd1"]);
    check(Opcode::Atom, 0, &["%r7"], &["%rd1", "%r5"]);
    check(Opcode::St, 0, &[], &["%rd1", "%r6"]);
    check(Opcode::Red, 0, &[], &["%rd1", "%r7"]);
    check(Opcode::Call, 0, &["r0"], &["a0"]);
    // The guard is a use; a name read twice is reported twice.
    check(Opcode::Add, 1, &["%r8"], &["%p1", "%r8", "%r8"]);
    check(Opcode::Shfl, 0, &["%r9", "%p2"], &["%r8"]);
    check(Opcode::Ret, 0, &[], &[]);
    assert_eq!(
        &roles(&by_op(Opcode::Call, 0))[..],
        [Role::Def, Role::Target, Role::Use]
    );
}

#[test]
fn def_use_index() {
    let m = parse(DEFUSE);
    let f = func(&m, "k");
    let du = DefUse::of_function(f);
    let n = |s: &str| m.names.find(s).unwrap();
    let body = f.statements().unwrap();
    let op_at = |p: &Path| walk::instruction(body, p).unwrap().opcode;
    // %r3: defined by the mul, used once by the add.
    let d = du.single_def(n("%r3")).unwrap();
    assert_eq!(op_at(d), Opcode::Mul);
    let u = du.single_use(n("%r3")).unwrap();
    assert_eq!(op_at(u), Opcode::Add);
    // %r4 is used by setp and by the st.param inside the block.
    let u: Vec<String> = du.uses(n("%r4")).iter().map(|p| p.to_string()).collect();
    assert_eq!(u.len(), 2);
    assert!(u[1].contains('.'), "the second use is nested: {u:?}");
    // %r8 is defined twice (ld, guarded add) and used three times.
    assert_eq!(du.defs(n("%r8")).len(), 2);
    assert_eq!(du.uses(n("%r8")).len(), 3);
    assert!(du.single_def(n("%r8")).is_none());
    // Uses are in source order.
    let all = du.uses(n("%rd1"));
    assert!(all.windows(2).all(|w| w[0] <= w[1]));
    // Registers are told apart from variables.
    let regs = registers(&m.names, f);
    for r in ["%p1", "%p2", "%r1", "%r9", "%rd1"] {
        assert!(regs.contains(&n(r)), "{r}");
    }
    for v in ["out", "n", "a0", "r0", "twice"] {
        assert!(!regs.contains(&n(v)), "{v}");
    }
    assert!(registers(&m.names, func(&m, "twice")).contains(&n("%t")));
    assert!(du.names().contains(&n("out")));
}

const CFG: &str = r#"
.visible .entry c(.param .u32 n)
{
	.reg .pred %p<3>;
	.reg .b32 %r<5>;
	ld.param.u32 %r1, [n];
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	and.b32 %r2, %r1, 3;
	ts: .branchtargets C0, C1, C2, C0;
	brx.idx %r2, ts;
C0:
	add.u32 %r3, %r1, 1;
	bra.uni JOIN;
C1:
	{
	add.u32 %r3, %r1, 2;
	}
	setp.gt.u32 %p2, %r3, 5;
	@%p2 ret;
C2:
	@!%p2 exit;
	trap;
JOIN:
	mov.u32 %r4, %r3;
DONE:
	ret;
}
"#;

#[test]
fn cfg_of_branches_switches_and_returns() {
    let m = parse(CFG);
    let f = func(&m, "c");
    let body = f.statements().unwrap();
    let cfg = Cfg::of_function(f).unwrap();
    let succs: Vec<Vec<usize>> = cfg.blocks().iter().map(|b| b.succs.clone()).collect();
    assert_eq!(
        succs,
        [
            vec![7, 1],
            vec![2, 3, 4],
            vec![6],
            vec![4],
            vec![5],
            vec![],
            vec![7],
            vec![]
        ]
    );
    let preds: Vec<Vec<usize>> = cfg.blocks().iter().map(|b| b.preds.clone()).collect();
    assert_eq!(
        preds,
        [
            vec![],
            vec![0],
            vec![1],
            vec![1],
            vec![1, 3],
            vec![4],
            vec![2],
            vec![0, 6]
        ]
    );
    let ends: Vec<Option<(EndKind, bool)>> = cfg
        .blocks()
        .iter()
        .map(|b| b.end.as_ref().map(|e| (e.kind, e.conditional)))
        .collect();
    use EndKind::*;
    assert_eq!(
        ends,
        [
            Some((Branch, true)),
            Some((Switch, false)),
            Some((Branch, false)),
            Some((Return, true)),
            Some((Exit, true)),
            Some((Trap, false)),
            None,
            Some((Return, false)),
        ]
    );
    let label = |s: &str| cfg.block_of_label(m.names.find(s).unwrap()).unwrap();
    assert_eq!(
        [
            label("C0"),
            label("C1"),
            label("C2"),
            label("JOIN"),
            label("DONE")
        ],
        [2, 3, 4, 6, 7]
    );
    assert_eq!(cfg.exits().collect::<Vec<_>>(), [5, 7]);
    // Every statement (not the `{ }` container) is in exactly one block, in order.
    let flat: Vec<Path> = walk::statements(body)
        .filter(|(_, s)| !matches!(s, Statement::Block(_)))
        .map(|(p, _)| p)
        .collect();
    let covered: Vec<Path> = cfg.blocks().iter().flat_map(|b| b.stmts.clone()).collect();
    assert_eq!(flat, covered);
    for (id, b) in cfg.blocks().iter().enumerate() {
        for p in &b.stmts {
            assert_eq!(cfg.block_of(p), Some(id));
        }
    }
    // The nested add is in C1's block.
    let nested = instructions(body).find(|(p, _)| p.depth() == 1).unwrap().0;
    assert_eq!(cfg.block_of(&nested), Some(3));
    assert_eq!(cfg.block_of(&Path::from_indices(&[99])), None);
    let rpo = cfg.reverse_postorder();
    assert_eq!(rpo[0], 0);
    assert_eq!(rpo.len(), 8);
    assert!(cfg.reachable().iter().all(|&r| r));
}

#[test]
fn cfg_edge_cases() {
    // Code after an unconditional branch is an unreachable block; consecutive labels share a
    // block; a body that falls off its end exits.
    let m = parse(
        ".visible .entry e()\n{\n\t.reg .b32 %r<2>;\n\tbra L;\n\tadd.u32 %r1, %r1, 1;\nL:\nM:\n\tadd.u32 %r1, %r1, 2;\n}\n",
    );
    let cfg = Cfg::of_function(func(&m, "e")).unwrap();
    assert_eq!(cfg.blocks().len(), 3);
    assert_eq!(cfg.block(0).succs, [2]);
    assert_eq!(cfg.block(2).labels.len(), 2);
    assert_eq!(cfg.reachable(), [true, false, true]);
    assert_eq!(
        cfg.block(1).succs,
        [2],
        "the unreachable block falls through"
    );
    assert_eq!(cfg.exits().collect::<Vec<_>>(), [2]);
    // Calls do not end blocks.
    let m = parse(DEFUSE);
    let cfg = Cfg::of_function(func(&m, "k")).unwrap();
    assert_eq!(cfg.blocks().len(), 1);
    // An empty body and a declaration have one empty block.
    let m = parse(".visible .entry z()\n{\n}\n.extern .func d();\n");
    for f in ["z", "d"] {
        let cfg = Cfg::of_function(func(&m, f)).unwrap();
        assert_eq!(cfg.blocks().len(), 1);
        assert!(cfg.block(0).succs.is_empty());
    }
    // Unresolvable branches.
    let m = parse(".visible .entry u()\n{\n\tbra NOWHERE;\n}\n");
    let e = Cfg::of_function(func(&m, "u")).unwrap_err();
    assert_eq!(e, CfgError::UnknownLabel(m.names.find("NOWHERE").unwrap()));
    let m = parse(".visible .entry u()\n{\n\t.reg .b32 %r;\nL:\n\tbrx.idx %r, L;\n}\n");
    assert!(matches!(
        Cfg::of_function(func(&m, "u")),
        Err(CfgError::UnknownTargets(_))
    ));
    let m = parse(".visible .entry u()\n{\nL:\n\tret;\nL:\n\tret;\n}\n");
    assert!(matches!(
        Cfg::of_function(func(&m, "u")),
        Err(CfgError::DuplicateLabel(_))
    ));
}

#[test]
fn visitors_and_rewrites_on_parsed_ptx() {
    let mut m = parse(DEFUSE);
    // Count instructions with a shared visitor, nested blocks included.
    struct Count(usize);
    impl Visit for Count {
        fn visit_instruction(&mut self, _: &ptx_ir::ir::Instruction) {
            self.0 += 1;
        }
    }
    let mut c = Count(0);
    c.visit_module(&m);
    assert_eq!(c.0, m.instruction_count());

    // Rename a register everywhere with a mutable visitor.
    let (from, to) = (m.names.find("%r9").unwrap(), m.names.intern("%r0"));
    struct Rename(Name, Name);
    impl VisitMut for Rename {
        fn visit_operand_mut(&mut self, o: &mut Operand) {
            if let Operand::Reg { name, .. } = o {
                if *name == self.0 {
                    *name = self.1;
                }
            }
            walk::walk_operand_mut(self, o);
        }
    }
    Rename(from, to).visit_module_mut(&mut m);
    let printed = text::print(&m);
    assert!(printed.contains("shfl.sync.bfly.b32 %r0|%p2"), "{printed}");

    // Remove every `red` and duplicate every `ret`, by original path.
    let f = m
        .functions_mut()
        .find(|f| f.statements().is_some_and(|b| b.len() > 5))
        .unwrap();
    let body = f.statements_mut().unwrap();
    let before = ptx_ir::ir::count_instructions(body);
    walk::rewrite(body, &mut |_, s| match s {
        Statement::Inst(i) if i.opcode == Opcode::Red => Edit::Remove,
        Statement::Inst(i) if i.opcode == Opcode::Ret => Edit::Replace(vec![s.clone(), s.clone()]),
        _ => Edit::Keep,
    });
    assert_eq!(ptx_ir::ir::count_instructions(body), before);
    let back = text::parse(&text::print(&m)).unwrap();
    assert_eq!(back.instruction_count(), m.instruction_count());
}
