#!/usr/bin/env python3
"""Runs `sawtooth-trace info --json` (or the command an entry names) on every file of the hostile corpus
(tests/make_hostile_corpus.py) as an attacker's victim would: with a 1 GB address-space limit and a
10 s timeout. Each file must be refused with its message, or flagged, or read, as manifest.json says;
never a crash, a signal, a timeout, or a file written beside the input. Each .sawtooth file is read
once more under strace: no file beside it may be opened for writing, written, truncated, made,
renamed or removed (SQLite's -wal and -shm included). Each line printed gives the time and the peak
resident memory of the run.

With --app SAWTOOTH, runs `sawtooth --export-png` on every file instead, without a display, with
a 1.5 GiB address-space limit and a 20 s timeout: a file sawtooth-trace refuses must be refused with
the same message (exit 1), any other must come out as a PNG; nothing may be written beside the input.

Usage: check_hostile_corpus.py [--app SAWTOOTH] SAWTOOTH_TRACE SAMPLES_DIR CORPUS_DIR
(the corpus is generated into CORPUS_DIR first, when its manifest is missing or older than the generator)
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

LIMIT_BYTES = 1 << 30
TIMEOUT_S = 10
APP_LIMIT_BYTES = 3 << 29  # 1.5 GiB
APP_TIMEOUT_S = 20

failures = []


def limit():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def app_limit():
    resource.setrlimit(resource.RLIMIT_AS, (APP_LIMIT_BYTES, APP_LIMIT_BYTES))


def listing(folder):
    return sorted(os.listdir(folder))


def run(args, preexec=limit, timeout=TIMEOUT_S, env=None):
    """(exit code or -signal, stdout, stderr, seconds, peak resident MB), or None past the timeout."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(args, stdout=out, stderr=err, preexec_fn=preexec, env=env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                return None
            time.sleep(0.01)
        seconds = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (proc.returncode, out.read().decode(errors="replace"), err.read().decode(errors="replace"), seconds,
                usage.ru_maxrss / 1024)


def check(entry, tool, corpus):
    path = os.path.join(corpus, entry["file"])
    folder = os.path.dirname(path)
    before = listing(folder)
    with tempfile.TemporaryDirectory() as tmp:
        # {out}: an output path away from the input (convert); a refused command leaves nothing there.
        out_path = os.path.join(tmp, "out.sawtooth")
        args = [a.replace("{file}", path).replace("{out}", out_path)
                for a in entry.get("args", ["info", "--json", "{file}"])]
        result = run([tool] + args)
        left = listing(tmp)
    if result is None:
        return f"did not finish within {TIMEOUT_S} s"
    returncode, stdout, stderr, seconds, peak_mb = result
    after = listing(folder)
    if after != before:
        return f"files appeared or went beside the input: {sorted(set(after) ^ set(before))}"
    if entry["expect"] == "refused" and left:
        return f"a refused command left output behind: {left}"
    if returncode < 0:
        return f"killed by signal {-returncode}: {stderr.strip()[-300:]}"
    want = entry["expect"]
    if want == "refused":
        if returncode != 1:
            return f"expected a refusal (exit 1), got exit {returncode}"
        if entry["message"] not in stderr:
            return f"expected a message containing {entry['message']!r}, got {stderr.strip()!r}"
        if not stderr.startswith("sawtooth-trace: " + path):
            return f"the message does not name the file: {stderr.strip()!r}"
    elif "args" in entry:
        if returncode != 0:
            return f"expected exit 0, got {returncode}: {stderr.strip()[-300:]}"
        label = entry.get("label", "")
        if label.startswith("printable:"):
            # Text from the file must not reach the terminal raw, nor forge a line of the output.
            raw = [c for c in stdout if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c == "\u202e"]
            if raw:
                return f"the output holds raw control characters: {sorted(set(map(ascii, raw)))}"
            forged = label.split(":", 1)[1]
            if any(line == forged for line in stdout.splitlines()):
                return f"a name forged the output line {forged!r}"
    else:
        if returncode != 0:
            return f"expected exit 0, got {returncode}: {stderr.strip()[-300:]}"
        info = json.loads(stdout)
        if "anomaly" in entry:
            kinds = [a["kind"] for a in info.get("anomalies", [])]
            if entry["anomaly"] not in kinds:
                return f"expected anomaly {entry['anomaly']}, got {kinds}"
        if "warning" in entry and entry["warning"] not in info.get("meta", {}).get("warnings", ""):
            return f"expected a warning containing {entry['warning']!r}, got {info.get('meta', {}).get('warnings')!r}"
        label = entry.get("label", "")
        if label.startswith("events:") and info["events"] != int(label.split(":")[1]):
            return f"expected {label.split(':')[1]} events, got {info['events']}"
        if label and not label.startswith("events:") and label not in [d["label"] for d in info["devices"]]:
            return f"expected a device labelled {label}, got {[d['label'] for d in info['devices']]}"
    command = "" if "args" not in entry else f" [{entry['args'][0]}]"
    print(f"ok  {seconds:5.2f} s {peak_mb:6.0f} MB  {entry['file']}{command}: {want}"
          + (f" ({stderr.strip()[len('sawtooth-trace: '):][:110]})" if want == "refused" else ""))
    return None


