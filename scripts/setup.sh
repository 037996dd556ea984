#!/usr/bin/env bash
# Installs everything Sawtooth needs on a fresh Debian 12 machine:
#   1. the Debian packages: compilers, CMake, Qt 6 (Widgets, Charts and the OpenGL module Charts
#      needs, Svg), SQLite, zlib, libsodium (SipHash), JSON, CLI11, fmt, GoogleTest, Google Benchmark, Gloo's headers,
#      clang and its runtime libraries for the fuzzers (libFuzzer, ASan, UBSan: libclang-rt-14-dev,
#      which --no-install-recommends would leave out), Xvfb for screenshots, strace (the hostile-file
#      test checks that reading writes nothing beside the input), and what the packages are made and checked
#      with (dpkg-dev, file, help2man, desktop-file-utils, appstream, lintian);
#   2. LibTorch from the `torch` wheel, with the CUDA compiler and headers its CMake config needs
#      from NVIDIA's wheels of the same CUDA release, into a Python virtual environment kept in a
#      per-user cache keyed by the torch version (fresh clones reuse it), and in it a CUDA toolkit
#      folder (`cuda/`) assembled from those wheels, so that no system CUDA (/usr/local/cuda) is
#      needed.
# Safe to run again: each step is skipped when already done; an environment made by an older
# set-up (its marker names other requirements) is completed in place.
# Options: --no-torch (skip step 2: the app and sawtooth-trace build without LibTorch, with the
#          no-torch preset; sawtooth-record is not built).
set -euo pipefail

scripts="$(cd "$(dirname "$0")" && pwd)"
source "$scripts/versions.sh"
want_torch=1
for arg in "$@"; do
  case "$arg" in
    --no-torch) want_torch=0 ;;
    *) echo "setup.sh: unknown option '$arg' (known: --no-torch)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build ccache pkg-config git clang libclang-rt-14-dev file
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libgl-dev libxkbcommon-dev
  libsqlite3-dev sqlite3 zlib1g-dev libsodium-dev libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgloo-dev
  python3 python3-venv python3-pip ca-certificates
  xvfb xauth strace
  dpkg-dev help2man desktop-file-utils appstream lintian
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

if ((!want_torch)); then
  echo "setup: done without LibTorch (--no-torch): build with 'cmake --workflow --preset no-torch';"
  echo "setup: that builds the app and sawtooth-trace, not sawtooth-record (the release and ci presets need it)"
  exit 0
fi

venv="$("$scripts/torch-venv-path.sh")"
marker="$venv/.sawtooth-ready"
cuda_major=${CUDA_TOOLKIT_VERSION%%.*}

# A CUDA toolkit folder the way CMake and nvcc expect one (bin/, include/, lib64/, nvvm/), made of
# links into the wheels' nvidia/cu13: nvcc finds its profile, tools and headers relative to the
# path it was started by; lib64/ adds the unversioned names (libcudart.so) that linkers look for.
make_cuda_root() {
  local site cu root f name
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  cu="$site/nvidia/cu$cuda_major"
  root="$venv/cuda"
  [ -x "$cu/bin/nvcc" ] || { echo "setup: $cu/bin/nvcc is missing after pip install" >&2; exit 1; }
  rm -rf "$root"
  mkdir -p "$root/bin" "$root/lib64"
  for f in "$cu"/bin/*; do ln -s "$f" "$root/bin/"; done
  ln -s "$cu/include" "$root/include"
  ln -s "$cu/nvvm" "$root/nvvm"
  ln -s lib64 "$root/lib"
  for f in "$cu"/lib/*; do
    name=${f##*/}
    ln -s "$f" "$root/lib64/$name"
    case "$name" in *.so.*) ln -sfn "$f" "$root/lib64/${name%%.so.*}.so" ;; esac
  done
}

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$TORCH_ENV_REQUIREMENTS" ] && [ -x "$venv/cuda/bin/nvcc" ]; then
  echo "setup: LibTorch $TORCH_VERSION and CUDA $CUDA_TOOLKIT_VERSION compiler present in $venv"
else
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    echo "setup: completing $venv with: $TORCH_ENV_REQUIREMENTS"
  else
    echo "setup: installing $TORCH_ENV_REQUIREMENTS into $venv (one time, about 5 GB)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
  fi
  # numpy only quiets torch's import-time warning; LibTorch itself needs nothing else.
  # shellcheck disable=SC2086 # the requirements are words
  "$venv/bin/python" -m pip install -q $TORCH_ENV_REQUIREMENTS
  make_cuda_root
  # Loud now rather than at configure time: torch, the wheels' CUDA and nvcc must agree.
  torch_cuda=$("$venv/bin/python" -W ignore -c 'import torch, torch.utils; print(torch.version.cuda)')
  nvcc_release=$("$venv/cuda/bin/nvcc" --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
  if [ "$torch_cuda" != "${CUDA_TOOLKIT_VERSION%.*}" ] || [ "$nvcc_release" != "${CUDA_TOOLKIT_VERSION%.*}" ]; then
    echo "setup: torch was built with CUDA $torch_cuda, nvcc is $nvcc_release, versions.sh pins $CUDA_TOOLKIT_VERSION" >&2
    exit 1
  fi
  echo "$TORCH_ENV_REQUIREMENTS" > "$marker.new" && mv "$marker.new" "$marker"
  echo "setup: LibTorch $TORCH_VERSION with CUDA $torch_cuda (nvcc $nvcc_release in $venv/cuda)"
fi
echo "setup: done"
