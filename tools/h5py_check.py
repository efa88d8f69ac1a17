#!/usr/bin/env python3
"""Check an HDF5 file written by gpp the way analysis tools read it: with h5py.

usage: h5py_check.py FILE CHECK...

  NAME:shape=D0xD1...   dataset NAME is complex128 with this shape (e.g. I_eps_array:shape=20x150,
                        the natural [igp][ig] order of the Fortran array I_eps_array(ig, igp))
  NAME[i,j]=RE,IM       element NAME[i][j] (0-based) equals complex(RE, IM) exactly
  NAME[]=RE,IM          the scalar dataset NAME equals complex(RE, IM) exactly

RE and IM are decimal numbers with 17 significant digits (as gpp prints them), which
round-trip doubles exactly. Exit status 0 when every check holds, 1 otherwise (each
failure printed), 2 on bad usage.
"""
import sys

import h5py
import numpy as np


def check(f, spec):
    if ":shape=" in spec:
        name, shape = spec.split(":shape=")
        want = tuple(int(d) for d in shape.split("x"))
        d = f[name]
        if d.dtype != np.complex128:
            return f"{name}: dtype {d.dtype}, expected complex128"
        if d.shape != want:
            return f"{name}: shape {d.shape}, expected {want}"
        return None
    lhs, rhs = spec.split("=")
    name, index = lhs[:-1].split("[")
    want = complex(*(float(x) for x in rhs.split(",")))
    d = f[name]
    if d.dtype != np.complex128:
        return f"{name}: dtype {d.dtype}, expected complex128"
    got = d[()] if index == "" else d[tuple(int(i) for i in index.split(","))]
    if complex(got) != want:
        return f"{name}[{index}] = {complex(got)!r}, expected {want!r}"
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with h5py.File(argv[1], "r") as f:
        failures = []
        for spec in argv[2:]:
            try:
                m = check(f, spec)
            except (KeyError, ValueError, IndexError) as e:
                m = f"{spec}: {e}"
            if m:
                failures.append(m)
    for m in failures:
        print(f"{argv[1]}: {m}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
