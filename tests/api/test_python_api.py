#!/usr/bin/env python3
"""The Python module gpp (docs/library.md) from its users' side.

  test_python_api.py --source-dir SRC             every check below (gpp on PYTHONPATH)
  test_python_api.py --source-dir SRC no-device   run with GPP_TEST_NO_DEVICE=1

Its sums against the benchmark's loop in NumPy (examples/python/gpp_example.py, which
shares no code with gpp) on a non-uniform deck, within the bound of docs/oracle.md;
Fortran-ordered arrays read in place and C-ordered or strided ones refused, or copied with
copy=True (and listed); the record a dict of the command's schema (docs/schema, checked by
tests/docs/check_schema.py's validator); and bad input: each a gpp.Error with its status
and one line naming the problem, the inputs left as they were."""
import argparse
import json
import os
import sys

import numpy as np

failures = 0


def check(what, ok, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + (": " + detail if detail else ""))
    if not ok:
        failures += 1


def refused(what, status, text, call):
    """call() must raise gpp.Error with `status` and a one-line message holding `text`."""
    import gpp
    try:
        call()
    except gpp.Error as e:
        msg = str(e)
        check(what, getattr(e, "status", None) == status and text in msg and "\n" not in msg,
              f"{getattr(e, 'status', None)}: {msg}")
        return
    except Exception as e:  # noqa: BLE001 - any other exception is the failure reported
        check(what, False, f"raised {type(e).__name__}: {e}")
        return
    check(what, False, "accepted")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source-dir", required=True)
    p.add_argument("mode", nargs="?", default="all")
    a = p.parse_args()
    sys.path.insert(0, os.path.join(a.source_dir, "examples", "python"))
    sys.path.insert(0, os.path.join(a.source_dir, "tests", "docs"))
    import gpp
    print("gpp from", gpp.__file__)

    deck, scalars = __import__("gpp_example").make_deck(ncouls=29, ngpown=7, nbands=10, nw=3)
    if a.mode == "no-device":
        refused("Kokkos cannot start without the device", "runtime", "GPP_TEST_NO_DEVICE",
                lambda: gpp.compute(**deck, **scalars))
        return 1 if failures else 0

    ex = __import__("gpp_example")
    ach, asx, achs, m_ach, m_asx, m_achs = ex.benchmark_loop(deck, **scalars)
    copies = {k: v.copy(order="A") for k, v in deck.items()}

    # Sums against the loop, on every policy of the host space (and the default space).
    for policy in gpp.build_features()["policies"]:
        r = gpp.compute(**deck, **scalars, policy=policy, space="host", verify=True)
        worst = max((np.abs(r["achtemp"] - ach) / ex.atols(deck, m_ach)).max(),
                    (np.abs(r["asxtemp"] - asx) / ex.atols(deck, m_asx)).max(),
                    abs(r["achstemp"] - achs) / ex.atols(deck, m_achs))
        check(f"{policy} on the host agrees with the loop", worst <= 1 and r["verified"], f"{worst:.3g} atol")
    check("the inputs are as they were", all(np.array_equal(deck[k], copies[k]) for k in deck))

    # Types of what comes back.
    r = gpp.compute(**deck, **scalars, repeat=2, warmup=1)
    check("sums are NumPy arrays of complex128",
          isinstance(r["achtemp"], np.ndarray) and r["achtemp"].dtype == np.complex128 and r["achtemp"].shape == (3,))
    check("achstemp is a complex", isinstance(r["achstemp"], complex))
    check("two timed runs", len(r["times"]) == 2 and r["time_median"] > 0)
    check("nothing copied", r["copied"] == [])
    check("not verified unless asked", r["verified"] is False and r["rel_error"] is None)

    # The record: a dict of the run schema.
    from check_schema import Validator  # the project's own validator (CI's Python has no jsonschema)
    with open(os.path.join(a.source_dir, "docs", "schema", "run-record.schema.json"), encoding="utf-8") as f:
        validator = Validator(json.load(f))
    rec = r["record"]
    problems = list(validator.errors(rec))
    check("the record is the run schema", isinstance(rec, dict) and not problems, "; ".join(problems[:3]))
    check("the record says command api", rec.get("command") == "api" and rec["deck"]["ncouls"] == 29)
    broken = dict(rec, command="apix")
    check("the validator refuses a broken record", bool(list(validator.errors(broken))))

    # C order: refused by default, copied (and said) with copy=True, the same sums.
    c_ordered = np.ascontiguousarray(deck["I_eps_array"])
    refused("a C-ordered array", "argument", "I_eps_array is not in Fortran order",
            lambda: gpp.compute(**dict(deck, I_eps_array=c_ordered), **scalars))
    r_copy = gpp.compute(**dict(deck, I_eps_array=c_ordered), **scalars, copy=True)
    r_f = gpp.compute(**deck, **scalars)
    check("copy=True copies a C-ordered array into Fortran order and says so",
          r_copy["copied"] == ["I_eps_array"] and np.array_equal(r_copy["achtemp"], r_f["achtemp"]))
    # The transpose of a C-ordered array of the reversed shape is Fortran-ordered: no copy.
    t = np.ascontiguousarray(deck["aqsntemp"].T).T
    r_t = gpp.compute(**dict(deck, aqsntemp=t), **scalars)
    check("the transpose of a C-ordered array is read in place",
          r_t["copied"] == [] and np.array_equal(r_t["achtemp"], r_f["achtemp"]))
    wide = np.asfortranarray(np.zeros((2 * 29, 7), complex))
    wide[::2] = deck["wtilde_array"]
    refused("a strided array", "argument", "wtilde_array is not in Fortran order (column-major, contiguous): it is strided",
            lambda: gpp.compute(**dict(deck, wtilde_array=wide[::2]), **scalars))

    # Bad input: one gpp.Error each, naming the array.
    refused("wrong dtype", "argument", "aqsntemp must be complex128, not float64",
            lambda: gpp.compute(**dict(deck, aqsntemp=np.asfortranarray(deck["aqsntemp"].real)), **scalars))
    refused("single precision", "argument", "vcoul_loc must be float64, not float32",
            lambda: gpp.compute(**dict(deck, vcoul_loc=deck["vcoul_loc"].astype(np.float32)), **scalars))
    refused("not an array", "argument", "occ_array must be a NumPy array, not list",
            lambda: gpp.compute(**dict(deck, occ_array=list(deck["occ_array"])), **scalars))
    refused("None", "argument", "wx_array_t is None", lambda: gpp.compute(**dict(deck, wx_array_t=None), **scalars))
    refused("wrong rank", "argument", "occ_array must have 1 dimension, not 2",
            lambda: gpp.compute(**dict(deck, occ_array=np.asfortranarray(deck["occ_array"][:, None])), **scalars))
    refused("wrong shape", "argument", "aqsmtemp_local is (10, 7); it must be (ngpown, nbands) = (7, 10)",
            lambda: gpp.compute(**dict(deck, aqsmtemp_local=np.asfortranarray(deck["aqsmtemp_local"].T)), **scalars))
    nan = deck["I_eps_array"].copy(order="F")
    nan[5, 2] = complex(0, np.nan)
    refused("NaN", "argument", "I_eps_array(6, 3) is not finite",
            lambda: gpp.compute(**dict(deck, I_eps_array=nan), **scalars))
    inf = deck["occ_array"].copy()
    inf[4] = np.inf
    refused("Inf", "argument", "occ_array(5) is not finite", lambda: gpp.compute(**dict(deck, occ_array=inf), **scalars))
    # Shapes whose arrays could not be allocated (2^30 x 2^28 complex: 4 EiB), as views of
    # small arrays (NumPy itself refuses 2^30 x 2^30): refused before an element is read.
    huge = np.lib.stride_tricks.as_strided(deck["I_eps_array"], shape=(1 << 30, 1 << 28), strides=(16, 16 << 30))
    tall = np.lib.stride_tricks.as_strided(deck["aqsntemp"], shape=(1 << 30, 10), strides=(16, 16 << 30))
    refused("sizes whose arrays could not exist", "argument", "larger than any memory",
            lambda: gpp.compute(**dict(deck, I_eps_array=huge, aqsntemp=tall), **scalars))
    refused("limittwo not a number", "argument", "limittwo is not set",
            lambda: gpp.compute(**deck, sexcut=4.0, limittwo=float("nan")))
    refused("unknown policy", "policy", "unknown policy 'v9'", lambda: gpp.compute(**deck, **scalars, policy="v9"))
    refused("a tunable the policy lacks", "policy", "policy host has no tunable tile",
            lambda: gpp.compute(**deck, **scalars, policy="host", space="host", tunables={"tile": "4,4"}))
    if not gpp.build_features()["mpi"]:
        refused("a communicator without MPI", "mpi", "built without MPI",
                lambda: gpp.compute(**deck, **scalars, mpi_comm=0))
    r = gpp.compute(**deck, **scalars, policy="host", space="host", tunables={"band-block": 4})
    check("a tunable by the command's name", r["tunables"].get("band-block") == "4", str(r["tunables"]))
    print(f"{'FAILED' if failures else 'passed'}: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
