#!/usr/bin/env bash
# Makes .gpu-app/app.tar.xz: the app's timeline-open benchmark (bench/gui/timeline_open.cpp) built
# here, stripped, with the shared libraries it and Qt's offscreen platform plugin load from this
# Debian 12 machine (Qt 6.4, Qt Charts, ICU, ...; not glibc's own, which the GPU machine has newer).
# The GPU machine has no Qt and no network: carry it with the device tool's
# `carry: [".gpu-app", ".gpu-deps"]`; bench/gpu/stages/anylength.sh's anylength_app unpacks and runs
# it with LD_LIBRARY_PATH and QT_PLUGIN_PATH set. 23 MB (79 MB unpacked).
#   scripts/make-gpu-app.sh [BUILD_DIR]   (default build/ci; builds sawtooth_timeline_open there)
#   scripts/make-gpu-app.sh --baseline BINARY   also carries BINARY (a sawtooth_timeline_open built
#                                              here from an earlier commit, same libraries) as
#                                              .gpu-app/baseline.xz: anylength_app then runs it and
#                                              the current one alternately, round by round
set -euo pipefail
cd "$(dirname "$0")/.."
baseline=
if [ "${1:-}" = --baseline ]; then
  baseline=$2
  shift 2
fi
build=${1:-build/ci}
cmake --build "$build" --target sawtooth_timeline_open
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/app/lib" "$stage/app/plugins/platforms"
cp "$build/bin/sawtooth_timeline_open" "$stage/app/"
strip "$stage/app/sawtooth_timeline_open"
plugins=$(qmake6 -query QT_INSTALL_PLUGINS)
cp "$plugins/platforms/libqoffscreen.so" "$stage/app/plugins/platforms/"
{ ldd "$stage/app/sawtooth_timeline_open"; ldd "$plugins/platforms/libqoffscreen.so"; } | awk '{print $3}' | grep '^/' |
  sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux-x86-64)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/app/lib/"; done
mkdir -p .gpu-app
tar cJf .gpu-app/app.tar.xz -C "$stage" app
rm -f .gpu-app/baseline.xz
if [ -n "$baseline" ]; then
  cp "$baseline" "$stage/baseline"
  strip "$stage/baseline"
  xz -c "$stage/baseline" > .gpu-app/baseline.xz
  du -sh .gpu-app/baseline.xz
fi
du -sh .gpu-app/app.tar.xz
