"""Contraction probes: `mul` and `add`/`sub` with no rounding modifier, which ptxas may fuse into
one FMA (one rounding), in the shapes compiled code has them (operand orders, `neg`, products
with several uses, guards, branches, loops, immediates, `.ftz`/`.sat` mixes, explicit `.rn`).

Inputs are chosen so that fusing shows: in most lanes the addend cancels the rounded product
(`c = -round(a*b)`), so one rounding leaves the product's rounding error where two leave zero;
the last quarter of the lanes has unrelated values. Used by gen.py's `contract` family
(corpus/vectors/contract.jsonl.xz) and read by docs/INTERP.md's contraction rules.
"""

import math
import random
import struct

RNG = random.Random(20261127)

# name: (register width, lanes per register, ftz/sat allowed)
TYPES = {"f32": (32, 1, True), "f64": (64, 1, False), "f16": (16, 1, True),
         "f16x2": (32, 2, True), "bf16": (16, 1, False), "bf16x2": (32, 2, False)}
REG = {16: ".b16", 32: ".b32", 64: ".b64"}


def elem(t):
    return {"f16x2": "f16", "bf16x2": "bf16"}.get(t, t)


def to_float(t, bits):
    t = elem(t)
    if t == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if t == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if t == "f16":
        return struct.unpack("<e", struct.pack("<H", bits))[0]
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def to_bits(t, x):
    """x rounded to nearest even in t. Products of two f16/bf16/f32 values are exact in a
    Python float, so rounding from it is the single rounding the GPU does."""
    t = elem(t)
    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", x))[0]
    if t == "f16":
        try:
            return struct.unpack("<H", struct.pack("<e", x))[0]
        except OverflowError:
            return 0x7C00 if x > 0 else 0xFC00
    # bf16: round the exact f32 bits (a bf16 product fits f32 exactly) to the upper half.
    f = struct.unpack("<I", struct.pack("<f", x))[0]
    lsb = (f >> 16) & 1
    return ((f + 0x7FFF + lsb) >> 16) & 0xFFFF


def rand_val(t, lo, hi):
    """A random value of t with exponent in [lo, hi] and a random sign."""
    e = RNG.randint(lo, hi)
    m = 1 + RNG.random()
    return to_bits(t, RNG.choice([-1, 1]) * m * 2.0 ** e)


def exps(t):
    return {"f16": (-3, 3), "bf16": (-6, 6), "f32": (-12, 12), "f64": (-20, 20)}[elem(t)]


def lane_inputs(t, rel, fixed_b=None, fixed_c=None):
    """(a, b, c) for one element. rel: how c relates to the product p = round(a*b):
    'neg' c = -p, 'pos' c = p, 'sq' c*c close to -a*b (a < 0 < b), 'sqp' c*c close to a*b,
    'recip' a*b close to -c (c fixed), 'free' unrelated."""
    lo, hi = exps(t)
    a = rand_val(t, lo, hi)
    b = fixed_b if fixed_b is not None else rand_val(t, lo, hi)
    fa, fb = to_float(t, a), to_float(t, b)
    if rel == "free":
        return a, b, (fixed_c if fixed_c is not None else rand_val(t, lo, hi))
    if rel in ("sq", "sqp"):
        fa, fb = abs(fa), abs(fb)
        a, b = to_bits(t, -fa if rel == "sq" else fa), to_bits(t, fb)
        fa = to_float(t, a)
        return a, b, to_bits(t, math.sqrt(abs(fa * fb)))
    if rel == "recip":
        fc = to_float(t, fixed_c)
        b = to_bits(t, -fc / fa)
        return a, b, fixed_c
    p = to_float(t, to_bits(t, fa * fb))
    return a, b, to_bits(t, -p if rel == "neg" else p)


def inputs(t, rel, n, fixed_b=None, fixed_c=None):
    """Three columns of n register values; packed types get independent halves."""
    w, k, _ = TYPES[t]
    cols = [[], [], []]
    for i in range(n):
        r = rel if i < 3 * n // 4 else "free"
        regs = [0, 0, 0]
        for h in range(k):
            trio = lane_inputs(t, r, fixed_b, fixed_c)
            for j in range(3):
                regs[j] |= trio[j] << (16 * h)
        for j in range(3):
            cols[j].append(regs[j])
    return cols


