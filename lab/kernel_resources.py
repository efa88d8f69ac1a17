#!/usr/bin/env python3
"""Registers, stack and spills of each policy's kernels, from a CUDA build log made with
-DGPP_CUDA_RESOURCE_USAGE=ON (ptxas -v) or from `cuobjdump --dump-resource-usage`.

usage: lab/kernel_resources.py BUILD_LOG [--arch sm_90]
Prints one line per (policy, kernel): registers, stack frame, spill stores/loads.
"""
import re
import sys

# Names that identify a policy's kernel inside the mangled name of its lambda.
MARKERS = [
    ("v0-collapse3", r"v0_collapse3"), ("v1-reciprocal", r"collapse3I\w*?physics4FormILb1ELb0ELb0E"),
    ("v2-branch2", r"collapse3I\w*?physics4FormILb1ELb1ELb0E"),
    ("v3-noabs", r"collapse3I\w*?physics4FormILb1ELb1ELb1E"), ("v4-collapse2", r"collapse2ILi"),
    ("v5-iw-outside", r"collapse2_one_frequency"), ("v6/v7-blocked", r"BlockedBody\w*?LaunchBoundsILj0ELj0E"),
    ("v8-bounded", r"BlockedBody\w*?LaunchBoundsILj512ELj1E"), ("tuned", r"tunedILi"), ("host", r"host_policyILi"),
    ("fast-reference", r"device_pass"), ("arm-counts", r"arm_statistics"),
    ("static-remainder", r"static_remainder"),
]


def policy_of(name):
    for policy, marker in MARKERS:
        if re.search(marker, name):
            return policy
    return None


def main():
    path = sys.argv[1]
    arch = sys.argv[sys.argv.index("--arch") + 1] if "--arch" in sys.argv else "sm_90"
    rows = []
    current, func_arch = None, None
    stack = spill_st = spill_ld = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"Compiling entry function '(\S+)' for '(\w+)'", line)
            if m:
                current, func_arch = m.group(1), m.group(2)
                continue
            m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m and current:
                stack, spill_st, spill_ld = map(int, m.groups())
                continue
            m = re.search(r"Used (\d+) registers", line)
            if m and current and func_arch == arch:
                p = policy_of(current)
                if p:
                    # The number of frequencies a kernel was instantiated for (NW template).
                    nw = re.search(r"(?:v0_collapse3I|FormILb\dELb\dELb\dEEE|collapse2I|tunedI|host_policyI)Li(\d)E", current)
                    rows.append((p, nw.group(1) if nw else "-", int(m.group(1)), stack, spill_st, spill_ld, current))
                current = None
    seen = set()
    print(f"{'policy':18} {'NW':>3} {'regs':>5} {'stack':>6} {'spill st':>9} {'spill ld':>9}")
    for p, nw, regs, st, ss, sl, name in sorted(rows):
        key = (p, nw, regs, st, ss, sl)
        if key in seen:
            continue
        seen.add(key)
        print(f"{p:18} {nw:>3} {regs:5d} {st:6d} {ss:9d} {sl:9d}")


if __name__ == "__main__":
    main()
