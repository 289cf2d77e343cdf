#!/usr/bin/env bash
# The sanitizer configurations, after tools/test.sh (which installs the packages):
#   asan  build-asan/: the whole project with AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer at
#         exit), every ctest test but the consumer projects (label consumer: they build pooljit again without
#         sanitizers; the stress tests at POOLJIT_STRESS_ITERATIONS=300, as TSan runs them), then
#         pooljit-fuzz for POOLJIT_FUZZ_SECONDS (default 60) when it is built: tools/test.sh fuzzes for a minute
#         at full speed before it (1530 cases/s on a 2-vCPU Zen 3; under ASan 187/s).
#   tsan  build-tsan/: the library and test_stress with ThreadSanitizer; the stress test runs twice: with
#         oneTBB out of the picture (POOLJIT_NUM_THREADS=1) and no suppressions, then whole, with
#         tests/hardening/tsan.supp hiding the reports inside the uninstrumented libtbb.
# Usage: tools/sanitize.sh [asan|tsan]...   (no argument: both). Exits non-zero on the first failing step.
# Knobs: POOLJIT_FUZZ_SECONDS, POOLJIT_FUZZ_SEED (default: the date, printed), POOLJIT_STRESS_ITERATIONS for
# the TSan runs (default 300), POOLJIT_ASAN_STRESS_ITERATIONS for the ASan ones (default 300),
# POOLJIT_SANITIZE_JOBS (default: all cores).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

jobs=${POOLJIT_SANITIZE_JOBS:-$(nproc)}
fuzz_seconds=${POOLJIT_FUZZ_SECONDS:-60}
fuzz_seed=${POOLJIT_FUZZ_SEED:-$(date +%Y%m%d)}
# 300 iterations a thread: TSan reports a race from the accesses' order, whether or not they collide, and the two
# runs at 1000 took 181 s and 268 s of a 2-vCPU Zen 3's CI run.
tsan_iterations=${POOLJIT_STRESS_ITERATIONS:-300}

log() { printf '[sanitize] %s\n' "$*" >&2; }

# Runs one named step and records its wall time; the summary is printed at exit, also after a failure.
step_times=()
step() {
  local name=$1
  shift
  log "== $name"
  local start=$SECONDS status=0
  "$@" || status=$?
  step_times+=("$(printf '%5d s  %s%s' $((SECONDS - start)) "$name" "$([ "$status" -eq 0 ] || echo " (FAILED)")")")
  return "$status"
}
summary() {
  local status=$?
  if [ ${#step_times[@]} -gt 0 ]; then
    log "wall time per step:"
    printf '[sanitize] %s\n' "${step_times[@]}" >&2
  fi
  [ "$status" -eq 0 ] || log "FAILED (exit status $status)"
}
trap summary EXIT

# -Og -g1: line tables for the reports without the full debug information. On a 2-vCPU Zen 3 the ASan build took
# 330 s at -Og (a CI run) against 602 at -O1 and 990 at RelWithDebInfo's -O2 -g (ASan and UBSan together double a heavy
# emitter's compile time at -O1: 40 s against 18 with either alone, 19 at -Og).
configure() {
  local dir=$1 sanitizers=$2
  if ! cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-Og -g1 -DNDEBUG" \
    -DPOOLJIT_SANITIZE="$sanitizers"; then
    log "configuring $dir failed; tools/test.sh installs the Debian packages the build needs"
    return 1
  fi
}

# Findings abort the process with a report: ASan and UBSan (-fno-sanitize-recover) at the first error, LSan at
# exit. Generated code is invisible to ASan; the guard-page tests cover it. The fuzz run also detects stack use
# after return; the ctest run leaves it out: its fake stacks took the -Og run from 259 s to 487 (2-vCPU Zen 3).
# ASAN_OPTIONS, when set, replaces both.
asan_options=${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1}
asan_ctest_options=${ASAN_OPTIONS:-detect_leaks=1:check_initialization_order=1:strict_init_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_asan() {
  step "asan: configure" configure build-asan "address,undefined"
  step "asan: build" cmake --build build-asan --parallel "$jobs"
  step "asan: ctest (all but label consumer)" \
    env POOLJIT_STRESS_ITERATIONS="${POOLJIT_ASAN_STRESS_ITERATIONS:-300}" ASAN_OPTIONS="$asan_ctest_options" \
    ctest --test-dir build-asan --label-exclude consumer --output-on-failure --parallel "$jobs"
  local fuzz=build-asan/tools/pooljit-fuzz/pooljit-fuzz
  if [ -x "$fuzz" ]; then
    log "pooljit-fuzz: ${fuzz_seconds} s, seed ${fuzz_seed} (POOLJIT_FUZZ_SEED=${fuzz_seed} reproduces the run)"
    step "asan: pooljit-fuzz ${fuzz_seconds} s" \
      env ASAN_OPTIONS="$asan_options" "$fuzz" --seconds "$fuzz_seconds" --isa avx512,avx2 --seed "$fuzz_seed" --no-progress
  else
    log "no $fuzz: the fuzz run is skipped"
  fi
}

run_tsan() {
  step "tsan: configure" configure build-tsan thread
  step "tsan: build test_stress" cmake --build build-tsan --parallel "$jobs" --target test_stress
  local stress=build-tsan/tests/hardening/test_stress
  # 1. No suppressions: execute() runs the kernels on the calling thread, so every access TSan sees is
  #    pooljit's own (cache, compile-once, shared primitives) from 8 threads. The two tests left out need
  #    oneTBB's threads (set_num_threads > 1, warmup).
  step "tsan: stress, no oneTBB, no suppressions" \
    env POOLJIT_NUM_THREADS=1 POOLJIT_STRESS_ITERATIONS="$tsan_iterations" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
    "$stress" --gtest_filter=-Stress.SetNumThreadsWhileOthersExecute:Stress.WarmupRacesCreate
  # 2. Everything, oneTBB included, with its reports suppressed (tests/hardening/tsan.supp says which).
  step "tsan: stress, whole, tsan.supp" \
    env POOLJIT_STRESS_ITERATIONS="$tsan_iterations" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/hardening/tsan.supp" \
    "$stress"
}

configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(asan tsan)
for config in "${configs[@]}"; do
  case "$config" in
    asan) run_asan ;;
    tsan) run_tsan ;;
    *) log "unknown configuration '$config': use asan, tsan or nothing (both)"; exit 2 ;;
  esac
done
log "all sanitizer runs passed"
