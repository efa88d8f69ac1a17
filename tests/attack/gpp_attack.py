#!/usr/bin/env python3
"""Attack harness for gpp: damaged decks and files of every format, special
files, bad options and environment variables, unwritable and aliased outputs, and kills
mid-write. Runs the built gpp on each case with a timeout and asserts its outcome class.

Outcome classes of one run. Good outcomes:
  ok          exit 0 (numbers verified, or a legitimately different deck)
  refused     exit 1, exactly one short line on stderr, nothing on stdout
  verify      exit 2 (verification failed: a damaged array against the stored reference)
Failures (docs/reliability.md counts them; all must be zero):
  crash       killed by a signal
  hang        no answer within the time limit
  wrong       exit 0 with a forged, corrupt or missing output, or refused for another reason
  late        exit 1 after results were printed on stdout
  destroyed   an input file changed, or a partial file under an output's final name
  unclear     any other exit code, more than one line on stderr, or a line that echoes
              what it refuses at length (more than kMaxMessage bytes)
Every case names the classes it accepts; anything else is a failure. Cases marked
`pending` are counted and printed but do not fail the run (work not done yet).
Usage: gpp_attack.py --gpp PATH [--samples N] [--seed S] [-v] [--mpiexec PATH --np N]
(with --mpiexec, every command runs under `mpiexec -n N`, the one-rank commands under -n 1,
and the group `mpi` launches ranks that disagree)
"""
import argparse
import collections
import hashlib
import csv
import json
import os
import platform
import random
import re
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

kMaxMessage = 1000  # bytes of one error line

GOOD = {"ok"}
REFUSED = {"refused"}
ANY_CLEAN = {"ok", "refused", "verify"}


class Harness:
    def __init__(self, gpp, work, verbose, timeout, mpiexec=None, np=1):
        self.gpp = gpp
        self.mpiexec = mpiexec
        self.np = np
        self.work = work
        self.verbose = verbose
        self.timeout = timeout
        self.counts = collections.Counter()  # (group, class)
        self.failures = []
        self.pending = []
        self.runs = 0
        self.keep = None

    def command(self, args):
        """The command line of one gpp run: under mpiexec when given (-n 1 for the commands
        that run on one rank only)."""
        if not self.mpiexec:
            return [self.gpp] + args
        many = bool(args) and args[0] in ("run", "policies")
        return [self.mpiexec, "-n", str(self.np if many else 1), self.gpp] + args + self.shared(args)

    def shared(self, args):
        """Under mpiexec, every rank of a GPU build on a machine with fewer GPUs than ranks would
        be refused by the placement check (docs/mpi.md "Binding") before the case's own input is
        read. The harness attacks inputs, not placement: its ranks may share a GPU. gpp takes the
        flag out of its arguments before it parses them, so the cases' command lines are
        unchanged."""
        return ["--allow-shared-device"] if self.mpiexec and args else []

    def classify(self, args, env=None, inputs=(), cwd=None, timeout=None, raw=None):
        digests = {p: digest(p) for p in inputs}
        full_env = dict(os.environ)
        full_env.pop("KOKKOS_NUM_THREADS", None)
        if env:
            full_env.update(env)
        self.runs += 1
        # A case's own timeout (10 s for the special files) is short for one gpp process. Under
        # mpiexec on a loaded machine the launch of the ranks alone can take over 10 s (2
        # ranks on 2 cores beside another shard, as in CI), so there the harness's --timeout
        # is the least a case gets.
        limit = timeout or self.timeout
        if self.mpiexec:
            limit = max(limit, self.timeout)
        try:
            p = subprocess.run(raw or self.command(args), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=full_env, cwd=cwd or self.work,
                               timeout=limit, start_new_session=True)
        except subprocess.TimeoutExpired:
            return "hang", b"", b""
        out, err = p.stdout, without_notes(p.stderr)
        if self.mpiexec:
            out, err = without_launcher(out, err)
        for path, d in digests.items():
            if digest(path) != d:
                return "destroyed", out, err
        return exit_class(p.returncode, out, err), out, err

    def case(self, group, name, args, accept, env=None, inputs=(), pending=False, timeout=None, check=None,
             says=None, raw=None):
        cls, out, err = self.classify(args, env=env, inputs=inputs, timeout=timeout, raw=raw)
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


def without_notes(err):
    """gpp's note lines ("gpp: note: ", a reference cache it could not use or write,
    docs/wall-time.md) are said while it works and never end a run: not its answer. A case
    under a file-size limit cannot store its reference, and says so. In a build with
    AddressSanitizer (the asan preset's, allocator_may_return_null=1), an allocation it
    cannot make returns null, as glibc's malloc does, and the sanitizer says so in a line
    of its own: HDF5 asks for sizes read from a damaged file, then refuses the file."""
    return b"".join(l for l in err.splitlines(True)
                    if not l.startswith(b"gpp: note: ") and not kAsanAllocationWarning.match(l))


kAsanAllocationWarning = re.compile(rb"==\d+==WARNING: AddressSanitizer failed to allocate 0x[0-9a-f]+ bytes$")


def without_launcher(out, err):
    """gpp's own output under mpiexec: the placement lines rank 0 prints at start (docs/mpi.md),
    Open MPI's notices between lines of dashes (a rank's non-zero exit, MPI_Abort) and the
    launcher's own lines, which it prefixes with [host:pid] (its help-message aggregation)
    or, for those of libevent inside it, with the severity ("[warn] Epoll MOD(1) on fd 23
    failed", as mpiexec tears down ranks on an oversubscribed machine), are not gpp's
    answer. gpp never starts a line of stderr with "[" (a campaign's lines on stdout start
    with "[k/n] ")."""
    out = b"".join(l for l in out.splitlines(True) if not re.match(rb"rank \d+ of \d+: ", l))
    kept, banner = [], False
    for l in err.splitlines(True):
        if l.startswith(b"-----"):
            banner = not banner
            continue
        if not banner and not re.match(rb"\[([^\]\s]+:\d+|debug|msg|warn|err)\] ", l):
            kept.append(l)
    return out, b"".join(kept)


