target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define internal float @poly(float %x, i32 %n) noinline {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %done, label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi float [ 1.0, %entry ], [ %acc1, %loop ]
  %m = fmul float %acc, %x
  %acc1 = fadd float %m, 1.0
  %k1 = add i32 %k, 1
  %d = icmp eq i32 %k1, %n
  br i1 %d, label %done, label %loop
done:
  %r = phi float [ 1.0, %entry ], [ %acc1, %loop ]
  ret float %r
}

define internal { i32, i64 } @pair(i32 %a, i64 %b, ptr %p) noinline {
  %v = load i32, ptr %p, align 4
  %s = add i32 %a, %v
  %w = mul i64 %b, 3
  %r0 = insertvalue { i32, i64 } undef, i32 %s, 0
  %r1 = insertvalue { i32, i64 } %r0, i64 %w, 1
  ret { i32, i64 } %r1
}

define internal void @store2(ptr addrspace(1) %p, <2 x float> %v, i8 %b, i16 %h) noinline {
  store <2 x float> %v, ptr addrspace(1) %p, align 8
  %q = getelementptr i8, ptr addrspace(1) %p, i64 8
  store i8 %b, ptr addrspace(1) %q
  %q2 = getelementptr i8, ptr addrspace(1) %p, i64 10
  store i16 %h, ptr addrspace(1) %q2
  ret void
}

define ptx_kernel void @calls(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %loc = alloca i32, align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %t64
  %x = load float, ptr addrspace(1) %pin, align 4
  %n = and i32 %tid, 3
  %r = call float @poly(float %x, i32 %n)
  store i32 %tid, ptr %loc, align 4
  %pr = call { i32, i64 } @pair(i32 7, i64 %t64, ptr %loc)
  %p0 = extractvalue { i32, i64 } %pr, 0
  %p1 = extractvalue { i32, i64 } %pr, 1
  %o = mul i64 %t64, 4
  %base = getelementptr float, ptr addrspace(1) %out, i64 %o
  %p0f = sitofp i32 %p0 to float
  %v0 = insertelement <2 x float> undef, float %r, i32 0
  %v1 = insertelement <2 x float> %v0, float %p0f, i32 1
  %b = trunc i64 %p1 to i8
  %h = trunc i64 %p1 to i16
  %h2 = mul i16 %h, 1000
  call void @store2(ptr addrspace(1) %base, <2 x float> %v1, i8 %b, i16 %h2)
  ret void
}
