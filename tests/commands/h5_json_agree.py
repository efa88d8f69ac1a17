#!/usr/bin/env python3
"""The HDF5 results file and the JSON record of one gpp run agree (docs/io.md): every single
value of the record's `build`, `deck`, `time_to_solution` and of each run is the attribute of
the same name in /build, /deck, /time_to_solution and /runs/<policy>[@space], and the
verification's `against`, `tolerance`, `reference_source` and `reference_date` those of
/verification, with the same value (a flag as 0/1, numbers exactly); a null is no attribute.

usage: h5_json_agree.py RESULTS.h5 RECORD.json   (exit 0 when they agree, 1 otherwise)
"""
import json
import sys

import h5py


def agree(attrs, obj, where, problems):
    for key, want in obj.items():
        if isinstance(want, (dict, list)):
            continue
        if want is None:
            if key in attrs:
                problems.append(f"{where}/{key}: null in the JSON, {attrs[key]!r} in the file")
            continue
        if key not in attrs:
            problems.append(f"{where}/{key}: {want!r} in the JSON, no attribute")
            continue
        got = attrs[key]
        if isinstance(got, bytes):
            got = got.decode()
        if isinstance(want, bool):
            want = int(want)
        if isinstance(want, str):
            ok = str(got) == want
        else:
            ok = float(got) == float(want)
        if not ok:
            problems.append(f"{where}/{key}: {want!r} in the JSON, {got!r} in the file")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    record = json.load(open(sys.argv[2]))
    problems = []
    with h5py.File(sys.argv[1], "r") as f:
        for group in ("build", "deck", "time_to_solution"):
            agree(f[group].attrs, record[group], group, problems)
        # /verification holds a few of the record's verification values (docs/io.md).
        verification = {k: record["verification"][k]
                        for k in ("against", "tolerance", "reference_source", "reference_date")}
        agree(f["verification"].attrs, verification, "verification", problems)
        many = len(record["runs"]) > 1
        for run in record["runs"]:
            name = "runs/" + run["policy"] + ("@" + run["space"]["kind"] if many else "")
            agree(f[name].attrs, run, name, problems)
            checked = sum(1 for v in run.values() if v is not None and not isinstance(v, (dict, list)))
            if checked < 15:
                problems.append(f"{name}: only {checked} single values in the JSON run")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