def exit_class(code, out, err):
    if code < 0 or code >= 128:  # a signal (mpiexec reports a rank's as 128 + N)
        return "crash"
    if code == 0:
        return "ok"
    if code == 2:
        return "verify"
    if code == 1:
        if out.strip():
            return "late"
        if err.count(b"\n") != 1 or not err.endswith(b"\n") or len(err) > kMaxMessage:
            return "unclear"
        return "refused"
    return "unclear"


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
        ["--kokkos-device-id=x"], ["--kokkos-map-device-id-by=bogus"], ["--kokkos-num-devices=1,y"], ["--threads=abc"],
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
                       ("KOKKOS_MAP_DEVICE_ID_BY", "explicit"),
                       ("KOKKOS_TUNE_INTERNALS", "2")]:
        h.case("env", f"{var}={value!r}", ["run", deck, "--repeat", "1"], REFUSED, env={var: value})
    h.case("env", "threads-option-and-variable-disagree", ["run", deck, "--kokkos-threads=1", "--repeat", "1"],
           {"ok", "refused"}, env={"KOKKOS_NUM_THREADS": "2"})
    # A small stack (ulimit -s 32): the host policy's buffer lives on the heap.
    cls, out, err = run_with_limits(h, ["run", deck, "--policy", "all", "--repeat", "1"], stack_kb=32)
    record(h, "env", "ulimit-s-32-all-policies", cls, err, GOOD)
    for name, lim in [("ulimit-v-256MB", 256 << 20)]:
        if emulated(h.gpp):
            print(f"env/{name}: not run: gpp is built for another machine and runs under an emulator "
                  "(qemu-user), whose own reservations an address-space limit binds", flush=True)
            continue
        if sanitized(h.gpp):
            print(f"env/{name}: not run: gpp is built with {sanitized(h.gpp)}, whose shadow memory is a reservation "
                  "of terabytes that no address-space limit allows", flush=True)
            continue
        cls, out, err = run_with_limits(h, ["run", deck, "--repeat", "1"], as_bytes=lim)
        record(h, "env", name, cls, err, {"ok", "refused"})


def sanitized(path):
    """The sanitizer the program at `path` is built with ("" for none): the asan and fuzz
    presets' builds call __asan_init (ThreadSanitizer builds __tsan_init) as they start."""
    import mmap
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            for symbol, name in ((b"__asan_init", "AddressSanitizer"), (b"__tsan_init", "ThreadSanitizer")):
                if m.find(symbol) >= 0:
                    return name
    except (OSError, ValueError):
        pass
    return ""


def emulated(path):
    """True when the program at `path` is an ELF file for another machine than this one: the
    kernel runs it through binfmt_misc by an emulator (qemu-user for scripts/arm-build.sh).
    qemu-user reserves the guest's address space in its own process, so `ulimit -v` stops
    the emulator before gpp starts ("mmap stack: Cannot allocate memory")."""
    machines = {"x86_64": 62, "aarch64": 183, "ppc64le": 21, "riscv64": 243}
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return False
    here = machines.get(platform.machine())
    if len(head) < 20 or head[:4] != b"\x7fELF" or here is None:
        return False
    return int.from_bytes(head[18:20], "little" if head[5] == 1 else "big") != here


# Under mpiexec the limits are gpp's, not the launcher's: each rank execs gpp through this
# (limits as JSON, then gpp's argv). mpiexec itself under `ulimit -s 32` or `-f 1` fails in
# its own ways, which say nothing of gpp.
LIMITED_EXEC = ("import json, os, resource, sys\n"
                "for k, v in json.loads(sys.argv[1]).items(): resource.setrlimit(getattr(resource, k), (v, v))\n"
                "os.execv(sys.argv[2], sys.argv[2:])")


def run_with_limits(h, args, stack_kb=None, as_bytes=None, fsize=None):
    import resource

    limits = {}
    if stack_kb:
        limits["RLIMIT_STACK"] = stack_kb * 1024
    if as_bytes:
        limits["RLIMIT_AS"] = as_bytes
    if fsize is not None:
        limits["RLIMIT_FSIZE"] = fsize

    def limit():
        for k, v in limits.items():
            resource.setrlimit(getattr(resource, k), (v, v))

    command = h.command(args)
    if h.mpiexec:
        at = command.index(h.gpp)
        command[at:at] = [sys.executable, "-c", LIMITED_EXEC, json.dumps(limits)]
    h.runs += 1
    try:
        p = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=h.work, timeout=h.timeout, preexec_fn=None if h.mpiexec else limit)
    except subprocess.TimeoutExpired:
        return "hang", b"", b""
    out, err = p.stdout, without_notes(p.stderr)
    if h.mpiexec:
        out, err = without_launcher(out, err)
    return exit_class(p.returncode, out, err), out, err


def record(h, group, name, cls, err, accept, pending=False):
    h.counts[(group, cls)] += 1
    line = err.decode("utf-8", "replace").strip().splitlines()
    summary = f"{group}/{name}: {cls}" + (f" ({line[-1][:200]})" if line else "")
    if cls not in accept:
        (h.pending if pending else h.failures).append(summary + f" [expected {'/'.join(sorted(accept))}]")
    if h.verbose:
        print(summary, flush=True)


def attack_outputs(h, have_h5):
    """Unwritable, aliased and full outputs, checked before any work; a case gpp does not
    yet meet is `pending` (and fails under --strict)."""
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
        # `gpp run` prints its header (provenance, deck) before the long work
        # (docs/wall-time.md): a failed write at the end is its one line after that header.
        if cls == "late" and args[0] == "run" and out.startswith(b"gpp ") and b"RESULT" not in out:
            cls = "refused" if err.count(b"\n") == 1 and err.endswith(b"\n") else "unclear"
        leftover = [f for f in os.listdir(w) if f.startswith(out_path)]
        if leftover:
            cls = "destroyed"
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
            cls = "ok" if c == "ok" else "hang" if c == "hang" else "destroyed"
        record(h, "kills", f"{sig.name}-{os.path.basename(target)}-{i}", cls, b"", GOOD)


