#!/usr/bin/env bash
# GPU check for a machine with an NVIDIA GPU (docs/verification.md, level 4): builds dianran, then for every
# compute sample JIT-loads our PTX through the CUDA driver (cuModuleLoadData via cudarc), runs
# it, and compares the buffers with the reference interpreter and the PTX emulator
# (`dianran verify`); where LLVM 19 is installed (tools/setup.sh) it builds the `llvm` feature
# and does the same with the LLVM backend's PTX (`llvm-cuda`, `llvm-emu`); then runs the
# cooperative-matrix form tests with the CUDA driver as a third executor, and the precise-math
# accuracy test (device results bit-identical to the emulator's). With --bench it also times
# the 4096^3 GEMM (ours vs NVRTC, TFLOP/s and fraction of the tensor peak) and the bandwidth
# kernels (GB/s against the memory peak) through `cargo bench --bench gemm_device`, and the
# launch overhead of the typed launchers against raw cudarc (`--bench launch_overhead`).
# Prints one line per sample, then one summary table; exits 1 if any executor that ran
# disagrees or a check failed. Budget: under 8 minutes with --bench on a 16-core machine
# (everything is built in one cargo step first; the sample loop stops at SAMPLE_BUDGET_S).
#
#   verify/gpu-check.sh            # samples, coop forms, precise math
#   verify/gpu-check.sh --bench    # also the GEMM and bandwidth benchmarks (needs NVRTC)
#   verify/gpu-check.sh --mufu    # only the special-function unit's tables (docs/math.md,
#                                  # "Tabulating the special-function unit"): every input of
#                                  # ex2/lg2/rcp/rsqrt/sin/cos.approx, ex2's model tests and grid,
#                                  # written to target/mufu/ (about 2 minutes on 16 cores)
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
mode="${1:-}"
SAMPLE_BUDGET_S="${SAMPLE_BUDGET_S:-180}"
# Captured cargo output stays free of progress-bar control characters.
export CARGO_TERM_PROGRESS_WHEN=never

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
if [ "$mode" = "--prepare-llvm" ]; then
    [ "${#features[@]}" -gt 0 ] || { echo "--prepare-llvm needs LLVM 19"; exit 1; }
    cargo build --release "${features[@]}" --bin dianran 2>&1 | tail -n 1 || exit 1
    mkdir -p "$prepared"
    n=0
    for f in tests/samples/*.wgsl tests/realworld/*.wgsl; do
        grep -q '^// dispatch:' "$f" || continue
        target/release/dianran ptx "$f" --backend llvm \
            -o "$prepared/$(basename "$f" .wgsl).ptx" 2>/dev/null && n=$((n + 1))
    done
    echo "wrote $n PTX files to $prepared"
    exit 0
fi
if [ "$mode" = "--mufu" ]; then
    # Without the lavapipe runner (wgpu): the tables need only the driver.
    cargo build --release -p dianran-verify --no-default-features --features cuda \
        --example mufu_tables 2>&1 | tail -n 1 || exit 1
    gpu=$(command -v nvidia-smi >/dev/null \
        && nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader | head -n 1)
    echo "GPU: ${gpu:-none found by nvidia-smi}; built in $((SECONDS - start)) s"
    rm -rf target/mufu
    timeout 480 target/release/examples/mufu_tables target/mufu
    rc=$?
    [ -f target/mufu/summary.txt ] || exit "$rc" # skipped: no device (rc 0), or a failure
    printf 'gpu: %s\n' "${gpu:-unknown}" >>target/mufu/summary.txt
    echo "== tables in target/mufu/ ($((SECONDS - start)) s): $(ls target/mufu | tr '\n' ' ')"
    # On a lent machine (the device tool sets OUT), the tables come back with the output.
    if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then cp target/mufu/* "$OUT"/; fi
    exit "$rc"
fi
# One cargo step builds everything the script runs, so the parts below only execute. The
# test and bench binaries share the release profile's artifacts.
cargo build --release "${features[@]}" --bin dianran 2>&1 | tail -n 1 || exit 1
cargo test --release --no-run --test texture_launch 2>&1 | tail -n 1
cargo test --release --no-run -p dianran-runtime --features cuda 2>&1 | tail -n 1
cargo test --release --no-run -p dianran-verify --test coop_forms --test math_accuracy 2>&1 \
    | tail -n 1
if [ "$mode" = "--bench" ]; then
    tools/setup.sh >/dev/null 2>&1 || true
    cargo bench --no-run -p dianran-benches --bench gemm_device --bench launch_overhead 2>&1 \
        | tail -n 1
fi
echo "built in $((SECONDS - start)) s"
bin="$root/target/release/dianran"
gpu=$(command -v nvidia-smi >/dev/null \
    && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)
echo "GPU: ${gpu:-none found by nvidia-smi}"

declare -A agree=([cuda]=0 [llvm-cuda]=0) disagree=([cuda]=0 [llvm-cuda]=0) \
    skipped=([cuda]=0 [llvm-cuda]=0)
rejected=0; unrun=0; failed_names=(); failed_checks=()
sample_start=$SECONDS
for f in tests/samples/*.wgsl tests/realworld/*.wgsl; do
    grep -q '^// dispatch:' "$f" || continue
    name="$(basename "$f" .wgsl)"
    if ! table=$("$bin" check "$f" 2>/dev/null); then
        rejected=$((rejected + 1))
        printf '%-40s rejected by the frontend (see dianran check)\n' "$name"
        continue
    fi
    for entry in $(printf '%s\n' "$table" | awk -F'\t' '$2 == "compute" { print $1 }'); do
        if [ $((SECONDS - sample_start)) -ge "$SAMPLE_BUDGET_S" ]; then
            unrun=$((unrun + 1))
            continue
        fi
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
                *$'\t'agree*) agree[$exec]=$((agree[$exec] + 1)); status=agree ;;
                *$'\t'skipped*) skipped[$exec]=$((skipped[$exec] + 1)); status=skipped ;;
                "")
                    # No executor ran: the reference failed on the random input.
                    rejected=$((rejected + 1)); status=not-run
                    res="-	-	$(printf '%s\n' "$out" | head -n 1)" ;;
                *)
                    disagree[$exec]=$((disagree[$exec] + 1)); status=DISAGREE
                    failed_names+=("$exec:$name/$entry") ;;
            esac
            line="$line $exec=$status"
            [ "$status" = agree ] || line="$line ($(printf '%s' "$res" | cut -f3- | cut -c1-100))"
        done
        printf '%s emu=%s llvm-emu=%s\n' "$line" "${emu:-?}" "${lemu:-?}"
    done
done
sample_s=$((SECONDS - sample_start))
echo "== samples done in $sample_s s"
[ "$unrun" -gt 0 ] && echo "time budget ($SAMPLE_BUDGET_S s) reached: $unrun entries not run"
[ "${#failed_names[@]}" -gt 0 ] && echo "disagree: ${failed_names[*]}"

echo "== cooperative matrices: every orientation and form (f16/f32, 16x16/8x8, ldmatrix and"
echo "   per-lane paths, --tf32) on interp, emu and CUDA against plain Rust (verify/tests/coop_forms.rs)"
coop=FAILED
timeout 300 cargo test --release -p dianran-verify --test coop_forms 2>&1 | tail -n 25 \
    | tee /dev/stderr | grep -q '^test result: ok' && coop=ok
[ "$coop" = ok ] || failed_checks+=(coop_forms)

echo "== precise math: every builtin's PTX on the device bit-identical to the emulator, and within"
echo "   its ulp bound (verify/tests/math_accuracy.rs)"
math=FAILED
timeout 300 cargo test --release -p dianran-verify --test math_accuracy 2>&1 | tail -n 8 \
    | tee /dev/stderr | grep -q '^test result: ok' && math=ok
[ "$math" = ok ] || failed_checks+=(math_accuracy)

echo "== texture samples through dianran::launch (CUDA arrays, texture and surface objects)"
echo "   against the PTX emulator (tests/texture_launch.rs, docs/textures.md)"
tex_out=$(timeout 240 cargo test --release --test texture_launch -- --nocapture 2>&1)
printf '%s\n' "$tex_out" | grep -E 'texture_|skipped|panicked' | tail -n 12
if printf '%s\n' "$tex_out" | grep -q 'skipped: no CUDA device'; then
    textures=skipped
elif printf '%s\n' "$tex_out" | grep -q 'test result: ok'; then
    textures=ok
else
    textures=FAILED
fi
[ "$textures" = FAILED ] && failed_checks+=(texture_launch)

echo "== the runtime (dianran-runtime, the one CUDA launcher): by-value parameters (immediates),"
echo "   launch plans, no-device paths (runtime/src, runtime/tests)"
runtime=FAILED
rt_out=$(timeout 180 cargo test --release -p dianran-runtime --features cuda 2>&1) && runtime=ok
printf '%s\n' "$rt_out" | grep -E '^test |^test result|skipped' | tail -n 30
[ "$runtime" = ok ] || failed_checks+=(runtime)

bench_lines=""
if [ "$mode" = "--bench" ]; then
    echo "== GEMM 4096^3 and bandwidth kernels: dianran vs NVRTC"
    # The bench prints its tables and `SUMMARY<TAB>what<TAB>value` lines for the table below.
    bench_out=$(timeout 240 cargo bench -p dianran-benches --bench gemm_device 2>&1)
    printf '%s\n' "$bench_out" | grep -v '^SUMMARY' | tail -n 30
    bench_lines=$(printf '%s\n' "$bench_out" | grep -P '^SUMMARY\t' | cut -f2-)
    [ -n "$bench_lines" ] || bench_lines="device bench	no result (see above)"
    echo "== launch overhead: launch_on (typed launchers) vs raw cudarc (docs/host.md)"
    launch_out=$(timeout 90 cargo bench -p dianran-benches --bench launch_overhead 2>&1)
    printf '%s\n' "$launch_out" | grep -v '^SUMMARY' | grep -E 'time:|launch|skipped' | tail -n 8
    launch_line=$(printf '%s\n' "$launch_out" | grep -P '^SUMMARY\t' | cut -f2-)
    bench_lines=$(printf '%s\n%s' "$bench_lines" \
        "${launch_line:-launch overhead	no result (see above)}")
fi

echo
echo "== summary (${gpu:-no GPU}; $((SECONDS - start)) s)"
row() { printf '%-44s %s\n' "$1" "$2"; }
row "check" "result"
for exec in cuda llvm-cuda; do
    row "samples on $exec" "${agree[$exec]} agree, ${disagree[$exec]} disagree, ${skipped[$exec]} skipped"
done
row "samples not run" "$rejected rejected or no reference, $unrun over the time budget"
row "cooperative matrices (coop_forms)" "$coop"
row "precise math (math_accuracy)" "$math"
row "textures via launch helper (texture_launch)" "$textures"
row "runtime launcher (dianran-runtime)" "$runtime"
if [ -n "$bench_lines" ]; then
    while IFS=$'\t' read -r what value; do row "$what" "$value"; done <<<"$bench_lines"
fi
total_disagree=$((disagree[cuda] + disagree[llvm-cuda]))
[ "$total_disagree" -eq 0 ] && [ "${#failed_checks[@]}" -eq 0 ]
