target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minimum.f32(float, float)
declare float @llvm.maximum.f32(float, float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fabs.f32(float)
declare float @llvm.sqrt.f32(float)
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
declare float @llvm.trunc.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.round.f32(float)
declare float @llvm.copysign.f32(float, float)
declare i32 @llvm.fptosi.sat.i32.f32(float)
declare i32 @llvm.fptoui.sat.i32.f32(float)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.sqrt.f64(double)
declare double @llvm.floor.f64(double)
declare i1 @llvm.is.fpclass.f32(float, i32)

define ptx_kernel void @float_ops(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr <2 x float>, ptr addrspace(1) %in, i64 %t64
  %v = load <2 x float>, ptr addrspace(1) %pin, align 8
  %a = extractelement <2 x float> %v, i32 0
  %b = extractelement <2 x float> %v, i32 1
  %o = mul i64 %t64, 32
  %base = getelementptr float, ptr addrspace(1) %out, i64 %o
  %r0 = fadd float %a, %b
  %r1 = fsub float %a, %b
  %r2 = fmul float %a, %b
  %r3 = fdiv float %a, %b
  %r4 = call float @llvm.minnum.f32(float %a, float %b)
  %r5 = call float @llvm.maxnum.f32(float %a, float %b)
  %r6 = call float @llvm.fma.f32(float %a, float %b, float 1.5)
  %r7 = call float @llvm.fabs.f32(float %a)
  %r8 = call float @llvm.sqrt.f32(float %b)
  %r9 = call float @llvm.floor.f32(float %a)
  %r10 = call float @llvm.ceil.f32(float %a)
  %r11 = call float @llvm.trunc.f32(float %a)
  %r12 = call float @llvm.rint.f32(float %a)
  %r13 = call float @llvm.copysign.f32(float %b, float %a)
  %i14 = call i32 @llvm.fptosi.sat.i32.f32(float %a)
  %r14 = bitcast i32 %i14 to float
  %i15 = call i32 @llvm.fptoui.sat.i32.f32(float %a)
  %r15 = bitcast i32 %i15 to float
  %c = fcmp olt float %a, %b
  %r16 = select i1 %c, float %a, float 7.0
  %c2 = fcmp uno float %a, %b
  %c3 = fcmp ueq float %a, 2.0
  %c4 = and i1 %c2, %c3
  %r17 = select i1 %c4, float 1.0, float 0.0
  %ad = fpext float %a to double
  %bd = fpext float %b to double
  %s = fmul double %ad, %bd
  %s2 = fdiv double %s, 3.0
  %s3 = call double @llvm.fma.f64(double %s2, double %ad, double %bd)
  %s4 = call double @llvm.sqrt.f64(double %bd)
  %s5 = fadd double %s3, %s4
  %r18 = fptrunc double %s5 to float
  %h = fptrunc float %a to half
  %hb = fptrunc float %b to half
  %hs = fadd half %h, %hb
  %hm = fmul half %hs, %hb
  %r19 = fpext half %hm to float
  %r20 = call float @llvm.minimum.f32(float %a, float %b)
  %r21 = call float @llvm.maximum.f32(float %a, float %b)
  %r22 = frem float %a, %b
  %r23 = call float @llvm.round.f32(float %a)
  %ia = fptosi float %a to i32
  %r24 = sitofp i32 %ia to float
  %ua = fptoui float %b to i64
  %r25 = uitofp i64 %ua to float
  %fl = call double @llvm.floor.f64(double %s)
  %r26 = fptrunc double %fl to float
  %r27 = fneg float %a
  %isnan = call i1 @llvm.is.fpclass.f32(float %a, i32 3)
  %r28 = select i1 %isnan, float 1.0, float 2.0
  %isinf = call i1 @llvm.is.fpclass.f32(float %b, i32 516)
  %r29 = select i1 %isinf, float 1.0, float 2.0
  %hd = fdiv half %h, %hb
  %r30 = fpext half %hd to float
  %hf = fcmp olt half %h, %hb
  %r31 = select i1 %hf, float 1.0, float 2.0
  %v0 = insertelement <4 x float> undef, float %r0, i32 0
  %v1 = insertelement <4 x float> %v0, float %r1, i32 1
  %v2 = insertelement <4 x float> %v1, float %r2, i32 2
  %v3 = insertelement <4 x float> %v2, float %r3, i32 3
  store <4 x float> %v3, ptr addrspace(1) %base, align 16
  %p4 = getelementptr float, ptr addrspace(1) %base, i64 4
  store float %r4, ptr addrspace(1) %p4
  %p5 = getelementptr float, ptr addrspace(1) %base, i64 5
  store float %r5, ptr addrspace(1) %p5
  %p6 = getelementptr float, ptr addrspace(1) %base, i64 6
  store float %r6, ptr addrspace(1) %p6
  %p7 = getelementptr float, ptr addrspace(1) %base, i64 7
  store float %r7, ptr addrspace(1) %p7
  %p8 = getelementptr float, ptr addrspace(1) %base, i64 8
  store float %r8, ptr addrspace(1) %p8
  %p9 = getelementptr float, ptr addrspace(1) %base, i64 9
  store float %r9, ptr addrspace(1) %p9
  %p10 = getelementptr float, ptr addrspace(1) %base, i64 10
  store float %r10, ptr addrspace(1) %p10
  %p11 = getelementptr float, ptr addrspace(1) %base, i64 11
  store float %r11, ptr addrspace(1) %p11
  %p12 = getelementptr float, ptr addrspace(1) %base, i64 12
  store float %r12, ptr addrspace(1) %p12
  %p13 = getelementptr float, ptr addrspace(1) %base, i64 13
  store float %r13, ptr addrspace(1) %p13
  %p14 = getelementptr float, ptr addrspace(1) %base, i64 14
  store float %r14, ptr addrspace(1) %p14
  %p15 = getelementptr float, ptr addrspace(1) %base, i64 15
  store float %r15, ptr addrspace(1) %p15
  %p16 = getelementptr float, ptr addrspace(1) %base, i64 16
  store float %r16, ptr addrspace(1) %p16
  %p17 = getelementptr float, ptr addrspace(1) %base, i64 17
  store float %r17, ptr addrspace(1) %p17
  %p18 = getelementptr float, ptr addrspace(1) %base, i64 18
  store float %r18, ptr addrspace(1) %p18
  %p19 = getelementptr float, ptr addrspace(1) %base, i64 19
  store float %r19, ptr addrspace(1) %p19
  %p20 = getelementptr float, ptr addrspace(1) %base, i64 20
  store float %r20, ptr addrspace(1) %p20
  %p21 = getelementptr float, ptr addrspace(1) %base, i64 21
  store float %r21, ptr addrspace(1) %p21
  %p22 = getelementptr float, ptr addrspace(1) %base, i64 22
  store float %r22, ptr addrspace(1) %p22
  %p23 = getelementptr float, ptr addrspace(1) %base, i64 23
  store float %r23, ptr addrspace(1) %p23
  %p24 = getelementptr float, ptr addrspace(1) %base, i64 24
  store float %r24, ptr addrspace(1) %p24
  %p25 = getelementptr float, ptr addrspace(1) %base, i64 25
  store float %r25, ptr addrspace(1) %p25
  %p26 = getelementptr float, ptr addrspace(1) %base, i64 26
  store float %r26, ptr addrspace(1) %p26
  %p27 = getelementptr float, ptr addrspace(1) %base, i64 27
  store float %r27, ptr addrspace(1) %p27
  %p28 = getelementptr float, ptr addrspace(1) %base, i64 28
  store float %r28, ptr addrspace(1) %p28
  %p29 = getelementptr float, ptr addrspace(1) %base, i64 29
  store float %r29, ptr addrspace(1) %p29
  %p30 = getelementptr float, ptr addrspace(1) %base, i64 30
  store float %r30, ptr addrspace(1) %p30
  %p31 = getelementptr float, ptr addrspace(1) %base, i64 31
  store float %r31, ptr addrspace(1) %p31
  ret void
}