def fixtures(h):
    """A tuning file, a sweep CSV and a ceilings file of this machine, made by gpp itself."""
    w = h.work
    deck = os.path.join(w, "tiny.toml")
    tuning, csv_path, ceil = (os.path.join(w, n) for n in ("good-tuning.json", "good-sweep.csv", "good-ceilings.json"))
    subprocess.run([h.gpp, "sweep", deck, "--policy", "host", "--band-block", "4,8", "--repeat", "1", "--warmup", "0",
                    "--csv", csv_path], check=True, stdout=subprocess.DEVNULL, cwd=w)
    # The tuning file a sweep writes when its best point beats the defaults (which a tiny
    # deck on a shared machine need not show): the CSV's fastest row as an entry.
    with open(csv_path, newline="") as f:
        best = min((r for r in csv.DictReader(f) if r["status"] == "ok"), key=lambda r: float(r["time_median_s"]))
    entry = {"device": best["device"], "backend": best["backend"], "policy": "host", "size_class": "small",
             "tunables": {"band_block": int(best["band_block"]), "ig_block": int(best["ig_block"])},
             "time_median_s": float(best["time_median_s"]), "deck": best["deck"], "date": best["date"]}
    write(tuning, json.dumps({"schema_version": 1, "kind": "gpp-tuning", "entries": [entry]}), "w")
    # The host's ceilings: the roofline cases below run the host policy (in a GPU build too,
    # where `gpp ceilings` alone would measure the GPU, which a host roofline refuses).
    subprocess.run([h.gpp, "ceilings", "--quick", "--space", "host", "--json", ceil], check=True,
                   stdout=subprocess.DEVNULL, cwd=w)
    return deck, tuning, csv_path, ceil


def copy(h, src, name):
    return shutil.copy(src, os.path.join(h.work, name))


def special_files(h):
    """Paths that are not regular files, and symlinks to them."""
    w = h.work
    fifo = os.path.join(w, "fifo2")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    d = os.path.join(w, "adir.json")
    os.makedirs(d, exist_ok=True)
    links = {}
    for name, target in [("link-to-fifo", fifo), ("link-to-zero", "/dev/zero")]:
        p = os.path.join(w, name)
        if not os.path.lexists(p):
            os.symlink(target, p)
        links[name] = p
    return {"fifo": fifo, "dev-zero": "/dev/zero", "directory": d, **links}


def attack_inputs(h, deck, tuning, csv_path, ceil):
    """Every input of every command as a FIFO, /dev/zero, a directory, a symlink to those:
    one line, exit 1, nothing blocks."""
    w = h.work
    home = os.path.join(w, "home-special")
    os.makedirs(os.path.join(home, ".config", "gpp"), exist_ok=True)
    cfg = os.path.join(home, ".config", "gpp", "tuning.json")
    for kind, bad in special_files(h).items():
        cases = [
            ("run --tuning", ["run", deck, "--repeat", "1", "--tuning", bad], None),
            ("bench --tuning", ["bench", deck, "--policies", "host", "--repeat", "1", "--tuning", bad], None),
            ("run $GPP_TUNING_FILE", ["run", deck, "--repeat", "1"], {"GPP_TUNING_FILE": bad}),
            ("sweep --resume", ["sweep", deck, "--policy", "host", "--band-block", "4", "--repeat", "1", "--resume", bad],
             None),
            ("sweep --tuning-out", ["sweep", deck, "--policy", "host", "--band-block", "4", "--repeat", "1",
                                    "--tuning-out", bad], None),
            ("tune --tuning-out", ["tune", deck, "--policy", "host", "--repeat", "1", "--tuning-out", bad], None),
            ("roofline --ceilings", ["roofline", deck, "--policy", "host", "--repeat", "1", "--csv",
                                     os.path.join(w, "r.csv"), "--ceilings", bad], None),
            ("convert IN", ["convert", bad, os.path.join(w, "conv.h5")], None),
            ("run deck", ["run", bad], None),
        ]
        for name, args, env in cases:
            h.case("inputs", f"{name}={kind}", args, REFUSED, env=env, timeout=20)
        # ~/.config/gpp/tuning.json as a special file
        if os.path.lexists(cfg):
            os.remove(cfg) if not os.path.isdir(cfg) or os.path.islink(cfg) else os.rmdir(cfg)
        if kind == "directory":
            os.mkdir(cfg)
        else:
            os.symlink(bad, cfg)
        h.case("inputs", f"run ~/.config/gpp/tuning.json={kind}", ["run", deck, "--repeat", "1"], REFUSED,
               env={"HOME": home, "GPP_TUNING_FILE": ""}, timeout=20)
        if os.path.isdir(cfg) and not os.path.islink(cfg):
            os.rmdir(cfg)
        else:
            os.remove(cfg)


def attack_aliases(h, deck, tuning, csv_path, ceil):
    """Every output onto every input, however spelled (a symlink, a hard link, ./x): refused,
    the input unchanged."""
    w = h.work
    t = copy(h, tuning, "alias-tuning.json")
    c = copy(h, csv_path, "alias-sweep.csv")
    ce = copy(h, ceil, "alias-ceilings.json")
    d = copy(h, deck, "alias-deck.toml")
    os.symlink(t, os.path.join(w, "t-link.json"))
    os.link(t, os.path.join(w, "t-hard.json"))
    os.symlink(c, os.path.join(w, "c-link.csv"))
    os.symlink(ce, os.path.join(w, "ce-link.json"))
    dat = copy(h, os.path.join(w, "tiny.dat"), "alias.dat")
    os.symlink(dat, os.path.join(w, "dat-link.dat"))
    home = os.path.join(w, "home-alias")
    os.makedirs(os.path.join(home, ".config", "gpp"), exist_ok=True)
    cfg = shutil.copy(tuning, os.path.join(home, ".config", "gpp", "tuning.json"))
    sweep = ["sweep", d, "--policy", "host", "--band-block", "4", "--repeat", "1"]
    cases = [
        ("run --json onto --tuning (symlink)", ["run", d, "--repeat", "1", "--tuning", t, "--json",
                                                 os.path.join(w, "t-link.json")], None, [t, d]),
        ("run --csv onto --tuning (hard link)", ["run", d, "--repeat", "1", "--tuning", t, "--csv",
                                                  os.path.join(w, "t-hard.json")], None, [t, d]),
        ("run --json onto $GPP_TUNING_FILE", ["run", d, "--repeat", "1", "--json", "./alias-tuning.json"],
         {"GPP_TUNING_FILE": t}, [t, d]),
        ("run --json onto ~/.config/gpp/tuning.json", ["run", d, "--repeat", "1", "--json", cfg],
         {"HOME": home, "GPP_TUNING_FILE": ""}, [cfg, d]),
        ("bench --csv onto --tuning", ["bench", d, "--policies", "host", "--repeat", "1", "--tuning", t, "--csv", t],
         None, [t, d]),
        ("run --json onto the deck (symlink)", ["run", d, "--repeat", "1", "--json", os.path.join(w, "d-link.toml")],
         None, [d]),
        ("sweep --json onto --resume", sweep + ["--resume", c, "--json", os.path.join(w, "c-link.csv")], None, [c, d]),
        ("sweep --tuning-out onto --resume", sweep + ["--resume", c, "--tuning-out", c], None, [c, d]),
        ("sweep --csv onto --tuning-out", sweep + ["--tuning-out", t, "--csv", os.path.join(w, "t-link.json")],
         None, [t, d]),
        ("sweep --csv and --json one file", sweep + ["--csv", os.path.join(w, "same.out"), "--json",
                                                     os.path.join(w, ".", "same.out")], None, [d]),
        ("tune --csv onto --tuning-out", ["tune", d, "--policy", "host", "--repeat", "1", "--tuning-out", t,
                                          "--csv", os.path.join(w, "t-hard.json")], None, [t, d]),
        ("tune --json onto $GPP_TUNING_FILE", ["tune", d, "--policy", "host", "--repeat", "1", "--json", t],
         {"GPP_TUNING_FILE": t}, [t, d]),
        ("roofline --csv onto --ceilings", ["roofline", d, "--policy", "host", "--repeat", "1", "--ceilings", ce,
                                            "--csv", os.path.join(w, "ce-link.json")], None, [ce, d]),
        ("roofline --json onto --ceilings", ["roofline", d, "--policy", "host", "--repeat", "1", "--ceilings", ce,
                                             "--csv", os.path.join(w, "rr.csv"), "--json", ce], None, [ce, d]),
        ("convert OUT a symlink to IN", ["convert", dat, os.path.join(w, "dat-link.dat")], None, [dat]),
        ("convert --deck onto OUT", ["convert", "--deck", d, os.path.join(w, "d-link.dat")], None, [d]),
    ]
    os.symlink(d, os.path.join(w, "d-link.toml"))
    os.symlink(d, os.path.join(w, "d-link.dat"))
    for name, args, env, inputs in cases:
        h.case("aliases", name, args, REFUSED, env=env, inputs=inputs)


