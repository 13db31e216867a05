target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare {i32, i32, i32, i32} @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3))
declare {i32, i32} @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3(ptr addrspace(3))
declare {float, float, float, float} @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float)
declare {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k16.row.col.f16.f16(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>)
declare {float, float, float, float} @llvm.nvvm.mma.m16n8k8.row.col.tf32(i32, i32, i32, i32, i32, i32, float, float, float, float)

@sa = internal addrspace(3) global [256 x half] undef, align 16
@sb = internal addrspace(3) global [128 x half] undef, align 16

; A: 16x16 f16 row-major in %a (256 halves), B: 16x8 f16 row-major [k][n] in %b (128 halves).
; D = A*B in f32 (out, 128 floats) and in f16 (outh, 128 halves), both row-major 16x8.
define ptx_kernel void @mma_f16(ptr addrspace(1) %out, ptr addrspace(1) %outh, ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  ; copy A: each thread 8 halves (16 bytes)
  %pa = getelementptr <8 x half>, ptr addrspace(1) %a, i64 %t64
  %va = load <8 x half>, ptr addrspace(1) %pa, align 16
  %psa = getelementptr <8 x half>, ptr addrspace(3) @sa, i64 %t64
  store <8 x half> %va, ptr addrspace(3) %psa, align 16
  %small = icmp ult i32 %tid, 16
  br i1 %small, label %cb, label %cont
cb:
  %pb = getelementptr <8 x half>, ptr addrspace(1) %b, i64 %t64
  %vb = load <8 x half>, ptr addrspace(1) %pb, align 16
  %psb = getelementptr <8 x half>, ptr addrspace(3) @sb, i64 %t64
  store <8 x half> %vb, ptr addrspace(3) %psb, align 16
  br label %cont
cont:
  call void @llvm.nvvm.barrier0()
  ; ldmatrix x4 for A: lane l gives row (l % 16), column block 8 * (l / 16)
  %row = and i32 %tid, 15
  %cblk = lshr i32 %tid, 4
  %r16 = mul i32 %row, 16
  %c8 = mul i32 %cblk, 8
  %ai = add i32 %r16, %c8
  %ai64 = zext i32 %ai to i64
  %pra = getelementptr half, ptr addrspace(3) @sa, i64 %ai64
  %fa = call {i32, i32, i32, i32} @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %pra)
  %a0 = extractvalue {i32, i32, i32, i32} %fa, 0
  %a1 = extractvalue {i32, i32, i32, i32} %fa, 1
  %a2 = extractvalue {i32, i32, i32, i32} %fa, 2
  %a3 = extractvalue {i32, i32, i32, i32} %fa, 3
  ; ldmatrix x2 trans for B (row-major [k][n]): lane l (0..15) gives row k = l
  %bk = and i32 %tid, 15
  %bi = mul i32 %bk, 8
  %bi64 = zext i32 %bi to i64
  %prb = getelementptr half, ptr addrspace(3) @sb, i64 %bi64
  %fb = call {i32, i32} @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3(ptr addrspace(3) %prb)
  %b0 = extractvalue {i32, i32} %fb, 0
  %b1 = extractvalue {i32, i32} %fb, 1
  %ha0 = bitcast i32 %a0 to <2 x half>
  %ha1 = bitcast i32 %a1 to <2 x half>
  %ha2 = bitcast i32 %a2 to <2 x half>
  %ha3 = bitcast i32 %a3 to <2 x half>
  %hb0 = bitcast i32 %b0 to <2 x half>
  %hb1 = bitcast i32 %b1 to <2 x half>
  %d = call {float, float, float, float} @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half> %ha0, <2 x half> %ha1, <2 x half> %ha2, <2 x half> %ha3, <2 x half> %hb0, <2 x half> %hb1, float 0.0, float 0.0, float 0.0, float 0.0)
  %d0 = extractvalue {float, float, float, float} %d, 0
  %d1 = extractvalue {float, float, float, float} %d, 1
  %d2 = extractvalue {float, float, float, float} %d, 2
  %d3 = extractvalue {float, float, float, float} %d, 3
  %dh = call {<2 x half>, <2 x half>} @llvm.nvvm.mma.m16n8k16.row.col.f16.f16(<2 x half> %ha0, <2 x half> %ha1, <2 x half> %ha2, <2 x half> %ha3, <2 x half> %hb0, <2 x half> %hb1, <2 x half> zeroinitializer, <2 x half> zeroinitializer)
  %dh0 = extractvalue {<2 x half>, <2 x half>} %dh, 0
  %dh1 = extractvalue {<2 x half>, <2 x half>} %dh, 1
  ; store: g = lane/4, t = lane%4: d0,d1 -> (g, 2t), (g, 2t+1); d2,d3 -> (g+8, ...)
  %g = lshr i32 %tid, 2
  %t = and i32 %tid, 3
  %t2 = shl i32 %t, 1
  %g8 = mul i32 %g, 8
  %i0 = add i32 %g8, %t2
  %i064 = zext i32 %i0 to i64
  %po0 = getelementptr float, ptr addrspace(1) %out, i64 %i064
  %v01a = insertelement <2 x float> undef, float %d0, i32 0
  %v01 = insertelement <2 x float> %v01a, float %d1, i32 1
  store <2 x float> %v01, ptr addrspace(1) %po0, align 8
  %po1 = getelementptr float, ptr addrspace(1) %po0, i64 64
  %v23a = insertelement <2 x float> undef, float %d2, i32 0
  %v23 = insertelement <2 x float> %v23a, float %d3, i32 1
  store <2 x float> %v23, ptr addrspace(1) %po1, align 8
  %ph0 = getelementptr half, ptr addrspace(1) %outh, i64 %i064
  store <2 x half> %dh0, ptr addrspace(1) %ph0, align 4
  %ph1 = getelementptr half, ptr addrspace(1) %ph0, i64 64
  store <2 x half> %dh1, ptr addrspace(1) %ph1, align 4
  ret void
}

