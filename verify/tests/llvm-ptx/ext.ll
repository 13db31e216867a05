target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @elsewhere(i32)

; Calls a function defined in another module: an `.extern .func` declaration.
define ptx_kernel void @external(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %f = call i32 @elsewhere(i32 %tid)
  store i32 %f, ptr addrspace(1) %out
  ret void
}