def attack_forged(h, deck, tuning, csv_path, ceil):
    """Files that are believed: forged, garbage and foreign rows and values."""
    w = h.work
    doc = json.load(open(tuning))
    entry = doc["entries"][0]

    def tuning_with(name, **changes):
        d = json.loads(json.dumps(doc))
        d["entries"][0].update(changes)
        return write(os.path.join(w, name), json.dumps(d), "w")

    bad_tuning = {
        "time-negative": tuning_with("t1.json", time_median_s=-1),
        "time-zero": tuning_with("t2.json", time_median_s=0),
        "time-huge": tuning_with("t3.json", time_median_s=1e300),
        "tunable-beyond-2^20": tuning_with("t4.json", tunables={"band_block": 2 ** 21}),
        "tunable-float": tuning_with("t5.json", tunables={"band_block": 4.5}),
        "tunable-negative": tuning_with("t6.json", tunables={"band_block": -4}),
        "key-twice": write(os.path.join(w, "t7.json"), json.dumps(doc)[:-1] + ', "kind": "gpp-tuning"}', "w"),
        "nested-deep": write(os.path.join(w, "t8.json"), "[" * 100000 + "]" * 100000, "w"),
        "not-json": write(os.path.join(w, "t9.json"), "{entries: nope", "w"),
        "device-control-chars": tuning_with("t10.json", device="cpu\nRESULT forged"),
        "over-16MiB": write(os.path.join(w, "t11.json"), " " * (17 << 20) + "{}", "w"),
    }
    for name, path in bad_tuning.items():
        h.case("forged", f"tuning {name}", ["run", deck, "--repeat", "1", "--tuning", path], REFUSED, inputs=[path],
               timeout=20)
    # Many keys in one object: read in n log n (it was n^2 and took minutes).
    many = dict(entry)
    many.update({f"k{i}": i for i in range(200000)})
    d = json.loads(json.dumps(doc))
    d["entries"][0] = many
    p = write(os.path.join(w, "t-many.json"), json.dumps(d), "w")
    h.case("forged", "tuning 200000 unknown keys", ["run", deck, "--repeat", "1", "--tuning", p], {"ok"},
           inputs=[p], timeout=20)
    # Fields gpp does not know survive a merge (tune into a file that has them).
    d = json.loads(json.dumps(doc))
    d["note"] = "kept"
    d["entries"][0]["comment"] = "kept too"
    p = write(os.path.join(w, "t-unknown.json"), json.dumps(d), "w")
    os.chmod(p, 0o640)

    def kept(out):
        try:
            got = json.load(open(p))
        except (OSError, ValueError) as e:
            return f"tuning file unreadable: {e}"
        # The entry itself goes when the defaults win (measure/gpp_decide.hpp); where it
        # stays, so do the fields gpp does not know.
        if got.get("note") != "kept" or any(e.get("comment") != "kept too" for e in got["entries"]):
            return "fields gpp does not know were dropped by the merge"
        if stat.S_IMODE(os.stat(p).st_mode) != 0o640:
            return "the tuning file lost its mode"
        return None

    h.case("forged", "tune keeps unknown fields and the mode", ["tune", deck, "--policy", "host", "--repeat", "1",
                                                                 "--budget", "5", "--tuning-out", p], GOOD, check=kept)
    # Resumed sweep CSVs: rows of another device, backend, build or deck; forged times.
    header, *rows = open(csv_path).read().splitlines()
    cols = header.split(",")

    def csv_with(name, **changes):
        out = [header]
        for r in rows:
            f = r.split(",")
            for k, v in changes.items():
                f[cols.index(k)] = v
            out.append(",".join(f))
        return write(os.path.join(w, name), "\n".join(out) + "\n", "w")

    first = rows[0].split(",")
    t_med = float(first[cols.index("time_median_s")])
    bad_csv = {
        "another-device": csv_with("s1.csv", device="NVIDIA H100 80GB HBM3"),
        "another-backend": csv_with("s2.csv", backend="Cuda"),
        "another-build": csv_with("s3.csv", git="0123456789ab"),
        "another-deck": csv_with("s4.csv", deck="si214"),
        "another-kokkos": csv_with("s5.csv", kokkos="9.9.9"),
        "time-nan": csv_with("s6.csv", time_median_s="nan"),
        "time-negative": csv_with("s7.csv", time_min_s="-1", time_median_s="-1"),
        "time-forged-tiny": csv_with("s8.csv", time_min_s="1e-30", time_median_s="1e-30"),
        "time-forged-consistent": csv_with("s9.csv", time_min_s="1e-12", time_median_s="1e-12",
                                           updates_per_s=repr(float(first[cols.index("updates")]) / 1e-12)),
        "tunable-beyond-2^20": csv_with("s10.csv", band_block=str(2 ** 21)),
        "garbage-rate": csv_with("s11.csv", updates_per_s="fast"),
    }
    for name, path in bad_csv.items():
        h.case("forged", f"resume {name}", ["sweep", deck, "--policy", "host", "--band-block", "4,8,16", "--repeat",
                                             "1", "--resume", path, "--csv", os.path.join(w, "resumed.csv")],
               REFUSED, inputs=[path])
    # Ceilings: another device, garbage values; --ceilings-any-device is the explicit override.
    cdoc = json.load(open(ceil))

    def ceil_with(name, mutate):
        d = json.loads(json.dumps(cdoc))
        mutate(d)
        return write(os.path.join(w, name), json.dumps(d), "w")

    bad_ceil = {
        "another-device": ceil_with("c1.json", lambda d: d["device"].update(name="NVIDIA H100 80GB HBM3", backend="Cuda")),
        "peak-negative": ceil_with("c2.json", lambda d: d["compute"][0].update(gflops=-5)),
        "peak-string": ceil_with("c3.json", lambda d: d["compute"][0].update(gflops="fast")),
        "no-peak": ceil_with("c4.json", lambda d: d.update(compute=[])),
        "bandwidth-nan": write(os.path.join(w, "c5.json"), json.dumps(cdoc).replace('"gbs": ', '"gbs": NaN, "x": ', 1), "w"),
        "kind-in-a-string": write(os.path.join(w, "c6.json"), json.dumps({"comment": '"kind": "gpp-ceilings"',
                                                                         "schema_version": 1}), "w"),
        "level-unknown": ceil_with("c7.json", lambda d: d["bandwidth"][0].update(level="L9")),
    }
    roof = ["roofline", deck, "--policy", "host", "--repeat", "1", "--csv", os.path.join(w, "roof.csv")]
    for name, path in bad_ceil.items():
        h.case("forged", f"ceilings {name}", roof + ["--ceilings", path], REFUSED, inputs=[path])
    h.case("forged", "ceilings another-device --ceilings-any-device",
           roof + ["--ceilings", bad_ceil["another-device"], "--ceilings-any-device"], GOOD)
    h.case("forged", "ceilings of this machine", roof + ["--ceilings", ceil], GOOD)


