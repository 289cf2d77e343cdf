#!/usr/bin/env bash
# Installs what is missing, builds pooljit (Release) and runs every test, then about a minute of differential
# fuzzing (pooljit-fuzz, both ISA caps, a fixed seed). Exits non-zero if a test fails or the fuzzer finds a
# mismatch.
set -euo pipefail
# shellcheck source=tools/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ctest --test-dir build --output-on-failure -j2

# The fixed seed makes a failure reproducible (the fuzzer prints a one-line --replay command for each); the
# time bound keeps the run near a minute on any machine (a progress line every 10 s on stderr).
# POOLJIT_FUZZ_SECONDS and POOLJIT_FUZZ_SEED override.
build/tools/pooljit-fuzz/pooljit-fuzz --seconds "${POOLJIT_FUZZ_SECONDS:-60}" --isa avx512,avx2 \
  --seed "${POOLJIT_FUZZ_SEED:-20240601}"
