#!/usr/bin/env python3
"""Sawtooth's per-module accounting beside the program's own and MemTracker's (issue 23, item 7).

For one program of module_programs.py: a recording of it (--mode plain under sawtooth-record), what
that recorded run said it held at its end (its --json), and MemTracker's run of the same program
(--mode memtracker, unrecorded). Checks, per module (names root first, as MemTracker's):
  - at the end of the recording (sawtooth-trace modules --at end): parameters, gradients and
    optimizer state equal to the byte to what the program holds (each storage once, a tied weight
    its first module's); MemTracker's parameter memory beside, which rounds to 512 B and counts a
    tied weight in every module that holds it;
  - at the peak: each module's activations beside MemTracker's (the activations its forward left
    alive: MemTracker's ACT when the call ended less when it began), within 5 % or explained;
    identical blocks (transformer.h.N, blocks.N, ...) equal within 1 %;
  - the rows' own bytes sum to the peak exactly, and the peak is the program's max_requested_bytes.
Writes a Markdown report (stdout) and --json OUT.

usage: compare_modules.py --trace SAWTOOTH_TRACE --recording FILE.sawtooth --plain PLAIN.json
                          --memtracker MEMTRACKER.json [--json OUT]
"""
import argparse
import json
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--trace", required=True)
parser.add_argument("--recording", required=True)
parser.add_argument("--plain", required=True)
parser.add_argument("--memtracker", required=True)
parser.add_argument("--json")
args = parser.parse_args()