def attack_numbers(h, deck):
    """Lists and numbers parsed strictly; a refused value is quoted short."""
    w = h.work
    huge = "x" * 100000  # one argument may hold at most 128 KiB (MAX_ARG_STRLEN)
    sweep = ["sweep", deck, "--policy", "host", "--repeat", "1"]
    cases = [
        ["run", deck, "--policy", "host,,v0-collapse3"], ["run", deck, "--policy", "host,"],
        ["run", deck, "--policy", ",host"], ["run", deck, "--policy", "host,host"],
        ["bench", deck, "--policies", "host,"], ["sweep", deck, "--policy", "host,", "--band-block", "4"],
        sweep + ["--band-block", "4,,8"], sweep + ["--band-block", "4,"], sweep + ["--band-block", "nan"],
        sweep + ["--tile", "4x4x4,"], ["run", deck, "--tile", "1,,2", "--policy", "v0-collapse3"],
        ["tune", deck, "--policy", "host", "--budget", "nan"], ["tune", deck, "--policy", "host", "--budget", "inf"],
        ["tune", deck, "--policy", "host", "--budget", "-1"], ["tune", deck, "--policy", "host", "--budget", "1e400"],
        ["run", deck, "--repeat", "1e400"], ["run", deck, "--repeat", "2000000"], ["run", deck, "--warmup", "9e9"],
        ["run", deck, "--rtol", "inf"], ["run", deck, "--rtol", "1e400"], ["run", deck, "--max-device-mem", "nan"],
        ["roofline", deck, "--policy", "host", "--csv", os.path.join(w, "n.csv"), "--profiler-timeout", "nan"],
        ["roofline", deck, "--policy", "host", "--csv", os.path.join(w, "n.csv"), "--plot-timeout", "-1"],
        ["run", deck, "--policy", huge], ["run", deck, "--nbands", "9" * 100000], ["run", deck, "--json", huge],
        ["run", deck, "--name", "n" * 100000 + "\n"], ["sweep", deck, "--policy", "host", "--band-block", "4" * 100000],
        ["convert", huge, os.path.join(w, "o.h5")], ["run", deck, "--" + huge],
    ]
    for args in cases:
        name = " ".join(a if len(a) < 40 else a[:20] + f"...[{len(a)}]" for a in args[2:]) or args[0]
        h.case("numbers", f"{args[0]} {name}", args, REFUSED, inputs=[deck])


