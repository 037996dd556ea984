#!/usr/bin/env bash
# CTest's runner for one fuzz target: runs it quietly (no coverage lines, so a failure's report is
# near the top of a CI log that shows only part of the output) and, when it fails, prints each
# input it left in ARTIFACTS as base64, so the failure can be reproduced from the log alone:
#   base64 -d > input && build/fuzz/bin/fuzz_NAME input
# Usage: run_fuzzer.sh ARTIFACTS FUZZER [libFuzzer options and corpus folders...]
set -u
artifacts=$1
shift
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
"$@" -verbosity=0 -print_funcs=0
status=$?
if [ "$status" -ne 0 ]; then
  find "$artifacts" -maxdepth 1 -type f -newer "$marker" | while read -r input; do
    echo "fuzz input that failed: $(basename "$input") ($(stat -c %s "$input") bytes), base64:"
    head -c 65536 "$input" | base64 -w 100
  done
fi
exit "$status"
