#!/usr/bin/env bash
# Installs every Debian package Warpscope's build, tests and screenshots need.
# Idempotent: packages already present are skipped, so a second run is a no-op.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config python3
  qt6-base-dev libqt6sql6-sqlite libqcustomplot-dev qt6-svg-dev
  libsqlite3-dev zlib1g-dev libcli11-dev rapidjson-dev libbenchmark-dev
  xvfb xauth imagemagick fonts-dejavu-core fontconfig
  clang-format clang-tidy
  clang libclang-rt-dev
  python3-numpy python3-pandas python3-setuptools python3-wheel python3-pip python3-venv
  python3-dask python3-distributed
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-deps: all ${#packages[@]} packages present"
fi

# The CUDA toolkit is not a Debian package; the recorder and examples need it, the viewer does not.
if [ -x /usr/local/cuda/bin/nvcc ] && [ -f /usr/local/cuda/include/cupti.h ]; then
  echo "install-deps: CUDA toolkit $(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') at /usr/local/cuda (CUPTI found)"
else
  echo "install-deps: WARNING: no CUDA toolkit with CUPTI at /usr/local/cuda." >&2
  echo "  The viewer, CLI and tests still build; the recorder (libwarpscope-inject.so) and CUDA examples are skipped." >&2
  echo "  Install the CUDA 13 toolkit to /usr/local/cuda to record on this machine." >&2
fi
