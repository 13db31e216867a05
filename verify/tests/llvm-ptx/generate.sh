#!/bin/sh
# Regenerates the .ptx fixtures from the .ll sources with LLVM 19's NVPTX back end.
# Run from this folder: sh generate.sh
set -eu
LLVM=${LLVM:-/usr/lib/llvm-19/bin}
LIBDEVICE=${LIBDEVICE:-/work/main/.tools/venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc}
for f in int_ops float_ops memory atomics warp mma calls pack extra; do
    "$LLVM/llc" -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 -O3 "$f.ll" -o "$f.ptx"
done
# misc: a plain fdiv becomes div.full.f32 with -nvptx-prec-divf32=1.
"$LLVM/llc" -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 -O3 -nvptx-prec-divf32=1 misc.ll -o misc.ptx
# ext calls a function of another module (ptxas rejects it without -c).
"$LLVM/llc" -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 -O3 ext.ll -o ext.ptx
# The same kernel for sm_90 (the instructions are the same; the header differs).
"$LLVM/llc" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 -O3 int_ops.ll -o int_ops.sm90.ptx
# libdevice: link the functions the kernel calls, optimize (inlining them), then llc.
tmp=$(mktemp -d)
"$LLVM/llvm-link" libdevice.ll "$LIBDEVICE" --only-needed -o "$tmp/libdevice.bc"
"$LLVM/opt" -passes='default<O3>' -mtriple=nvptx64-nvidia-cuda "$tmp/libdevice.bc" -o "$tmp/libdevice.opt.bc"
"$LLVM/llc" -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 -O3 "$tmp/libdevice.opt.bc" -o libdevice.ptx
# Without opt nothing is inlined: the kernel calls the libdevice functions.
"$LLVM/llc" -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 -O3 "$tmp/libdevice.bc" -o libdevice_calls.ptx
rm -r "$tmp"
