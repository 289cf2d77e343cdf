#!/usr/bin/env bash
# Installs what is missing, builds pooljit (Release) and runs pooljit-run on the bundled real-network pooling
# layers (tools/suite.txt): create, execute, check against the reference, one table row per layer.
# Arguments, when given, replace the default one and are read relative to the caller's directory
# (e.g. tools/run.sh --runs 5 my-problems.txt).
set -euo pipefail
caller_dir=$PWD
# shellcheck source=tools/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

if [ $# -eq 0 ]; then
  set -- "$pooljit_root/tools/suite.txt"
fi
cd "$caller_dir"
exec "$pooljit_root/build/tools/pooljit-run/pooljit-run" "$@"
