# Stages of the install work (issue 8), sourced by bench/gpu/run_gpu.sh (after stage_build).
#
#   recorder_bundle   sawtooth-record as the sawtooth-recorder package ships it: the component's
#                     install rules (the ones CPack makes the .deb from) into a temporary root,
#                     then from that root, with a clean environment (no LD_LIBRARY_PATH, no
#                     python site-packages on any path), three workloads on CUDA at their default
#                     sizes: anatomy (cuBLAS, the caching allocator, CUPTI), precision (bf16/fp16:
#                     cuBLASLt) and data-parallel on one GPU (NCCL); checkpointing and
#                     accumulation run the same operations as anatomy (the "not loaded" line
#                     shows what no run needed). ld.so's own log
#                     (LD_DEBUG=files) lists every library each run loaded: all must come from the
#                     root or the system's folders (libcuda.so.1, the driver); it also says which
#                     bundled files were used, and how much of the bundle that is.
#                     Expected: about 2-3 minutes (3 GB copied, three CUDA runs of 10-60 s).
#                     Success prints "bundle: every library from the root or the system" and
#                     "exit 0" for each workload.

stage_recorder_bundle() {
  local root=/tmp/sawtooth-recorder-root
  rm -rf "$root"
  local t0=$SECONDS
  cmake --install $BUILD --component recorder --prefix "$root/usr" > "$R/bundle-install.log" 2>&1 ||
    { tail -20 "$R/bundle-install.log"; return 1; }
  echo "install: $((SECONDS - t0)) s; bundle $(du -sh "$root/usr/lib/sawtooth-recorder" | cut -f1)," \
       "$(find "$root/usr/lib/sawtooth-recorder" -name '*.so*' | wc -l) libraries"
  local rec=$root/usr/bin/sawtooth-record
  readelf -d "$rec" | grep -E 'RPATH|RUNPATH'
  local clean=(env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8
               NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1)
  "${clean[@]}" "$rec" --list --json > "$R/bundle-list.json" 2> "$R/bundle-list.stderr"
  echo "--list --json: exit $?"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("cuda_available", d["cuda_available"], d["environment"])' \
    "$R/bundle-list.json"
  mkdir -p "$R/ld"
  local w out rc
  for w in anatomy precision data-parallel; do
    out=/tmp/bundle-$w.sawtooth
    rm -f "$out"
    t0=$SECONDS
    "${clean[@]}" LD_DEBUG=files LD_DEBUG_OUTPUT="$R/ld/$w" "$rec" --workload $w --device cuda --out "$out" \
      > "$R/bundle-$w.progress.jsonl" 2> "$R/bundle-$w.stderr"
    rc=$?
    echo "$w: exit $rc in $((SECONDS - t0)) s; $($TRACE info "$out" 2>&1 | head -2 | tr '\n' ' ' | cut -c1-200)"
    [ $rc -eq 0 ] || tail -5 "$R/bundle-$w.stderr"
  done
  # "calling init: PATH" names every object ld.so loaded, by NEEDED or by dlopen.
  cat "$R"/ld/* | sed -n 's/.*calling init: //p' | sort -u > "$R/bundle-loaded.txt"
  local outside
  outside=$(grep -v -e "^$root/" -e '^/lib/' -e '^/lib64/' -e '^/usr/lib/' -e '^/usr/lib64/' "$R/bundle-loaded.txt")
  if [ -n "$outside" ]; then
    echo "bundle: libraries loaded from elsewhere:"; echo "$outside"
  else
    echo "bundle: every library from the root or the system"
  fi
  grep -v "^$root/" "$R/bundle-loaded.txt" | grep -i -e cuda -e nvidia
  python3 - "$root/usr/lib/sawtooth-recorder" "$R/bundle-loaded.txt" <<'EOF'
import os, sys
bundle, loaded = sys.argv[1], {os.path.realpath(l.strip()) for l in open(sys.argv[2]) if l.strip()}
files = [os.path.join(d, f) for d, _, names in os.walk(bundle) for f in names if ".so" in f]
used = [f for f in files if os.path.realpath(f) in loaded]
size = lambda fs: sum(os.path.getsize(f) for f in fs) / 2**20
print(f"bundle: {len(used)} of {len(files)} libraries loaded by the runs, {size(used):.0f} of {size(files):.0f} MiB")
print("not loaded:", ", ".join(sorted(os.path.relpath(f, bundle) for f in files if f not in used)))
EOF
  rm -rf "$R/ld" /tmp/bundle-*.sawtooth* "$root"
}
