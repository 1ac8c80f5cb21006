#!/usr/bin/env bash
# The device script: run on the GPU machine, from the repository root.
#
#   tools/device_check.sh OUTDIR [--quick] [--no-sanitize] [--no-slow] [--chapters "elementwise reduce"]
#                               [--phases "build test sanitize run tune"] [--sanitize-only "a b"] [--pack]
#
# 1. configures and builds for the local GPU (Release, Ninja if available);
# 2. runs every GPU test (ctest, all labels but `exercise`: the `slow` ones too, and the PyTorch
#    operators where torch is found; the solution of
#    each exercise is checked there, by its checker in a separate process), then the exercise
#    label on its own (an untouched skeleton is expected to fail there); the summary
#    gives each chapter's test time, with and without its `slow` tests;
# 3. runs compute-sanitizer memcheck, racecheck, synccheck and initcheck over the GPU test
#    executables at small sizes (TUTORIAL_SANITIZE=1), [slow] and [large] cases left out;
# 4. runs every chapter executable with --json (and --sweep unless --quick), timing each default
#    run's wall clock (a student's default run must stay under 30 s on an H100), plus the extra
#    runs some chapter pages show (reduce on positive data: reduce_positive.json; PyTorch's
#    attention backends and conv2d: attention_torch.json and conv2d_torch.json, from
#    tools/torch_sdpa_baseline.py and tools/torch_conv2d_baseline.py; the tutorial's operators
#    against torch's: pytorch_ops.json, from pytorch/benchmark.py, where they were built);
# 5. writes OUTDIR/summary.md, OUTDIR/logs/, OUTDIR/results/<chapter>.json. With --pack, logs/
#    and results/ become OUTDIR/logs.tar.gz and OUTDIR/results.tar.gz (few files to fetch).
#
# --phases picks steps (default: build test sanitize run; `tune` runs each bin/<chapter>_tune
# with --json); --sanitize-only limits the sanitizers to some chapters; a later call on the same
# machine can continue where an earlier one stopped, since build-device/ is kept.
# Copy OUTDIR/results/*.json into docs/results/ and commit them: the docs tables are built
# from those files only.
set -uo pipefail

usage() { echo "usage: $0 OUTDIR [--quick] [--no-sanitize] [--no-slow] [--chapters \"a b\"] [--phases \"build test sanitize run\"] [--pack]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
quick=0; sanitize=1; pack=0; only=""; phases="build test sanitize run"; sanitize_only=""; slow=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-sanitize) sanitize=0 ;;
    --no-slow) slow=0 ;;
    --pack) pack=1 ;;
    --chapters) shift; only=${1:-} ;;
    --phases) shift; phases=${1:-} ;;
    --sanitize-only) shift; sanitize_only=${1:-} ;;
    *) usage ;;
  esac
  shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-device"
mkdir -p "$out/logs" "$out/results"
out=$(cd "$out" && pwd)
summary="$out/summary.md"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
want() { [[ " $phases " == *" $1 "* ]]; }
phase_start=$started
lap() { local now; now=$(date +%s); say "- ($1 took $(( now - phase_start )) s)"; phase_start=$now; }

finish() {
  say ""
  say "total time: $(( $(date +%s) - started )) s"
  if [ "$pack" = 1 ]; then
    tar -C "$out" -czf "$out/logs.tar.gz" logs && rm -rf "$out/logs"
    tar -C "$out" -czf "$out/results.tar.gz" results && rm -rf "$out/results"
  fi
}
trap finish EXIT
trap "exit 143" TERM INT   # a timeout still packs what was written

