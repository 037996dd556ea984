#!/usr/bin/env bash
# Makes .gpu-deps/: the Debian 12 libraries that the GPU machine lacks (it has no network), as
# .deb files downloaded here and unpacked into .gpu-deps/root, which bench/gpu/run_gpu.sh passes
# to CMake as a prefix. Carry it to that machine with the device tool's `carry: [".gpu-deps"]`.
#   SQLite, zlib, libsodium, simdjson, nlohmann-json, CLI11, fmt: every program's build dependencies;
#   GoogleTest/GoogleMock: the tests; Gloo's headers: c10d's CPU backend (LibTorch ships its code).
# Safe to run again: the folder is made anew.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libsqlite3-dev libsqlite3-0 zlib1g-dev libsodium-dev libsodium23 libsimdjson-dev libsimdjson14 nlohmann-json3-dev
          libcli11-dev libfmt-dev libfmt9 libgtest-dev libgmock-dev googletest libgloo-dev)
rm -rf .gpu-deps
mkdir -p .gpu-deps/debs .gpu-deps/root
(cd .gpu-deps/debs && apt-get download "${packages[@]}")
for deb in .gpu-deps/debs/*.deb; do dpkg-deb -x "$deb" .gpu-deps/root; done
# The GPU machine builds GoogleTest from source only if it must: keep the prebuilt libraries and
# drop the sources the googletest package adds (they are large and unused).
rm -rf .gpu-deps/root/usr/src .gpu-deps/root/usr/share/doc .gpu-deps/debs
du -sh .gpu-deps
