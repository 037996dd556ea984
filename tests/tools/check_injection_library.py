#!/usr/bin/env python3
"""The CUPTI injection library (CUDA_INJECTION64_PATH) goes into programs of any torch version and
into C++ programs: it must depend on CUPTI and the C/C++ runtime only (no LibTorch, no CUDA
runtime of ours), and export InitializeInjection and the shim's four calls (sawtooth_cupti_yield, sawtooth_cupti_resume, sawtooth_cupti_reclaim, sawtooth_cupti_pause) alone.

Usage: check_injection_library.py LIBRARY"""
import re
import subprocess
import sys

lib = sys.argv[1]
failures = []
dynamic = subprocess.run(["readelf", "-d", "-W", lib], capture_output=True, text=True, check=True).stdout
needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
allowed = re.compile(r"^(libcupti\.so|libstdc\+\+\.so|libgcc_s\.so|libc\.so|libm\.so|ld-linux|libdl\.so|libpthread\.so)")
if not any(n.startswith("libcupti.so") for n in needed):
    failures.append(f"does not link CUPTI: {needed}")
others = [n for n in needed if not allowed.match(n)]
if others:
    failures.append(f"links more than CUPTI and the C/C++ runtime: {others}")
symbols = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
exported = sorted({line.split()[-1] for line in symbols.splitlines() if len(line.split()) == 3})
expected = ["InitializeInjection", "sawtooth_cupti_pause", "sawtooth_cupti_reclaim", "sawtooth_cupti_resume", "sawtooth_cupti_yield"]
if exported != expected:
    failures.append(f"exports {exported[:8]}{' ...' if len(exported) > 8 else ''}, expected {expected}")
for f in failures:
    print("FAIL:", f)
if failures:
    sys.exit(1)
print(f"{lib}: needs {', '.join(needed)}; exports InitializeInjection, sawtooth_cupti_yield, sawtooth_cupti_resume, sawtooth_cupti_reclaim, sawtooth_cupti_pause only")
