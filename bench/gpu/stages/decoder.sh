# Stages of issue 10 (the snapshot decoder), sourced by bench/gpu/run_gpu.sh; needs stage_build.
#
#   decoder   PyTorch records its own snapshot of the seed's anatomy loop (8,000 steps, Python
#             stacks, as TECHNICAL_NOTES.md measured: about 936,000 events, 63 MB), then
#             `sawtooth-trace info --json` reads it, whole process, side by side with Python's
#             pickle.loads of the same bytes, interleaved, 5 runs each
#             (bench/core/time_import_side_by_side.py); then the same for 2,000 steps with C++ frames
#             too (stacks="all": deeper stacks on every event). Expected duration: about 3 minutes
#             (25 s + 5 s dump, 10 s + 3 s dump, then about 10 s of timing per file).
# It prints the timing tables (the ratio column is the result: >= 3x is the target) and the peak
# resident memory of the import (target: file size + 64 B per event). The snapshots themselves are
# deleted (over 16 MiB); their `info --json` comes back.

stage_decoder() {
  local py=$R/decoder-record.py
  cat > "$py" <<'EOF'
import sys, time, torch
steps, stacks, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
torch.manual_seed(0)
layers = []
for _ in range(6):
    layers += [torch.nn.Linear(2048, 2048, bias=False), torch.nn.ReLU()]
model = torch.nn.Sequential(*layers).cuda()
opt = torch.optim.Adam(model.parameters())
x = torch.randn(256, 2048, device="cuda")
torch.cuda.memory._record_memory_history(max_entries=10_000_000, stacks=stacks)
t0 = time.time()
for _ in range(steps):
    opt.zero_grad()
    model(x).square().mean().backward()
    opt.step()
torch.cuda.synchronize()
t1 = time.time()
torch.cuda.memory._dump_snapshot(out)
print(f"{steps} steps with stacks={stacks}: {t1 - t0:.1f} s, dump {time.time() - t1:.1f} s")
EOF
  local f
  python3 "$py" 8000 python "$R/real-anatomy-8000-python.pickle" || return 1
  python3 "$py" 2000 all "$R/real-anatomy-2000-all.pickle" || return 1
  for f in "$R/real-anatomy-8000-python.pickle" "$R/real-anatomy-2000-all.pickle"; do
    ls -la "$f"
    $TRACE info --json "$f" > "${f%.pickle}.info.json" || echo "info failed on $f"
    python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(sys.argv[1], j['events'], 'events,', j['stacks'], 'stacks, anomalies', [(a['kind'], a['count']) for a in j['anomalies']])" "${f%.pickle}.info.json"
  done
  python3 bench/core/time_import_side_by_side.py --tool "$TRACE" --runs 5 --out "$R/decoder-real-snapshots.md" \
    "$R/real-anatomy-8000-python.pickle" "$R/real-anatomy-2000-all.pickle" > "$R/decoder-real-snapshots.jsonl"
  cat "$R/decoder-real-snapshots.md"
  rm -f "$R"/real-anatomy-*.pickle
}
