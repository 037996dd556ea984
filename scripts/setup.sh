#!/usr/bin/env bash
# Installs everything Sawtooth needs on a fresh Debian 12 machine:
#   1. the Debian packages (compilers, Qt 6 + Charts + Svg, SQLite, zlib, JSON, CLI11, fmt,
#      GoogleTest, Google Benchmark, clang for the fuzzers, Xvfb for screenshots);
#   2. LibTorch, from the `torch` wheel pinned below, into a Python virtual environment kept in a
#      per-user cache keyed by the torch version, so fresh clones reuse it.
# Safe to run again: each step is skipped when already done.
# Options: --no-torch (skip LibTorch; the app and sawtooth-trace build without it).
set -euo pipefail

source "$(dirname "$0")/versions.sh"
want_torch=1
for arg in "$@"; do
  case "$arg" in
    --no-torch) want_torch=0 ;;
    *) echo "setup.sh: unknown option '$arg' (known: --no-torch)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build pkg-config git clang
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libgl-dev libxkbcommon-dev
  libsqlite3-dev sqlite3 zlib1g-dev libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libgloo-dev
  python3 python3-venv python3-pip
  xvfb xauth
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

if ((want_torch)); then
  venv="$("$(dirname "$0")/torch-venv-path.sh")"
  if [ -f "$venv/.sawtooth-ready" ]; then
    echo "setup: LibTorch $TORCH_VERSION present in $venv"
  else
    echo "setup: installing torch==$TORCH_VERSION into $venv (one time, several GB)"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
    # numpy only quiets torch's import-time warning; LibTorch itself needs nothing else.
    "$venv/bin/python" -m pip install -q "torch==$TORCH_VERSION" numpy
    "$venv/bin/python" -c "import torch.utils; print(torch.utils.cmake_prefix_path)" >/dev/null
    touch "$venv/.sawtooth-ready"
  fi
fi
echo "setup: done"
