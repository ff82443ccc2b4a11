#!/usr/bin/env bash
# Which instructions ptxas takes an integer literal in a floating-point operand of (seed 001's
# example `setp.eq.f32 p,y,0` is refused: "Arguments mismatch for instruction 'setp'").
# usage: tools/seedspec/probes/int_literals.sh   (prints one line per instruction: ok or the error)
set -u
t=$(mktemp -d)
while IFS= read -r inst; do
  [ -z "$inst" ] && continue
  cat > "$t/k.ptx" <<PTX
.version 8.0
.target sm_90
.address_size 64
.entry k(.param .u64 p)
{
	.reg .f32 %f<4>;
	.reg .f64 %fd<4>;
	.reg .b16 %h<4>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [p];
	$inst
	ret;
}
PTX
  if out=$(ptxas -arch=sm_90 "$t/k.ptx" -o /dev/null 2>&1); then echo "ok      $inst"; else echo "refused $inst  -- $(echo "$out" | grep -m1 -i error | sed 's/.*error *: //')"; fi
done <<'LIST'
setp.eq.f32 %p1, %f1, 0;
setp.eq.f32 %p1, %f1, 1;
setp.eq.f64 %p1, %fd1, 0;
add.f32 %f1, %f2, 1;
add.f64 %fd1, %fd2, 1;
mul.f32 %f1, %f2, 2;
fma.rn.f32 %f1, %f2, 2, %f3;
mov.f32 %f1, 0;
mov.f32 %f1, 1;
mov.f64 %fd1, 0;
mov.b32 %f1, 1;
selp.f32 %f1, 1, %f2, %p1;
max.f32 %f1, %f2, 0;
min.f64 %fd1, %fd2, 0;
st.global.f32 [%rd1], 0;
st.global.f32 [%rd1], 1;
set.eq.u32.f32 %r1, %f1, 0;
abs.f32 %f1, 0;
neg.f32 %f1, 1;
sub.f32 %f1, 0, %f2;
div.rn.f32 %f1, %f2, 2;
add.f16 %h1, %h2, 1;
setp.eq.f32 %p1, %f1, 0f00000000;
LIST
rm -rf "$t"
