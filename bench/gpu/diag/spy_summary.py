"""Summarises py-spy raw output of gpt2_train.py: samples per loop line, and inclusive samples of the shim's frames in the loop."""
import collections, re, sys
LOOP = re.compile(r"<module> \(gpt2_train\.py:(10[2-5])\)")
for path in sys.argv[1:]:
    total = loop = in_shim = 0
    lines = collections.Counter()
    shim = collections.Counter()
    leaf = collections.Counter()
    own = collections.Counter()  # the innermost Python frame is the shim's: its own work (and C it calls)
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        n = int(n)
        frames = stack.split(";")
        total += n
        m = next((LOOP.search(f) for f in frames if LOOP.search(f)), None)
        if not m:
            continue
        loop += n
        lines[m.group(1)] += n
        seen = set()
        for f in frames:
            if "sawtooth_shim" in f or "<sawtooth" in f:
                name = f.split(" (")[0] + " (" + f.split(" (", 1)[-1].split(":")[0].split("/")[-1]
                if name not in seen:
                    shim[name] += n
                    seen.add(name)
        if seen:
            in_shim += n
        leaf[frames[-1]] += n
        if "sawtooth_shim" in frames[-1] or "<sawtooth" in frames[-1]:
            own[frames[-1].split(" (")[0] + " (" + frames[-1].split(" (", 1)[-1].split("/")[-1]] += n
    print(f"{path}: {total} samples; {loop} in the loop (by line {dict(sorted(lines.items()))}); "
          f"{in_shim} ({100 * in_shim / max(loop, 1):.2f} %) under a shim frame")
    for name, n in shim.most_common(14):
        print(f"  {n:6d} {100 * n / max(loop, 1):6.2f} %  {name}")
    print(f"  the shim's own (innermost frame): {sum(own.values())} ({100 * sum(own.values()) / max(loop, 1):.2f} %)")
    for name, n in own.most_common(10):
        print(f"  {n:6d} {100 * n / max(loop, 1):6.2f} %  {name}")
    print("  top leaves in the loop:")
    for name, n in leaf.most_common(10):
        print(f"  {n:6d} {100 * n / max(loop, 1):6.2f} %  {name[:140]}")
