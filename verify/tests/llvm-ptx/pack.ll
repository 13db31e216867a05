target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i64 @llvm.fshl.i64(i64, i64, i64)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)
declare half @llvm.fabs.f16(half)
declare <2 x half> @llvm.minnum.v2f16(<2 x half>, <2 x half>)
declare i16 @llvm.bswap.i16(i16)
declare i64 @llvm.bswap.i64(i64)
declare i64 @llvm.cttz.i64(i64, i1)

define ptx_kernel void @pack(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i64, ptr addrspace(1) %in, i64 %t64
  %x = load i64, ptr addrspace(1) %pin, align 8
  %lo = trunc i64 %x to i32
  %hi64 = lshr i64 %x, 32
  %hi = trunc i64 %hi64 to i32
  %o = mul i64 %t64, 16
  %base = getelementptr i32, ptr addrspace(1) %out, i64 %o
  %r0 = call i32 @llvm.fshl.i32(i32 %lo, i32 %lo, i32 %hi)
  %r1 = call i32 @llvm.fshr.i32(i32 %hi, i32 %lo, i32 %hi)
  %rot = call i64 @llvm.fshl.i64(i64 %x, i64 %x, i64 13)
  %r2 = trunc i64 %rot to i32
  %rh = lshr i64 %rot, 32
  %r3 = trunc i64 %rh to i32
  %v2h = bitcast i32 %lo to <2 x half>
  %w2h = bitcast i32 %hi to <2 x half>
  %f2h = call <2 x half> @llvm.fma.v2f16(<2 x half> %v2h, <2 x half> %w2h, <2 x half> %v2h)
  %r4 = bitcast <2 x half> %f2h to i32
  %e0 = extractelement <2 x half> %v2h, i32 1
  %e1 = call half @llvm.fabs.f16(half %e0)
  %e2 = fneg half %e1
  %s = insertelement <2 x half> %w2h, half %e2, i32 0
  %r5 = bitcast <2 x half> %s to i32
  %mn = call <2 x half> @llvm.minnum.v2f16(<2 x half> %v2h, <2 x half> %w2h)
  %r6 = bitcast <2 x half> %mn to i32
  %l16 = trunc i32 %lo to i16
  %b16 = call i16 @llvm.bswap.i16(i16 %l16)
  %r7 = zext i16 %b16 to i32
  %b64 = call i64 @llvm.bswap.i64(i64 %x)
  %r8 = trunc i64 %b64 to i32
  %c64 = call i64 @llvm.cttz.i64(i64 %x, i1 false)
  %r9 = trunc i64 %c64 to i32
  %sh64 = shl i64 %x, 40
  %sr64 = ashr i64 %sh64, 7
  %r10 = trunc i64 %sr64 to i32
  %bytes = bitcast i32 %hi to <4 x i8>
  %bb = add <4 x i8> %bytes, <i8 1, i8 2, i8 3, i8 200>
  %r11 = bitcast <4 x i8> %bb to i32
  %cmp = icmp ugt i64 %x, 1000
  %r12 = zext i1 %cmp to i32
  %xd = uitofp i64 %x to double
  %xq = fmul double %xd, 0.5
  %r13i = fptoui double %xq to i64
  %r13 = trunc i64 %r13i to i32
  %v0 = insertelement <2 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <2 x i32> %v0, i32 %r1, i32 1
  %vv = bitcast <2 x i32> %v1 to i64
  %pv = getelementptr i64, ptr addrspace(1) %base, i64 0
  store i64 %vv, ptr addrspace(1) %pv, align 8
  %q2 = getelementptr i32, ptr addrspace(1) %base, i64 2
  store i32 %r2, ptr addrspace(1) %q2
  %q3 = getelementptr i32, ptr addrspace(1) %base, i64 3
  store i32 %r3, ptr addrspace(1) %q3
  %q4 = getelementptr i32, ptr addrspace(1) %base, i64 4
  store i32 %r4, ptr addrspace(1) %q4
  %q5 = getelementptr i32, ptr addrspace(1) %base, i64 5
  store i32 %r5, ptr addrspace(1) %q5
  %q6 = getelementptr i32, ptr addrspace(1) %base, i64 6
  store i32 %r6, ptr addrspace(1) %q6
  %q7 = getelementptr i32, ptr addrspace(1) %base, i64 7
  store i32 %r7, ptr addrspace(1) %q7
  %q8 = getelementptr i32, ptr addrspace(1) %base, i64 8
  store i32 %r8, ptr addrspace(1) %q8
  %q9 = getelementptr i32, ptr addrspace(1) %base, i64 9
  store i32 %r9, ptr addrspace(1) %q9
  %q10 = getelementptr i32, ptr addrspace(1) %base, i64 10
  store i32 %r10, ptr addrspace(1) %q10
  %q11 = getelementptr i32, ptr addrspace(1) %base, i64 11
  store i32 %r11, ptr addrspace(1) %q11
  %q12 = getelementptr i32, ptr addrspace(1) %base, i64 12
  store i32 %r12, ptr addrspace(1) %q12
  %q13 = getelementptr i32, ptr addrspace(1) %base, i64 13
  store i32 %r13, ptr addrspace(1) %q13
  ret void
}