; tf32: A 16x8 f32 row-major, B 8x8 f32 [k][n]; per-lane fragments loaded directly.
define ptx_kernel void @mma_tf32(ptr addrspace(1) %out, ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = lshr i32 %tid, 2
  %t = and i32 %tid, 3
  %g8 = add i32 %g, 8
  %t4 = add i32 %t, 4
  %ia0 = mul i32 %g, 8
  %x0 = add i32 %ia0, %t
  %ia1 = mul i32 %g8, 8
  %x1 = add i32 %ia1, %t
  %x2 = add i32 %ia0, %t4
  %x3 = add i32 %ia1, %t4
  %y0a = mul i32 %t, 8
  %y0 = add i32 %y0a, %g
  %y1a = mul i32 %t4, 8
  %y1 = add i32 %y1a, %g
  %x064 = zext i32 %x0 to i64
  %x164 = zext i32 %x1 to i64
  %x264 = zext i32 %x2 to i64
  %x364 = zext i32 %x3 to i64
  %y064 = zext i32 %y0 to i64
  %y164 = zext i32 %y1 to i64
  %pa0 = getelementptr i32, ptr addrspace(1) %a, i64 %x064
  %pa1 = getelementptr i32, ptr addrspace(1) %a, i64 %x164
  %pa2 = getelementptr i32, ptr addrspace(1) %a, i64 %x264
  %pa3 = getelementptr i32, ptr addrspace(1) %a, i64 %x364
  %pb0 = getelementptr i32, ptr addrspace(1) %b, i64 %y064
  %pb1 = getelementptr i32, ptr addrspace(1) %b, i64 %y164
  %a0 = load i32, ptr addrspace(1) %pa0
  %a1 = load i32, ptr addrspace(1) %pa1
  %a2 = load i32, ptr addrspace(1) %pa2
  %a3 = load i32, ptr addrspace(1) %pa3
  %b0 = load i32, ptr addrspace(1) %pb0
  %b1 = load i32, ptr addrspace(1) %pb1
  %d = call {float, float, float, float} @llvm.nvvm.mma.m16n8k8.row.col.tf32(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, float 0.0, float 0.0, float 0.0, float 0.0)
  %d0 = extractvalue {float, float, float, float} %d, 0
  %d1 = extractvalue {float, float, float, float} %d, 1
  %d2 = extractvalue {float, float, float, float} %d, 2
  %d3 = extractvalue {float, float, float, float} %d, 3
  %t2 = shl i32 %t, 1
  %i0 = add i32 %ia0, %t2
  %i064 = zext i32 %i0 to i64
  %po0 = getelementptr float, ptr addrspace(1) %out, i64 %i064
  store float %d0, ptr addrspace(1) %po0
  %po1 = getelementptr float, ptr addrspace(1) %po0, i64 1
  store float %d1, ptr addrspace(1) %po1
  %po2 = getelementptr float, ptr addrspace(1) %po0, i64 64
  store float %d2, ptr addrspace(1) %po2
  %po3 = getelementptr float, ptr addrspace(1) %po0, i64 65
  store float %d3, ptr addrspace(1) %po3
  ret void
}
