# shellcheck shell=bash
# Shared by tools/test.sh and tools/run.sh (sourced, not run): installs the Debian packages that are missing,
# then configures and builds pooljit in build/ (Release, all cores). Leaves the shell in the repository root.

# The packages every build needs (DESIGN.md section 6).
pooljit_required_packages=(
  g++ cmake make
  libxbyak-dev libtbb-dev libspdlog-dev libfmt-dev
  libgtest-dev libbenchmark-dev libcli11-dev libxxhash-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata libpugixml-dev
)
# Used when present; the build works without them.
# libdnnl-dev only recommends ocl-icd-opencl-dev, but its CMake config requires OpenCL.
# libxnnpack-dev: XNNPACK, the second peer of pooljit-bench; its header includes pthreadpool.h, which is in
# libpthreadpool-dev, not a dependency of libxnnpack-dev.
# libtorch-dev and python3-torch (PyTorch 1.13): the PyTorch operators of tools/torch and their test against
# PyTorch's own operators.
pooljit_optional_packages=(libdnnl-dev ocl-icd-opencl-dev libxnnpack-dev libpthreadpool-dev libtorch-dev python3-torch)

pooljit_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$pooljit_root" || return 1

pooljit_log() { printf '[pooljit] %s\n' "$*" >&2; }

pooljit_is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

# Runs apt-get as root: directly when we are root, through sudo otherwise. Never prompts (no TTY in CI).
pooljit_apt_get() {
  local -a as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { pooljit_log "not root and no sudo: cannot run apt-get $*"; return 1; }
    as_root=(sudo --non-interactive)
  fi
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@"
}

pooljit_install_packages() {
  local -a missing_required=() missing_optional=()
  local pkg
  for pkg in "${pooljit_required_packages[@]}"; do
    pooljit_is_installed "$pkg" || missing_required+=("$pkg")
  done
  for pkg in "${pooljit_optional_packages[@]}"; do
    pooljit_is_installed "$pkg" || missing_optional+=("$pkg")
  done

  # An optional package that the archive lacks would otherwise send every run to apt-get update; one attempt
  # per build directory is enough (delete the marker to try again). The marker holds the list it tried, so a
  # package added to the list is tried once more.
  local optional_marker=build/.optional-packages-tried
  if [ ${#missing_required[@]} -eq 0 ] && [ -f "$optional_marker" ] &&
     [ "$(cat "$optional_marker")" = "${pooljit_optional_packages[*]}" ]; then
    missing_optional=()
  fi
  if [ ${#missing_required[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
    return 0
  fi

  if [ ${#missing_required[@]} -gt 0 ]; then
    pooljit_log "installing missing packages: ${missing_required[*]}"
    pooljit_apt_get update
    pooljit_apt_get install --no-install-recommends "${missing_required[@]}"
  else
    pooljit_apt_get update || pooljit_log "apt-get update failed; trying the optional packages with the lists at hand"
  fi

  for pkg in "${missing_optional[@]}"; do
    if pooljit_apt_get install --no-install-recommends "$pkg"; then
      pooljit_log "installed optional package $pkg"
    else
      pooljit_log "optional package $pkg could not be installed; building without it"
    fi
  done
  mkdir -p build
  printf '%s' "${pooljit_optional_packages[*]}" > "$optional_marker"
}

pooljit_configure_and_build() {
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
  cmake --build build --parallel "$(nproc)"
}

pooljit_install_packages
pooljit_configure_and_build
