target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @__nv_sinf(float)
declare float @__nv_cosf(float)
declare float @__nv_powf(float, float)
declare float @__nv_expf(float)
declare float @__nv_logf(float)
declare float @__nv_tanhf(float)
declare float @__nv_atan2f(float, float)
declare float @__nv_acosf(float)
declare float @__nv_asinhf(float)
declare float @__nv_fmodf(float, float)
declare float @__nv_exp2f(float)
declare float @__nv_log2f(float)

define ptx_kernel void @libdevice(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr <2 x float>, ptr addrspace(1) %in, i64 %t64
  %v = load <2 x float>, ptr addrspace(1) %pin, align 8
  %x = extractelement <2 x float> %v, i32 0
  %y = extractelement <2 x float> %v, i32 1
  %o = mul i64 %t64, 16
  %base = getelementptr float, ptr addrspace(1) %out, i64 %o
  %r0 = call float @__nv_sinf(float %x)
  %r1 = call float @__nv_cosf(float %x)
  %r2 = call float @__nv_powf(float %x, float %y)
  %r3 = call float @__nv_expf(float %x)
  %r4 = call float @__nv_logf(float %x)
  %r5 = call float @__nv_tanhf(float %x)
  %r6 = call float @__nv_atan2f(float %x, float %y)
  %r7 = call float @__nv_acosf(float %y)
  %r8 = call float @__nv_asinhf(float %x)
  %r9 = call float @__nv_fmodf(float %x, float %y)
  %r10 = call float @__nv_exp2f(float %x)
  %r11 = call float @__nv_log2f(float %x)
  %h = fptrunc float %x to half
  %hf = fpext half %h to float
  %hs = call float @__nv_sinf(float %hf)
  %hr = fptrunc float %hs to half
  %r12 = fpext half %hr to float
  store float %r0, ptr addrspace(1) %base
  %q1 = getelementptr float, ptr addrspace(1) %base, i64 1
  store float %r1, ptr addrspace(1) %q1
  %q2 = getelementptr float, ptr addrspace(1) %base, i64 2
  store float %r2, ptr addrspace(1) %q2
  %q3 = getelementptr float, ptr addrspace(1) %base, i64 3
  store float %r3, ptr addrspace(1) %q3
  %q4 = getelementptr float, ptr addrspace(1) %base, i64 4
  store float %r4, ptr addrspace(1) %q4
  %q5 = getelementptr float, ptr addrspace(1) %base, i64 5
  store float %r5, ptr addrspace(1) %q5
  %q6 = getelementptr float, ptr addrspace(1) %base, i64 6
  store float %r6, ptr addrspace(1) %q6
  %q7 = getelementptr float, ptr addrspace(1) %base, i64 7
  store float %r7, ptr addrspace(1) %q7
  %q8 = getelementptr float, ptr addrspace(1) %base, i64 8
  store float %r8, ptr addrspace(1) %q8
  %q9 = getelementptr float, ptr addrspace(1) %base, i64 9
  store float %r9, ptr addrspace(1) %q9
  %q10 = getelementptr float, ptr addrspace(1) %base, i64 10
  store float %r10, ptr addrspace(1) %q10
  %q11 = getelementptr float, ptr addrspace(1) %base, i64 11
  store float %r11, ptr addrspace(1) %q11
  %q12 = getelementptr float, ptr addrspace(1) %base, i64 12
  store float %r12, ptr addrspace(1) %q12
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @libdevice, !"maxntidx", i32 64}
!llvm.module.flags = !{!1}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