def imm(t, bits):
    """An immediate operand for t (f16/bf16 registers take a .b16 register: no immediates)."""
    if t == "f32":
        return "0f%08X" % bits
    if t == "f64":
        return "0d%016X" % bits
    return None


def build(case, n):
    """Adds every contraction probe through gen.py's `case(name, family, body, ins, out,
    extra, inputs)`."""
    for t, (w, k, ftz_sat) in TYPES.items():
        r = REG[w]
        wide = {16: "b32", 32: "b64"}.get(w)
        tmp = "{ .reg %s %%x<8>; .reg .pred %%q<4>; " % r

        def add(name, body, rel, out=None, ins_override=None):
            cols = ins_override or inputs(t, rel, n)
            case("contract.%s.%s" % (name, t), "contract", tmp + body + " }",
                 [t, t, t], out or t, inputs=cols)

        m = "mul.%s" % t
        s = lambda op: "%s.%s" % (op, t)  # noqa: E731
        add("mul+add", "%s %%x1, %%a, %%b; %s %%d, %%x1, %%c;" % (m, s("add")), "neg")
        add("add.swapped", "%s %%x1, %%a, %%b; %s %%d, %%c, %%x1;" % (m, s("add")), "neg")
        add("sub.product_first", "%s %%x1, %%a, %%b; %s %%d, %%x1, %%c;" % (m, s("sub")), "pos")
        add("sub.product_second", "%s %%x1, %%a, %%b; %s %%d, %%c, %%x1;" % (m, s("sub")), "pos")
        add("mul.rn+add", "mul.rn.%s %%x1, %%a, %%b; %s %%d, %%x1, %%c;" % (t, s("add")), "neg")
        add("mul+add.rn", "%s %%x1, %%a, %%b; add.rn.%s %%d, %%x1, %%c;" % (m, t), "neg")
        add("mul+sub.rn", "%s %%x1, %%a, %%b; sub.rn.%s %%d, %%x1, %%c;" % (m, t), "pos")
        if t in ("f32", "f64"):
            add("mul+add.rz", "%s %%x1, %%a, %%b; add.rz.%s %%d, %%x1, %%c;" % (m, t), "neg")
            add("mul.rz+add", "mul.rz.%s %%x1, %%a, %%b; %s %%d, %%x1, %%c;" % (t, s("add")),
                "neg")
        add("neg+add", "%s %%x1, %%a, %%b; neg.%s %%x2, %%x1; %s %%d, %%x2, %%c;"
            % (m, t, s("add")), "pos")
        add("neg+sub", "%s %%x1, %%a, %%b; neg.%s %%x2, %%x1; %s %%d, %%c, %%x2;"
            % (m, t, s("sub")), "neg")
        add("mov+add", "%s %%x1, %%a, %%b; mov.b%d %%x2, %%x1; %s %%d, %%x2, %%c;"
            % (m, w, s("add")), "neg")
        # Two products: which one is fused (or neither).
        add("two_products", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%d, %%x1, %%x2;"
            % (m, m, s("add")), "sq")
        add("two_products.swapped", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%d, %%x2, %%x1;"
            % (m, m, s("add")), "sq")
        add("two_products.sub", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%d, %%x1, %%x2;"
            % (m, m, s("sub")), "sqp")
        add("two_products.sub_swapped",
            "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%d, %%x2, %%x1;" % (m, m, s("sub")), "sqp")
        # Dot-product chain: (a*b + c*c) + a*b.
        add("dot_chain", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%x3, %%x1, %%x2; "
            "%s %%x4, %%a, %%b; %s %%d, %%x3, %%x4;" % (m, m, s("add"), m, s("add")), "sq")
        # A product with a second use.
        add("second_use.setp", "%s %%x1, %%a, %%b; %s %%x2, %%x1, %%c; setp.eq.%s %%q1%s, "
            "%%x1, %%x1; selp.b%d %%d, %%x2, %%a, %%q1;"
            % (m, s("add"), t, "|%q2" if k == 2 else "", w), "neg")
        if wide:
            add("second_use.add", "%s %%x1, %%a, %%b; %s %%x2, %%x1, %%c; %s %%x3, %%x1, %%a; "
                "mov.%s %%d, {%%x2, %%x3};" % (m, s("add"), s("add"), wide), "neg", out=wide)
            add("second_use.mul", "%s %%x1, %%a, %%b; %s %%x2, %%x1, %%c; %s %%x3, %%x1, %%a; "
                "mov.%s %%d, {%%x2, %%x3};" % (m, s("add"), m, wide), "neg", out=wide)
            add("second_use.store_order", "%s %%x1, %%a, %%b; %s %%x3, %%x1, %%a; "
                "%s %%x2, %%x1, %%c; mov.%s %%d, {%%x2, %%x3};" % (m, s("add"), s("add"), wide),
                "neg", out=wide)
        # Which product an add of two takes when they have other uses: the one fewer adds
        # take (the first operand's on a tie), and a product fused only where every add that
        # could take it does (results combined by a last add).
        add("choice.first_twice", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%x3, %%x1, %%x2; "
            "%s %%x4, %%x1, %%a; %s %%d, %%x3, %%x4;" % (m, m, s("add"), s("add"), s("add")), "sq")
        add("choice.second_twice", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%x3, %%x1, %%x2; "
            "%s %%x4, %%x2, %%a; %s %%d, %%x3, %%x4;" % (m, m, s("add"), s("add"), s("add")), "sq")
        add("choice.three_vs_two", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%x3, %%x1, %%x2; "
            "%s %%x4, %%x1, %%a; %s %%x5, %%x1, %%c; %s %%x6, %%x2, %%b; %s %%d, %%x3, %%x4; "
            "%s %%d, %%d, %%x5; %s %%d, %%d, %%x6;"
            % (m, m, s("add"), s("add"), s("add"), s("add"), s("add"), s("add"), s("add")), "sq")
        add("choice.fallback", "%s %%x1, %%a, %%b; %s %%x2, %%c, %%c; %s %%x6, %%a, %%c; "
            "%s %%x3, %%x2, %%x1; %s %%x5, %%x1, %%x6; %s %%x7, %%x2, %%a; %s %%x4, %%x2, %%b; "
            "%s %%d, %%x3, %%x5; %s %%d, %%d, %%x7; %s %%d, %%d, %%x4;"
            % (m, m, m, s("add"), s("add"), s("add"), s("add"), s("add"), s("add"), s("add")),
            "sq")
        # Copies of one product, each read by an add: ptxas sees through them (both fuse).
        add("two_copies", "%s %%x1, %%a, %%b; mov.b%d %%x5, %%x1; neg.%s %%x7, %%x1; "
            "%s %%x3, %%x5, %%c; %s %%x4, %%x7, %%a; %s %%d, %%x3, %%x4;"
            % (m, w, t, s("add"), s("add"), s("add")), "neg")
        # Code ptxas deletes: a move of a register to itself, a dead move of the product.
        add("self_mov", "and.b32 %%t5, %%t1, 1; setp.ne.u32 %%q0, %%t5, 0; %s %%x1, %%a, %%b; "
            "@%%q0 mov.b%d %%x1, %%x1; mov.b%d %%x1, %%x1; %s %%d, %%x1, %%c;"
            % (m, w, w, s("add")), "neg")
        add("dead_mov_use", "%s %%x1, %%a, %%b; mov.b%d %%x2, %%x1; mov.b%d %%x2, %%c; "
            "%s %%d, %%x1, %%x2;" % (m, w, w, s("add")), "neg")
        add("dead_add_use", "%s %%x1, %%a, %%b; %s %%x2, %%x1, %%a; mov.b%d %%x2, %%c; "
            "%s %%d, %%x1, %%x2;" % (m, s("add"), w, s("add")), "neg")
        # Guards and control flow (lanes with an odd thread index take the other path).
        odd = "and.b32 %t5, %t1, 1; setp.ne.u32 %q0, %t5, 0; "
        add("guarded_add", odd + "%s %%x1, %%a, %%b; mov.b%d %%d, %%a; @%%q0 %s %%d, %%x1, %%c;"
            % (m, w, s("add")), "neg")
        add("guarded_mul", odd + "mov.b%d %%x1, %%a; @%%q0 %s %%x1, %%a, %%b; %s %%d, %%x1, %%c;"
            % (w, m, s("add")), "neg")
        add("guarded_both", odd + "mov.b%d %%d, %%a; @%%q0 %s %%x1, %%a, %%b; "
            "@%%q0 %s %%d, %%x1, %%c;" % (w, m, s("add")), "neg")
        add("branch_join", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_skip; mov.b32 %%t6, 5; "
            "$L_skip: %s %%d, %%x1, %%c;" % (m, s("add")), "neg")
        # Arms whose code is all dead (ptxas deletes it, then the branch, joining the blocks)
        # and an arm whose code is live only through a store or a load (kept).
        add("branch_join.dead_add", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_skip; "
            "%s %%x6, %%a, %%c; $L_skip: %s %%d, %%x1, %%c;" % (m, s("add"), s("add")), "neg")
        add("branch_join.dead_chain", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_skip; "
            "%s %%x6, %%a, %%c; %s %%x7, %%x6, %%b; and.b32 %%t6, %%t5, 3; "
            "$L_skip: %s %%d, %%x1, %%c;" % (m, m, s("add"), s("add")), "neg")
        add("branch_join.if_else_dead", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_else; "
            "mov.b32 %%t6, 5; bra.uni $L_end; $L_else: mov.b32 %%t7, 6; "
            "$L_end: %s %%d, %%x1, %%c;" % (m, s("add")), "neg")
        add("branch_join.dead_load", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_skip; "
            "ld.global.b32 %%t6, [%%ad1]; $L_skip: %s %%d, %%x1, %%c;" % (m, s("add")), "neg")
        add("branch_join.live_store", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_skip; "
            "st.global.b32 [%%ad1], %%t5; $L_skip: %s %%d, %%x1, %%c;" % (m, s("add")), "neg")
        add("branch_join.dead_read_later", odd + "%s %%x1, %%a, %%b; mov.b32 %%t6, 0; "
            "@%%q0 bra $L_skip; mov.b32 %%t6, 5; $L_skip: %s %%d, %%x1, %%c; "
            "add.u32 %%t7, %%t6, 1;" % (m, s("add")), "neg")
        add("branch_two_adds", odd + "%s %%x1, %%a, %%b; @%%q0 bra $L_other; "
            "%s %%d, %%x1, %%c; bra.uni $L_end; $L_other: %s %%d, %%c, %%x1; $L_end:"
            % (m, s("add"), s("add")), "neg")
        add("branch_mul_in_arm", odd + "mov.b%d %%x1, %%a; @%%q0 bra $L_skip; "
            "%s %%x1, %%a, %%b; $L_skip: %s %%d, %%x1, %%c;" % (w, m, s("add")), "neg")
        add("loop_accumulate", "and.b32 %%t5, %%t1, 1; add.u32 %%t5, %%t5, 1; mov.u32 %%t6, 0; "
            "mov.b%d %%d, %%c; $L_loop: %s %%x1, %%a, %%b; %s %%d, %%d, %%x1; "
            "add.u32 %%t6, %%t6, 1; setp.lt.u32 %%q1, %%t6, %%t5; @%%q1 bra $L_loop;"
            % (w, m, s("add")), "neg")
        add("operand_redefined", "%s %%x1, %%a, %%b; mov.b%d %%a, %%c; %s %%d, %%x1, %%a;"
            % (m, w, s("add")), "neg")
        add("product_redefined_between", "%s %%x1, %%a, %%b; %s %%x2, %%x1, %%c; "
            "%s %%x1, %%c, %%c; %s %%d, %%x2, %%x1;" % (m, s("add"), m, s("sub")), "neg")
        # Immediates (f32/f64 only: half types take no float immediates).
        bimm = {"f32": 0x3DCCCCCD, "f64": 0x3FB999999999999A}.get(t)
        if bimm is not None:
            add("mul_immediate", "%s %%x1, %%a, %s; %s %%d, %%x1, %%c;"
                % (m, imm(t, bimm), s("add")), None,
                ins_override=inputs(t, "neg", n, fixed_b=bimm))
            cimm = {"f32": 0xBF800000, "f64": 0xBFF0000000000000}[t]
            add("add_immediate", "%s %%x1, %%a, %%b; %s %%d, %%x1, %s;"
                % (m, s("add"), imm(t, cimm)), None,
                ins_override=inputs(t, "recip", n, fixed_c=cimm))
        if ftz_sat:
            for mm, am in [(".ftz", ".ftz"), (".ftz", ""), ("", ".ftz"), ("", ".sat"),
                           (".sat", ""), (".ftz", ".ftz.sat"), (".ftz.sat", ".ftz")]:
                rel = "pos" if "sat" in am else "neg"
                op = "sub" if rel == "pos" else "add"
                add("mul%s+%s%s" % (mm, op, am), "mul%s.%s %%x1, %%a, %%b; %s%s.%s %%d, %%x1, %%c;"
                    % (mm, t, op, am, t), rel)