say "# Device check"
say ""
say "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
# $TUT_GIT_COMMIT wins when set: a tree copied to the GPU machine may carry a stale .git (or none).
commit=${TUT_GIT_COMMIT:-$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
export TUT_GIT_COMMIT=$commit   # read by cmake/GitCommit.cmake and the grader
say "- commit: $commit"
say "- GPU: $(nvidia-smi --query-gpu=name,compute_cap,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi failed')"
say "- nvcc: $(nvcc --version 2>/dev/null | tail -1)"
say "- cmake: $(cmake --version | head -1)"

# 1. Build.
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
say ""
say "## Build"
if want build && ! cmake -S "$root" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >"$out/logs/configure.log" 2>&1; then
  say "configure FAILED (logs/configure.log)"; tail -30 "$out/logs/configure.log"; exit 1
fi
if want build; then
  grep -E "CUDA architectures|Catch2" "$out/logs/configure.log" | sed 's/^-- /- /' | tee -a "$summary"
  targets=()
  if [ -n "$only" ]; then  # only the named chapters' executables and tests
    for ch in $only; do
      for t in "$ch" "test_${ch}_cpu" "test_${ch}_gpu" "exercise_${ch}" "solution_${ch}" "check_${ch}"; do targets+=(--target "$t"); done
      grep -q "add_executable(${ch}_tune" "$root"/chapters/*/CMakeLists.txt && targets+=(--target "${ch}_tune")
    done
    targets+=(--target test_common --target test_common_gpu --target tut_isolate)
  fi
  if ! cmake --build "$build" -j "$(nproc)" "${targets[@]}" >"$out/logs/build.log" 2>&1; then
    say "build FAILED (logs/build.log)"; grep -E "error|FAILED" "$out/logs/build.log" | head -40; exit 1
  fi
  say "- build: ok ($(grep -ciE 'warning' "$out/logs/build.log") warning lines)"
  lap build
fi

chapters=()
for dir in "$root"/chapters/[0-9][0-9]_*/; do
  name=$(sed -n 's/^ *NAME \([a-z0-9_]*\).*/\1/p' "$dir/CMakeLists.txt" 2>/dev/null | head -1)
  [ -n "$name" ] || continue
  if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then continue; fi
  chapters+=("$name")
done
say "- chapters: ${chapters[*]}"
regex=$(IFS='|'; echo "${chapters[*]}")

# 2. Tests.
if want test; then
say ""
say "## Tests"
# As a student runs them (the default preset: all but `exercise` and `slow`), then the `slow`
# ones (every tuning candidate), then the exercise label.
(cd "$build" && ctest -LE "exercise|slow" -L "common|pytorch|$regex" --output-on-failure --timeout 900) >"$out/logs/ctest.log" 2>&1
say "- default preset (all but exercise and slow): $(grep -E 'tests passed|tests failed' "$out/logs/ctest.log" | tail -1)"
grep -E "\(Failed\)|\(Timeout\)|Not Run|\(Skipped\)" "$out/logs/ctest.log" | sed 's/^/  - /' | tee -a "$summary"
if [ "$slow" = 1 ]; then
  (cd "$build" && ctest -L slow -L "$regex" --output-on-failure --timeout 900) >"$out/logs/ctest_slow.log" 2>&1
  say "- slow label: $(grep -E 'tests passed|tests failed|No tests were found' "$out/logs/ctest_slow.log" | tail -1)"
  grep -E "\(Failed\)|\(Timeout\)|Not Run" "$out/logs/ctest_slow.log" | sed 's/^/  - /' | tee -a "$summary"
fi
(cd "$build" && ctest -L exercise -L "$regex" --output-on-failure) >"$out/logs/ctest_exercise.log" 2>&1
say "- exercise label (a fresh skeleton fails by design): $(grep -E 'tests passed|tests failed' "$out/logs/ctest_exercise.log" | tail -1)"
grep -hE "Test +#.*(sec|Skipped)" "$out/logs/ctest.log" "$out/logs/ctest_slow.log" 2>/dev/null |
  sed 's/^ *[0-9]*\/[0-9]* /  - /' >>"$summary"
# Per chapter: seconds of its GPU-labelled tests in the default preset (what `ctest --preset
# default -L <chapter>` spends on the GPU; the target is under a minute on an H100), and of its
# `slow` tests.
seconds_of() {  # seconds of the tests matching ctest label filters "$@" in log $LOG
  (cd "$build" && ctest -N "$@" 2>/dev/null) | sed -n 's/^ *Test *#[0-9]*: *//p' | while read -r t; do
    grep -E "Test +#[0-9]+: $t \.+" "$LOG" | grep -oE "[0-9.]+ sec" | head -1
  done | awk '{s += $1} END {printf "%.1f", s}'
}
say ""
say "| chapter | default GPU tests (s) | slow GPU tests (s) |"
say "|---|---:|---:|"
for ch in "${chapters[@]}"; do
  default_s=$(LOG="$out/logs/ctest.log" seconds_of -L "^${ch}\$" -L "^gpu\$" -LE "exercise|slow")
  slow_s="-"
  [ "$slow" = 1 ] && slow_s=$(LOG="$out/logs/ctest_slow.log" seconds_of -L "^${ch}\$" -L "^slow\$")
  say "| $ch | $default_s | $slow_s |"
done
lap test
fi

# 3. Sanitizers, at small sizes.
if want sanitize && [ "$sanitize" = 1 ] && command -v compute-sanitizer >/dev/null; then
  say ""
  say "## compute-sanitizer (TUTORIAL_SANITIZE=1: sizes <= 70000, no [large])"
  say ""
  say "| executable | memcheck | racecheck | synccheck | initcheck |"
  say "|---|---|---|---|---|"
  for ch in common "${chapters[@]}"; do  # common: the shared GPU code (test_common_gpu)
    if [ -n "$sanitize_only" ] && [[ " $sanitize_only " != *" $ch "* ]]; then continue; fi
    exe="$build/bin/test_${ch}_gpu"
    if [ -x "$exe" ]; then
      row="| test_${ch}_gpu |"
      for tool in memcheck racecheck synccheck initcheck; do
        extra=()
        [ "$tool" = memcheck ] && extra=(--leak-check full)
        log="$out/logs/sanitize_${ch}_gpu_${tool}.log"
        TUTORIAL_SANITIZE=1 timeout 200 compute-sanitizer --tool "$tool" "${extra[@]}" --error-exitcode 99 \
          "$exe" "~[large]~[slow]" >"$log" 2>&1
        rc=$?
        errors=$(grep -E "SUMMARY" "$log" | tail -1 | grep -oE "[0-9]+ errors?" | grep -oE "[0-9]+" || echo "?")
        if [ $rc -eq 0 ]; then row="$row clean ($errors errors) |"; else row="$row **FAIL rc=$rc ($errors errors)** |"; fi
      done
      say "$row"
    fi
    # The exercise's solution, in its runner, under the sanitizer (the checker's public cases).
    if [ -x "$build/bin/check_${ch}" ]; then
      row="| solution_${ch} (check_${ch} --sanitizer) |"
      for tool in memcheck racecheck synccheck initcheck; do
        log="$out/logs/sanitize_${ch}_solution_${tool}.log"
        timeout 300 "$build/bin/check_${ch}" --runner "$build/bin/solution_${ch}" --sanitizer "$tool" >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then row="$row clean |"; else row="$row **FAIL rc=$rc** |"; fi
      done
      say "$row"
    fi
  done
  lap sanitize
fi

# 4. Chapter executables.
if want run; then
say ""
say "## Chapters"
for ch in "${chapters[@]}"; do
  exe="$build/bin/$ch"
  [ -x "$exe" ] || continue
  t0=$(date +%s.%N)
  timeout 400 "$exe" --json "$out/results/$ch.json" >"$out/logs/run_$ch.log" 2>&1
  rc=$?
  wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  say ""
  say "### $ch (exit $rc, default run $wall s wall)"
  say '```'
  # The tables, without the progress lines ("... ") the run printed on its way.
  sed -n '1,2p;/^==/,$p' "$out/logs/run_$ch.log" | grep -v '^\.\.\. ' >>"$summary"
  say '```'
  if [ "$ch" = reduce ]; then  # the accuracy lesson of the chapter page: data with a large mean
    "$exe" --op sum --dist positive --json "$out/results/reduce_positive.json" >"$out/logs/run_reduce_positive.log" 2>&1
    say "- reduce --op sum --dist positive: exit $? (results/reduce_positive.json)"
  fi
  if [ "$quick" = 0 ]; then
    "$exe" --sweep --reps 10 --json "$out/results/${ch}_sweep.json" >"$out/logs/sweep_$ch.log" 2>&1
    say "- sweep: exit $? (results/${ch}_sweep.json)"
  fi
done
# PyTorch's scaled_dot_product_attention backends on the attention chapter's shapes: a separate
# process on the same GPU, shown beside the chapter's table ("PyTorch not found" without torch).
if [[ " ${chapters[*]} " == *" attention "* ]]; then
  PYTHONUNBUFFERED=1 timeout 300 python3 "$root/tools/torch_sdpa_baseline.py" --json "$out/results/attention_torch.json" \
    >"$out/logs/torch_sdpa.log" 2>&1
  say "- PyTorch SDPA baseline: exit $? (results/attention_torch.json)"
fi
# PyTorch's conv2d (cuDNN through its newer frontend, benchmark mode) on the conv2d chapter's layers.
if [[ " ${chapters[*]} " == *" conv2d "* ]]; then
  PYTHONUNBUFFERED=1 timeout 300 python3 "$root/tools/torch_conv2d_baseline.py" --json "$out/results/conv2d_torch.json" \
    >"$out/logs/torch_conv2d.log" 2>&1
  say "- PyTorch conv2d baseline: exit $? (results/conv2d_torch.json)"
fi
# The tutorial's operators against torch's, one process (pytorch/benchmark.py), where they were built.
if [ -z "$only" ] && [ -f "$build/lib/libtutorial_torch.so" ]; then
  TUTORIAL_TORCH_LIB="$build/lib/libtutorial_torch.so" PYTHONPATH="$root/pytorch" PYTHONUNBUFFERED=1 timeout 300 \
    python3 "$root/pytorch/benchmark.py" --json "$out/results/pytorch_ops.json" >"$out/logs/pytorch_ops.log" 2>&1
  say "- tutorial operators against torch: exit $? (results/pytorch_ops.json)"
fi
lap run
fi

# 5. Tuning searches: bin/<chapter>_tune where a chapter has one.
if want tune; then
  say ""
  say "## Tuning searches"
  for ch in "${chapters[@]}"; do
    exe="$build/bin/${ch}_tune"
    [ -x "$exe" ] || continue
    timeout 300 "$exe" --json "$out/results/${ch}_tune.json" >"$out/logs/tune_$ch.log" 2>&1
    rc=$?
    say ""
    say "### ${ch}_tune (exit $rc)"
    say '```'
    sed -n '/^==/,$p' "$out/logs/tune_$ch.log" >>"$summary"
    say '```'
  done
  lap tune
fi
