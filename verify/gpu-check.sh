#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU (SPEC §6 level 4): builds dianran, then for every
# compute sample JIT-loads our PTX through the CUDA driver (cuModuleLoadData via cudarc), runs
# it, and compares the buffers with the reference interpreter and the PTX emulator
# (`dianran verify`); where LLVM 19 is installed (tools/setup.sh) it builds the `llvm` feature
# and does the same with the LLVM backend's PTX (`llvm-cuda`, `llvm-emu`); then runs the cooperative-matrix form tests with the CUDA driver as a
# third executor, and the precise-math accuracy test (device results bit-identical to the
# emulator's). Prints one line per sample and a summary; exits 1 if any executor that
# ran disagrees. Budget: under 5 minutes on a 16-core machine (about half is the build).
#
#   verify/gpu-check.sh            # samples
#   verify/gpu-check.sh --bench    # also the 4096^3 GEMM TFLOP/s benchmark (needs NVRTC)
#   verify/gpu-check.sh --prepare-llvm
#                                  # on a machine with LLVM 19 and no GPU: write the LLVM
#                                  # backend's PTX of every sample to target/llvm-ptx/ and stop.
#                                  # A GPU machine without LLVM (the lent ones are offline) that
#                                  # gets that folder runs it as llvm-cuda through `verify --ptx`.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$root/target/xdg-runtime}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

start=$SECONDS
echo "== build ($(nproc) cores)"
features=()
prepared="$root/target/llvm-ptx"
if [ -x /usr/lib/llvm-19/bin/llvm-config ]; then
    features=(--features llvm)
    echo "LLVM 19 found: both backends (cuda and llvm-cuda)"
elif [ -d "$prepared" ]; then
    echo "no LLVM 19: llvm-cuda runs the PTX prepared in target/llvm-ptx/ (verify --ptx)"
else
    echo "no LLVM 19 (/usr/lib/llvm-19) and no target/llvm-ptx/: llvm-cuda lines say skipped"
fi
cargo build --release "${features[@]}" --bin dianran 2>&1 | tail -n 1 || exit 1
bin="$root/target/release/dianran"
if [ "${1:-}" = "--prepare-llvm" ]; then
    [ "${#features[@]}" -gt 0 ] || { echo "--prepare-llvm needs LLVM 19"; exit 1; }
    mkdir -p "$prepared"
    n=0
    for f in tests/samples/*.wgsl tests/realworld/*.wgsl; do
        grep -q '^// dispatch:' "$f" || continue
        "$bin" ptx "$f" --backend llvm -o "$prepared/$(basename "$f" .wgsl).ptx" 2>/dev/null \
            && n=$((n + 1))
    done
    echo "wrote $n PTX files to $prepared"
    exit 0
fi
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

agree=0; disagree=0; skipped=0; rejected=0; failed_names=()
for f in tests/samples/*.wgsl tests/realworld/*.wgsl; do
    grep -q '^// dispatch:' "$f" || continue
    name="$(basename "$f" .wgsl)"
    if ! table=$("$bin" check "$f" 2>/dev/null); then
        rejected=$((rejected + 1))
        printf '%-40s rejected by the frontend (see dianran check)\n' "$name"
        continue
    fi
    for entry in $(printf '%s\n' "$table" | awk -F'\t' '$2 == "compute" { print $1 }'); do
        out=$(timeout 120 "$bin" verify "$f" --len 16384 --entry "$entry" \
            --executors emu,cuda,llvm-emu,llvm-cuda 2>&1)
        if [ "${#features[@]}" -eq 0 ] && [ -f "$prepared/$name.ptx" ]; then
            # LLVM's PTX prepared elsewhere, on the driver: reported as llvm-cuda.
            pre=$(timeout 120 "$bin" verify "$f" --len 16384 --entry "$entry" \
                --executors cuda --ptx "$prepared/$name.ptx" 2>&1 | grep -P '^cuda\t')
            out=$(printf '%s\n' "$out" | grep -vP '^llvm-cuda\t')
            out=$(printf '%s\n%s\n' "$out" "${pre/#cuda/llvm-cuda}")
        fi
        emu=$(printf '%s\n' "$out" | grep -P '^emu\t' | head -n 1 | cut -f2)
        lemu=$(printf '%s\n' "$out" | grep -P '^llvm-emu\t' | head -n 1 | cut -f2)
        line="$name/$entry"
        for exec in cuda llvm-cuda; do
            res=$(printf '%s\n' "$out" | grep -P "^$exec\t" | head -n 1)
            case "$res" in
                *$'\t'agree*) agree=$((agree + 1)); status=agree ;;
                *$'\t'skipped*) skipped=$((skipped + 1)); status=skipped ;;
                "")
                    # No executor ran: the reference failed on the random input.
                    rejected=$((rejected + 1)); status=not-run
                    res="-	-	$(printf '%s\n' "$out" | head -n 1)" ;;
                *) disagree=$((disagree + 1)); status=DISAGREE; failed_names+=("$exec:$name/$entry") ;;
            esac
            line="$line $exec=$status"
            [ "$status" = agree ] || line="$line ($(printf '%s' "$res" | cut -f3- | cut -c1-100))"
        done
        printf '%s emu=%s llvm-emu=%s\n' "$line" "${emu:-?}" "${lemu:-?}"
    done
done
echo "== samples (cuda and llvm-cuda runs): $agree agree, $disagree disagree, $skipped skipped, $rejected not run ($((SECONDS - start)) s)"
[ "${#failed_names[@]}" -gt 0 ] && echo "disagree: ${failed_names[*]}"

echo "== cooperative matrices: every orientation and form (f16/f32, 16x16/8x8, ldmatrix and"
echo "   per-lane paths, --tf32) on interp, emu and CUDA against plain Rust (verify/tests/coop_forms.rs)"
coop_ok=0
timeout 300 cargo test --release -p dianran-verify --test coop_forms 2>&1 | tail -n 25 \
    | tee /dev/stderr | grep -q '^test result: ok' && coop_ok=1
[ "$coop_ok" -eq 1 ] || { echo "coop_forms: FAILED"; disagree=$((disagree + 1)); }

echo "== precise math: every builtin's PTX on the device bit-identical to the emulator, and within"
echo "   its ulp bound (verify/tests/math_accuracy.rs)"
math_ok=0
timeout 300 cargo test --release -p dianran-verify --test math_accuracy 2>&1 | tail -n 8 \
    | tee /dev/stderr | grep -q '^test result: ok' && math_ok=1
[ "$math_ok" -eq 1 ] || { echo "math_accuracy: FAILED"; disagree=$((disagree + 1)); }

if [ "${1:-}" = "--bench" ]; then
    echo "== GEMM benchmark"
    tools/setup.sh >/dev/null 2>&1 || true
    timeout 240 cargo bench -p dianran-benches --bench gemm_device 2>&1 | tail -n 30
    if [ "${#features[@]}" -gt 0 ]; then
        echo "== compile time and ptxas registers: dianran vs LLVM vs NVRTC"
        timeout 240 cargo bench -p dianran-benches --features llvm --bench backends 2>&1 | tail -n 40
    fi
fi
echo "== done in $((SECONDS - start)) s"
[ "$disagree" -eq 0 ]