def attack_refusals(h, deck):
    """Input that once ran, or was refused for the wrong reason or at length: one
    line naming the problem, exit 1, nothing on stdout."""
    w = h.work
    sweep = ["sweep", deck, "--policy", "host", "--band-block", "4", "--repeat", "1"]
    for name, args, says in [
            ("sweep --policy ''", ["sweep", deck, "--policy", ""], "--policy: an empty value"),
            ("tune --policy ''", ["tune", deck, "--policy", ""], "--policy: an empty value"),
            ("run --json ''", ["run", deck, "--json", ""], "--json: an empty value"),
            ("tune --budget 0", ["tune", deck, "--budget", "0"], "--budget: must be a positive finite number"),
            ("sweep without a deck", ["sweep", "--policy", "host"], "no deck"),
            ("run without a deck", ["run"], "no deck"),
            ("--efermi 1e308", ["run", deck, "--efermi", "1e308"], "efermi must be between -1e6 and 1e6"),
            ("--e-lk -1e300", ["run", deck, "--e-lk", "-1e300"], "e_lk must be between -1e6 and 1e6"),
            ("--gamma 1e-300", ["run", deck, "--gamma", "1e-300"], "gamma must be between"),
            ("--nstart INT_MIN", ["run", deck, "--nstart", "-2147483648", "--nend", "-2147483647"], "nstart must be"),
            ("--tile 4x4 for a rank-3 tile", ["run", deck, "--policy", "v0-collapse3", "--tile", "4x4"], "needs 3 sizes"),
            ("--tile 4x4,4", ["run", deck, "--policy", "v0-collapse3", "--tile", "4x4,4"], "give one tile"),
            ("convert a deck name not found", ["convert", "no-such-deck", os.path.join(w, "n.dat")], "no deck"),
            # An option's value with a dot is the option's: the refusal is the size, after them.
            ("--tuning-out tune.dat", sweep + ["--tuning-out", os.path.join(w, "t.dat"), "--nbands", "0"],
             "nbands must be positive"),
            ("--name si214.h5", ["run", deck, "--name", "si214.h5", "--nbands", "0"], "nbands must be positive")]:
        h.case("refusals", name, args, REFUSED, inputs=[deck], says=says)
    # KOKKOS_TOOLS_LIBS is Kokkos 3.7's name: an older Kokkos ignored it, gpp refuses it there.
    version = subprocess.run([h.gpp, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"^Kokkos (\d+)\.(\d+)", version, re.M)
    tools_libs = m is not None and (int(m.group(1)), int(m.group(2))) >= (3, 7)
    for var in ("KOKKOS_PROFILE_LIBRARY", "KOKKOS_TOOLS_LIBS"):
        old_name = var == "KOKKOS_TOOLS_LIBS" and not tools_libs
        h.case("refusals", f"{var}=/nonexistent.so", ["run", deck, "--repeat", "1"], REFUSED,
               env={var: "/nonexistent.so"},
               says="does not read it" if old_name else "cannot load the Kokkos tools library")
        # A library that loads but is no tool (Kokkos 5 aborts with a backtrace on it).
        h.case("refusals", f"{var}=libm.so.6", ["run", deck, "--repeat", "1"], REFUSED,
               env={var: "libm.so.6"}, says="does not read it" if old_name else "is not a Kokkos tools library")
    # Accepted: the printed tile, an option's value with a dot.
    h.case("refusals", "--tile 4x2x8 as printed", ["run", deck, "--policy", "v0-collapse3", "--tile", "4x2x8",
                                                   "--repeat", "1"], GOOD)
    h.case("refusals", "--name si214.h5 runs", ["run", deck, "--name", "si214.h5", "--repeat", "1"], GOOD)
    if h.mpiexec:
        return  # stdout is mpiexec's there; gpp's own is a pipe to the launcher
    for name, args in [("run", ["run", deck, "--repeat", "1"]), ("sweep", sweep), ("policies", ["policies"])]:
        h.runs += 1
        with open("/dev/full", "wb") as full:
            p = subprocess.run([h.gpp] + args, stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE,
                               cwd=w, timeout=h.timeout)
        cls = exit_class(p.returncode, b"", without_notes(p.stderr))
        if cls == "refused" and b"cannot write standard output" not in p.stderr:
            cls = "wrong"
        record(h, "refusals", f"{name} >/dev/full", cls, p.stderr, REFUSED)


def attack_cache(h, rng, n):
    """The reference cache ($XDG_CACHE_HOME/gpp, docs/wall-time.md) is an input gpp reads
    without being asked: whatever stands in a stored reference's place (damaged, random or
    another deck's bytes, truncations, bit flips, special files, links, folders) or in the
    cache folder's, a run computes its reference again (a note), verifies and exits 0; it
    never waits on a FIFO, reads /dev/zero, or writes through a link into another file."""
    w = os.path.join(h.work, "cache-attack")
    os.makedirs(w)
    cache = os.path.join(w, "xdg")
    env = {"XDG_CACHE_HOME": cache}
    deck = os.path.join(h.work, "tiny.toml")
    run = ["run", deck, "--policy", "host", "--space", "host", "--repeat", "1", "--warmup", "0"]

    def verified(out):
        text = out.decode("utf-8", "replace")
        return "" if "PASSED" in text and "FAILED" not in text else "not verified: " + text[-300:]
    h.case("cache", "first run stores", run, GOOD, env=env, check=verified)
    store = os.path.join(cache, "gpp")
    names = [f for f in os.listdir(store) if f.startswith("reference-")] if os.path.isdir(store) else []
    if len(names) != 1:
        h.failures.append(f"cache/first run stores: {len(names)} files in {store}, expected one")
        return
    path = os.path.join(store, names[0])
    good = open(path, "rb").read()
    # Another deck's whole file under this deck's name.
    other = dict(env, XDG_CACHE_HOME=os.path.join(w, "other"))
    h.case("cache", "another deck stores", run + ["--seed", "8"], GOOD, env=other, check=verified)
    other_dir = os.path.join(w, "other", "gpp")
    foreign = open(os.path.join(other_dir, os.listdir(other_dir)[0]), "rb").read()
    contents = {"another deck's file": foreign, "empty": b"", "zeros": bytes(len(good)),
                "json null": b"null", "a run record": b'{"kind":"gpp-record","schema_version":1}'}
    for i in range(n):
        contents[f"random bytes {i}"] = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 3 * len(good))))
        cut = rng.randrange(0, len(good))
        contents[f"truncated at {cut}"] = good[:cut]
        flipped = bytearray(good)
        at = rng.randrange(0, len(good))
        flipped[at] ^= 1 << rng.randrange(8)
        contents[f"bit flip at {at}"] = bytes(flipped)
    for name, data in contents.items():
        write(path, data)
        h.case("cache", name, run, GOOD, env=env, check=verified)
    # Special files and links in the file's place; the deck behind a link is never written.
    specials = {
        "fifo": lambda: os.mkfifo(path),
        "folder": lambda: os.mkdir(path),
        "link to /dev/zero": lambda: os.symlink("/dev/zero", path),
        "link to the deck": lambda: os.symlink(deck, path),
        "dangling link": lambda: os.symlink(os.path.join(w, "nowhere"), path),
        "link loop": lambda: os.symlink(path, path),
        "sparse 16 GB file": lambda: os.truncate(write(path, b"{"), 1 << 34),
    }
    for name, make in specials.items():
        if os.path.isdir(path) and not os.path.islink(path):
            os.rmdir(path)
        elif os.path.lexists(path):
            os.remove(path)
        make()
        h.case("cache", name, run, GOOD, env=env, inputs=[deck], timeout=20, check=verified)
    # The cache folder itself: a regular file, a FIFO, /dev/null, a link loop.
    for name, make in {"cache folder a file": lambda p: write(p, b"x"), "cache folder a fifo": os.mkfifo,
                       "cache folder /dev/null": lambda p: os.symlink("/dev/null", p),
                       "cache folder a link loop": lambda p: os.symlink(p, p)}.items():
        base = os.path.join(w, "base-" + name.replace(" ", "-").replace("/", ""))
        os.makedirs(base)
        make(os.path.join(base, "gpp"))
        h.case("cache", name, run, GOOD, env={"XDG_CACHE_HOME": base}, timeout=20, check=verified)
    for name, value in {"XDG_CACHE_HOME relative": "relative/cache", "XDG_CACHE_HOME a file": deck,
                        "XDG_CACHE_HOME /dev/null": "/dev/null"}.items():
        h.case("cache", name, run, GOOD, env={"XDG_CACHE_HOME": value, "HOME": w}, inputs=[deck], timeout=20,
               check=verified)


