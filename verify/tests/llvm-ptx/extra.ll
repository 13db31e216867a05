target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; Relaxed atomic loads and stores (ld.volatile / st.volatile: LLVM 19 cannot select
; acquire or release ones), a switch (lowered to a tree of branches), f16 atomic adds
; (atom.add.noftz.f16) and bf16 conversions.
define ptx_kernel void @extra(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(1) %h) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pin = getelementptr i32, ptr addrspace(1) %in, i64 %t64
  %v = load atomic i32, ptr addrspace(1) %pin monotonic, align 4
  %w = load atomic i32, ptr addrspace(1) %pin monotonic, align 4
  %s = add i32 %v, %w
  switch i32 %s, label %d [ i32 0, label %a0
                            i32 1, label %a1
                            i32 2, label %a2
                            i32 3, label %a3
                            i32 4, label %a4
                            i32 5, label %a5
                            i32 6, label %a6 ]
a0: br label %join
a1: br label %join
a2: br label %join
a3: br label %join
a4: br label %join
a5: br label %join
a6: br label %join
d: br label %join
join:
  %r = phi i32 [ 10, %a0 ], [ 21, %a1 ], [ 32, %a2 ], [ 43, %a3 ], [ 54, %a4 ], [ 65, %a5 ], [ 76, %a6 ], [ 99, %d ]
  %pout = getelementptr i32, ptr addrspace(1) %out, i64 %t64
  store atomic i32 %r, ptr addrspace(1) %pout monotonic, align 4
  %hf = sitofp i32 %v to half
  %o = atomicrmw fadd ptr addrspace(1) %h, half %hf monotonic
  %o2 = atomicrmw fadd ptr addrspace(1) %h, half %hf syncscope("block") monotonic
  %bf = fptrunc float 1.5 to bfloat
  %vf = sitofp i32 %v to float
  %b2 = fptrunc float %vf to bfloat
  %bb = fadd bfloat %b2, %bf
  %bbf = fpext bfloat %bb to float
  %t2 = add i64 %t64, 64
  %q = getelementptr float, ptr addrspace(1) %out, i64 %t2
  store float %bbf, ptr addrspace(1) %q
  ret void
}
