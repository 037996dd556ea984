#!/usr/bin/env python3
"""The seed's JAX network (shared/seed/memory-and-precision.txt, "Measuring: Count vs. Plan"): compiles
jax.jit(jax.grad(loss_fn)) for 6 × (2048, 2048) weights and a (256, 2048) batch, runs it once, and saves
  OUT.prof                  jax.profiler.save_device_memory_profile while the parameters, the batch and
                            the gradients are alive (pprof, gzip-compressed as JAX writes it);
  OUT.memory_analysis.json  compiled.memory_analysis(): argument, output, alias, temp and generated
                            code bytes, the device and JAX's version (sawtooth reads it beside OUT.prof).
It prints the JSON, and the seed's two lines (compiler-planned temp memory, argument + output).

Usage: jax_memory_profile.py OUT [--width N --batch N --layers N]   (JAX_PLATFORMS=cpu for the CPU)"""
import argparse
import json

import jax


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out", help="path without extension")
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--layers", type=int, default=6)
    args = ap.parse_args()

    def loss_fn(params, X):
        h = X
        for W in params:
            h = jax.nn.relu(h @ W)
        return h.sum()

    key = jax.random.PRNGKey(0)
    params = [jax.random.normal(k, (args.width, args.width)) * 0.02 for k in jax.random.split(key, args.layers)]
    X = jax.random.normal(key, (args.batch, args.width))
    del key  # only the parameters, the batch and (below) the gradients stay alive

    compiled = jax.jit(jax.grad(loss_fn)).lower(params, X).compile()
    a = compiled.memory_analysis()
    grads = compiled(params, X)
    jax.block_until_ready(grads)
    jax.profiler.save_device_memory_profile(args.out + ".prof")

    figures = {
        "argument_size_in_bytes": a.argument_size_in_bytes,
        "output_size_in_bytes": a.output_size_in_bytes,
        "alias_size_in_bytes": a.alias_size_in_bytes,
        "temp_size_in_bytes": a.temp_size_in_bytes,
        "generated_code_size_in_bytes": a.generated_code_size_in_bytes,
        "function": f"jit(grad(loss_fn)) of {args.layers} × ({args.width}, {args.width}) weights, batch {args.batch}",
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
        "live_gradients": len(grads),
    }
    with open(args.out + ".memory_analysis.json", "w") as f:
        json.dump(figures, f, indent=1)
        f.write("\n")
    print(json.dumps(figures))
    print(f"compiler-planned temp memory: {a.temp_size_in_bytes / 1e6:.0f} MB")
    print(f"argument + output: {(a.argument_size_in_bytes + a.output_size_in_bytes) / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