def modules_at(at):
    out = subprocess.run([args.trace, "modules", args.recording, "--at", at, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"sawtooth-trace modules --at {at}: {out.stderr.strip()}")
    doc = json.loads(out.stdout)
    return doc, {row["name"]: row for row in doc["modules"]}


def kind(snapshot, name):
    """A MemTracker snapshot's bytes of one kind ('ACT', 'Total'), over its devices."""
    total = 0
    for per_device in snapshot.values():
        for key, value in per_device.items():
            if key == name or key.endswith("." + name):
                total += value
    return total


plain = json.load(open(args.plain))
mt = json.load(open(args.memtracker))
end_doc, end = modules_at("end")
peak_doc, peak = modules_at("peak")
holdings = plain["holdings"]

rows, failures, explained = [], [], []
if mt.get("memtracker_error"):
    explained.append(f"MemTracker could not track this program: {mt['memtracker_error'].split('.')[0]} (the step "
                     "calls each module once per micro-batch); only the program's own figures are beside ours")
for name, held in holdings.items():
    ours_end = end.get(name)
    r = {"module": name, "class": held["class"]}
    for cat in ("parameter", "gradient", "optimizer_state"):
        want = held["owned"][cat]
        got = ours_end["total"].get(cat, 0) if ours_end else None
        r[f"{cat}_program"] = want
        r[f"{cat}_ours"] = got
        if got != want:
            failures.append(f"{name}: {cat} {got} (ours, at the end) != {want} (the program's)")
    m = mt["memtracker"].get(name, {})
    r["parameter_memtracker"] = m.get("parameter_mem")
    if m.get("parameter_mem") is not None and m["parameter_mem"] != held["every"]["parameter_512"]:
        explained.append(f"{name}: MemTracker's parameter memory {m['parameter_mem']} != {held['every']['parameter_512']} "
                         "(its parameters rounded to 512 B, tied ones in every holder)")
    # Activations its forward left alive (MemTracker), against ours at the peak.
    pre, post = m.get("calls", {}).get("Pre-Forward", []), m.get("calls", {}).get("Post-Forward", [])
    mt_act = kind(post[-1], "ACT") - kind(pre[-1], "ACT") if pre and post else None
    ours_act = peak[name]["total"].get("activation", 0) if name in peak else None
    r["activation_memtracker"] = mt_act
    r["activation_ours_at_peak"] = ours_act
    if mt_act and ours_act is not None:
        diff = (ours_act - mt_act) / mt_act
        r["activation_diff"] = round(diff, 4)
        if abs(diff) > 0.05:
            backward = peak[name].get("backward", {}).get("calls", 0)
            at = peak_doc.get("at", {})
            where = f"{at.get('pass') or at.get('phase') or 'outside any pass'}" + (f" of {at['module']}" if at.get("module") else "")
            if ours_act < mt_act:
                why = f" — the peak falls in {where}: what this module's forward left was partly freed by then" + \
                      ("" if backward else "")
            else:
                why = (" — ours counts the allocator's blocks its forward left alive and kept for backward (autocast's "
                       "casts, saved inputs), MemTracker its storages at the forward's end")
            explained.append(f"{name}: activations {ours_act} (ours at the peak) vs {mt_act} (MemTracker, its forward) "
                             f"{100 * diff:+.1f} %{why}")
    rows.append(r)

# Identical blocks: the children of a list of blocks (names ending in .N) with one class.
groups = {}
for name, row in peak.items():
    match = re.match(r"^(.*)\.(\d+)$", name)
    if match and row.get("class"):
        groups.setdefault((match.group(1), row["class"]), []).append(row["total"].get("activation", 0))
blocks = []
for (parent, cls), acts in groups.items():
    if len(acts) < 3 or max(acts) == 0:
        continue
    spread = (max(acts) - min(acts)) / max(acts)
    blocks.append({"blocks": f"{parent}.N ({cls})", "count": len(acts), "min": min(acts), "max": max(acts),
                   "spread": round(spread, 4)})
    if spread > 0.01:
        explained.append(f"{parent}.N ({cls}): activations at the peak differ by {100 * spread:.1f} % across "
                         f"{len(acts)} identical blocks ({min(acts)} .. {max(acts)}): the peak falls inside one "
                         "block's backward, which had freed some of its own")

own = sum(row["self"]["total"] for row in peak_doc["modules"])
sums = {"live_bytes_at_peak": peak_doc["live_bytes"], "rows_own_bytes": own,
        "program_max_requested_bytes": plain.get("max_requested_bytes")}
if own != peak_doc["live_bytes"]:
    failures.append(f"the rows' own bytes {own} != the live bytes at the peak {peak_doc['live_bytes']}")
if plain.get("max_requested_bytes") is not None and plain["max_requested_bytes"] != peak_doc["live_bytes"]:
    failures.append(f"the peak {peak_doc['live_bytes']} != the program's max_requested_bytes {plain['max_requested_bytes']}")

print(f"# {plain['model']}: Sawtooth's modules beside the program's and MemTracker's ({plain['device']})\n")
print(f"Peak {peak_doc['live_bytes']:,} B (the program's max_requested_bytes: {plain.get('max_requested_bytes')}); "
      f"the rows' own bytes sum to {own:,} B.\n")
print("| module | params ours = program | grads ours = program | optim ours = program | params MemTracker | "
      "activations at peak (ours) | MemTracker's forward left | diff |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    def eq(cat):
        got, want = r[cat + "_ours"], r[cat + "_program"]
        if got is None:
            return "—"
        return f"{got:,}" if got == want else f"{got:,} ≠ {want:,}"

    def text(value):
        return "—" if value is None else f"{value:,}"
    diff = f"{100 * r['activation_diff']:+.1f} %" if "activation_diff" in r else ""
    print(f"| {r['module']} | {eq('parameter')} | {eq('gradient')} | {eq('optimizer_state')} | "
          f"{text(r['parameter_memtracker'])} | {text(r['activation_ours_at_peak'])} | "
          f"{text(r['activation_memtracker'])} | {diff} |")
if blocks:
    print("\nIdentical blocks, activations at the peak:\n")
    for b in blocks:
        print(f"- {b['blocks']}: {b['count']} blocks, {b['min']:,} .. {b['max']:,} B ({100 * b['spread']:.2f} % apart)")
if explained:
    print("\nDifferences, each with its explanation:\n")
    for e in explained:
        print(f"- {e}")
print(f"\n{'FAILED' if failures else 'PASSED'}: parameters, gradients and optimizer state per module equal to the byte; "
      "the rows sum to the peak" + ("" if not failures else ":\n- " + "\n- ".join(failures)))
if args.json:
    with open(args.json, "w") as f:
        json.dump({"model": plain["model"], "rows": rows, "blocks": blocks, "sums": sums, "failures": failures,
                   "explained": explained}, f, indent=1)
sys.exit(1 if failures else 0)
