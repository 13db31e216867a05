target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.add.rz.f(float, float)
declare float @llvm.nvvm.add.rp.f(float, float)
declare float @llvm.nvvm.add.rm.f(float, float)
declare float @llvm.nvvm.fma.rz.f(float, float, float)
declare float @llvm.nvvm.fma.rp.f(float, float, float)
declare float @llvm.nvvm.fma.rn.f(float, float, float)
declare float @llvm.nvvm.div.rm.f(float, float)
declare float @llvm.nvvm.div.rp.f(float, float)
declare float @llvm.nvvm.mul.rz.f(float, float)
declare double @llvm.nvvm.add.rp.d(double, double)
declare double @llvm.nvvm.fma.rm.d(double, double, double)
declare double @llvm.nvvm.mul.rp.d(double, double)
declare double @llvm.nvvm.mul.rm.d(double, double)
declare float @llvm.nvvm.div.approx.f(float, float)
declare float @llvm.nvvm.rcp.rn.f(float)
declare float @llvm.nvvm.sqrt.approx.f(float)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.cos.approx.f(float)
declare float @llvm.nvvm.saturate.f(float)
declare float @llvm.nvvm.fmin.nan.f(float, float)
declare i32 @llvm.nvvm.prmt(i32, i32, i32)

; Directed rounding, approximate math and prmt on operands from memory (one thread);
; compiled with -nvptx-prec-divf32=1, the plain fdiv becomes div.full.f32.
; f32 inputs: 1, 2^-30, 2^-60, -2^-60, 1+2^-23, 1-2^-23, 0, 2^-70, 3, 16777215, 1.5, -2,
; 0.3, NaN; f64 inputs: 1, 2^-80, 1+2^-52, 1-2^-52, 0.
define ptx_kernel void @rounding(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(1) %outd, ptr addrspace(1) %ind) {
entry:
  %q1 = getelementptr float, ptr addrspace(1) %in, i64 1
  %q2 = getelementptr float, ptr addrspace(1) %in, i64 2
  %q3 = getelementptr float, ptr addrspace(1) %in, i64 3
  %q4 = getelementptr float, ptr addrspace(1) %in, i64 4
  %q5 = getelementptr float, ptr addrspace(1) %in, i64 5
  %q6 = getelementptr float, ptr addrspace(1) %in, i64 6
  %q7 = getelementptr float, ptr addrspace(1) %in, i64 7
  %q8 = getelementptr float, ptr addrspace(1) %in, i64 8
  %q9 = getelementptr float, ptr addrspace(1) %in, i64 9
  %q10 = getelementptr float, ptr addrspace(1) %in, i64 10
  %q11 = getelementptr float, ptr addrspace(1) %in, i64 11
  %q12 = getelementptr float, ptr addrspace(1) %in, i64 12
  %q13 = getelementptr float, ptr addrspace(1) %in, i64 13
  %one = load float, ptr addrspace(1) %in
  %e30 = load float, ptr addrspace(1) %q1
  %e60 = load float, ptr addrspace(1) %q2
  %ne60 = load float, ptr addrspace(1) %q3
  %up = load float, ptr addrspace(1) %q4
  %dn = load float, ptr addrspace(1) %q5
  %zero = load float, ptr addrspace(1) %q6
  %e70 = load float, ptr addrspace(1) %q7
  %three = load float, ptr addrspace(1) %q8
  %big = load float, ptr addrspace(1) %q9
  %onehalf = load float, ptr addrspace(1) %q10
  %mtwo = load float, ptr addrspace(1) %q11
  %x = load float, ptr addrspace(1) %q12
  %nan = load float, ptr addrspace(1) %q13
  %mone = fneg float %one
  %r0 = call float @llvm.nvvm.add.rz.f(float %one, float %e30)
  %r1 = call float @llvm.nvvm.add.rp.f(float %one, float %e60)
  %r2 = call float @llvm.nvvm.add.rm.f(float %one, float %ne60)
  %r3 = call float @llvm.nvvm.add.rz.f(float %mone, float %ne60)
  %r4 = call float @llvm.nvvm.fma.rz.f(float %up, float %dn, float %zero)
  %r5 = call float @llvm.nvvm.fma.rp.f(float %up, float %dn, float %zero)
  %r6 = call float @llvm.nvvm.fma.rn.f(float %up, float %dn, float %zero)
  %r7 = call float @llvm.nvvm.fma.rp.f(float %one, float %one, float %e70)
  %r8 = call float @llvm.nvvm.div.rm.f(float %one, float %three)
  %r9 = call float @llvm.nvvm.div.rp.f(float %one, float %three)
  %r10 = call float @llvm.nvvm.mul.rz.f(float %big, float %onehalf)
  %r11 = call float @llvm.nvvm.div.approx.f(float %one, float %three)
  %r12 = fdiv float %x, %three
  %r13 = call float @llvm.nvvm.rcp.rn.f(float %three)
  %r14 = call float @llvm.nvvm.sqrt.approx.f(float %three)
  %r15 = call float @llvm.nvvm.rsqrt.approx.f(float %three)
  %r16 = call float @llvm.nvvm.ex2.approx.f(float %x)
  %r17 = call float @llvm.nvvm.lg2.approx.f(float %three)
  %r18 = call float @llvm.nvvm.sin.approx.f(float %x)
  %r19 = call float @llvm.nvvm.cos.approx.f(float %x)
  %r20 = call float @llvm.nvvm.saturate.f(float %onehalf)
  %r21 = call float @llvm.nvvm.saturate.f(float %mtwo)
  %r22 = call float @llvm.nvvm.fmin.nan.f(float %one, float %nan)
  %bi = bitcast float %big to i32
  %xi = bitcast float %x to i32
  %pi = call i32 @llvm.nvvm.prmt(i32 %bi, i32 %xi, i32 29959)
  %r23 = bitcast i32 %pi to float
  store float %r0, ptr addrspace(1) %out
  %o1 = getelementptr float, ptr addrspace(1) %out, i64 1
  store float %r1, ptr addrspace(1) %o1
  %o2 = getelementptr float, ptr addrspace(1) %out, i64 2
  store float %r2, ptr addrspace(1) %o2
  %o3 = getelementptr float, ptr addrspace(1) %out, i64 3
  store float %r3, ptr addrspace(1) %o3
  %o4 = getelementptr float, ptr addrspace(1) %out, i64 4
  store float %r4, ptr addrspace(1) %o4
  %o5 = getelementptr float, ptr addrspace(1) %out, i64 5
  store float %r5, ptr addrspace(1) %o5
  %o6 = getelementptr float, ptr addrspace(1) %out, i64 6
  store float %r6, ptr addrspace(1) %o6
  %o7 = getelementptr float, ptr addrspace(1) %out, i64 7
  store float %r7, ptr addrspace(1) %o7
  %o8 = getelementptr float, ptr addrspace(1) %out, i64 8
  store float %r8, ptr addrspace(1) %o8
  %o9 = getelementptr float, ptr addrspace(1) %out, i64 9
  store float %r9, ptr addrspace(1) %o9
  %o10 = getelementptr float, ptr addrspace(1) %out, i64 10
  store float %r10, ptr addrspace(1) %o10
  %o11 = getelementptr float, ptr addrspace(1) %out, i64 11
  store float %r11, ptr addrspace(1) %o11
  %o12 = getelementptr float, ptr addrspace(1) %out, i64 12
  store float %r12, ptr addrspace(1) %o12
  %o13 = getelementptr float, ptr addrspace(1) %out, i64 13
  store float %r13, ptr addrspace(1) %o13
  %o14 = getelementptr float, ptr addrspace(1) %out, i64 14
  store float %r14, ptr addrspace(1) %o14
  %o15 = getelementptr float, ptr addrspace(1) %out, i64 15
  store float %r15, ptr addrspace(1) %o15
  %o16 = getelementptr float, ptr addrspace(1) %out, i64 16
  store float %r16, ptr addrspace(1) %o16
  %o17 = getelementptr float, ptr addrspace(1) %out, i64 17
  store float %r17, ptr addrspace(1) %o17
  %o18 = getelementptr float, ptr addrspace(1) %out, i64 18
  store float %r18, ptr addrspace(1) %o18
  %o19 = getelementptr float, ptr addrspace(1) %out, i64 19
  store float %r19, ptr addrspace(1) %o19
  %o20 = getelementptr float, ptr addrspace(1) %out, i64 20
  store float %r20, ptr addrspace(1) %o20
  %o21 = getelementptr float, ptr addrspace(1) %out, i64 21
  store float %r21, ptr addrspace(1) %o21
  %o22 = getelementptr float, ptr addrspace(1) %out, i64 22
  store float %r22, ptr addrspace(1) %o22
  %o23 = getelementptr float, ptr addrspace(1) %out, i64 23
  store float %r23, ptr addrspace(1) %o23
  %w1 = getelementptr double, ptr addrspace(1) %ind, i64 1
  %w2 = getelementptr double, ptr addrspace(1) %ind, i64 2
  %w3 = getelementptr double, ptr addrspace(1) %ind, i64 3
  %w4 = getelementptr double, ptr addrspace(1) %ind, i64 4
  %d1 = load double, ptr addrspace(1) %ind
  %d80 = load double, ptr addrspace(1) %w1
  %dup = load double, ptr addrspace(1) %w2
  %ddn = load double, ptr addrspace(1) %w3
  %dz = load double, ptr addrspace(1) %w4
  %s0 = call double @llvm.nvvm.add.rp.d(double %d1, double %d80)
  %s1 = call double @llvm.nvvm.fma.rm.d(double %dup, double %ddn, double %dz)
  %s2 = call double @llvm.nvvm.mul.rp.d(double %dup, double %dup)
  %s3 = call double @llvm.nvvm.mul.rm.d(double %dup, double %dup)
  store double %s0, ptr addrspace(1) %outd
  %v1 = getelementptr double, ptr addrspace(1) %outd, i64 1
  store double %s1, ptr addrspace(1) %v1
  %v2 = getelementptr double, ptr addrspace(1) %outd, i64 2
  store double %s2, ptr addrspace(1) %v2
  %v3 = getelementptr double, ptr addrspace(1) %outd, i64 3
  store double %s3, ptr addrspace(1) %v3
  ret void
}

