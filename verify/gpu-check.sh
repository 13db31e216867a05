#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU (SPEC §6 level 4): builds dianran, then for every
# compute sample JIT-loads our PTX through the CUDA driver (cuModuleLoadData via cudarc), runs
# it, and compares the buffers with the reference interpreter and the PTX emulator
# (`dianran verify`), then runs the cooperative-matrix form tests with the CUDA driver as a
# third executor, and the precise-math accuracy test (device results bit-identical to the
# emulator's). Prints one line per sample and a summary; exits 1 if any executor that
# ran disagrees. Budget: under 5 minutes on a 16-core machine (about half is the build).
#
#   verify/gpu-check.sh            # samples
#   verify/gpu-check.sh --bench    # also the 4096^3 GEMM TFLOP/s benchmark (needs NVRTC)
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$root/target/xdg-runtime}"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

start=$SECONDS
echo "== build ($(nproc) cores)"
cargo build --release --bin dianran 2>&1 | tail -n 1 || exit 1
bin="$root/target/release/dianran"
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
        out=$(timeout 60 "$bin" verify "$f" --len 16384 --entry "$entry" 2>&1)
        cuda=$(printf '%s\n' "$out" | grep -P '^cuda\t' | head -n 1)
        emu=$(printf '%s\n' "$out" | grep -P '^emu\t' | head -n 1 | cut -f2)
        case "$cuda" in
            *$'\t'agree*) agree=$((agree + 1)); status=agree ;;
            *$'\t'skipped*) skipped=$((skipped + 1)); status=skipped ;;
            "")
                # No executor ran: the reference failed on the random input.
                rejected=$((rejected + 1)); status=not-run
                cuda="-	-	$(printf '%s\n' "$out" | head -n 1)" ;;
            *) disagree=$((disagree + 1)); status=DISAGREE; failed_names+=("$name/$entry") ;;
        esac
        printf '%-40s cuda=%-8s emu=%-8s %s\n' "$name/$entry" "$status" "${emu:-?}" \
            "$(printf '%s' "$cuda" | cut -f3- | cut -c1-120)"
    done
done
echo "== samples: $agree agree, $disagree disagree, $skipped skipped, $rejected not run ($((SECONDS - start)) s)"
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
fi
echo "== done in $((SECONDS - start)) s"
[ "$disagree" -eq 0 ]
