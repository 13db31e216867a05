target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
declare float @llvm.nvvm.shfl.sync.idx.f32(i32, float, i32, i32)
declare {i32, i1} @llvm.nvvm.shfl.sync.down.i32p(i32, i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i1 @llvm.nvvm.vote.all.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i1 @llvm.nvvm.vote.uni.sync(i32, i1)
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
declare i32 @llvm.nvvm.redux.sync.or(i32, i32)
declare i32 @llvm.nvvm.activemask()
declare void @llvm.nvvm.bar.warp.sync(i32)
declare void @llvm.nvvm.barrier.sync(i32)

define void @warp(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %t64
  %v = load i32, ptr addrspace(1) %pin, align 4
  %f = sitofp i32 %v to float
  %r0 = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %v, i32 3, i32 31)
  %r1 = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %v, i32 1, i32 0)
  %r2 = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %v, i32 2, i32 31)
  %lh = lshr i32 %lane, 1
  %lm = and i32 %lh, 3
  %r3 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 %lm, i32 31)
  %f4 = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %f, i32 16, i32 31)
  %r4 = fptosi float %f4 to i32
  %p = icmp sgt i32 %v, 10
  %r5 = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %p)
  %a6 = call i1 @llvm.nvvm.vote.all.sync(i32 -1, i1 %p)
  %r6 = zext i1 %a6 to i32
  %a7 = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %p)
  %r7 = zext i1 %a7 to i32
  %r8 = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  %r9 = call i32 @llvm.nvvm.redux.sync.umin(i32 %v, i32 -1)
  %r10 = call i32 @llvm.nvvm.redux.sync.max(i32 %v, i32 -1)
  %r11 = call i32 @llvm.nvvm.redux.sync.or(i32 %v, i32 -1)
  %pr = call {i32, i1} @llvm.nvvm.shfl.sync.down.i32p(i32 -1, i32 %v, i32 4, i32 31)
  %r12v = extractvalue {i32, i1} %pr, 0
  %r12p = extractvalue {i32, i1} %pr, 1
  %r12z = zext i1 %r12p to i32
  %r12 = add i32 %r12v, %r12z
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  %odd = and i32 %lane, 1
  %c = icmp eq i32 %odd, 0
  br i1 %c, label %even, label %join
even:
  %am = call i32 @llvm.nvvm.activemask()
  %fs = call float @llvm.nvvm.shfl.sync.idx.f32(i32 1431655765, float %f, i32 0, i32 31)
  %is = fptosi float %fs to i32
  %sum = add i32 %am, %is
  br label %join
join:
  %r13 = phi i32 [ %sum, %even ], [ 0, %entry ]
  %r14 = call i32 @llvm.nvvm.activemask()
  call void @llvm.nvvm.barrier.sync(i32 0)
  %o = mul i64 %t64, 16
  %base = getelementptr i32, ptr addrspace(1) %out, i64 %o
  store i32 %r0, ptr addrspace(1) %base
  %q1 = getelementptr i32, ptr addrspace(1) %base, i64 1
  store i32 %r1, ptr addrspace(1) %q1
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
  %q14 = getelementptr i32, ptr addrspace(1) %base, i64 14
  store i32 %r14, ptr addrspace(1) %q14
  ret void
}

; The older kernel marking: !nvvm.annotations with "kernel" (and a required CTA size).
!nvvm.annotations = !{!0, !1}
!0 = !{ptr @warp, !"kernel", i32 1}
!1 = !{ptr @warp, !"reqntidx", i32 64, !"reqntidy", i32 1, !"reqntidz", i32 1}
