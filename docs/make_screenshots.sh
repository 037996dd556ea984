#!/usr/bin/env bash
# Takes the README's screenshots in a real window under Xvfb, from the sample traces recorded on
# an H200 and the PyTorch fixtures, and from CPU recordings made here with sawtooth-record when the
# build has it (data-parallel ranks, precision on a CPU). Usage: docs/make_screenshots.sh [BUILD_DIR]
# Each shot fails (and the script with it) when a file does not open.
set -euo pipefail
cd "$(dirname "$0")/.."
app=${1:-build/release}/bin/sawtooth
out=docs/screenshots
mkdir -p "$out"
export XDG_CONFIG_HOME=$(mktemp -d) XDG_DATA_HOME=$(mktemp -d)
shot() {  # shot NAME [sawtooth options and files...]
  local name=$1
  shift
  xvfb-run -a -s "-screen 0 1920x1200x24" "$app" --screenshot "$out/$name.png" --size 1500x950 "$@" 2>/dev/null
  echo "$out/$name.png"
}
s=resources/samples
shot timeline "$s/anatomy.sawtooth"
shot stacked --stacked "$s/anatomy.sawtooth"
# Zoomed into two steps: the y axis fits the visible range; the peak, outside it, leaves no label.
shot zoomed --zoom 3000:3300 "$s/anatomy.sawtooth"
shot plan --view plan "$s/anatomy.sawtooth"
shot peaks "$s/checkpointing.sawtooth"
shot precision "$s/precision.sawtooth"
shot runs --view runs "$s/accumulation.sawtooth"
shot oom tests/data/oom_mlp_snapshot_protocol2.pickle.gz
# The recording ladder starts from the first file: checkpointing, whose own runs measure its rungs.
shot ladder --view ladder "$s/checkpointing.sawtooth" "$s/anatomy.sawtooth" "$s/precision.sawtooth" "$s/accumulation.sawtooth"
# A program of the user's kind (GPT-2 small, recorded on an H100): which module holds the peak.
shot modules --view modules "$s/gpt2.sawtooth"
shot compare --view compare --align step "$s/anatomy.sawtooth" tests/data/anatomy_adam_snapshot.pickle
shot snapshot --x-axis time tests/data/anatomy_adam_snapshot.pickle
# The allocator's views on H200 snapshots: a real out-of-memory's segment map, the fragmentation
# chart under the timeline, live bytes at the peak by call site, and a call-site diff.
shot allocator --view allocator tests/data/h200_allocator_oom.pickle
shot fragmentation tests/data/h200_allocator_roundup.pickle
shot live --view live tests/data/anatomy_adam_snapshot.pickle
shot sites --view sites tests/data/h200_allocator_window.pickle tests/data/h200_allocator_expandable.pickle
SAWTOOTH_PALETTE=dark shot dark "$s/precision.sawtooth"
# Recorded now on this machine's CPU (the one-GPU machine has no second GPU for the ranks).
rec=$(dirname "$app")/sawtooth-record
if [ -x "$rec" ]; then
  tmp=$(mktemp -d)
  "$rec" --workload data-parallel --ranks 2 --device cpu --set variant=sharded --out "$tmp/data-parallel.sawtooth" > /dev/null
  shot ranks "$tmp/data-parallel.sawtooth"
  "$rec" --workload precision --device cpu --out "$tmp/precision-cpu.sawtooth" > /dev/null
  shot precision-cpu "$tmp/precision-cpu.sawtooth"
fi
