#!/usr/bin/env python3
"""Checks that bench/results/ holds summaries, not raw run outputs (bench/README.md, "Results").

Usage: check_bench_results.py [RESULTS_DIR]   (default: bench/results beside this repository's tests/)

Rules, each a thing a raw log breaks:
  - every file is Markdown (.md) or JSON (.json): no .log, .txt, .stdout, .stderr, .csv, .jsonl;
  - no folder deeper than one level below RESULTS_DIR;
  - each result set (a file at the top, or a top-level folder with all it holds) is at most 1 MB;
  - every .json parses as one JSON document (JSON lines do not);
  - every .md opens with a Markdown title (its first line that is not blank starts with "# ");
  - every .md names at least one command: a line of a code block (fenced, or indented by 4 spaces
    after a blank line) or an inline code span that starts like a command line — optional
    VAR=value assignments, then a script or binary named by its path (bench/x.py, run.sh,
    build/ci/bin/x, ./x) or a usual launcher with an argument (python3 x, cmake --build, ...).
Exits 0 when the tree passes, 1 with one line per problem otherwise. Python standard library only.
"""
import json
import os
import re
import sys

MAX_SET_BYTES = 1_000_000
ALLOWED_SUFFIXES = (".md", ".json")
LAUNCHERS = {
    "bash", "sh", "env", "timeout", "nice", "sudo", "python", "python3", "cmake", "ctest", "ninja", "make",
    "git", "apt", "apt-get", "xvfb-run", "perf", "sqlite3", "pip", "lintian", "dpkg", "sawtooth",
    "sawtooth-record", "sawtooth-trace", "torchrun", "time",
}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")


def looks_like_command(text):
    """VAR=value ... PROGRAM ARGS: PROGRAM a script or binary named by its path (x.sh, x.py, .../bin/x,
    ./x), or a usual launcher followed by at least one argument."""
    words = text.strip().split()
    while words and ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return False
    program = words[0].strip("\"'").removeprefix("$(")
    if program in LAUNCHERS:
        return len(words) > 1
    return program.endswith((".sh", ".py")) or "bin/" in program or program.startswith("./")


def command_candidates(markdown):
    """Lines of code blocks and inline code spans, in order."""
    lines = markdown.splitlines()
    fenced = False
    previous_blank = True
    in_indented = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            previous_blank = False
            continue
        if fenced:
            yield line
            continue
        if line.startswith("    ") and stripped and (previous_blank or in_indented):
            in_indented = True
            yield line
        else:
            in_indented = in_indented and not stripped  # a blank line may sit inside an indented block
            for span in re.findall(r"`([^`\n]+)`", line):
                yield span
        previous_blank = not stripped


def names_a_command(markdown):
    return any(looks_like_command(c) for c in command_candidates(markdown))


def tree_size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def problems_in(results):
    problems = []
    for entry in sorted(os.listdir(results)):
        top = os.path.join(results, entry)
        size = tree_size(top)
        if size > MAX_SET_BYTES:
            problems.append(f"{entry}: {size:,} bytes, over the {MAX_SET_BYTES:,}-byte limit of a result set: "
                            "keep a summary, leave the raw outputs out of the tree")
    for folder, dirs, files in os.walk(results):
        depth = os.path.relpath(folder, results).count(os.sep) + (folder != results)
        for d in sorted(dirs):
            if depth >= 1:
                problems.append(f"{os.path.relpath(os.path.join(folder, d), results)}/: folders may be one level deep, no more")
        for f in sorted(files):
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, results)
            if not f.endswith(ALLOWED_SUFFIXES):
                problems.append(f"{rel}: not Markdown or JSON (a raw output?): put what matters into a summary")
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if f.endswith(".json"):
                try:
                    json.loads(text)
                except ValueError as e:
                    problems.append(f"{rel}: not one JSON document ({e})")
            elif not next((l for l in text.splitlines() if l.strip()), "").startswith("# "):
                problems.append(f"{rel}: does not open with a Markdown title (\"# what, machine, date\"): "
                                "a summary says what it is; a raw output does not")
            elif not names_a_command(text):
                problems.append(f"{rel}: names no command: add the exact command that made it "
                                "(a code block, or an inline `command line`)")
    return problems


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "bench", "results")
    if not os.path.isdir(results):
        print(f"{results}: not a folder")
        return 1
    problems = problems_in(results)
    for p in problems:
        print(p)
    files = sum(len(f) for _, _, f in os.walk(results))
    print(f"{'FAIL' if problems else 'ok'}: {files} files in {os.path.normpath(results)}, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
