#!/usr/bin/env bash
# Installs what is missing, builds pooljit (Release) and runs pooljit-bench --check on the bundled real-network
# pooling layers (tools/suite.txt): each layer is checked against the reference, then timed beside oneDNN
# (when libdnnl-dev is installed) and XNNPACK (when libxnnpack-dev is), one table row per layer.
# Arguments are passed to pooljit-bench (after --check) and read relative to the caller's directory; the suite
# is added when none of them names problems (a file or --case), e.g.
#   tools/run.sh --threads 2                     the suite at 2 threads
#   tools/run.sh --dtype f32,bf16,u8 --layout nxc,ncx --csv suite.csv
#   tools/run.sh my-problems.txt                 another file instead of the suite
set -euo pipefail
caller_dir=$PWD
# shellcheck source=tools/common.sh source-path=SCRIPTDIR/..
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Does any argument name problems? Skips the values of pooljit-bench's options; --csv takes one only when
# the next argument does not start with '-' (as pooljit-bench itself reads it).
names_problems=false
skip_value=false
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  arg=${args[i]}
  if $skip_value; then
    skip_value=false
    continue
  fi
  case $arg in
    --case | --case=*) names_problems=true ;;
    -t | --threads | --min-time | --repetitions | --miss-samples | --filter | --seed | --copy-mib | --dtype | \
      --layout | --idx) skip_value=true ;;
    --csv) if ((i + 1 < ${#args[@]})) && [[ ${args[i + 1]} != -* ]]; then skip_value=true; fi ;;
    -*) ;;
    *) names_problems=true ;;
  esac
done
if $names_problems; then
  set -- --check "$@"
else
  set -- --check "$pooljit_root/tools/suite.txt" "$@"  # first: a trailing bare --csv must not take it
fi
cd "$caller_dir"
exec "$pooljit_root/build/tools/pooljit-bench/pooljit-bench" "$@"
