target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier0()

@tile = internal addrspace(3) global [64 x float] undef, align 16
@table = internal addrspace(1) constant [8 x i32] [i32 3, i32 1, i32 4, i32 1, i32 5, i32 9, i32 2, i32 6], align 4
@ctable = internal addrspace(4) constant [4 x float] [float 0.5, float 1.5, float -2.0, float 8.0], align 4
@gcounter = internal addrspace(1) global i32 0, align 4

; out[i] = reversed tile within a block of 64, plus table lookup; bytes & shorts
define ptx_kernel void @memory(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(1) %bytes, ptr addrspace(1) %shorts) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %g0 = mul i32 %cta, %ntid
  %gid = add i32 %g0, %tid
  %g64 = zext i32 %gid to i64
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %g64
  %x = load float, ptr addrspace(1) %pin, align 4
  %t64 = zext i32 %tid to i64
  %ps = getelementptr [64 x float], ptr addrspace(3) @tile, i64 0, i64 %t64
  store float %x, ptr addrspace(3) %ps, align 4
  call void @llvm.nvvm.barrier0()
  %rt = sub i32 63, %tid
  %rt64 = zext i32 %rt to i64
  %pr = getelementptr [64 x float], ptr addrspace(3) @tile, i64 0, i64 %rt64
  %y = load float, ptr addrspace(3) %pr, align 4
  %ti = and i32 %gid, 7
  %ti64 = zext i32 %ti to i64
  %pt = getelementptr [8 x i32], ptr addrspace(1) @table, i64 0, i64 %ti64
  %tv = load i32, ptr addrspace(1) %pt, align 4
  %tf = sitofp i32 %tv to float
  %ci = and i32 %gid, 3
  %ci64 = zext i32 %ci to i64
  %pc = getelementptr [4 x float], ptr addrspace(4) @ctable, i64 0, i64 %ci64
  %cv = load float, ptr addrspace(4) %pc, align 4
  %s1 = fadd float %y, %tf
  %s2 = fmul float %s1, %cv
  %pout = getelementptr float, ptr addrspace(1) %out, i64 %g64
  store float %s2, ptr addrspace(1) %pout, align 4
  ; bytes: b[i] = b[i] * 3 + 1 (u8), shorts: s[i] = s[i] >> 1 (i16 signed)
  %pb = getelementptr i8, ptr addrspace(1) %bytes, i64 %g64
  %bv = load i8, ptr addrspace(1) %pb, align 1
  %bm = mul i8 %bv, 3
  %ba = add i8 %bm, 1
  store i8 %ba, ptr addrspace(1) %pb, align 1
  %psh = getelementptr i16, ptr addrspace(1) %shorts, i64 %g64
  %sv = load i16, ptr addrspace(1) %psh, align 2
  %sa = ashr i16 %sv, 1
  store i16 %sa, ptr addrspace(1) %psh, align 2
  ret void
}

; a <4 x float> copy with a grid-stride loop over n vectors: out4[i] = in4[i] * 2
define ptx_kernel void @vec4(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ncta = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %g0 = mul i32 %cta, %ntid
  %gid = add i32 %g0, %tid
  %stride = mul i32 %ntid, %ncta
  %c0 = icmp ult i32 %gid, %n
  br i1 %c0, label %loop, label %exit
loop:
  %i = phi i32 [ %gid, %entry ], [ %inext, %loop ]
  %i64 = zext i32 %i to i64
  %pi = getelementptr <4 x float>, ptr addrspace(1) %in, i64 %i64
  %v = load <4 x float>, ptr addrspace(1) %pi, align 16
  %w = fmul <4 x float> %v, <float 2.0, float 2.0, float 2.0, float 2.0>
  %po = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %i64
  store <4 x float> %w, ptr addrspace(1) %po, align 16
  %inext = add i32 %i, %stride
  %c = icmp ult i32 %inext, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

; local array indexed at run time (not promoted)
define ptx_kernel void @local_array(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %arr = alloca [7 x i32], align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %fill
fill:
  %k = phi i32 [ 0, %entry ], [ %k1, %fill ]
  %k64 = zext i32 %k to i64
  %pk = getelementptr [7 x i32], ptr %arr, i64 0, i64 %k64
  %sq = mul i32 %k, %tid
  store volatile i32 %sq, ptr %pk, align 4
  %k1 = add i32 %k, 1
  %d = icmp eq i32 %k1, 7
  br i1 %d, label %read, label %fill
read:
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %t64
  %idx = load i32, ptr addrspace(1) %pin, align 4
  %idx7 = urem i32 %idx, 7
  %i64 = zext i32 %idx7 to i64
  %pr = getelementptr [7 x i32], ptr %arr, i64 0, i64 %i64
  %v = load volatile i32, ptr %pr, align 4
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %t64
  store i32 %v, ptr addrspace(1) %pout, align 4
  ret void
}
