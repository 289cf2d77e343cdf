#!/usr/bin/env python3
"""Times torch.ops.pooljit.max_pool2d beside PyTorch's own F.max_pool2d on the 2-D layers of tools/suite.txt.

Usage: bench_torch_ops.py PATH/TO/libpooljit_torch.so [--threads 1] [--rounds 5] [--dtype float32]

Each layer runs on a contiguous (NCHW) and a channels_last tensor; both operators get the same tensor and return
the same values (checked first). Times are per call, in microseconds: the lowest of --rounds rounds, each the
median of a timed batch of calls of about 0.1 s, the two operators alternating round by round.
"""
import argparse
import re
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F


def suite_layers(path):
    """The suite's 2-D max pools as (name, dims, kernel, stride, padding, dilation, ceil_mode), where PyTorch can
    express them: symmetric pads, floor or ceil_torch rounding, explicit padding."""
    layers = []
    for line in Path(path).read_text().splitlines():
        if not line.startswith("maxpool "):
            continue
        keys = dict(token.split("=", 1) for token in line.split()[1:])
        dims = [int(v) for v in keys["src"].split("x")]
        if len(dims) != 4 or keys.get("pad", "explicit") != "explicit" or keys.get("round", "floor") == "ceil":
            continue
        pb = [int(v) for v in keys.get("pb", "0x0").split("x")]
        pe = [int(v) for v in keys.get("pe", "0x0").split("x")]
        if pb != pe:
            continue
        kernel = [int(v) for v in keys["k"].split("x")]
        stride = [int(v) for v in keys.get("s", "1x1").split("x")]
        dilation = [int(v) for v in keys.get("d", "1x1").split("x")]
        layers.append((re.sub(r"\s+", " ", line), dims, kernel, stride, pb, dilation, keys.get("round") == "ceil_torch"))
    unique = {}
    for layer in layers:
        unique.setdefault(tuple(map(str, layer[1:])), layer)
    return list(unique.values())


def time_calls(fn, seconds=0.1):
    fn()
    start = time.perf_counter()
    fn()
    once = max(time.perf_counter() - start, 1e-7)
    calls = max(1, int(seconds / once))
    samples = []
    for _ in range(max(3, min(calls, 50))):
        start = time.perf_counter()
        for _ in range(max(1, calls // 50)):
            fn()
        samples.append((time.perf_counter() - start) / max(1, calls // 50))
    return statistics.median(samples) * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("library")
    parser.add_argument("--suite", default=str(Path(__file__).resolve().parents[1] / "suite.txt"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", default="float32")
    args = parser.parse_args()
    torch.ops.load_library(args.library)
    torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    # pooljit's threads follow POOLJIT_NUM_THREADS; say what this run used.
    print(f"torch {torch.__version__}, {args.threads} thread(s) (torch.set_num_threads; pooljit: POOLJIT_NUM_THREADS), "
          f"{args.dtype}, lowest of {args.rounds} rounds of per-call medians, microseconds")
    print("| layer | format | PyTorch us | pooljit us | PyTorch / pooljit |")
    print("| --- | --- | --- | --- | --- |")
    for name, dims, kernel, stride, pad, dilation, ceil in suite_layers(args.suite):
        x = torch.randint(-127, 256, dims).to(dtype)
        for fmt_name, fmt in (("contiguous", torch.contiguous_format), ("channels_last", torch.channels_last)):
            t = x.contiguous(memory_format=fmt)
            ours = lambda: torch.ops.pooljit.max_pool2d(t, kernel, stride, pad, dilation, ceil)
            theirs = lambda: F.max_pool2d(t, kernel, stride, pad, dilation, ceil)
            try:
                want = theirs()
            except RuntimeError as e:  # PyTorch refuses some of pooljit's configurations (pad > kernel / 2)
                print(f"| {name} | {fmt_name} | refused: {str(e).splitlines()[0]} | | |")
                continue
            if not torch.equal(ours(), want):
                print(f"MISMATCH on {name} {fmt_name}", file=sys.stderr)
                sys.exit(1)
            best_ours, best_theirs = float("inf"), float("inf")
            for _ in range(args.rounds):
                best_theirs = min(best_theirs, time_calls(theirs))
                best_ours = min(best_ours, time_calls(ours))
            label = "x".join(map(str, dims)) + f" k{kernel[0]} s{stride[0]}" + (f" p{pad[0]}" if pad[0] else "") + \
                (f" d{dilation[0]}" if dilation[0] > 1 else "") + (" ceil" if ceil else "")
            print(f"| {label} | {fmt_name} | {best_theirs:.1f} | {best_ours:.1f} | {best_theirs / best_ours:.2f} |",
                  flush=True)


if __name__ == "__main__":
    main()
