#!/usr/bin/env python3
"""Checks Sawtooth's .deb packages as a user would get them.

  check_packages.py --build BUILD [--components app,recorder] --work DIR [--data TESTS_DATA] [--python PY]
      makes the packages of BUILD with cpack (DEB) into DIR/packages, then checks them;
  check_packages.py --debs FOLDER --work DIR [--data TESTS_DATA]
      checks the .deb files already in FOLDER (e.g. build/package after the package workflow).

For each package: its control fields (and the Depends the issue names), lintian (errors and
warnings fail; the packages carry their reasoned overrides), then every package is unpacked with
dpkg-deb -x into one temporary root, and from there, with a clean environment (no build tree, no
LD_LIBRARY_PATH, no LibTorch environment): every program resolves its libraries inside the root or
the system's library folders; the .desktop file, AppStream metadata and MIME types validate;
sawtooth-trace reads every trace format; sawtooth --export-png draws a PNG; a command-line error
exits with 2; sawtooth-record (in the sawtooth package, without LibTorch) records a PyTorch program
on the CPU with that program's own torch (--python: a Python with torch) and, without
sawtooth-recorder, says that the built-in workloads need it; and, with sawtooth-recorder,
sawtooth-record lists its workloads, records one on the CPU, and sits beside sawtooth where the
app looks for it.
"""
import argparse
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

failures = []


def fail(message):
    failures.append(message)
    print("FAIL:", message, flush=True)


def run(cmd, env=None, cwd=None, timeout=300):
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def clean_env(root):
    """What a user's shell would have: the system PATH, a HOME, no library paths, no display."""
    home = os.path.join(root, "..", "home")
    os.makedirs(home, exist_ok=True)
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.path.abspath(home), "LANG": "C.UTF-8",
            "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": os.path.abspath(home)}


def make_packages(build, components, out):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cpack = shutil.which("cpack") or "cpack"
    r = run([cpack, "--config", os.path.join(build, "CPackConfig.cmake"), "-G", "DEB", "-B", out,
             "-D", "CPACK_COMPONENTS_ALL=" + ";".join(components)], timeout=3000)
    print(r.stdout[-3000:], r.stderr[-3000:], sep="\n", flush=True)
    if r.returncode != 0:
        fail(f"cpack exited {r.returncode}")
    return sorted(glob.glob(os.path.join(out, "*.deb")))


def control(deb):
    r = run(["dpkg-deb", "-f", deb])
    fields = {}
    key = None
    for line in r.stdout.splitlines():
        if line[:1] in (" ", "\t") and key:
            fields[key] += "\n" + line
        elif ":" in line:
            key, value = line.split(":", 1)
            fields[key] = value.strip()
    return fields


def depends_names(fields):
    names = set()
    for alternative in fields.get("Depends", "").split(","):
        for name in alternative.split("|"):
            if name.strip():
                names.add(name.strip().split()[0])
    return names


def check_control(deb, fields):
    package = fields.get("Package")
    print(f"{os.path.basename(deb)}: Package {package}, Version {fields.get('Version')}, "
          f"Installed-Size {int(fields.get('Installed-Size', 0)) / 1024:.1f} MiB, "
          f"{os.path.getsize(deb) / 2**20:.1f} MiB as a file\n  Depends: {fields.get('Depends')}", flush=True)
    names = depends_names(fields)
    wanted = {
        "sawtooth": ["libqt6core6", "libqt6gui6", "libqt6widgets6", "libqt6charts6", "libqt6svg6",
                     "libsqlite3-0", "zlib1g", "libsodium23", "libsimdjson14", "libfmt9", "libc6", "libstdc++6"],
        "sawtooth-recorder": ["libsqlite3-0", "zlib1g", "libsodium23", "libsimdjson14", "libfmt9", "libc6", "libstdc++6", "libgcc-s1"],
    }.get(package)
    if wanted is None:
        fail(f"{deb}: unknown package {package}")
        return
    for name in wanted:
        if name not in names:
            fail(f"{package}: Depends lacks {name}")
    if package == "sawtooth-recorder" and any(n.startswith("libqt6") for n in names):
        fail("sawtooth-recorder depends on Qt: the recorder must not need the GUI's libraries")


