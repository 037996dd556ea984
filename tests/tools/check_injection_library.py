#!/usr/bin/env python3
"""The CUPTI injection library (CUDA_INJECTION64_PATH) goes into programs of any torch version and
into C++ programs: it must depend on the C/C++ runtime only (no LibTorch, no CUDA runtime of ours,
and not even CUPTI, which it loads at run time: the program's own where there is one), find
CUPTI by its soname, and export InitializeInjection and the shim's five calls (sawtooth_cupti_yield, sawtooth_cupti_resume, sawtooth_cupti_reclaim, sawtooth_cupti_pause, sawtooth_cupti_finish) alone.

Usage: check_injection_library.py LIBRARY"""
import re
import subprocess
import sys

lib = sys.argv[1]
failures = []
dynamic = subprocess.run(["readelf", "-d", "-W", lib], capture_output=True, text=True, check=True).stdout
needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
allowed = re.compile(r"^(libstdc\+\+\.so|libgcc_s\.so|libc\.so|libm\.so|ld-linux|libdl\.so|libpthread\.so)")
others = [n for n in needed if not allowed.match(n)]
if others:
    failures.append(f"links more than the C/C++ runtime (CUPTI is loaded at run time): {others}")
strings = subprocess.run(["strings", lib], capture_output=True, text=True, check=True).stdout
if "libcupti.so.13" not in strings:
    failures.append("does not name libcupti.so.13 (the CUPTI it loads at run time)")
symbols = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exported = sorted({line.split()[-1] for line in symbols.splitlines() if len(line.split()) == 3})
expected = ["InitializeInjection", "sawtooth_cupti_finish", "sawtooth_cupti_pause", "sawtooth_cupti_reclaim", "sawtooth_cupti_resume", "sawtooth_cupti_yield"]
if exported != expected:
    failures.append(f"exports {exported[:8]}{' ...' if len(exported) > 8 else ''}, expected {expected}")
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"{lib}: needs {', '.join(needed)} (CUPTI at run time); exports InitializeInjection, sawtooth_cupti_yield, sawtooth_cupti_resume, sawtooth_cupti_reclaim, sawtooth_cupti_pause, sawtooth_cupti_finish only")
