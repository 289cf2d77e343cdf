#!/usr/bin/env bash
# Installs what is missing, builds pooljit (Release) and runs every test. Exits with ctest's status.
set -euo pipefail
# shellcheck source=tools/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ctest --test-dir build --output-on-failure -j2
