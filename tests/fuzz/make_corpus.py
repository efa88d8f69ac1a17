#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (tests/fuzz/corpus/TARGET/): the shipped decks and
files, tiny decks converted by gpp into .dat and HDF5, and damaged copies of each, so that
every target starts from inputs that reach both the reader's acceptance and its refusals.

  make_corpus.py --gpp build/serial/app/gpp [--out tests/fuzz/corpus]

The .dat and .h5 seeds are what `gpp convert` writes for the tiny decks below (the same
bytes at every run); the HDF5 variants with another layout (chunked and compressed, a soft
link, a wrong type) need h5py (Debian: python3-h5py) and are left out without it. The sweep
and roofline seeds come from short runs on a tiny deck and carry their dates and times, so
those differ from run to run. Every seed is small: libFuzzer's inputs grow from them.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))

# Tiny decks: every branch of the kernel at a few hundred updates (a few KB as a file).
TINY = {
    "tiny": "nbands = 4\nnvband = 2\nngpown = 3\nncouls = 6\nseed = 7\n",
    "tiny-one-frequency": "nbands = 3\nnvband = 1\nngpown = 2\nncouls = 4\nnstart = 3\nnend = 3\nseed = 8\n",
    "tiny-uniform": 'generator = "uniform"\nnbands = 2\nnvband = 1\nngpown = 2\nncouls = 4\nnstart = 1\nnend = 3\n',
    "tiny-skipped": "nbands = 3\nnvband = 3\nngpown = 4\nncouls = 5\nskipped_gp = 2\nseed = 9\n",
}


# A tuning file of the form `gpp tune` writes: an entry with its evidence, one without, a param.
TUNING = {
    "schema_version": 1, "kind": "gpp-tuning",
    "entries": [
        {"device": "NVIDIA H100 80GB HBM3", "backend": "Cuda", "policy": "tuned", "size_class": "medium",
         "tunables": {"band_block": 96, "team_size": 128}, "time_median_s": 0.0471, "deck": "si214",
         "date": "2026-11-28",
         "evidence": {"test": "one-sided exact Mann-Whitney U on interleaved repeats", "repeats": 8,
                      "p_value": 7.8e-05, "gain": 0.0312, "time_median_s": 0.0471, "spread": 0.01,
                      "default_time_median_s": 0.0486, "default_spread": 0.012}},
        {"device": "host CPU", "backend": "Serial", "policy": "host", "size_class": "any",
         "tunables": {"band_block": 64, "ig_block": 1024, "params": {"loops": "vector"}}, "note": "kept as is"},
        {"device": "host CPU", "backend": "Serial", "policy": "v6-blocked", "size_class": "small",
         "tunables": {"band_block": 4, "ig_block": 128}},
    ],
    "note": "a field gpp does not know",
}


def run(gpp, *args, cwd=None):
    p = subprocess.run([gpp, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, OMP_PROC_BIND="false"))
    if p.returncode != 0:
        sys.exit(f"make_corpus: gpp {' '.join(args)} failed: {p.stderr.strip()}")
    return p.stdout


