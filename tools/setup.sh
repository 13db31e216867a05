#!/usr/bin/env bash
# Installs the external tools dianran's verification uses (docs/verification.md), idempotently:
#   * ptxas and libnvrtc (CUDA 12.9) from PyPI into .tools/venv (gitignored, inside the clone),
#     and nvdisasm (the SASS disassembler behind `dianran ptx --sass`; PyPI has no CUDA 12 wheel
#     of it, the CUDA 13 one reads the sm_80/sm_90 cubins of ptxas 12.9);
#   * lavapipe (Mesa's software Vulkan), the Vulkan loader, clang and LLVM 19 (`llvm-19-dev`,
#     for the `llvm` cargo feature: the LLVM backend) via apt-get, only when running as root and
#     a package is missing. The nvidia-cuda-nvcc wheel above also brings libdevice.10.bc, the
#     math library the LLVM backend links.
# Run from anywhere; paths are relative to the repository root. Prints what it did.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

NVCC_PKG="nvidia-cuda-nvcc-cu12==12.9.86"
NVRTC_PKG="nvidia-cuda-nvrtc-cu12==12.9.86"
NVDISASM_PKG="nvidia-cuda-nvdisasm==13.5.37"
# llvm-19-dev is what llvm-sys links (libLLVM-19.so); its llvm-config also wants the Polly and
# zstd development files present.
APT_PKGS=(mesa-vulkan-drivers libvulkan1 clang llvm-19-dev libpolly-19-dev libzstd-dev)
venv="$root/.tools/venv"

say() { printf 'setup: %s\n' "$*"; }

# --- Python venv with ptxas, nvrtc and nvdisasm -------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
    say "python3 not found: skipping ptxas/nvrtc/nvdisasm (tests needing them skip, or fail under CI=true)"
else
    if [ -x "$venv/bin/python" ]; then
        say "venv exists: $venv"
    else
        say "creating venv: $venv"
        mkdir -p "$root/.tools"
        if ! python3 -m venv "$venv"; then
            # Debian ships venv/ensurepip separately.
            if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
                say "apt-get install python3-venv"
                export DEBIAN_FRONTEND=noninteractive
                apt-get update -qq
                apt-get install -y -qq --no-install-recommends python3-venv
                rm -rf "$venv"
                python3 -m venv "$venv"
            else
                say "python3 -m venv failed: install python3-venv"
                exit 1
            fi
        fi
    fi
    # pip's own check makes this a no-op when the pinned versions are installed already.
    installed="$("$venv/bin/python" -m pip list --format=freeze 2>/dev/null || true)"
    want=()
    for pkg in "$NVCC_PKG" "$NVRTC_PKG" "$NVDISASM_PKG"; do
        if grep -qix "$pkg" <<<"$installed"; then
            say "already installed: $pkg"
        else
            want+=("$pkg")
        fi
    done
    if [ "${#want[@]}" -gt 0 ]; then
        say "pip install ${want[*]}"
        "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q "${want[@]}"
    fi
    ptxas="$(find "$venv" -path '*/nvidia/cuda_nvcc/bin/ptxas' -type f 2>/dev/null | head -n 1)"
    if [ -n "$ptxas" ]; then
        chmod +x "$ptxas" 2>/dev/null || true
        say "ptxas: $ptxas"
    else
        say "warning: ptxas not found under $venv"
    fi
    nvdisasm="$(find "$venv" -path '*/nvidia/cu13/bin/nvdisasm' -type f 2>/dev/null | head -n 1)"
    if [ -n "$nvdisasm" ]; then
        # pip keeps the executable bit, an unzipped wheel does not.
        chmod +x "$nvdisasm" 2>/dev/null || true
        say "nvdisasm: $nvdisasm"
    else
        say "warning: nvdisasm not found under $venv"
    fi
fi

# --- apt packages: lavapipe, Vulkan loader, clang, LLVM 19 ---------------------------------------------
missing=()
if command -v dpkg >/dev/null 2>&1; then
    for pkg in "${APT_PKGS[@]}"; do
        if dpkg -s "$pkg" >/dev/null 2>&1; then
            say "already installed: $pkg"
        else
            missing+=("$pkg")
        fi
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
            say "apt-get install ${missing[*]}"
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends "${missing[@]}"
        else
            say "not root (or no apt-get): please install ${missing[*]}"
        fi
    fi
else
    say "no dpkg: install ${APT_PKGS[*]} with your package manager"
fi

say "done"
