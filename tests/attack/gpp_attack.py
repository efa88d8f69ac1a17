#!/usr/bin/env python3
"""Attack harness for gpp (issue 10): damaged decks and files of every format, special
files, bad options and environment variables, unwritable and aliased outputs, and kills
mid-write. Runs the built gpp on each case with a timeout and asserts its outcome class.

Outcome classes of one run:
  ok          exit 0 (numbers verified, or a legitimately different deck)
  refused     exit 1, exactly one line on stderr, nothing on stdout
  verify      exit 2 (verification failed: a damaged array against the stored reference)
  late        exit 1 after something was printed on stdout, or more than one stderr line
  signal      killed by a signal (a crash)
  timeout     no answer within the time limit (a hang)
  bad-exit    any other exit code
  modified    an input file changed
Every case names the classes it accepts; anything else is a failure. Cases marked
`pending` are counted and printed but do not fail the run (work not done yet; see
docs/reliability.md). Usage: gpp_attack.py --gpp PATH [--samples N] [--seed S] [-v]
"""
import argparse
import collections
import hashlib
import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

TINY = """# attack harness deck
name = "tiny"
generator = "random"
seed = 7
nbands = 12
nvband = 5
ngpown = 8
ncouls = 40
nstart = 2
nend = 3
"""

GOOD = {"ok"}
REFUSED = {"refused"}
ANY_CLEAN = {"ok", "refused", "verify"}