def check_lintian(debs):
    lintian = shutil.which("lintian")
    if not lintian:
        fail("lintian is not installed (scripts/setup.sh installs it)")
        return
    # Errors and warnings fail; each accepted exception is an override shipped in the package,
    # with its reason. Info tags are printed, for the record.
    r = run([lintian, "--fail-on", "error,warning", "--display-info", "--no-tag-display-limit", *debs], timeout=3000)
    print("lintian:", r.stdout.strip() or "(nothing to report)", r.stderr.strip(), sep="\n", flush=True)
    if r.returncode != 0:
        fail(f"lintian exited {r.returncode}")


def elf_files(root):
    for folder in ("usr/bin", "usr/lib"):
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                path = os.path.join(dirpath, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    with open(path, "rb") as f:
                        if f.read(4) == b"\x7fELF":
                            yield path


def check_libraries(root, env, forbidden):
    """Every program's libraries resolve inside the root or in the system's folders."""
    system = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")
    for path in elf_files(root):
        dynamic = run(["readelf", "-d", path]).stdout
        for line in dynamic.splitlines():
            if "RPATH" in line or "RUNPATH" in line:
                value = line.split("[", 1)[1].rstrip("]")
                for entry in value.split(":"):
                    if not entry.startswith("$ORIGIN"):
                        fail(f"{path}: {line.split()[1]} entry {entry} is not relative to the program")
        if not path.startswith(os.path.join(root, "usr/bin")):
            continue  # libraries are checked through the programs that load them
        r = run(["ldd", path], env=env)
        for line in r.stdout.splitlines():
            if "=>" not in line:
                continue
            name, target = (s.strip() for s in line.split("=>", 1))
            target = target.split(" (")[0]
            if target == "not found":
                fail(f"{os.path.basename(path)}: {name} not found")
            elif target.startswith(root + "/"):
                continue
            elif any(target.startswith(f) for f in forbidden) or not target.startswith(system):
                fail(f"{os.path.basename(path)}: {name} resolves outside the root and the system: {target}")
        print(f"{os.path.relpath(path, root)}: {sum('=>' in l for l in r.stdout.splitlines())} libraries, all resolved",
              flush=True)


def check_desktop_files(root):
    desktop = glob.glob(os.path.join(root, "usr/share/applications/*.desktop"))
    metainfo = glob.glob(os.path.join(root, "usr/share/metainfo/*.xml"))
    mime = glob.glob(os.path.join(root, "usr/share/mime/packages/*.xml"))
    icons = glob.glob(os.path.join(root, "usr/share/icons/hicolor/*/apps/*"))
    if not (desktop and metainfo and mime and icons):
        fail(f"desktop integration incomplete: {desktop} {metainfo} {mime} {icons}")
        return
    for tool, files in (("desktop-file-validate", desktop), ("appstreamcli", metainfo)):
        exe = shutil.which(tool)
        if not exe:
            fail(f"{tool} is not installed (scripts/setup.sh installs it)")
            continue
        cmd = [exe, *files] if tool == "desktop-file-validate" else [exe, "validate", "--no-net", "--explain", *files]
        r = run(cmd)
        print(f"{tool}: exit {r.returncode} {r.stdout.strip()} {r.stderr.strip()}", flush=True)
        if r.returncode != 0 or (tool == "desktop-file-validate" and r.stdout.strip()):
            fail(f"{tool} rejects {files}")
    for f in mime:
        ET.parse(f)  # well-formed; the types are checked against the .desktop file below
    types = {t.get("type") for f in mime for t in ET.parse(f).getroot()}
    for f in desktop:
        for line in open(f, encoding="utf-8"):
            if line.startswith("MimeType="):
                for t in filter(None, line.split("=", 1)[1].strip().split(";")):
                    if t not in types:
                        fail(f"{f}: MimeType {t} is not defined by the package's MIME xml")
    icon_names = {os.path.splitext(os.path.basename(i))[0] for i in icons}
    for f in desktop:
        for line in open(f, encoding="utf-8"):
            if line.startswith("Icon=") and line.split("=", 1)[1].strip() not in icon_names:
                fail(f"{f}: {line.strip()} is not installed")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def check_app(root, env, work, data):
    bindir = os.path.join(root, "usr/bin")
    trace = os.path.join(bindir, "sawtooth-trace")
    app = os.path.join(bindir, "sawtooth")
    samples = sorted(glob.glob(os.path.join(root, "usr/share/sawtooth/samples/*.sawtooth")))
    if not samples:
        fail("no sample traces in usr/share/sawtooth/samples")
    inputs = samples[:1]
    if data:
        inputs += [os.path.join(data, n) for n in ("anatomy_adam_snapshot.pickle", "anatomy_adam_snapshot_protocol0.pickle.gz",
                                                   "anatomy_adam_profiler_trace.json.gz")]
    for path in inputs:
        r = run([trace, "info", "--json", path], env=env, cwd=work)
        try:
            info = json.loads(r.stdout) if r.returncode == 0 else None
        except json.JSONDecodeError:
            info = None
        if not info or info.get("events", 0) <= 0:
            fail(f"sawtooth-trace info {path}: exit {r.returncode}, {r.stderr.strip()}")
        else:
            print(f"sawtooth-trace info {os.path.basename(path)}: {info['format']}, {info['events']} events", flush=True)
    for args, code in (([trace, "--version"], 0), ([trace, "info"], 2), ([trace, "--no-such-option"], 2),
                       ([app, "--version"], 0), ([app, "--no-such-option"], 2)):
        r = run(args, env=env, cwd=work)
        if r.returncode != code:
            fail(f"{' '.join(os.path.basename(a) for a in args)}: exit {r.returncode}, expected {code}")
    png = os.path.join(work, "timeline.png")
    r = run([app, "--export-png", png, "--size", "800x450", samples[0] if samples else ""], env=env, cwd=work, timeout=120)
    size = png_size(png) if r.returncode == 0 and os.path.exists(png) else None
    if size != (800, 450):
        fail(f"sawtooth --export-png: exit {r.returncode}, size {size}, {r.stderr.strip()}")
    else:
        print(f"sawtooth --export-png {os.path.basename(samples[0])}: {size[0]}x{size[1]} PNG, "
              f"{os.path.getsize(png)} bytes", flush=True)


PROGRAM = """
import torch
model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for _ in range(3):
    opt.zero_grad()
    model(torch.randn(32, 64)).sum().backward()
    opt.step()
print("trained")
"""


def check_program_recorder(root, env, work, python, with_workloads):
    """sawtooth-record from the sawtooth package: no LibTorch of its own, the program's torch."""
    bindir = os.path.join(root, "usr/bin")
    record = os.path.join(bindir, "sawtooth-record")
    support = os.path.join(root, "usr/lib/sawtooth")
    for name in ("python/sitecustomize.py", "python/sawtooth_shim/__init__.py", "inject/libsawtooth_cupti_inject.so"):
        if not os.path.exists(os.path.join(support, name)):
            fail(f"the sawtooth package lacks lib/sawtooth/{name}, which sawtooth-record puts into recorded programs")
    r = run([record, "--help"], env=env, cwd=work)
    if r.returncode != 0 or "-- COMMAND" not in r.stdout or "--workload" not in r.stdout:
        fail(f"sawtooth-record --help: exit {r.returncode}; it must cover both modes")
    if not with_workloads:
        r = run([record, "--list", "--json"], env=env, cwd=work)
        if r.returncode == 0 or "sawtooth-recorder" not in r.stderr:
            fail(f"sawtooth-record --list without sawtooth-recorder: exit {r.returncode}, {r.stderr.strip()[-300:]}; "
                 "it must say that the workloads need that package")
        else:
            print("sawtooth-record --list without sawtooth-recorder: refused, naming the package", flush=True)
    if not python:
        print("sawtooth-record -- python: not checked (no --python with torch given)", flush=True)
        return
    script = os.path.join(work, "train.py")
    with open(script, "w") as f:
        f.write(PROGRAM)
    out = os.path.join(work, "train.sawtooth")
    r = run([record, "--out", out, "--", python, script], env=env, cwd=work, timeout=600)
    if r.returncode != 0 or r.stdout.strip() != "trained":
        fail(f"sawtooth-record -- python train.py: exit {r.returncode}, stdout {r.stdout!r}, {r.stderr.strip()[-800:]}")
        return
    r = run([os.path.join(bindir, "sawtooth-trace"), "info", "--json", out], env=env, cwd=work)
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    cpu = [d for d in info.get("devices", []) if d.get("device") in (-1, "cpu")]
    if not cpu or not cpu[0].get("peak_allocated_bytes"):
        fail(f"the program recording made from the package has no CPU peak: {r.stdout[:300]} {r.stderr[:300]}")
        return
    print(f"sawtooth-record -- python train.py (the package's recorder, the program's torch): {info.get('events')} "
          f"events, CPU peak {cpu[0]['peak_allocated_bytes']} bytes", flush=True)


def check_recorder(root, env, work):
    bindir = os.path.join(root, "usr/bin")
    record = os.path.join(bindir, "sawtooth-record")
    # The app runs the recorder it finds beside itself (app/sawtooth/workload_catalog.cpp).
    if os.path.exists(os.path.join(bindir, "sawtooth")) and not os.access(record, os.X_OK):
        fail("sawtooth-record is not beside sawtooth, where the app looks for it")
    r = run([record, "--list", "--json"], env=env, cwd=work, timeout=120)
    try:
        listing = json.loads(r.stdout)
    except json.JSONDecodeError:
        listing = None
    workloads = [w.get("name") for w in (listing or {}).get("workloads", [])]
    if r.returncode != 0 or not workloads:
        fail(f"sawtooth-record --list --json: exit {r.returncode}, {r.stderr.strip()[-500:]}")
        return
    print(f"sawtooth-record --list --json: {', '.join(workloads)}", flush=True)
    r = run([record, "--no-such-option"], env=env, cwd=work)
    if r.returncode != 2:
        fail(f"sawtooth-record --no-such-option: exit {r.returncode}, expected 2")
    out = os.path.join(work, "anatomy.sawtooth")
    r = run([record, "--workload", "anatomy", "--device", "cpu", "--out", out], env=env, cwd=work, timeout=600)
    if r.returncode != 0:
        fail(f"sawtooth-record anatomy on the CPU: exit {r.returncode}, {r.stderr.strip()[-800:]}")
        return
    r = run([os.path.join(bindir, "sawtooth-trace"), "info", "--json", out], env=env, cwd=work)
    info = json.loads(r.stdout) if r.returncode == 0 else {}
    print(f"sawtooth-record anatomy --device cpu: {info.get('events')} events, runs "
          f"{[run_['name'] for run_ in info.get('runs', [])]}", flush=True)
    if not info.get("events"):
        fail("the recording made from the package has no events")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", help="build folder whose packages cpack makes")
    parser.add_argument("--components", default="app", help="with --build: app, recorder or app,recorder")
    parser.add_argument("--debs", help="folder with .deb files already made")
    parser.add_argument("--work", required=True, help="scratch folder (emptied)")
    parser.add_argument("--data", help="tests/data, for the trace formats beyond the samples")
    parser.add_argument("--python", help="a Python with torch, for recording a program with the package's sawtooth-record")
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    if args.build:
        debs = make_packages(os.path.abspath(args.build), args.components.split(","), os.path.join(work, "packages"))
    else:
        debs = sorted(glob.glob(os.path.join(args.debs, "*.deb")))
    if not debs:
        fail("no .deb files")
        return 1
    packages = {}
    for deb in debs:
        fields = control(deb)
        check_control(deb, fields)
        packages[fields.get("Package")] = deb
    check_lintian(debs)

    root = os.path.join(work, "root")
    for deb in debs:
        r = run(["dpkg-deb", "-x", deb, root])
        if r.returncode != 0:
            fail(f"dpkg-deb -x {deb}: {r.stderr}")
    env = clean_env(root)
    # Nothing may come from where it was built: the build and source trees, the LibTorch environment.
    here = os.path.dirname(os.path.abspath(__file__))
    forbidden = [os.path.dirname(here) + "/", os.path.expanduser("~/.cache/sawtooth/")]
    if args.build:
        forbidden.append(os.path.abspath(args.build) + "/")
    check_libraries(root, env, forbidden)
    if "sawtooth" in packages:
        check_desktop_files(root)
        check_app(root, env, work, args.data)
        check_program_recorder(root, env, work, args.python, "sawtooth-recorder" in packages)
    if "sawtooth-recorder" in packages:
        check_recorder(root, env, work)
    print(f"{len(failures)} failures" if failures else f"packages {', '.join(sorted(packages))}: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
