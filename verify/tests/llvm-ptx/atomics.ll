target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare void @llvm.nvvm.membar.cta()
declare void @llvm.nvvm.membar.gl()

@sh = internal addrspace(3) global [8 x i32] undef, align 4

; acc[0..12] global atomics; every thread contributes v = in[tid]
define ptx_kernel void @atomics(ptr addrspace(1) %acc, ptr addrspace(1) %in, ptr addrspace(1) %old) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %t64
  %v = load i32, ptr addrspace(1) %pin, align 4
  %o0 = atomicrmw add ptr addrspace(1) %acc, i32 %v monotonic
  %p1 = getelementptr i32, ptr addrspace(1) %acc, i64 1
  %o1 = atomicrmw sub ptr addrspace(1) %p1, i32 %v monotonic
  %p2 = getelementptr i32, ptr addrspace(1) %acc, i64 2
  %o2 = atomicrmw and ptr addrspace(1) %p2, i32 %v monotonic
  %p3 = getelementptr i32, ptr addrspace(1) %acc, i64 3
  %o3 = atomicrmw or ptr addrspace(1) %p3, i32 %v monotonic
  %p4 = getelementptr i32, ptr addrspace(1) %acc, i64 4
  %o4 = atomicrmw xor ptr addrspace(1) %p4, i32 %v monotonic
  %p5 = getelementptr i32, ptr addrspace(1) %acc, i64 5
  %o5 = atomicrmw min ptr addrspace(1) %p5, i32 %v monotonic
  %p6 = getelementptr i32, ptr addrspace(1) %acc, i64 6
  %o6 = atomicrmw max ptr addrspace(1) %p6, i32 %v monotonic
  %p7 = getelementptr i32, ptr addrspace(1) %acc, i64 7
  %o7 = atomicrmw umin ptr addrspace(1) %p7, i32 %v monotonic
  %p8 = getelementptr i32, ptr addrspace(1) %acc, i64 8
  %o8 = atomicrmw umax ptr addrspace(1) %p8, i32 %v monotonic
  %p9 = getelementptr i32, ptr addrspace(1) %acc, i64 9
  %o9 = atomicrmw xchg ptr addrspace(1) %p9, i32 %v monotonic
  %p10 = getelementptr i32, ptr addrspace(1) %acc, i64 10
  %pair = cmpxchg ptr addrspace(1) %p10, i32 %tid, i32 %v monotonic monotonic
  %o10 = extractvalue { i32, i1 } %pair, 0
  %p11 = getelementptr i32, ptr addrspace(1) %acc, i64 11
  %o11 = atomicrmw fadd ptr addrspace(1) %p11, float 1.0 monotonic
  %p12 = getelementptr i64, ptr addrspace(1) %acc, i64 6
  %v64 = zext i32 %v to i64
  %o12 = atomicrmw add ptr addrspace(1) %p12, i64 %v64 seq_cst
  %ps = getelementptr [8 x i32], ptr addrspace(3) @sh, i64 0, i64 0
  %c = icmp eq i32 %tid, 0
  br i1 %c, label %init, label %go
init:
  store i32 0, ptr addrspace(3) %ps, align 4
  %ps1 = getelementptr [8 x i32], ptr addrspace(3) @sh, i64 0, i64 1
  store i32 -1, ptr addrspace(3) %ps1, align 4
  br label %go
go:
  call void @llvm.nvvm.barrier0()
  %s0 = atomicrmw add ptr addrspace(3) %ps, i32 %v monotonic
  %ps1b = getelementptr [8 x i32], ptr addrspace(3) @sh, i64 0, i64 1
  %s1 = atomicrmw umin ptr addrspace(3) %ps1b, i32 %v monotonic
  call void @llvm.nvvm.membar.cta()
  call void @llvm.nvvm.membar.gl()
  call void @llvm.nvvm.barrier0()
  br i1 %c, label %fin, label %done
fin:
  %sv0 = load i32, ptr addrspace(3) %ps, align 4
  %q = getelementptr i32, ptr addrspace(1) %acc, i64 14
  store i32 %sv0, ptr addrspace(1) %q, align 4
  %sv1 = load i32, ptr addrspace(3) %ps1b, align 4
  %q1 = getelementptr i32, ptr addrspace(1) %acc, i64 15
  store i32 %sv1, ptr addrspace(1) %q1, align 4
  br label %done
done:
  %ob = mul i64 %t64, 12
  %q0 = getelementptr i32, ptr addrspace(1) %old, i64 %ob
  store i32 %o0, ptr addrspace(1) %q0
  %qa1 = getelementptr i32, ptr addrspace(1) %q0, i64 1
  store i32 %o1, ptr addrspace(1) %qa1
  %qa2 = getelementptr i32, ptr addrspace(1) %q0, i64 2
  store i32 %o2, ptr addrspace(1) %qa2
  %qa3 = getelementptr i32, ptr addrspace(1) %q0, i64 3
  store i32 %o3, ptr addrspace(1) %qa3
  %qa4 = getelementptr i32, ptr addrspace(1) %q0, i64 4
  store i32 %o4, ptr addrspace(1) %qa4
  %qa5 = getelementptr i32, ptr addrspace(1) %q0, i64 5
  store i32 %o5, ptr addrspace(1) %qa5
  %qa6 = getelementptr i32, ptr addrspace(1) %q0, i64 6
  store i32 %o6, ptr addrspace(1) %qa6
  %qa7 = getelementptr i32, ptr addrspace(1) %q0, i64 7
  store i32 %o7, ptr addrspace(1) %qa7
  %qa8 = getelementptr i32, ptr addrspace(1) %q0, i64 8
  store i32 %o8, ptr addrspace(1) %qa8
  %qa9 = getelementptr i32, ptr addrspace(1) %q0, i64 9
  store i32 %o9, ptr addrspace(1) %qa9
  %qa10 = getelementptr i32, ptr addrspace(1) %q0, i64 10
  store i32 %o10, ptr addrspace(1) %qa10
  %o11i = bitcast float %o11 to i32
  %qa11 = getelementptr i32, ptr addrspace(1) %q0, i64 11
  store i32 %o11i, ptr addrspace(1) %qa11
  ret void
}
