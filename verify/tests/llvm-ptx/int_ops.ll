target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare i64 @llvm.smax.i64(i64, i64)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.bswap.i32(i32)
declare i64 @llvm.ctpop.i64(i64)
declare i64 @llvm.ctlz.i64(i64, i1)

define ptx_kernel void @int_ops(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i2 = shl i32 %tid, 1
  %ia = zext i32 %i2 to i64
  %pa = getelementptr i32, ptr addrspace(1) %in, i64 %ia
  %a = load i32, ptr addrspace(1) %pa, align 4
  %i3 = add i32 %i2, 1
  %ib = zext i32 %i3 to i64
  %pb = getelementptr i32, ptr addrspace(1) %in, i64 %ib
  %b = load i32, ptr addrspace(1) %pb, align 4
  %o = mul i32 %tid, 32
  %ob = zext i32 %o to i64
  %base = getelementptr i32, ptr addrspace(1) %out, i64 %ob
  %r0 = add i32 %a, %b
  %r1 = sub i32 %a, %b
  %r2 = mul i32 %a, %b
  %bnz = or i32 %b, 1
  %r3 = sdiv i32 %a, %bnz
  %r4 = srem i32 %a, %bnz
  %r5 = udiv i32 %a, %bnz
  %r6 = urem i32 %a, %bnz
  %sh = and i32 %b, 31
  %r7 = shl i32 %a, %sh
  %r8 = ashr i32 %a, %sh
  %r9 = lshr i32 %a, %sh
  %r10 = call i32 @llvm.smin.i32(i32 %a, i32 %b)
  %r11 = call i32 @llvm.umax.i32(i32 %a, i32 %b)
  %r12 = call i32 @llvm.abs.i32(i32 %a, i1 false)
  %r13 = call i32 @llvm.fshl.i32(i32 %a, i32 %b, i32 %b)
  %r14 = call i32 @llvm.fshr.i32(i32 %a, i32 %b, i32 7)
  %r15 = call i32 @llvm.ctpop.i32(i32 %a)
  %r16 = call i32 @llvm.ctlz.i32(i32 %a, i1 false)
  %r17 = call i32 @llvm.cttz.i32(i32 %a, i1 false)
  %r18 = call i32 @llvm.bitreverse.i32(i32 %a)
  %r19 = call i32 @llvm.bswap.i32(i32 %a)
  %c = icmp slt i32 %a, %b
  %r20 = select i1 %c, i32 %a, i32 %b
  %c2 = icmp ult i32 %a, %b
  %c3 = icmp eq i32 %b, 5
  %c4 = or i1 %c2, %c3
  %r21 = select i1 %c4, i32 111, i32 222
  %a64 = sext i32 %a to i64
  %b64 = zext i32 %b to i64
  %m64 = mul i64 %a64, %b64
  %r22 = trunc i64 %m64 to i32
  %h64 = lshr i64 %m64, 32
  %r23 = trunc i64 %h64 to i32
  %d64 = sdiv i64 %m64, 7
  %r24 = trunc i64 %d64 to i32
  %p64 = call i64 @llvm.ctpop.i64(i64 %m64)
  %r25 = trunc i64 %p64 to i32
  %l64 = call i64 @llvm.ctlz.i64(i64 %b64, i1 false)
  %r26 = trunc i64 %l64 to i32
  %a8 = trunc i32 %a to i8
  %b8 = trunc i32 %b to i8
  %s8 = mul i8 %a8, %b8
  %q8 = sdiv i8 %s8, 3
  %r27 = sext i8 %q8 to i32
  %a16 = trunc i32 %a to i16
  %b16 = trunc i32 %b to i16
  %s16 = udiv i16 %a16, 7
  %t16 = add i16 %s16, %b16
  %r28 = zext i16 %t16 to i32
  %mx64 = call i64 @llvm.smax.i64(i64 %a64, i64 %b64)
  %r29 = trunc i64 %mx64 to i32
  %r30 = xor i32 %a, -1
  %nb = sub i32 0, %b
  %r31 = and i32 %a, %nb
  %v0 = insertelement <4 x i32> undef, i32 %r0, i32 0
  %v1 = insertelement <4 x i32> %v0, i32 %r1, i32 1
  %v2 = insertelement <4 x i32> %v1, i32 %r2, i32 2
  %v3 = insertelement <4 x i32> %v2, i32 %r3, i32 3
  store <4 x i32> %v3, ptr addrspace(1) %base, align 16
  %p4 = getelementptr i32, ptr addrspace(1) %base, i64 4
  store i32 %r4, ptr addrspace(1) %p4
  %p5 = getelementptr i32, ptr addrspace(1) %base, i64 5
  store i32 %r5, ptr addrspace(1) %p5
  %p6 = getelementptr i32, ptr addrspace(1) %base, i64 6
  store i32 %r6, ptr addrspace(1) %p6
  %p7 = getelementptr i32, ptr addrspace(1) %base, i64 7
  store i32 %r7, ptr addrspace(1) %p7
  %p8 = getelementptr i32, ptr addrspace(1) %base, i64 8
  store i32 %r8, ptr addrspace(1) %p8
  %p9 = getelementptr i32, ptr addrspace(1) %base, i64 9
  store i32 %r9, ptr addrspace(1) %p9
  %p10 = getelementptr i32, ptr addrspace(1) %base, i64 10
  store i32 %r10, ptr addrspace(1) %p10
  %p11 = getelementptr i32, ptr addrspace(1) %base, i64 11
  store i32 %r11, ptr addrspace(1) %p11
  %p12 = getelementptr i32, ptr addrspace(1) %base, i64 12
  store i32 %r12, ptr addrspace(1) %p12
  %p13 = getelementptr i32, ptr addrspace(1) %base, i64 13
  store i32 %r13, ptr addrspace(1) %p13
  %p14 = getelementptr i32, ptr addrspace(1) %base, i64 14
  store i32 %r14, ptr addrspace(1) %p14
  %p15 = getelementptr i32, ptr addrspace(1) %base, i64 15
  store i32 %r15, ptr addrspace(1) %p15
  %p16 = getelementptr i32, ptr addrspace(1) %base, i64 16
  store i32 %r16, ptr addrspace(1) %p16
  %p17 = getelementptr i32, ptr addrspace(1) %base, i64 17
  store i32 %r17, ptr addrspace(1) %p17
  %p18 = getelementptr i32, ptr addrspace(1) %base, i64 18
  store i32 %r18, ptr addrspace(1) %p18
  %p19 = getelementptr i32, ptr addrspace(1) %base, i64 19
  store i32 %r19, ptr addrspace(1) %p19
  %p20 = getelementptr i32, ptr addrspace(1) %base, i64 20
  store i32 %r20, ptr addrspace(1) %p20
  %p21 = getelementptr i32, ptr addrspace(1) %base, i64 21
  store i32 %r21, ptr addrspace(1) %p21
  %p22 = getelementptr i32, ptr addrspace(1) %base, i64 22
  store i32 %r22, ptr addrspace(1) %p22
  %p23 = getelementptr i32, ptr addrspace(1) %base, i64 23
  store i32 %r23, ptr addrspace(1) %p23
  %p24 = getelementptr i32, ptr addrspace(1) %base, i64 24
  store i32 %r24, ptr addrspace(1) %p24
  %p25 = getelementptr i32, ptr addrspace(1) %base, i64 25
  store i32 %r25, ptr addrspace(1) %p25
  %p26 = getelementptr i32, ptr addrspace(1) %base, i64 26
  store i32 %r26, ptr addrspace(1) %p26
  %p27 = getelementptr i32, ptr addrspace(1) %base, i64 27
  store i32 %r27, ptr addrspace(1) %p27
  %p28 = getelementptr i32, ptr addrspace(1) %base, i64 28
  store i32 %r28, ptr addrspace(1) %p28
  %p29 = getelementptr i32, ptr addrspace(1) %base, i64 29
  store i32 %r29, ptr addrspace(1) %p29
  %p30 = getelementptr i32, ptr addrspace(1) %base, i64 30
  store i32 %r30, ptr addrspace(1) %p30
  %p31 = getelementptr i32, ptr addrspace(1) %base, i64 31
  store i32 %r31, ptr addrspace(1) %p31
  ret void
}
