#!/usr/bin/env bash
# Prints where the LibTorch virtual environment lives: a per-user cache keyed by the torch version
# and the Python minor version, shared by every clone of Sawtooth on this machine.
set -euo pipefail
source "$(dirname "$0")/versions.sh"
py=$(python3 -c 'import sys; print(f"py{sys.version_info[0]}.{sys.version_info[1]}")')
echo "${XDG_CACHE_HOME:-$HOME/.cache}/sawtooth/torch-$TORCH_VERSION-$py"
