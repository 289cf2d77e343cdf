#!/usr/bin/env bash
# Installs what is missing, builds pooljit (Release) and runs every test, then about a minute of differential
# fuzzing (pooljit-fuzz, both ISA caps, a fixed seed). Exits non-zero if a test fails or the fuzzer finds a
# mismatch. On a host with AVX-512 the tests that run generated code (ctest label `jit`) run a second time with
# AVX-512 hidden (POOLJIT_CPU_MASK=avx512), as on an AVX2-only host: its parts skipped by name, its code still
# planned and emitted; on a host with AVX512_VBMI a third time with it hidden (POOLJIT_CPU_MASK=avx512_vbmi). The last lines say which ISAs each run executed and which it only compiled.
set -euo pipefail
# shellcheck source=tools/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ctest --test-dir build --output-on-failure -j2
isa_lines=$(build/tests/isa_report)

if [[ $isa_lines == *"executed avx512"* ]]; then
  pooljit_log "again with AVX-512 hidden (POOLJIT_CPU_MASK=avx512): the tests labelled jit, as on an AVX2-only host"
  POOLJIT_CPU_MASK=avx512 ctest --test-dir build --output-on-failure -j2 -L jit
  isa_lines+=$'\n'"$(POOLJIT_CPU_MASK=avx512 build/tests/isa_report) (POOLJIT_CPU_MASK=avx512)"
  # AVX-512 cores with byte permutes (AVX512_VBMI) plan planar bytes as byte bands; a third run hides them, so the
  # AVX-512 code such cores never take (Skylake-X and Cascade Lake run it) executes here too.
  if grep -qw avx512vbmi /proc/cpuinfo; then
    pooljit_log "again with AVX512_VBMI hidden (POOLJIT_CPU_MASK=avx512_vbmi): the tests labelled jit, as on an AVX-512 core without byte permutes"
    POOLJIT_CPU_MASK=avx512_vbmi ctest --test-dir build --output-on-failure -j2 -L jit
  fi
fi

# The fixed seed makes a failure reproducible (the fuzzer prints a one-line --replay command for each); the
# time bound keeps the run near a minute on any machine (a progress line every 10 s on stderr).
# POOLJIT_FUZZ_SECONDS and POOLJIT_FUZZ_SEED override.
build/tools/pooljit-fuzz/pooljit-fuzz --seconds "${POOLJIT_FUZZ_SECONDS:-60}" --isa avx512,avx2 \
  --seed "${POOLJIT_FUZZ_SEED:-20240601}"

# The PyTorch operators (tools/torch) are optional: say whether this run tested them.
if ctest --test-dir build -N -R '^torch_ops$' | grep -q 'Total Tests: 1'; then
  torch_line="pooljit PyTorch operators: tested against PyTorch (ctest torch_ops)"
else
  torch_line="pooljit PyTorch operators: not tested (libtorch-dev or python3-torch could not be installed; see configure's output)"
fi

printf '%s\n%s\n' "$isa_lines" "$torch_line"