def attack_late(h, deck):
    """A write that fails (a full disk: ulimit -f) is one line on stderr and exit 1, with no
    partial file. A campaign prints each point's line as it finishes and writes its summary
    files (JSON, tuning file) at the end: there the lines before the error are expected
    ("late" with one error line); a CSV it appends to is started before any point."""
    w = h.work
    cmds = {
        "bench": ["bench", deck, "--policies", "host", "--repeat", "1", "--json", "full-b.json"],
        "sweep": ["sweep", deck, "--policy", "host", "--band-block", "4,8", "--repeat", "1", "--json", "full-s.json"],
        "sweep-csv": ["sweep", deck, "--policy", "host", "--band-block", "4,8", "--repeat", "1", "--csv", "full-s.csv"],
        "tune": ["tune", deck, "--policy", "host", "--repeat", "1", "--budget", "5", "--tuning-out", "full-t.json",
                 "--json", "full-t2.json"],
        "ceilings": ["ceilings", "--quick", "--json", "full-c.json"],
        "roofline": ["roofline", deck, "--policy", "host", "--repeat", "1", "--csv", "full-r.csv", "--json",
                     "full-r.json"],
    }
    for name, args in cmds.items():
        cls, out, err = run_with_limits(h, args, fsize=200)
        accept = REFUSED
        if name in ("bench", "sweep", "tune", "ceilings"):
            accept = {"late"}
            if cls == "late" and (err.count(b"\n") != 1 or b"cannot write" not in err):
                cls = "unclear"
        if [f for f in os.listdir(w) if f.startswith("full-") and ".tmp." not in f and os.path.getsize(os.path.join(w, f)) == 0]:
            cls = "destroyed"
        for f in os.listdir(w):
            if f.startswith("full-"):
                os.remove(os.path.join(w, f))
        record(h, "late", f"{name} under ulimit -f", cls, err, accept)
    # Written through a symlink to its target, keeping the target's mode.
    target = write(os.path.join(w, "target.json"), "{}", "w")
    os.chmod(target, 0o600)
    link = os.path.join(w, "link.json")
    os.symlink(target, link)

    def through(out):
        if not os.path.islink(link):
            return "the symlink was replaced by a file"
        if stat.S_IMODE(os.stat(target).st_mode) != 0o600:
            return "the target lost its mode"
        try:
            json.load(open(target))
        except ValueError:
            return "the target is not the record"
        return None

    h.case("late", "run --json through a symlink keeps the mode", ["run", deck, "--repeat", "1", "--json", link],
           GOOD, check=through)


def attack_tools(h, deck, tuning, csv_path, ceil):
    """External programs under a time limit; a requested chart that was not drawn is an
    error; tools/gpp_plot.py refuses special files and outputs onto its inputs."""
    w = h.work
    hang = write(os.path.join(w, "hang-python"), "#!/bin/sh\nexec sleep 300\n", "w")
    os.chmod(hang, 0o755)
    fail = write(os.path.join(w, "fail-python"),
                 "#!/bin/sh\ncase \"$2\" in *matplotlib*) exit 0;; esac\necho 'chart failed' >&2\nexit 1\n", "w")
    os.chmod(fail, 0o755)
    plots = os.path.join(w, "plots")
    os.makedirs(plots, exist_ok=True)
    roof = ["roofline", deck, "--policy", "host", "--repeat", "1", "--csv", os.path.join(w, "p.csv"), "--plot", plots]
    h.case("tools", "--plot with a python that hangs", roof + ["--plot-timeout", "2"], REFUSED,
           env={"GPP_PLOT_PYTHON": hang}, timeout=30, says="did not answer within 2 s")
    # The charts are drawn at the end, after each policy's line: the failure is the one
    # line on stderr after them.
    h.case("tools", "--plot with a chart that fails", roof, {"late"}, env={"GPP_PLOT_PYTHON": fail},
           says="was not drawn")
    h.case("tools", "--plot into a file", roof[:-1] + [os.path.join(w, "tiny.toml")], REFUSED)
    plot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "gpp_plot.py")
    # A python3 with matplotlib (a pyenv or venv one first on PATH often lacks it).
    py = None
    for candidate in (os.environ.get("GPP_PLOT_PYTHON"), "/usr/bin/python3", shutil.which("python3")):
        if candidate and os.path.exists(candidate) and subprocess.run(
                [candidate, "-c", "import matplotlib, numpy"], capture_output=True).returncode == 0:
            py = candidate
            break
    if not py:
        print("tools: tools/gpp_plot.py cases skipped (no python3 with matplotlib)", flush=True)
        return
    fixtures_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")
    rcsv = copy(h, os.path.join(fixtures_dir, "roofline-h100.csv"), "plot-r.csv")
    for kind, bad in special_files(h).items():
        for name, args in [("--csv", ["times", "--csv", bad]),
                           ("--ceilings", ["roofline", "--csv", rcsv, "--ceilings", bad, "--policy", "tuned"])]:
            h.case("tools", f"gpp_plot.py {name}={kind}", args, REFUSED, raw=[py, plot] + args +
                   ["--out", os.path.join(w, "chart")], timeout=30)
    os.symlink(rcsv, os.path.join(w, "plot-link.png"))
    h.case("tools", "gpp_plot.py --out onto its --csv", [], REFUSED, inputs=[rcsv],
           raw=[py, plot, "times", "--csv", rcsv, "--deck", "si214", "--out", os.path.join(w, "plot-link")], timeout=60)


