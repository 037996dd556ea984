#!/usr/bin/env python3
"""The ladder's predicted-vs-measured report from the outputs of bench/gpu/stages/ladder.sh.

Usage: ladder_report.py DIR [--out report.md] [--json report.json]

DIR holds, per check, NAME.ladder.json (`sawtooth-trace ladder --json` of the baseline with its
--measured recordings) and, for programs, NAME*.stdout with the program's own `RESULT {json}` lines
(each rank's max_memory_allocated). Every predicted rung that has a measured run becomes a row:
predicted peak, measured peak (the same sweep over the rung's own recording), the error against its
bound — 2 % where the rule is exact (checkpointing, accumulation, sharding), 5 % for bf16/fp16 and
for the foreign programs — and the step time against 10 %, and the range the recording leaves open
(peak_range: what a recording cannot show, such as dtypes or a library's workspace sizes) with
whether the measured peak lies in it. Exit 1 when a row passes a bound.
"""
import glob
import json
import os
import sys

EXACT, LOW_PRECISION, FOREIGN, TIME = 0.02, 0.05, 0.05, 0.10


def bound_of(check, rung_id):
    if check.startswith("foreign"):
        return FOREIGN
    if rung_id in ("bf16", "fp16"):
        return LOW_PRECISION
    return EXACT


def results_of(stdout_glob):
    out = []
    for path in sorted(glob.glob(stdout_glob)):
        with open(path) as f:
            for line in f:
                if line.startswith("RESULT "):
                    try:
                        out.append(json.loads(line[7:]))
                    except json.JSONDecodeError:
                        pass
    return out


def main():
    d = sys.argv[1]
    out_md = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else os.path.join(d, "report.md")
    out_json = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else os.path.join(d, "report.json")
    rows, problems = [], []
    for path in sorted(glob.glob(os.path.join(d, "*.ladder.json"))):
        check = os.path.basename(path)[:-len(".ladder.json")]
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            problems.append(f"{check}: no ladder ({e})")
            continue
        cuda = doc.get("cuda", False)
        key = "peak_allocated_block_bytes" if cuda else "peak_allocated_bytes"
        programs = {r.get("rank", 0): r for r in results_of(os.path.join(d, check + ".stdout"))}
        for r in doc["rungs"]:
            m = r.get("measured")
            if not m or not r["applicable"] or not r["predicted"]:
                if m and r["id"] == "compile":
                    rows.append({"check": check, "run": doc["run"], "rung": r["label"], "id": r["id"], "predicted": None,
                                 "measured": m[key], "peak_error": None, "bound": None, "ok": True,
                                 "t_pred": None, "t_meas": m["step_ms"], "time_error": None, "time_ok": True,
                                 "program_max_allocated": None, "source": m["source"]})
                continue
            bound = bound_of(check, r["id"])
            err = r["peak_error"]
            terr = r["time_error"]
            row = {"check": check, "run": doc["run"], "rung": r["label"], "id": r["id"], "predicted": r[key],
                   "measured": m[key], "peak_error": err, "bound": bound,
                   "ok": err is not None and abs(err) <= bound,
                   "t_pred": r["step_ms"], "t_meas": m["step_ms"], "time_error": terr,
                   "time_ok": terr is None or abs(terr) <= TIME, "time_basis": r["time_basis"],
                   "program_max_allocated": None, "source": m["source"],
                   "range": [r["peak_range"]["low"], r["peak_range"]["high"]] if r.get("peak_range") else None,
                   "range_why": r["peak_range"]["why"] if r.get("peak_range") else None,
                   "in_range": r.get("measured_in_range")}
            rows.append(row)
        # The baseline program's own max_memory_allocated beside the trace's peak (per rank).
        base = doc["rungs"][0]
        rank = doc["run"].split(" ")[-1] if doc["run"].startswith("rank ") else 0
        prog = programs.get(int(rank)) if programs else None
        rows.append({"check": check, "run": doc["run"], "rung": "as recorded", "id": "baseline",
                     "predicted": base[key], "measured": prog.get("max_memory_allocated") if prog else None,
                     "peak_error": (base[key] / prog["max_memory_allocated"] - 1)
                     if prog and prog.get("max_memory_allocated") else None,
                     "bound": None, "ok": True, "t_pred": base["step_ms"],
                     "t_meas": prog.get("step_ms_median") if prog else None, "time_error": None, "time_ok": True,
                     "program_max_allocated": prog.get("max_memory_allocated") if prog else None,
                     "source": "the program's own max_memory_allocated" if prog else "the recording"})

    def pct(v):
        return "—" if v is None else f"{100 * v:+.2f} %"

    def gb(v):
        return "—" if v is None else f"{v / 1e9:.3f} GB"

    def ms(v):
        return "—" if v is None else f"{v:.3g} ms"

    lines = ["# The ladder: predicted vs measured", "",
             "Made by `bench/gpu/ladder/ladder_report.py` from the outputs of `bench/gpu/run_gpu.sh build ladder` "
             "(bench/gpu/stages/ladder.sh). Peaks in the caching allocator's blocks (max_memory_allocated); "
             "bounds: 2 % where the rule is exact, 5 % for bf16/fp16 and the foreign programs, 10 % for step time. "
             "A row `as recorded` compares the baseline recording's peak with the program's own max_memory_allocated. "
             "`range` is the peak the recording leaves open (the prediction's reasoning says why, in words) and "
             "whether the measured peak lies in it.",
             "", "| check | run | rung | predicted | measured | peak error | bound | range | predicted step | "
             "measured step | step error |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = 0
    for x in rows:
        verdict = "" if x["bound"] is None else ("ok" if x["ok"] else "**over**")
        tverdict = "" if x["time_ok"] else " **over**"
        if not x["ok"] or not x["time_ok"]:
            failed += 1
        bound = "" if x["bound"] is None else "≤ {:.0%}".format(x["bound"])
        rng = ""
        if x.get("range"):
            rng = f"{x['range'][0] / 1e9:.3f}–{x['range'][1] / 1e9:.3f} GB"
            if x.get("in_range") is not None:
                if x["in_range"]:
                    rng += ": measured inside"
                else:
                    lo, hi = x["range"]
                    off = x["measured"] / hi - 1 if x["measured"] > hi else x["measured"] / lo - 1
                    rng += f": measured outside by {100 * off:+.2f} %"
        lines.append(f"| {x['check']} | {x['run']} | {x['rung']} | {gb(x['predicted'])} | {gb(x['measured'])} | "
                     f"{pct(x['peak_error'])} | {verdict} {bound} | {rng} | "
                     f"{ms(x['t_pred'])} | {ms(x['t_meas'])} | {pct(x['time_error'])}{tverdict} |")
    for p in problems:
        lines.append(f"\n- {p}")
    lines.append(f"\n{len(rows)} rows, {failed} past a bound, {len(problems)} missing.")
    text = "\n".join(lines) + "\n"
    with open(out_md, "w") as f:
        f.write(text)
    with open(out_json, "w") as f:
        json.dump({"rows": rows, "problems": problems}, f, indent=1)
    print(text)
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
