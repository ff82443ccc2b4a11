#!/usr/bin/env python3
"""More contraction and NaN-fold shapes, read from the SASS only (no GPU): each line below is
a body over f32 registers %a %b %c (loaded), %d (stored), %x1..%x7, predicates %q0 (odd
threads) and %q1..%q3; prints the floating-point SASS ptxas 13.0 makes of it for sm_90a.

    python3 tools/hwvectors/probes/contract_shapes.py [SHAPES_FILE]

SHAPES_FILE, if given, replaces the shapes below (same `name| body` lines).

Needs `ptxas` and `cuobjdump` on PATH (tools/realprog/cuda_local.sh installs CUDA 13.0 from
PyPI; cuobjdump comes from the nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm wheels).
"""
import os
import re
import subprocess
import sys
import tempfile

HDR = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p)
{
 .reg .f32 %a,%b,%c,%d,%x<8>; .reg .pred %q<4>; .reg .b64 %ad; .reg .b32 %t<8>;
 ld.param.u64 %ad,[p]; mov.u32 %t1,%tid.x; and.b32 %t2,%t1,1; setp.ne.u32 %q0,%t2,0;
 ld.global.f32 %a,[%ad]; ld.global.f32 %b,[%ad+4]; ld.global.f32 %c,[%ad+8];
 BODY
 st.global.f32 [%ad+12], %d;
 ret;
}
"""
SHAPES = """
arm_single| mul.f32 %x1,%a,%b; @%q0 bra $L; add.f32 %d,%x1,%c; $L:
arm_single2| mov.f32 %d, %a; mul.f32 %x1,%a,%b; @%q0 bra $L; add.f32 %d,%x1,%c; $L:
loop_then_add| mov.u32 %t3,0; $L: mul.f32 %x1,%a,%b; add.f32 %a,%a,%c; add.u32 %t3,%t3,1; setp.lt.u32 %q1,%t3,%t1; @%q1 bra $L; add.f32 %d,%x1,%c;
add_self| mul.f32 %x1,%a,%b; add.f32 %d,%x1,%x1;
abs_prod| mul.f32 %x1,%a,%b; abs.f32 %x2,%x1; add.f32 %d,%x2,%c;
two_uses_other_block| mul.f32 %x1,%a,%b; @%q0 bra $L; mov.f32 %c, %a; $L: add.f32 %x2,%x1,%c; sub.f32 %x3,%x1,%a; add.f32 %d,%x2,%x3;
two_uses_one_arm| mov.f32 %d,%a; mul.f32 %x1,%a,%b; @%q0 bra $L; add.f32 %x2,%x1,%c; sub.f32 %x3,%x1,%a; add.f32 %d,%x2,%x3; $L:
two_uses_mul_block_and_other| mul.f32 %x1,%a,%b; add.f32 %x2,%x1,%c; @%q0 bra $L; add.f32 %x2,%x1,%a; $L: mov.f32 %d,%x2;
neg_two_uses| mul.f32 %x1,%a,%b; neg.f32 %x2,%x1; add.f32 %x3,%x2,%c; add.f32 %x4,%x1,%a; add.f32 %d,%x3,%x4;
neg_used_elsewhere| mul.f32 %x1,%a,%b; neg.f32 %x2,%x1; add.f32 %x3,%x2,%c; mul.f32 %x4,%x2,%a; add.f32 %d,%x3,%x4;
first_not_eligible| mul.f32 %x1,%a,%b; mul.f32 %x2,%c,%c; add.f32 %x3,%x1,%x2; mul.f32 %x5,%x1,%a; add.f32 %d,%x3,%x5;
fma_user| mul.f32 %x1,%a,%b; fma.rn.f32 %d,%x1,%c,%a;
add_rn_then_add| mul.f32 %x1,%a,%b; add.rn.f32 %x2,%x1,%c; add.f32 %d,%x1,%a; add.f32 %d,%d,%x2;
sub_of_two_mul_same| mul.f32 %x1,%a,%b; sub.f32 %d,%x1,%x1;
mul_imm_imm| mul.f32 %x1,0f40000000,0f40400000; add.f32 %d,%x1,%c;
mul_by_two| mul.f32 %x1,%a,0f40000000; add.f32 %d,%x1,%c;
mul_by_one| mul.f32 %x1,%a,0f3F800000; add.f32 %d,%x1,%c;
mul_by_neg1| mul.f32 %x1,%a,0fBF800000; add.f32 %d,%x1,%c;
sub_zero_minus| mul.f32 %x1,%a,%b; sub.f32 %d,0f00000000,%x1;
add_zero| mul.f32 %x1,%a,%b; add.f32 %d,%x1,0f00000000;
add_negzero| mul.f32 %x1,%a,%b; add.f32 %d,%x1,0f80000000;
guarded_neg| mul.f32 %x1,%a,%b; mov.f32 %x2,%c; @%q0 neg.f32 %x2,%x1; add.f32 %d,%x2,%c;
chain3| mul.f32 %x1,%a,%b; add.f32 %x2,%x1,%c; mul.f32 %x3,%x2,%x2; add.f32 %d,%x3,%x2;
mul_self_add| mul.f32 %x1,%a,%a; add.f32 %d,%x1,%a;
negx_y| neg.f32 %x1,%a; selp.f32 %d,%x1,%b,%q0;
y_negx| neg.f32 %x1,%a; selp.f32 %d,%b,%x1,%q0;
negx_x| neg.f32 %x1,%a; selp.f32 %d,%x1,%a,%q0;
x_negx| neg.f32 %x1,%a; selp.f32 %d,%a,%x1,%q0;
negx_x_used| neg.f32 %x1,%a; selp.f32 %x2,%x1,%a,%q0; add.f32 %d,%x2,%x1;
negx_imm| neg.f32 %x1,%a; selp.f32 %d,%x1,0f3F800000,%q0;
negx_negy| neg.f32 %x1,%a; neg.f32 %x2,%b; selp.f32 %d,%x1,%x2,%q0;
absx_x| abs.f32 %x1,%a; selp.f32 %d,%x1,%a,%q0;
negx_y_later| neg.f32 %x1,%a; add.f32 %x3,%b,%c; selp.f32 %d,%x1,%x3,%q0;
negx_y_both_computed| mul.rn.f32 %x3,%b,%c; neg.f32 %x1,%a; selp.f32 %d,%x1,%x3,%q0;
negprod_x| mul.rn.f32 %x3,%b,%c; neg.f32 %x1,%x3; selp.f32 %d,%x1,%x3,%q0;
negprod_y| mul.rn.f32 %x3,%b,%c; neg.f32 %x1,%x3; selp.f32 %d,%x1,%a,%q0;
full_255| div.full.f32 %d,%a,0f437F0000;
full_ftz_255| div.full.ftz.f32 %d,%a,0f437F0000;
approx_255| div.approx.f32 %d,%a,0f437F0000;
approx_ftz_255| div.approx.ftz.f32 %d,%a,0f437F0000;
full_3| div.full.f32 %d,%a,0f40400000;
full_01| div.full.f32 %d,%a,0f3DCCCCCD;
full_big| div.full.f32 %d,%a,0f7E967699;
full_huge| div.full.f32 %d,%a,0f7F000000;
full_tiny| div.full.f32 %d,%a,0f00800000;
full_sub| div.full.f32 %d,%a,0f00000010;
full_zero| div.full.f32 %d,%a,0f00000000;
full_inf| div.full.f32 %d,%a,0f7F800000;
full_reg_const| mov.f32 %x1, 0f437F0000; div.full.f32 %d,%a,%x1;
rn_255| div.rn.f32 %d,%a,0f437F0000;
full_num_const| div.full.f32 %d,0f437F0000,%a;
full_neg7| div.full.f32 %d,%a,0fC0E00000;
div_full_add| div.full.f32 %x1,%a,%b; add.f32 %d,%x1,%c;
div_approx_add| div.approx.f32 %x1,%a,%b; add.f32 %d,%x1,%c;
div_full_ftz_add| div.full.ftz.f32 %x1,%a,%b; add.ftz.f32 %d,%x1,%c;
div_full_const_add| div.full.f32 %x1,%a,0f437F0000; add.f32 %d,%x1,%c;
div_full_twouse| div.full.f32 %x1,%a,%b; add.f32 %x2,%x1,%c; mul.f32 %x3,%x1,%a; add.f32 %d,%x2,%x3;
div_rn_add| div.rn.f32 %x1,%a,%b; add.f32 %d,%x1,%c;
div_full_sub| div.full.f32 %x1,%a,%b; sub.f32 %d,%c,%x1;
"""
KEEP = re.compile(r"\b(FFMA|FMUL|FADD|FSEL|BRA|FSETP|FMNMX)")


def main():
    tmp = tempfile.mkdtemp()
    ptx, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
    shapes = open(sys.argv[1]).read() if len(sys.argv) > 1 else SHAPES
    for line in shapes.strip().splitlines():
        name, body = line.split("|", 1)
        open(ptx, "w").write(HDR.replace("BODY", body.strip()))
        r = subprocess.run(["ptxas", "-arch=sm_90a", ptx, "-o", cubin], capture_output=True,
                           text=True)
        if r.returncode:
            print(name, "ptxas error:", r.stderr.strip()[:200])
            continue
        s = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True).stdout
        ins = [re.sub(r"\s+", " ", m.group(1)) for m in
               re.finditer(r"/\*[0-9a-f]{4}\*/\s+(.*?);", s) if KEEP.search(m.group(1))]
        print("%-28s %s" % (name, " ; ".join(ins)))


if __name__ == "__main__":
    main()