def attack_mpi(h, deck):
    """Ranks that disagree: another deck, seed, command or option on one rank. One line, exit
    1, never a hang."""
    if not h.mpiexec:
        return
    w = h.work
    other = write(os.path.join(w, "other.toml"), TINY.replace("seed = 7", "seed = 8"), "w")
    run = ["run", deck, "--repeat", "1"]
    cases = [
        ("another deck on rank 1", run, ["run", other, "--repeat", "1"]),
        ("another seed on rank 1", run, run + ["--seed", "9"]),
        ("another command on rank 1", run, ["bench", deck, "--repeat", "1"]),
        ("another policy on rank 1", run + ["--policy", "host"], run + ["--policy", "v0-collapse3"]),
        ("another tuning file on rank 1", run + ["--tuning", "none"], run + ["--tuning", os.path.join(w, "good-tuning.json")]),
        ("policies and run", ["policies"], run),
    ]
    for name, a, b in cases:
        raw = [h.mpiexec, "-n", "1", h.gpp] + a + h.shared(a) + [":", "-n", str(max(1, h.np - 1)), h.gpp] + b + h.shared(b)
        h.case("mpi", name, a, REFUSED, raw=raw, timeout=60, says="than rank 0")
    # The same command line, another deck behind it (a relative path in another working
    # directory) or other tunables (another $GPP_TUNING_FILE): the digests disagree.
    da, db = os.path.join(w, "rank-a"), os.path.join(w, "rank-b")
    os.makedirs(da, exist_ok=True)
    os.makedirs(db, exist_ok=True)
    write(os.path.join(da, "d.toml"), TINY, "w")
    write(os.path.join(db, "d.toml"), TINY.replace("seed = 7", "seed = 8"), "w")
    same = ["run", "d.toml", "--repeat", "1", "--policy", "host"]
    same = same + h.shared(same)
    rest = str(max(1, h.np - 1))
    h.case("mpi", "same command, another deck file on rank 1", same, REFUSED, timeout=60,
           raw=[h.mpiexec, "-n", "1", "-wdir", da, h.gpp] + same + [":", "-n", rest, "-wdir", db, h.gpp] + same,
           says="another deck")
    write(os.path.join(db, "d.toml"), TINY, "w")
    h.case("mpi", "same command, another tuning file on rank 1", same, REFUSED, timeout=60,
           raw=[h.mpiexec, "-n", "1", "-wdir", da, h.gpp] + same +
               [":", "-n", rest, "-wdir", db, "-x", "GPP_TUNING_FILE=" + os.path.join(w, "good-tuning.json"), h.gpp] + same,
           says="another deck and tunables")
    h.case("mpi", "same command, same deck on every rank", same, GOOD, timeout=60,
           raw=[h.mpiexec, "-n", "1", "-wdir", da, h.gpp] + same + [":", "-n", rest, "-wdir", db, h.gpp] + same)


# Every group of attacks, in the order they run. `--only` takes names from this list; the
# build's shards of the harness (tests/CMakeLists.txt) must cover it, which --list-groups
# lets the configure step check.
GROUPS = ["toml", "dat", "h5", "special", "options", "env", "outputs", "kills", "inputs", "aliases", "forged",
          "tools", "numbers", "refusals", "late", "cache", "mpi"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpp")
    ap.add_argument("--samples", type=int, default=40, help="sampled offsets per file kind (default 40; HDF5 twice that)")
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--strict", action="store_true", help="pending cases fail too")
    ap.add_argument("--mpiexec", help="run gpp under this mpiexec (the MPI build)")
    ap.add_argument("--np", type=int, default=2, help="ranks under --mpiexec (default 2)")
    ap.add_argument("--only", help="run only these groups (comma-separated, e.g. mpi,inputs)")
    ap.add_argument("--list-groups", action="store_true", help="print every group's name, one a line, and exit")
    ap.add_argument("--keep", help="copy the input of every failing case into this directory")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.list_groups:
        print("\n".join(GROUPS))
        return 0
    if not a.gpp:
        ap.error("--gpp is required")
    only = set(a.only.split(",")) if a.only else None
    unknown = sorted(only - set(GROUPS)) if only else []
    if unknown:
        ap.error(f"--only: no group named {', '.join(unknown)} (the groups: {', '.join(GROUPS)})")
    # Kokkos's OpenMP backend prints a four-line thread-binding advisory on stdout when
    # OMP_PROC_BIND is unset: Kokkos's message, not gpp's, and it would make every case
    # "late". The unit-test setting, as for the rest of the suite (tests/CMakeLists.txt).
    os.environ.setdefault("OMP_PROC_BIND", "false")
    rng = random.Random(a.seed)
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="gpp-attack-")
    # The cases' reference cache: the harness's own, never the user's (docs/wall-time.md).
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "xdg-cache")
    try:
        h = Harness(os.path.abspath(a.gpp), work, a.verbose, a.timeout, a.mpiexec, a.np)
        h.keep = os.path.abspath(a.keep) if a.keep else None
        deck = write(os.path.join(work, "tiny.toml"), TINY, "w")
        subprocess.run([h.gpp, "convert", deck, os.path.join(work, "tiny.dat")], check=True, stdout=subprocess.DEVNULL)
        have_h5 = subprocess.run([h.gpp, "convert", deck, os.path.join(work, "tiny.h5")], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0

        def want(g):
            assert g in GROUPS, f"group {g} is not in GROUPS"
            return only is None or g in only

        if want("toml"):
            attack_toml(h, rng, a.samples)
        if want("dat"):
            attack_file(h, rng, a.samples, "dat")
        if have_h5 and want("h5"):
            attack_file(h, rng, 2 * a.samples, "h5")
            attack_h5_types(h)
        if want("special"):
            attack_special(h)
        if want("options"):
            attack_options(h)
        if want("env"):
            attack_env(h)
        if want("outputs"):
            attack_outputs(h, have_h5)
        if want("kills"):
            attack_kills(h, rng, a.kills, have_h5)
        deck, tuning, csv_path, ceil = fixtures(h)
        for group, attack in [("inputs", attack_inputs), ("aliases", attack_aliases), ("forged", attack_forged),
                              ("tools", attack_tools)]:
            if want(group):
                attack(h, deck, tuning, csv_path, ceil)
        if want("numbers"):
            attack_numbers(h, deck)
        if want("refusals"):
            attack_refusals(h, deck)
        if want("late"):
            attack_late(h, deck)
        if want("cache"):
            attack_cache(h, rng, max(1, a.samples // 4))
        if want("mpi"):
            attack_mpi(h, deck)
        groups = sorted({g for g, _ in h.counts})
        classes = ["ok", "refused", "verify", "crash", "hang", "wrong", "late", "destroyed", "unclear"]
        print(f"{'group':10s}" + "".join(f"{c:>10s}" for c in classes))
        for g in groups:
            print(f"{g:10s}" + "".join(f"{h.counts[(g, c)]:10d}" for c in classes))
        print(f"{'total':10s}" + "".join(f"{sum(h.counts[(g, c)] for g in groups):10d}" for c in classes))
        print(f"{h.runs} runs of gpp in {time.time() - t0:.1f} s; {len(h.failures)} failures, "
              f"{len(h.pending)} pending" + (f" (mpiexec -n {h.np})" if h.mpiexec else ""))
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