def build_fold(case, n):
    """NaN signs after ptxas folds `neg`/`abs` into the instruction that uses the result (an
    FSEL or FADD with a negated operand): operands are NaNs of both signs and payloads, and
    ordinary values; lanes with an odd thread index select the other operand."""
    nans = {"f32": [0x7FC00000, 0xFFC00000, 0x7FA00001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF],
            "f64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
                    0xFFF4000000000000],
            "f16": [0x7E00, 0xFE00, 0x7C01, 0xFD00]}
    odd = "and.b32 %t5, %t1, 1; setp.ne.u32 %q0, %t5, 0; "
    for t, w in [("f32", 32), ("f64", 64), ("f16", 16)]:
        cols = []
        for j in range(3):
            col = []
            for i in range(n):
                if j < 2 and (i + j) % 3 != 2:
                    col.append(nans[t][RNG.randrange(len(nans[t]))])
                else:
                    col.append(rand_val(t, -4, 4))
            cols.append(col)
        tmp = "{ .reg .b%d %%x<4>; .reg .pred %%q<2>; " % w

        def add(name, body):
            case("fold.%s.%s" % (name, t), "fold", tmp + odd + body + " }", [t, t, t], t,
                 inputs=cols)

        b = "b%d" % w
        add("neg+selp", "neg.%s %%x1, %%a; selp.%s %%d, %%x1, %%b, %%q0;" % (t, b))
        add("neg+selp.second", "neg.%s %%x1, %%a; selp.%s %%d, %%b, %%x1, %%q0;" % (t, b))
        add("abs+selp", "abs.%s %%x1, %%a; selp.%s %%d, %%x1, %%b, %%q0;" % (t, b))
        add("neg+mov", "neg.%s %%x1, %%a; mov.%s %%d, %%x1;" % (t, b))
        add("neg+neg", "neg.%s %%x1, %%a; neg.%s %%d, %%x1;" % (t, t))
        add("neg+neg.in_place", "neg.%s %%a, %%a; neg.%s %%d, %%a;" % (t, t))
        add("neg+neg.source_changed", "neg.%s %%x1, %%a; mov.%s %%a, %%b; neg.%s %%d, %%x1;"
            % (t, b, t))
        add("neg+neg.guarded", "mov.%s %%d, %%b; neg.%s %%x1, %%a; @%%q0 neg.%s %%d, %%x1;"
            % (b, t, t))
        add("neg+abs", "neg.%s %%x1, %%a; abs.%s %%d, %%x1;" % (t, t))
        add("abs+neg", "abs.%s %%x1, %%a; neg.%s %%d, %%x1;" % (t, t))
        add("neg+add", "neg.%s %%x1, %%a; add.rn.%s %%d, %%x1, %%b;" % (t, t))
        add("neg+mul", "neg.%s %%x1, %%a; mul.rn.%s %%d, %%x1, %%b;" % (t, t))
        add("neg+fma", "neg.%s %%x1, %%a; fma.rn.%s %%d, %%x1, %%b, %%c;" % (t, t))
        add("neg+min", "neg.%s %%x1, %%a; min.%s %%d, %%x1, %%b;" % (t, t))
        add("neg+setp", "neg.%s %%x1, %%a; setp.nan.%s %%q1, %%x1, %%b; "
            "selp.%s %%d, %%x1, %%c, %%q1;" % (t, t, b))
        add("neg.guarded", "mov.%s %%d, %%b; @%%q0 neg.%s %%d, %%a;" % (b, t))
        add("neg+selp.both", "neg.%s %%x1, %%a; neg.%s %%x2, %%b; selp.%s %%d, %%x1, %%x2, %%q0;"
            % (t, t, b))