@slots = internal addrspace(3) global [64 x i32] undef, align 4

; *p += v through a generic pointer (not inlined: the callers pass shared, local and
; global addresses converted with cvta).
define internal void @bump(ptr %p, i32 %v) noinline {
  %x = load i32, ptr %p, align 4
  %y = add i32 %x, %v
  store i32 %y, ptr %p, align 4
  ret void
}

; Generic pointer parameters (cvta.to.global), generic pointers to shared and local memory.
define ptx_kernel void @generic(ptr %out, ptr %in) {
entry:
  %loc = alloca i32, align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i32, ptr %in, i64 %t64
  %v = load i32, ptr %pin, align 4
  %ps = getelementptr [64 x i32], ptr addrspace(3) @slots, i64 0, i64 %t64
  store i32 %tid, ptr addrspace(3) %ps, align 4
  store i32 100, ptr %loc, align 4
  %gs = addrspacecast ptr addrspace(3) %ps to ptr
  call void @bump(ptr %gs, i32 %v)
  call void @bump(ptr %loc, i32 %v)
  %pout = getelementptr i32, ptr %out, i64 %t64
  store i32 1000, ptr %pout, align 4
  call void @bump(ptr %pout, i32 %v)
  call void @llvm.nvvm.barrier0()
  %o = xor i32 %tid, 1
  %o64 = zext i32 %o to i64
  %po = getelementptr [64 x i32], ptr addrspace(3) @slots, i64 0, i64 %o64
  %n = load i32, ptr addrspace(3) %po, align 4
  %l = load i32, ptr %loc, align 4
  %g = load i32, ptr %pout, align 4
  %s1 = mul i32 %n, 1000000
  %s2 = mul i32 %l, 1000
  %s3 = add i32 %s1, %s2
  %s4 = add i32 %s3, %g
  store i32 %s4, ptr %pout, align 4
  ret void
}

; Unsupported on the emulator: recursion, and a function defined elsewhere.
define internal i32 @fact(i32 %n) noinline {
  %c = icmp ult i32 %n, 2
  br i1 %c, label %one, label %rec
one:
  ret i32 1
rec:
  %m = sub i32 %n, 1
  %f = call i32 @fact(i32 %m)
  %r = mul i32 %n, %f
  ret i32 %r
}

define ptx_kernel void @recursive(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %f = call i32 @fact(i32 %tid)
  store i32 %f, ptr addrspace(1) %out
  ret void
}