def put(out, target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def dat_records(b):
    """(payload offset, payload length) of each record of a .dat file."""
    recs, at = [], 0
    while at + 4 <= len(b):
        (n,) = struct.unpack_from("<i", b, at)
        recs.append((at + 4, n))
        at += n + 8
    return recs


def poke(b, at, fmt, value):
    b = bytearray(b)
    struct.pack_into(fmt, b, at, value)
    return bytes(b)


def damaged_dat(b):
    """Damaged copies of one .dat file, each with one kind of damage."""
    r = dat_records(b)
    out = {
        "truncated-half": b[: len(b) // 2],
        "truncated-last-byte": b[:-1],
        "header-only": b[: r[1][0] + r[1][1] + 4],
        "trailing-byte": b + b"\0",
        "leading-marker-24": poke(b, 0, "<i", 24),
        "trailing-marker-of-record-1": poke(b, r[0][0] + 20, "<i", 21),
        "negative-marker": poke(b, 0, "<i", -20),
        "sig_ntband-zero": poke(b, r[0][0], "<i", 0),
        "ncouls-plus-one": poke(b, r[1][0] + 16, "<i", struct.unpack_from("<i", b, r[1][0] + 16)[0] + 1),
        "ncouls-huge": poke(b, r[1][0] + 16, "<i", 2**31 - 1),
        "peinf_indext_dist-zero": poke(b, r[2][0], "<i", 0),
        "band-energy-nan": poke(b, r[3][0], "<d", float("nan")),
        "nstart-zero": poke(b, r[4][0], "<i", 0),
        "gamma-zero": poke(b, r[4][0] + 20, "<d", 0.0),
        "inv_igp_index-out-of-range": poke(b, r[5][0], "<i", 10**6),
        "gvec_ng-disagrees": poke(b, r[6][0], "<i", 99),
        "aqsmtemp-infinite": poke(b, r[7][0], "<d", float("inf")),
        "nvband-negative": poke(b, r[8][0], "<i", -1),
        "reference-negative-zero": poke(b, r[16][0] + 16, "<d", -0.0),
    }
    return out


def damaged_h5(b):
    out = {"truncated-half": b[: len(b) // 2], "truncated-tail": b[: len(b) - 64], "signature-only": b[:8]}
    for frac in (3, 5, 7):
        at = len(b) * frac // 11
        out[f"byte-flipped-at-{frac}-11"] = b[:at] + bytes([b[at] ^ 0xFF]) + b[at + 1:]
    return out


def h5py_variants(src, work):
    """HDF5 decks of other layouts, written with h5py: what another program might write."""
    try:
        import h5py
        import numpy as np
    except ImportError:
        print("make_corpus: no h5py: the chunked, linked and retyped HDF5 seeds are left out")
        return {}
    out = {}

    def variant(name, change):
        path = os.path.join(work, name + ".h5")
        shutil.copy(src, path)
        with h5py.File(path, "r+") as f:
            change(f, np)
        with open(path, "rb") as f:
            out[name] = f.read()

    def rechunk(f, np):
        data = f["aqsntemp"][()]
        del f["aqsntemp"]
        f.create_dataset("aqsntemp", data=data, chunks=(1, data.shape[1]), compression="gzip")

    def soft_link(f, np):
        f["vcoul_target"] = f["vcoul"][()]
        del f["vcoul"]
        f["vcoul"] = h5py.SoftLink("/vcoul_target")

    def float_indices(f, np):
        data = f["indinv"][()].astype("f8")
        del f["indinv"]
        f["indinv"] = data

    def int16_indices(f, np):
        data = f["inv_igp_index"][()].astype("i2")
        del f["inv_igp_index"]
        f["inv_igp_index"] = data

    def single_precision(f, np):
        data = f["wtilde_array"][()]
        del f["wtilde_array"]
        f["wtilde_array"] = data.astype(np.dtype([("r", "f4"), ("i", "f4")]))

    def missing_attribute(f, np):
        del f.attrs["ncouls"]

    def string_attribute(f, np):
        f.attrs["nend"] = "3"

    def reference_removed(f, np):
        for name in ("asxtempref", "achtempref"):
            if name in f:
                del f[name]

    for name, change in [("chunked-gzip", rechunk), ("soft-link", soft_link), ("float-indices", float_indices),
                         ("int16-indices", int16_indices), ("single-precision", single_precision),
                         ("missing-attribute", missing_attribute), ("string-attribute", string_attribute),
                         ("reference-removed", reference_removed)]:
        variant(name, change)
    return out


def toml_seeds():
    seeds = {}
    for d in (os.path.join(SOURCE, "inputs"), os.path.join(SOURCE, "tests", "oracle")):
        for f in sorted(os.listdir(d)):
            if f.endswith(".toml"):
                seeds[("oracle-" if "oracle" in d else "") + f] = open(os.path.join(d, f), "rb").read()
    base = TINY["tiny"]
    seeds.update({
        "tiny.toml": base.encode(),
        "empty.toml": b"",
        "key-twice.toml": (base + "nbands = 5\n").encode(),
        "both-spellings.toml": (base + "e_lk = 1.0\ne-lk = 2.0\n").encode(),
        "unknown-key.toml": (base + "bands = 3\n").encode(),
        "a-list.toml": (base + "gamma = [0.5, 0.6]\n").encode(),
        "a-string-size.toml": base.replace("nbands = 4", 'nbands = "four"').encode(),
        "negative-size.toml": base.replace("nbands = 4", "nbands = -4").encode(),
        "huge-size.toml": base.replace("ncouls = 6", "ncouls = 99999999999").encode(),
        "section.toml": ("[deck]\n" + base).encode(),
        "quoted-and-comment.toml": ('name = "a \\"quoted\\" name" # comment\n' + base).encode(),
        "options-in-deck.toml": (base + 'policy = "host"\nrepeat = 2\nband-block = 8\n').encode(),
        "nan-gamma.toml": (base + "gamma = nan\n").encode(),
        "crlf.toml": base.replace("\n", "\r\n").encode(),
        "not-utf8.toml": base.encode() + b"name = \"\xff\xfe\"\n",
    })
    return seeds


def json_damage(text):
    """Damaged copies of one JSON document."""
    doc = json.loads(text)
    out = {
        "truncated": text[: len(text) // 2],
        "not-an-object": "[" + text + "]",
        "key-twice": text.replace("{", '{"kind": "x", ', 1),
        "deep": "[" * 80 + "]" * 80,
        "schema-2": text.replace('"schema_version": 1', '"schema_version": 2').replace('"schema_version":1',
                                                                                    '"schema_version":2'),
    }
    if isinstance(doc, dict):
        for key in list(doc)[:6]:
            d = dict(doc)
            del d[key]
            out[f"without-{key}"] = json.dumps(d)
            d = dict(doc)
            d[key] = None
            out[f"{key}-null"] = json.dumps(d)
    return out


def c_api_script(sizes=(5, 2, 3, 1), how=1, settings=(), arrays=None, scalars=((0, 96), (1, 68)), o=0, seed=1):
    """A script of calls for fuzz_c_api (the format its Script reads): the deck's sizes
    less one, the verify/check_finite/static_remainder bits, (pick, value) option bytes,
    each array's (type byte, shape byte), the scalars as (pick, byte), the output byte."""
    rng = random.Random(seed)
    b = bytearray(sizes) + bytes([how, len(settings)])
    for pick, value in settings:
        b += bytes([pick, value])
    ncouls, ngpown, nbands, nw = (x + 1 for x in sizes)
    shapes = [(ncouls, nbands, 2), (ngpown, nbands, 2), (ncouls, ngpown, 2), (ncouls, ngpown, 2), (nw, nbands, 1),
              (nbands, 1, 1), (ngpown, 1, 1)]
    for which, (rows, cols, width) in enumerate(shapes):
        t, s = (arrays or {}).get(which, (0, 0))
        b += bytes([t, s])
        if s % 16 == 9:
            continue
        if t & 0x80:
            width = 2 if (t % 6) - 1 in (1, 3) else 1
        if s % 16 == 1:
            rows += 1
        elif s % 16 == 2:
            cols += 1
        elif s % 16 == 3:
            rows -= 1
        n = rows * cols if rows > 0 and cols > 0 and s % 16 not in (4, 6, 7, 8) else 1
        for _ in range(n * width):
            b += struct.pack("<d", float("nan") if which == 2 else 1e300) if t & 0x40 else bytes([rng.randrange(256)])
    b += bytes([len(scalars)])
    for pick, value in scalars:
        b += bytes([pick, value])
    return bytes(b) + bytes([o, 0])


def c_api_seeds():
    """Scripts of calls at the C interface: a good deck on the host and tuned policies,
    verified, and one of each kind of mistake a caller makes."""
    return {
        "host-verified": c_api_script(settings=((0, 3),)),
        "tuned-verified": c_api_script(sizes=(7, 3, 4, 2), settings=((0, 5),), seed=2),
        "v6-band-block": c_api_script(settings=((0, 6), (0x40 + 6, 12)), seed=3),
        "aqsntemp-a-row-more": c_api_script(arrays={0: (0, 1)}),
        "wtilde-null": c_api_script(arrays={3: (0, 6)}),
        "wx-never-given": c_api_script(arrays={4: (0, 9)}),
        "I_eps-nan": c_api_script(how=3, arrays={2: (0x40, 0)}),
        "aqsmtemp-float32": c_api_script(arrays={1: (0x80 + 3, 0)}),
        "occ-huge-rows": c_api_script(arrays={5: (0, 7)}),
        "no-scalars": c_api_script(scalars=()),
        "nw-mismatch": c_api_script(o=0x80 + 4),
        "ach-null": c_api_script(o=1),
        "wtilde-at-8-bytes": c_api_script(sizes=(7, 3, 4, 2), settings=((0, 5),), arrays={3: (0, 10)}, seed=2),
        "aqsntemp-at-8-bytes": c_api_script(settings=((0, 3),), arrays={0: (0, 10)}),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpp", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "corpus"))
    a = ap.parse_args()
    gpp = os.path.abspath(a.gpp)
    out = os.path.abspath(a.out)
    if os.path.isdir(out):
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory() as work:
        # .dat and HDF5 decks, and damaged copies.
        for name, deck in TINY.items():
            toml = os.path.join(work, name + ".toml")
            open(toml, "w").write(deck)
            for ext in ("dat", "h5"):
                run(gpp, "convert", toml, os.path.join(work, f"{name}.{ext}"))
            dat = open(os.path.join(work, name + ".dat"), "rb").read()
            h5 = open(os.path.join(work, name + ".h5"), "rb").read()
            put(out, "dat", name + ".dat", dat)
            put(out, "h5", name + ".h5", h5)
            if name == "tiny":
                for kind, b in damaged_dat(dat).items():
                    put(out, "dat", f"{name}-{kind}.dat", b)
                for kind, b in damaged_h5(h5).items():
                    put(out, "h5", f"{name}-{kind}.h5", b)
                for kind, b in h5py_variants(os.path.join(work, name + ".h5"), work).items():
                    put(out, "h5", f"{name}-{kind}.h5", b)
                run(gpp, "convert", toml, os.path.join(work, "noref.dat"), "--no-reference")
                put(out, "dat", "tiny-no-reference.dat", open(os.path.join(work, "noref.dat"), "rb").read())
        put(out, "h5", "tiny-as-dat.h5", open(os.path.join(work, "tiny.dat"), "rb").read())
        # Scripts of calls at the C interface.
        for name, b in c_api_seeds().items():
            put(out, "c_api", name + ".bin", b)
        # TOML decks.
        for name, b in toml_seeds().items():
            put(out, "toml", name, b)
        # A sweep CSV and a tuning file from a short sweep of the tiny deck, and a roofline CSV.
        toml = os.path.join(work, "tiny.toml")
        run(gpp, "sweep", toml, "--policy", "v6-blocked", "--band-block", "2,4", "--repeat", "1", "--warmup", "0",
            "--csv", os.path.join(work, "sweep.csv"), "--space", "host")
        run(gpp, "roofline", toml, "--policy", "v0-collapse3,host", "--repeat", "1", "--warmup", "0", "--ncu", "off",
            "--csv", os.path.join(work, "roofline.csv"), "--space", "host")
        sweep = open(os.path.join(work, "sweep.csv")).read()
        roofline = open(os.path.join(work, "roofline.csv")).read()
        fixtures = os.path.join(SOURCE, "tests", "fixtures")
        csv = {"sweep-tiny.csv": sweep, "roofline-tiny.csv": roofline,
               "sweep-h100.csv": open(os.path.join(fixtures, "sweep-h100.csv")).read(),
               "roofline-h100.csv": open(os.path.join(fixtures, "roofline-h100.csv")).read()}
        lines = sweep.splitlines(keepends=True)
        csv.update({
            "sweep-header-only.csv": lines[0],
            "sweep-cut-mid-row.csv": sweep[: len(sweep) - 20],
            "sweep-crlf.csv": sweep.replace("\n", "\r\n"),
            "sweep-row-twice.csv": sweep + lines[-1],
            "sweep-quoted-reason.csv": sweep.rstrip("\n").rsplit(",", 2)[0] + ',invalid,"a, reason\nover ""two"" lines",\n',
            "sweep-unterminated-quote.csv": sweep + '"\n',
            "sweep-negative-time.csv": sweep.replace(lines[-1], lines[-1].replace(",1,", ",-1,", 1)),
            "sweep-extra-field.csv": sweep.rstrip("\n") + ",x\n",
            "roofline-short-row.csv": roofline.splitlines()[0] + "\n1,2,3\n",
        })
        for name, text in csv.items():
            put(out, "csv_resume", name, text)
        # Tuning files: the shipped defaults, the tune's, damaged copies.
        tuning = json.dumps(TUNING)
        put(out, "tuning", "tune-tiny.json", tuning)
        for f in ("sm_90.json", "host-avx512.json", "gfx942.json"):
            put(out, "tuning", f, open(os.path.join(SOURCE, "tuning", f)).read())
        for kind, text in json_damage(tuning).items():
            put(out, "tuning", f"tune-tiny-{kind}.json", text)
        doc = json.loads(tuning)
        e = doc["entries"][0]
        for kind, change in [("unknown-policy", {"policy": "v99"}), ("tunable-zero", {"tunables": {"band_block": 0}}),
                             ("unknown-tunable", {"tunables": {"warp": 2}}), ("size-class-huge", {"size_class": "huge"}),
                             ("time-negative", {"time_median_s": -1}),
                             ("evidence-p-2", {"evidence": dict(e.get("evidence", {}), p_value=2)}),
                             ("params", {"tunables": {"params": {"loops": "scalar"}}})]:
            d = json.loads(tuning)
            d["entries"][0].update(change)
            put(out, "tuning", f"tune-tiny-{kind}.json", json.dumps(d))
        d = json.loads(tuning)
        d["entries"].append(d["entries"][0])
        put(out, "tuning", "tune-tiny-entry-twice.json", json.dumps(d))
        # Ceilings: the fixture, one measured here, damaged copies.
        ceilings = open(os.path.join(fixtures, "ceilings-h100.json")).read()
        put(out, "ceilings", "ceilings-h100.json", ceilings)
        for kind, text in json_damage(ceilings).items():
            put(out, "ceilings", f"ceilings-h100-{kind}.json", text)
        c = json.loads(ceilings)
        for kind, change in [("peak-zero", lambda c: c["compute"][0].update(gflops=0)),
                             ("peak-huge", lambda c: c["compute"][0].update(gflops=1e300)),
                             ("two-peaks", lambda c: c["compute"].append(c["compute"][0])),
                             ("level-unknown", lambda c: c["bandwidth"][0].update(level="L4")),
                             ("device-unnamed", lambda c: c["device"].update(name=""))]:
            d = json.loads(ceilings)
            change(d)
            put(out, "ceilings", f"ceilings-h100-{kind}.json", json.dumps(d))
        # Nsight Compute reports: the fixtures and damaged copies.
        for f in ("ncu_raw_example.csv", "ncu_raw_h100_small_tuned.csv"):
            put(out, "ncu_report", f, open(os.path.join(fixtures, f)).read())
        ncu = open(os.path.join(fixtures, "ncu_raw_example.csv")).read()
        nl = ncu.splitlines(keepends=True)
        header_at = next(i for i, line in enumerate(nl) if line.startswith('"ID"'))
        put(out, "ncu_report", "ncu-no-units.csv", "".join(nl[: header_at + 1]))
        put(out, "ncu_report", "ncu-no-rows.csv", "".join(nl[: header_at + 2]))
        put(out, "ncu_report", "ncu-terabytes.csv", ncu.replace('"Kbyte"', '"Tbyte"').replace('"byte"', '"Tbyte"'))
        put(out, "ncu_report", "ncu-short-row.csv", "".join(nl[: header_at + 2]) + '"0","1"\n')
        put(out, "ncu_report", "ncu-not-a-number.csv", "".join(nl[: header_at + 3]).rstrip("\n").rsplit(",", 1)[0] +
            ',"n/a"\n')
    count = sum(len(files) for _, _, files in os.walk(out))
    print(f"make_corpus: {count} seeds in {out}")


if __name__ == "__main__":
    main()