class Harness:
    def __init__(self, gpp, work, verbose, timeout):
        self.gpp = gpp
        self.work = work
        self.verbose = verbose
        self.timeout = timeout
        self.counts = collections.Counter()  # (group, class)
        self.failures = []
        self.pending = []
        self.runs = 0
        self.keep = None

    def classify(self, args, env=None, inputs=(), cwd=None, timeout=None):
        digests = {p: digest(p) for p in inputs}
        full_env = dict(os.environ)
        full_env.pop("KOKKOS_NUM_THREADS", None)
        if env:
            full_env.update(env)
        self.runs += 1
        try:
            p = subprocess.run([self.gpp] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=full_env, cwd=cwd or self.work,
                               timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            return "timeout", b"", b""
        out, err = p.stdout, p.stderr
        for path, d in digests.items():
            if digest(path) != d:
                return "modified", out, err
        if p.returncode < 0:
            return "signal", out, err
        if p.returncode == 0:
            return "ok", out, err
        if p.returncode == 2:
            return "verify", out, err
        if p.returncode == 1:
            if out.strip() or err.count(b"\n") != 1 or not err.endswith(b"\n"):
                return "late", out, err
            return "refused", out, err
        return "bad-exit", out, err

    def case(self, group, name, args, accept, env=None, inputs=(), pending=False, timeout=None, check=None,
             says=None):
        cls, out, err = self.classify(args, env=env, inputs=inputs, timeout=timeout)
        if cls == "ok" and check is not None:
            why = check(out)
            if why:
                cls = "wrong"
                err = why.encode()
        if cls == "refused" and says is not None and says not in err.decode("utf-8", "replace"):
            cls = "wrong"  # refused, but not for the reason the case is about
            err = f"refusal does not say '{says}': {err.decode('utf-8', 'replace').strip()}".encode()
        self.counts[(group, cls)] += 1
        line = err.decode("utf-8", "replace").strip().splitlines()
        summary = f"{group}/{name}: {cls}" + (f" ({line[-1][:200]})" if line else "")
        if cls not in accept:
            (self.pending if pending else self.failures).append(summary + f" [expected {'/'.join(sorted(accept))}]")
            if self.keep and inputs and not pending:
                os.makedirs(self.keep, exist_ok=True)
                kept = os.path.join(self.keep, f"{group}-{len(self.failures)}-" + os.path.basename(inputs[0]))
                shutil.copy(inputs[0], kept)
                print(f"kept {kept}: gpp {' '.join(args)}", flush=True)
        if self.verbose:
            print(summary, flush=True)
        return cls


def digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def write(path, data, mode="wb"):
    with open(path, mode) as f:
        f.write(data)
    return path


def sample_offsets(rng, size, n, dense_head=2048):
    """n offsets: half in the first dense_head bytes (headers, type and layout messages), half anywhere."""
    if size <= 0:
        return []
    head = [rng.randrange(min(size, dense_head)) for _ in range(n // 2)]
    rest = [rng.randrange(size) for _ in range(n - n // 2)]
    return sorted(set(head + rest))


def attack_toml(h, rng, samples):
    w = h.work
    deck = write(os.path.join(w, "tiny.toml"), TINY, "w")
    h.case("toml", "good", ["run", deck, "--repeat", "1"], GOOD, inputs=[deck])
    text = TINY.encode()
    # Truncation at every line boundary and at sampled bytes.
    cuts = sorted(set([i for i, c in enumerate(text) if c == 10] + [rng.randrange(len(text)) for _ in range(samples // 4)]))
    for cut in cuts:
        p = write(os.path.join(w, "trunc.toml"), text[:cut])
        h.case("toml", f"truncated@{cut}", ["run", p, "--repeat", "1"], ANY_CLEAN - {"verify"}, inputs=[p])
    # Byte flips and random bytes.
    for off in sample_offsets(rng, len(text), samples // 2, dense_head=len(text)):
        b = bytearray(text)
        b[off] = rng.choice([0x00, 0xff, 0x22, 0x3d, 0x5b, 0x0a, 0x2d, 0x89, b[off] ^ (1 << rng.randrange(8))])
        p = write(os.path.join(w, "flip.toml"), bytes(b))
        h.case("toml", f"flip@{off}", ["run", p, "--repeat", "1"], {"ok", "refused"}, inputs=[p])
    bad = {
        "empty": "",
        "comment-only": "# nothing\n",
        "sizes-missing": 'name = "x"\nnbands = 12\n',
        "repeated-key": TINY + "nbands = 10\n",
        "repeated-key-adjacent": TINY.replace("nbands = 12\n", "nbands = 12\nnbands = 13\n"),
        "repeated-spelling": TINY + "e_lk = 1\ne-lk = 2\n",
        "seed-negative": TINY.replace("seed = 7", "seed = -1"),
        "seed-huge": TINY.replace("seed = 7", "seed = 99999999999999999999999"),
        "seed-float": TINY.replace("seed = 7", "seed = 1.5"),
        "size-string": TINY.replace("nbands = 12", 'nbands = "twelve"'),
        "size-float": TINY.replace("nbands = 12", "nbands = 12.5"),
        "size-zero": TINY.replace("nbands = 12", "nbands = 0"),
        "size-negative": TINY.replace("ncouls = 40", "ncouls = -40"),
        "size-int-overflow": TINY.replace("ncouls = 40", "ncouls = 4294967296"),
        "size-huge": TINY.replace("ncouls = 40", "ncouls = 2000000000"),
        "sizes-absurd": TINY.replace("nbands = 12", "nbands = 1000000").replace("ngpown = 8", "ngpown = 1000000")
                            .replace("ncouls = 40", "ncouls = 1000000000"),
        "gamma-zero": TINY + "gamma = 0\n",
        "gamma-negative": TINY + "gamma = -0.5\n",
        "gamma-nan": TINY + "gamma = nan\n",
        "tol-negative": TINY + "tol = -1e-3\n",
        "dw-inf": TINY + "dw = inf\n",
        "nstart-after-nend": TINY.replace("nstart = 2", "nstart = 5"),
        "frequencies-many": TINY.replace("nend = 3", "nend = 2000000000"),
        "nvband-too-large": TINY.replace("nvband = 5", "nvband = 99"),
        "skipped-gp-negative": TINY + "skipped_gp = -3\n",
        "unknown-key": TINY + "frobnicate = 3\n",
        "unknown-section": TINY + "[extra]\nnbands = 3\n",
        "generator-unknown": TINY.replace('generator = "random"', 'generator = "chaos"'),
        "list-value": TINY.replace("nbands = 12", "nbands = [12, 13]"),
        "unterminated-string": TINY.replace('name = "tiny"', 'name = "tiny'),
        "name-newline": TINY.replace('name = "tiny"', 'name = "ti\\nny"'),
        "binary-junk": "nbands = 12\n\x01\x02\x03\n",
        "long-line": TINY + "name2 = \"" + "x" * 100000 + "\"\n",
    }
    for name, content in bad.items():
        p = write(os.path.join(w, "bad.toml"), content.encode("utf-8", "surrogateescape"))
        # CLI11 reads an unterminated string as text: harmless, the name is only a label.
        accept = REFUSED if name not in ("name-newline", "unterminated-string") else {"ok", "refused"}
        h.case("toml", name, ["run", p, "--repeat", "1"], accept, inputs=[p])
    # Not TOML at all: an HDF5 file, a .dat file, a large file, non-UTF-8 text.
    if os.path.exists(os.path.join(w, "tiny.h5")):
        p = shutil.copy(os.path.join(w, "tiny.h5"), os.path.join(w, "really_h5.toml"))
        h.case("toml", "hdf5-named-toml", ["run", p], REFUSED, inputs=[p])
        p = shutil.copy(os.path.join(w, "tiny.h5"), os.path.join(w, "noext"))
        h.case("toml", "hdf5-no-extension", ["run", p], REFUSED, inputs=[p])
    p = shutil.copy(os.path.join(w, "tiny.dat"), os.path.join(w, "really_dat.toml"))
    h.case("toml", "dat-named-toml", ["run", p], REFUSED, inputs=[p])
    p = write(os.path.join(w, "large.toml"), b"# " + b"x" * (2 << 20) + b"\n")
    h.case("toml", "larger-than-1MiB", ["run", p], REFUSED, inputs=[p])
    p = write(os.path.join(w, "latin1.toml"), TINY.replace('"tiny"', '"t\xe9"').encode("latin-1"))
    h.case("toml", "not-utf8", ["run", p], REFUSED, inputs=[p])


def attack_file(h, rng, samples, kind):
    """Truncations and byte flips of a .dat or .h5 deck that stores its reference."""
    w = h.work
    good = os.path.join(w, "tiny." + kind)
    data = open(good, "rb").read()
    h.case(kind, "good", ["run", "--input", good, "--repeat", "1"], GOOD, inputs=[good])
    cuts = sorted(set([0, 1, 4, 8, 512, len(data) - 1, len(data) // 2] +
                      sample_offsets(rng, len(data), samples // 3)))
    for cut in cuts:
        if cut >= len(data):
            continue
        p = write(os.path.join(w, "trunc." + kind), data[:cut])
        h.case(kind, f"truncated@{cut}", ["run", "--input", p, "--repeat", "1"], REFUSED, inputs=[p])
    p = write(os.path.join(w, "long." + kind), data + b"\0" * 100)
    h.case(kind, "trailing-bytes", ["run", "--input", p, "--repeat", "1"], {"refused", "ok"}, inputs=[p])
    for off in sample_offsets(rng, len(data), samples):
        b = bytearray(data)
        how = rng.randrange(3)
        if how == 0:
            b[off] ^= 1 << rng.randrange(8)
        elif how == 1:
            b[off] = rng.choice([0x00, 0xff, 0x7f, 0x80])
        else:  # four bytes: offsets, lengths and sizes in headers
            for k in range(off, min(off + 4, len(b))):
                b[k] = rng.randrange(256)
        p = write(os.path.join(w, "flip." + kind), bytes(b))
        # A flip in data or in the stored reference fails verification (exit 2); a flip in
        # padding or unused entries changes nothing (exit 0, verified).
        h.case(kind, f"flip@{off}", ["run", "--input", p, "--repeat", "1"], ANY_CLEAN, inputs=[p])


def attack_h5_types(h):
    """Damaged complex datatypes: the compound {r, i} message of each complex dataset
    (version 1 layout: an 8-byte padded member name, a 4-byte member offset, 36 bytes of
    dimension fields, then the member's float type with its 4-byte size) with the member
    "i" moved or a member's size changed. Before the checks these crashed inside HDF5,
    printed its trace, or read wrong numbers with exit 0."""
    import re
    good = os.path.join(h.work, "tiny.h5")
    data = open(good, "rb").read()
    starts = [m.start() for m in re.finditer(rb"r\x00{7}", data)]
    for k in starts:
        ki = data.find(b"i" + b"\x00" * 7, k, k + 128)
        if ki < 0:
            continue
        for what, pos, val in [("i-offset", ki + 8, 12), ("i-offset", ki + 8, 4), ("i-offset", ki + 8, 0xfff0),
                               ("i-offset", ki + 8, 0), ("r-size", k + 44, 2), ("r-size", k + 44, 16),
                               ("r-size", k + 44, 0xffffffff), ("i-size", ki + 44, 4), ("i-size", ki + 44, 0)]:
            b = bytearray(data)
            b[pos:pos + 4] = val.to_bytes(4, "little")
            p = write(os.path.join(h.work, "type.h5"), bytes(b))
            h.case("h5-types", f"{what}={val:#x}@{k}", ["run", "--input", p, "--repeat", "1"], REFUSED, inputs=[p])


def attack_special(h):
    w = h.work
    fifo = os.path.join(w, "fifo")
    os.mkfifo(fifo)
    os.mkdir(os.path.join(w, "adir.toml"))
    cases = {
        "fifo-deck": ["run", fifo],
        "fifo-deck-option": ["run", "--deck", fifo],
        "fifo-input-dat": ["run", "--input", fifo],
        "fifo-convert": ["convert", fifo, os.path.join(w, "x.h5")],
        "dev-zero-deck": ["run", "/dev/zero"],
        "dev-zero-input": ["run", "--input", "/dev/zero"],
        "dev-null-deck": ["run", "/dev/null"],
        "dev-urandom-input": ["run", "--input", "/dev/urandom"],
        "directory-deck": ["run", os.path.join(w, "adir.toml")],
        "directory-input": ["run", "--input", w],
        "missing-deck": ["run", os.path.join(w, "nope.toml")],
        "missing-input": ["run", "--input", os.path.join(w, "nope.dat")],
        "empty-input": ["run", "--input", write(os.path.join(w, "empty.dat"), b"")],
        "empty-h5": ["run", "--input", write(os.path.join(w, "empty.h5"), b"")],
    }
    for name, args in cases.items():
        h.case("special", name, args, REFUSED, timeout=10)


def attack_options(h):
    deck = os.path.join(h.work, "tiny.toml")
    bad = [
        ["--repeat", "0"], ["--repeat", "-1"], ["--repeat", "abc"], ["--repeat", "1e3"], ["--warmup", "-1"],
        ["--repeat", "99999999999999999999"], ["--band-block", "2147483647"], ["--band-block", "0"],
        ["--policy", "tuned", "--band-block", "2147483647"], ["--policy", "host", "--ig-block", "100000"],
        ["--policy", "v6-blocked", "--team-size", "2147483647"], ["--policy", "v6-blocked", "--vector-length", "3"],
        ["--policy", "v0-collapse3", "--tile", "2147483647,2147483647,2147483647"],
        ["--policy", "v0-collapse3", "--tile", "1,1"], ["--policy", "v0-collapse3", "--tile", "0,1,1"],
        ["--policy", "nope"], ["--policy", ""], ["--policy", "host,,tuned"], ["--policy", "host", "--tile", "4"],
        ["--verify", "maybe"], ["--rtol", "0"], ["--rtol", "-1"], ["--rtol", "nan"], ["--rtol", "abc"],
        ["--nbands", "0"], ["--nbands", "-3"], ["--nbands", "3.5"], ["--nbands", "many"],
        ["--nbands", "99999999999"], ["--seed", "-1"], ["--seed", "18446744073709551616"],
        ["--gamma", "0"], ["--gamma", "-1"], ["--tol", "-1"], ["--sexcut", "-1"], ["--dw", "inf"],
        ["--generator", "chaos"], ["--nstart", "4"], ["--frobnicate"], ["--nbands"],
        ["--input", deck], ["--input", os.path.join(h.work, "tiny.dat"), "--nbands", "3"],
        ["--output", os.path.join(h.work, "r.txt")], ["--kokkos-threads=abc"], ["--kokkos-numa=-1"],
        ["--kokkos-device-id=x"], ["--kokkos-num-devices=1,y"], ["--threads=abc"],
    ]
    for args in bad:
        h.case("options", " ".join(args) or "(empty)", ["run", deck] + args, REFUSED, inputs=[deck])
    for args in [["fly"], ["run"], ["convert"], ["bench"], ["policies", "--extra"], ["run", "--help", "--nbands", "x"],
                 ["convert", deck], ["bench", deck, "--policies", "nope"], ["bench", deck, "--repeat", "0"],
                 ["convert", deck, os.path.join(h.work, "out.txt")], ["fly\nRESULT deck=forged"]]:
        accept = {"ok", "refused"} if "--help" in args else REFUSED
        h.case("options", " ".join(args), args, accept, inputs=[deck])
    # Sizes within range that cannot fit in memory: refused with the size before any work.
    # Refused by gpp's own check before anything is allocated (not by an allocation that
    # fails, or by the OOM killer on a machine that overcommits).
    h.case("options", "too-large-for-memory",
           ["run", deck, "--nbands", "200000", "--ngpown", "200000", "--ncouls", "1000000", "--nvband", "10"], REFUSED,
           says="of host memory")
    h.case("options", "band-block-1-teams-fit", ["run", deck, "--policy", "v6-blocked", "--band-block", "1",
                                                 "--repeat", "1"], GOOD)


def attack_env(h):
    deck = os.path.join(h.work, "tiny.toml")
    for var, value in [("KOKKOS_NUM_THREADS", "abc"), ("KOKKOS_NUM_THREADS", "0"), ("KOKKOS_NUM_THREADS", "-4"),
                       ("KOKKOS_NUM_THREADS", "99999999999"), ("KOKKOS_NUM_THREADS", ""), ("KOKKOS_NUMA", "x"),
                       ("KOKKOS_DEVICE_ID", "-1"), ("KOKKOS_DEVICE_ID", "gpu0"), ("KOKKOS_NUM_DEVICES", "2,x"),
                       ("KOKKOS_SKIP_DEVICE", "x"), ("KOKKOS_DISABLE_WARNINGS", "maybe"),
                       ("KOKKOS_TUNE_INTERNALS", "2")]:
        h.case("env", f"{var}={value!r}", ["run", deck, "--repeat", "1"], REFUSED, env={var: value})
    h.case("env", "threads-option-and-variable-disagree", ["run", deck, "--kokkos-threads=1", "--repeat", "1"],
           {"ok", "refused"}, env={"KOKKOS_NUM_THREADS": "2"})
    # A small stack (ulimit -s 32): the host policy's buffer lives on the heap.
    cls, out, err = run_with_limits(h, ["run", deck, "--policy", "all", "--repeat", "1"], stack_kb=32)
    record(h, "env", "ulimit-s-32-all-policies", cls, err, GOOD)
    for name, lim in [("ulimit-v-256MB", 256 << 20)]:
        cls, out, err = run_with_limits(h, ["run", deck, "--repeat", "1"], as_bytes=lim)
        record(h, "env", name, cls, err, {"ok", "refused"})


def run_with_limits(h, args, stack_kb=None, as_bytes=None, fsize=None):
    import resource

    def limit():
        if stack_kb:
            resource.setrlimit(resource.RLIMIT_STACK, (stack_kb * 1024, stack_kb * 1024))
        if as_bytes:
            resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    h.runs += 1
    try:
        p = subprocess.run([h.gpp] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=h.work, timeout=h.timeout, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""
    if p.returncode < 0:
        return "signal", p.stdout, p.stderr
    if p.returncode == 0:
        return "ok", p.stdout, p.stderr
    if p.returncode == 2:
        return "verify", p.stdout, p.stderr
    if p.returncode == 1 and not p.stdout.strip() and p.stderr.count(b"\n") == 1:
        return "refused", p.stdout, p.stderr
    return ("late" if p.returncode == 1 else "bad-exit"), p.stdout, p.stderr


def record(h, group, name, cls, err, accept, pending=False):
    h.counts[(group, cls)] += 1
    line = err.decode("utf-8", "replace").strip().splitlines()
    summary = f"{group}/{name}: {cls}" + (f" ({line[-1][:200]})" if line else "")
    if cls not in accept:
        (h.pending if pending else h.failures).append(summary + f" [expected {'/'.join(sorted(accept))}]")
    if h.verbose:
        print(summary, flush=True)


def attack_outputs(h, have_h5):
    """Unwritable, aliased and full outputs. Output checks before work are the lead's
    RunRecord work (issue 10's output side): those cases are `pending` until it lands."""
    w = h.work
    deck = os.path.join(w, "tiny.toml")
    ro = os.path.join(w, "readonly")
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    long_name = os.path.join(w, "x" * 250 + ".json")
    early = [
        ("json-missing-dir", ["--json", os.path.join(w, "nodir", "r.json")]),
        ("json-is-directory", ["--json", w]),
        ("json-name-too-long", ["--json", long_name]),
    ]
    if os.geteuid() != 0:
        early.append(("json-read-only-dir", ["--json", os.path.join(ro, "r.json")]))
    if have_h5:
        early += [("output-missing-dir", ["--output", os.path.join(w, "nodir", "r.h5")]),
                  ("output-is-directory", ["--output", w + "/"]),
                  ("json-and-output-same", ["--json", os.path.join(w, "same.h5"), "--output", os.path.join(w, "same.h5")])]
    for name, args in early:
        h.case("outputs", name, ["run", deck, "--repeat", "1"] + args, REFUSED, inputs=[deck], pending=True)
    victim = write(os.path.join(w, "victim.toml"), TINY, "w")  # a copy: the case may destroy it
    h.case("outputs", "json-is-the-deck", ["run", victim, "--repeat", "1", "--json", victim], REFUSED, inputs=[victim],
           pending=True)
    if have_h5:
        inp = shutil.copy(os.path.join(w, "tiny.h5"), os.path.join(w, "in.h5"))
        h.case("outputs", "output-is-the-input", ["run", "--input", inp, "--output", inp], REFUSED, inputs=[inp],
               pending=True)
    inp = shutil.copy(os.path.join(w, "tiny.dat"), os.path.join(w, "in.dat"))
    h.case("outputs", "convert-onto-its-input", ["convert", inp, inp], REFUSED, inputs=[inp], pending=True)
    # Names in outputs: a newline must not forge a RESULT line; JSON must stay valid UTF-8.
    j = os.path.join(w, "name.json")
    for name, value in [("name-newline", "x\nRESULT deck=forged policy=fake"), ("name-not-utf8", "n\udcff\udcfe")]:
        if os.path.exists(j):
            os.remove(j)
        cls, out, err = h.classify(["run", deck, "--repeat", "1", "--name", value, "--json", j], inputs=[deck])
        if cls == "ok":
            forged = any(l.startswith(b"RESULT") and b"forged" in l for l in out.splitlines())
            try:
                json.loads(open(j, "rb").read().decode("utf-8"))
                valid = True
            except (ValueError, OSError):
                valid = False
            if forged or not valid:
                cls = "wrong"
        record(h, "outputs", name, cls, err, {"ok", "refused"})
    # A file-size limit (a full disk for this process): one line, no file, no crash at exit.
    for name, args, out_path in [("convert-h5-fsize-limit", ["convert", deck, os.path.join(w, "full.h5")], "full.h5"),
                                 ("convert-dat-fsize-limit", ["convert", deck, os.path.join(w, "full.dat")], "full.dat"),
                                 ("run-json-fsize-limit", ["run", deck, "--repeat", "1", "--json",
                                                            os.path.join(w, "full.json")], "full.json")]:
        if out_path.endswith(".h5") and not have_h5:
            continue
        cls, out, err = run_with_limits(h, args, fsize=512)  # smaller than any record
        leftover = [f for f in os.listdir(w) if f.startswith(out_path)]
        if leftover:
            cls = "partial-file"
        record(h, "outputs", name, cls, err, REFUSED)


def attack_kills(h, rng, n, have_h5):
    """SIGKILL and SIGINT during an output write: never a partial file under the final name."""
    w = h.work
    deck = os.path.join(w, "medium.toml")
    write(deck, TINY.replace("ncouls = 40", "ncouls = 4000").replace("ngpown = 8", "ngpown = 200")
          .replace("nbands = 12", "nbands = 96"), "w")
    targets = ["kill.dat"] + (["kill.h5"] if have_h5 else [])
    for i in range(n):
        target = os.path.join(w, targets[(i // 2) % len(targets)])
        for f in os.listdir(w):
            if f.startswith("kill."):
                os.remove(os.path.join(w, f))
        sig = signal.SIGKILL if i % 2 == 0 else signal.SIGINT
        p = subprocess.Popen([h.gpp, "convert", deck, target, "--no-reference"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=w)
        time.sleep(rng.uniform(0.05, 0.6))
        p.send_signal(sig)
        p.wait()
        h.runs += 1
        cls = "ok"
        if os.path.exists(target):
            # Complete or absent: a file under the final name must read back whole.
            c, out, err = h.classify(["run", "--input", target, "--repeat", "1", "--warmup", "0", "--verify", "none",
                                      "--no-branch-stats"])
            cls = "ok" if c == "ok" else "timeout" if c == "timeout" else "partial-file"
        record(h, "kills", f"{sig.name}-{os.path.basename(target)}-{i}", cls, b"", GOOD)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpp", required=True)
    ap.add_argument("--samples", type=int, default=40, help="sampled offsets per file kind (default 40; HDF5 twice that)")
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--strict", action="store_true", help="pending cases fail too")
    ap.add_argument("--keep", help="copy the input of every failing case into this directory")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    # Kokkos's OpenMP backend prints a four-line thread-binding advisory on stdout when
    # OMP_PROC_BIND is unset: Kokkos's message, not gpp's, and it would make every case
    # "late". The unit-test setting, as for the rest of the suite (tests/CMakeLists.txt).
    os.environ.setdefault("OMP_PROC_BIND", "false")
    rng = random.Random(a.seed)
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="gpp-attack-")
    try:
        h = Harness(os.path.abspath(a.gpp), work, a.verbose, a.timeout)
        h.keep = os.path.abspath(a.keep) if a.keep else None
        deck = write(os.path.join(work, "tiny.toml"), TINY, "w")
        subprocess.run([h.gpp, "convert", deck, os.path.join(work, "tiny.dat")], check=True, stdout=subprocess.DEVNULL)
        have_h5 = subprocess.run([h.gpp, "convert", deck, os.path.join(work, "tiny.h5")], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0
        attack_toml(h, rng, a.samples)
        attack_file(h, rng, a.samples, "dat")
        if have_h5:
            attack_file(h, rng, 2 * a.samples, "h5")
            attack_h5_types(h)
        attack_special(h)
        attack_options(h)
        attack_env(h)
        attack_outputs(h, have_h5)
        attack_kills(h, rng, a.kills, have_h5)
        groups = sorted({g for g, _ in h.counts})
        classes = ["ok", "refused", "verify", "late", "signal", "timeout", "bad-exit", "modified", "wrong",
                   "partial-file"]
        print(f"{'group':10s}" + "".join(f"{c:>9s}" for c in classes))
        for g in groups:
            print(f"{g:10s}" + "".join(f"{h.counts[(g, c)]:9d}" for c in classes))
        print(f"{'total':10s}" + "".join(f"{sum(h.counts[(g, c)] for g in groups):9d}" for c in classes))
        print(f"{h.runs} runs of gpp in {time.time() - t0:.1f} s; {len(h.failures)} failures, "
              f"{len(h.pending)} pending (output side, see docs/reliability.md)")
        for f in h.pending:
            print("PENDING", f)
        for f in h.failures:
            print("FAIL", f)
        return 1 if h.failures or (a.strict and h.pending) else 0
    finally:
        ro = os.path.join(work, "readonly")
        if os.path.isdir(ro):
            os.chmod(ro, 0o755)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
