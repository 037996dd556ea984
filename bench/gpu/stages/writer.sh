# Stage for the writer keeping up (issue 25), sourced by bench/gpu/run_gpu.sh (needs `build`).
#   writer_bisect  the anatomy workload for 20,000 timed steps under capture none, all, and all
#                  minus one source (kernels, tracker, reporter): wall time and each source's
#                  dropped records, to find which source the writer cannot keep up with. ~8 min.
stage_writer_bisect() {
  local spec
  for spec in none all all,-kernels all,-tracker all,-reporter; do
    local out="$R/bisect-${spec//,/_}.sawtooth" t0=$SECONDS
    $REC --workload anatomy --device cuda --capture "$spec" --set timed_steps=20000 --out "$out" --force > "$out.jsonl" 2> "$out.err"
    echo "capture $spec: exit $? in $((SECONDS - t0)) s; $(tail -1 "$out.jsonl" | grep -o '"message":"[^"]*"')"
    rm -f "$out" "$out"-wal "$out"-shm
  done
}