WRITING_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
# System calls that write or make files, traced with -y so that each descriptor shows its path.
TRACED = "open,openat,openat2,creat,truncate,ftruncate,write,pwrite64,writev,pwritev,pwritev2,fallocate," \
         "unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,link,linkat,symlink,symlinkat"


def strace_check(entry, tool, corpus):
    """Runs the entry again under strace and names every system call that opened a file beside the
    input for writing, wrote to one, truncated, made, renamed or removed one."""
    path = os.path.join(corpus, entry["file"])
    folder = os.path.realpath(os.path.dirname(path)) + os.sep
    with tempfile.TemporaryDirectory() as tmp:
        args = [a.replace("{file}", path).replace("{out}", os.path.join(tmp, "out.sawtooth"))
                for a in entry.get("args", ["info", "--json", "{file}"])]
        log = os.path.join(tmp, "strace.log")
        r = subprocess.run(["strace", "-f", "-qq", "-y", "-e", "trace=" + TRACED, "-o", log, tool] + args,
                           capture_output=True, timeout=10 * TIMEOUT_S, preexec_fn=limit)
        if r.returncode < 0:
            return f"killed by signal {-r.returncode} under strace"
        calls = open(log).read().splitlines()
    found = []
    for line in calls:
        call = re.sub(r"^\d+\s+", "", line)
        name = call.split("(", 1)[0]
        paths = re.findall(r'"((?:[^"\\]|\\.)*)"', call) + re.findall(r"<([^<>]*)>", call)
        beside = [p for p in paths if os.path.realpath(p).startswith(folder)]
        if not beside:
            continue
        if name in ("open", "openat", "openat2", "creat"):
            if name == "creat" or any(flag in call for flag in WRITING_FLAGS):
                found.append(call)
        else:
            found.append(call)
    if found:
        return "wrote beside the input: " + "; ".join(found[:4]) + (f" (and {len(found) - 4} more)" if len(found) > 4 else "")
    return None


def check_export(entry, app, corpus, out_dir):
    """`sawtooth --export-png` on the entry's file: refused as sawtooth-trace refuses it, or a PNG."""
    path = os.path.join(corpus, entry["file"])
    folder = os.path.dirname(path)
    before = listing(folder)
    png = os.path.join(out_dir, entry["file"].replace(os.sep, "_") + ".png")
    if os.path.exists(png):
        os.remove(png)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = run([app, "--export-png", png, path], preexec=app_limit, timeout=APP_TIMEOUT_S, env=env)
    if result is None:
        return f"export did not finish within {APP_TIMEOUT_S} s"
    returncode, _, stderr, seconds, peak_mb = result
    if listing(folder) != before:
        return f"files appeared or went beside the input: {sorted(set(listing(folder)) ^ set(before))}"
    if returncode < 0:
        return f"export killed by signal {-returncode}: {stderr.strip()[-300:]}"
    if entry["expect"] == "refused":
        if returncode != 1 or entry["message"] not in stderr:
            return f"expected the export refused (exit 1) with {entry['message']!r}, got exit {returncode}: " \
                   f"{stderr.strip()[-300:]!r}"
    else:
        if returncode != 0:
            return f"export: expected exit 0, got {returncode}: {stderr.strip()[-300:]}"
        if not os.path.exists(png):
            return "export: exit 0 but no PNG written"
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                return "export: not a PNG"
    print(f"ok  {seconds:5.2f} s {peak_mb:6.0f} MB  {entry['file']} [--export-png]: {entry['expect']}", flush=True)
    return None


def main():
    args = sys.argv[1:]
    app = None
    if len(args) == 5 and args[0] == "--app":
        app, args = args[1], args[2:]
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, samples, corpus = args
    generator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make_hostile_corpus.py")
    manifest = os.path.join(corpus, "manifest.json")
    if not os.path.exists(manifest) or os.path.getmtime(manifest) < os.path.getmtime(generator):
        subprocess.run([sys.executable, generator, samples, corpus], check=True)
    entries = json.load(open(manifest))
    if app:
        out_dir = corpus.rstrip(os.sep) + "-png"
        os.makedirs(out_dir, exist_ok=True)
        files = []
        for entry in entries:
            if entry["file"] in files:
                continue  # read again by another command: one export is enough
            files.append(entry["file"])
            why = check_export(entry, app, corpus, out_dir)
            if why:
                failures.append(f"{entry['file']}: {why}")
                print(f"FAIL {entry['file']}: {why}", flush=True)
        print(f"{len(files) - len(failures)} of {len(files)} hostile files exported or refused as expected")
        return 1 if failures else 0
    if not shutil.which("strace"):
        print("FAIL strace is not installed (Debian's strace; scripts/setup.sh installs it): the .sawtooth files "
              "cannot be checked for writes beside them")
        return 1
    for entry in entries:
        why = check(entry, tool, corpus)
        if not why and entry["file"].endswith(".sawtooth"):
            why = strace_check(entry, tool, corpus)
        if why:
            failures.append(f"{entry['file']}: {why}")
            print(f"FAIL {entry['file']}: {why}")
    print(f"{len(entries) - len(failures)} of {len(entries)} hostile files handled as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
