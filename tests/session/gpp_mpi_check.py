#!/usr/bin/env python3
"""MPI over G' and G' chunks (docs/mpi.md), checked through the gpp binary.

  gpp_mpi_check.py --gpp GPP --source-dir DIR CASE [--np N] [--mpiexec MPIEXEC]

CASE:
  agree   gpp run under N ranks equals 1 rank and the independent oracle (tests/oracle),
          every policy on the host, on decks whose ngpown N does not divide; the
          record and RESULT lines carry the rank count; a .dat input read by every rank
          gives the same sums; a reference stored in the reference cache by N ranks is
          taken by 1 and one stored by 1 rank by N, each within the oracle's bound.
  chunks  --max-device-mem small enough for several G' chunks equals the unchunked run
          (at N ranks under mpiexec, or without mpiexec when --np is not given).
  errors  bad input under N ranks: one line on stderr, exit status 1, no hang; also
          when only some ranks fail (MPMD launch: other ranks get other arguments).
  session gpp started without a launcher (an MPI singleton) keeps Open MPI's session
          directory in a directory of its own under TMPDIR, not in the host's shared
          TMPDIR/ompi.HOST.UID, and leaves nothing in TMPDIR; a start removes the
          directory of a singleton killed by SIGKILL, not that of one alive; a base the user set
          (OMPI_MCA_orte_tmpdir_base) is the one used; eight singletons started at once,
          again and again, all start. Exit 77 (skipped) where the MPI library keeps no
          such directory (a control run, blocked there, does not fail).

Tolerances (docs/mpi.md "summation bound"): a sum of n terms whose magnitudes add up to
M, computed in any order in double precision, lies within atol = (128 + 4 sqrt(n)) u M
of the exact sum (tests/oracle/test_oracle.cpp, u = 2^-53), so two orders (1 rank and N ranks,
chunked and unchunked) differ by at most 2 atol; rtol = 1e-11 as the oracle test. M and
n come from the oracle files. Decks without them: rtol 1e-10 of the value (the default
tolerance: up to 300x cancellation on ~1e5 terms gives 2 * (128 + 4 sqrt(1e5)) u * 300 < 1e-10).
A wrong share (a G' column dropped or counted twice) moves a sum by ~1/ngpown (5%).
"""
import argparse
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

# Open MPI's own lines are told from gpp's as the attack harness tells them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "attack"))
from gpp_attack import without_launcher  # noqa: E402

U = 2.0 ** -53
RTOL_ORACLE = 1e-11
FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg)


def env():
    e = dict(os.environ)
    # CI runs as root; Open MPI refuses that unless told; single copy through CMA needs
    # ptrace rights a container may not grant. After a rank's exit 1 mpiexec signals the
    # others SIGTERM and waits odls_base_sigkill_timeout (1 s) before SIGKILL, even when
    # they have ended: 2 s a refusal. What is checked here is what gpp prints and returns,
    # which the grace does not change, so the tests do not wait for it.
    e.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
              "OMPI_MCA_btl_vader_single_copy_mechanism": "none", "OMPI_MCA_rmaps_base_oversubscribe": "1",
              "OMPI_MCA_odls_base_sigkill_timeout": "0", "OMP_PROC_BIND": "false"})
    return e


def launch(args, np_, timeout=240, mpmd=None):
    """Runs gpp (under mpiexec when np_ is not None). mpmd: extra (count, argv) groups."""
    # The tests run on the host space; on a GPU build with fewer GPUs than ranks the
    # placement check would refuse them (docs/mpi.md "Binding").
    args = args + ["--allow-shared-device"]
    mpmd = [(count, extra + ["--allow-shared-device"]) for count, extra in mpmd or []]
    if np_ is None:
        cmd = [A.gpp] + args
    else:
        cmd = [A.mpiexec, "--oversubscribe", "-n", str(np_), A.gpp] + args
        for count, extra in mpmd:
            cmd += [":", "-n", str(count), A.gpp] + extra
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env())
    except subprocess.TimeoutExpired:
        fail("timed out (a hang?) after %d s: %s" % (timeout, " ".join(cmd)))
        return None
    return p


def run_json(args, np_, path):
    p = launch(["run"] + args + ["--json", path], np_)
    if p is None:
        return None, None
    if p.returncode != 0:
        fail("exit %d: %s\n%s%s" % (p.returncode, " ".join(args), p.stdout[-2000:], p.stderr[-2000:]))
        return None, p
    with open(path) as f:
        return json.load(f), p


def read_oracle(path):
    values = {}
    with open(path) as f:
        for line in f:
            line = line.split("#")[0].split()
            if not line:
                continue
            values.setdefault(line[0], []).append(line[1:])
    return values


def cplx(pair):
    return complex(float(pair[0]), float(pair[1]))


def close(label, got, want, atol, rtol):
    diff = abs(got - want)
    if not diff <= atol + rtol * abs(want):
        fail("%s: %r vs %r, |diff| %.3g > atol %.3g + rtol %.1g |want|" % (label, got, want, diff, atol, rtol))
        return False
    return True


def compare_records(label, a, b, oracle=None):
    """Every run of record a against the same run of record b (and the oracle)."""
    ok = True
    if len(a["runs"]) != len(b["runs"]) or not a["runs"]:
        fail("%s: %d runs vs %d" % (label, len(a["runs"]), len(b["runs"])))
        return False
    nstart = a["deck"]["nstart"]
    by_policy = {r["policy"]: r for r in b["runs"]}
    if sorted(by_policy) != sorted(r["policy"] for r in a["runs"]):
        fail("%s: policies %s vs %s" % (label, [r["policy"] for r in a["runs"]], sorted(by_policy)))
        return False
    for ra in a["runs"]:
        rb = by_policy[ra["policy"]]
        if not (ra["verified"] and rb["verified"]):
            fail("%s: %s not verified" % (label, ra["policy"]))
            ok = False
        for key, mag in (("achtemp", "sch_magnitude"), ("asxtemp", "ssx_magnitude")):
            for w, (x, y) in enumerate(zip(ra[key], rb[key])):
                iw = nstart + w
                where = "%s %s %s(iw=%d)" % (label, ra["policy"], key, iw)
                if oracle:
                    n = float(oracle["terms_per_sum"][0][0])
                    m = float([v for v in oracle[mag] if int(v[0]) == iw][0][1])
                    atol = (128 + 4 * math.sqrt(n)) * U * m
                    ok &= close(where + " vs 1 rank", cplx(x), cplx(y), 2 * atol, RTOL_ORACLE)
                    want = cplx([v for v in oracle[key] if int(v[0]) == iw][0][1:])
                    ok &= close(where + " vs oracle", cplx(x), want, atol, RTOL_ORACLE)
                else:
                    ok &= close(where, cplx(x), cplx(y), 0.0, 1e-10)
    sa, sb = a.get("static_remainder"), b.get("static_remainder")
    if sa and sb:
        ok &= close(label + " achstemp", cplx(sa["achstemp"]), cplx(sb["achstemp"]), 0.0, 1e-10)
    if a.get("branches") != b.get("branches"):
        fail("%s: branch counts %s vs %s" % (label, a.get("branches"), b.get("branches")))
        ok = False
    return ok


def check_ranks(label, rec, proc, n):
    if rec["ranks"] != n or len(rec["rank_placement"]) != n:
        fail("%s: record says %d ranks (%d placement lines), expected %d" % (label, rec["ranks"], len(rec["rank_placement"]), n))
    for run in rec["runs"]:
        if run["ranks"] != n or len(run["rank_kernel_median_s"]) != n or not all(t > 0 for t in run["rank_kernel_median_s"]):
            fail("%s: %s ranks %s, per-rank kernel times %s" % (label, run["policy"], run["ranks"], run["rank_kernel_median_s"]))
    results = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
    if len(results) != len(rec["runs"]) or not all(l.endswith(" ranks=%d" % n) for l in results):
        fail("%s: RESULT lines (%d, once each, ending ranks=%d):\n%s" % (label, len(rec["runs"]), n, "\n".join(results)))
    if n > 1:
        placement = [l for l in proc.stdout.splitlines() if l.startswith("rank ") and " of %d: host " % n in l]
        if len(placement) != n:
            fail("%s: expected %d placement lines, got %d" % (label, n, len(placement)))
        if "imbalance" not in proc.stdout:
            fail("%s: no per-rank timing line" % label)


def deck(name):
    return os.path.join(A.source_dir, "tests", "oracle", name + ".toml")


def check_stored_reference(label, rec, oracle, source):
    """The record's reference came from `source` (the reference cache: "stored" where a run
    of another rank count stored it) and lies within the oracle's bound."""
    v = rec["verification"]
    if v["reference_source"] != source:
        fail("%s: reference_source %s, expected %s" % (label, v["reference_source"], source))
    nstart = rec["deck"]["nstart"]
    n = float(oracle["terms_per_sum"][0][0])
    for key, mag in (("achtemp", "sch_magnitude"), ("asxtemp", "ssx_magnitude")):
        for w, x in enumerate(v[key]):
            iw = nstart + w
            m = float([t for t in oracle[mag] if int(t[0]) == iw][0][1])
            want = cplx([t for t in oracle[key] if int(t[0]) == iw][0][1:])
            close("%s reference %s(iw=%d) vs oracle" % (label, key, iw), cplx(x), want,
                  (128 + 4 * math.sqrt(n)) * U * m, RTOL_ORACLE)


def case_agree(tmp):
    n = A.np
    fast = ["--policy", "all", "--space", "host", "--repeat", "1", "--warmup", "0"]
    for name in ("wide-gamma", "small-gamma"):
        oracle = read_oracle(os.path.join(A.source_dir, "tests", "oracle", name + ".expected"))
        # The reference cache holds the whole deck's reference: stored by N ranks (the first
        # deck) or one (the second), taken by the other count.
        first, second = (n, 1) if name == "wide-gamma" else (1, n)
        runs = {}
        for count in (first, second):
            runs[count] = run_json([deck(name)] + fast, count, os.path.join(tmp, "%s-%d.json" % (name, count)))
        (one, _), (many, p) = runs[1], runs[n]
        if one and many:
            ngpown = many["deck"]["ngpown"]
            print("%s: ngpown %d over %d ranks (%s)" % (name, ngpown, n, "remainder %d" % (ngpown % n)))
            compare_records("%s %d ranks" % (name, n), many, one, oracle)
            check_ranks(name, many, p, n)
            if n > 1:
                check_stored_reference("%s, %d ranks" % (name, first), runs[first][0], oracle, "computed")
                check_stored_reference("%s, %d ranks" % (name, second), runs[second][0], oracle, "stored")
    # ngpown 29 (prime): no rank count divides it; the uniform closed form too.
    odd = ["--generator", "random", "--seed", "7", "--nbands", "26", "--nvband", "9", "--ngpown", "29",
           "--ncouls", "203", "--skipped-gp", "3"]
    one, _ = run_json(odd + fast, 1, os.path.join(tmp, "odd-1.json"))
    many, p = run_json(odd + fast, n, os.path.join(tmp, "odd-%d.json" % n))
    if one and many:
        compare_records("ngpown 29, %d ranks" % n, many, one)
        check_ranks("ngpown 29", many, p, n)
    uni = ["--generator", "uniform", "--nbands", "12", "--nvband", "4", "--ngpown", "31", "--ncouls", "124",
           "--policy", "tuned,host", "--space", "host"]
    many, p = run_json(uni, n, os.path.join(tmp, "uniform-%d.json" % n))
    if many and many["verification"]["against"] != "closed form":
        fail("uniform deck verified against %s" % many["verification"]["against"])
    # A .dat file read by every rank, each keeping its columns.
    dat = os.path.join(tmp, "wide.dat")
    c = launch(["convert", deck("wide-gamma"), dat], None)
    if c is None or c.returncode != 0:
        fail("gpp convert: %s" % (c.stderr if c else "timeout"))
        return
    one, _ = run_json(["--input", dat] + fast, 1, os.path.join(tmp, "dat-1.json"))
    many, p = run_json(["--input", dat] + fast, n, os.path.join(tmp, "dat-%d.json" % n))
    if one and many:
        oracle = read_oracle(os.path.join(A.source_dir, "tests", "oracle", "wide-gamma.expected"))
        compare_records(".dat %d ranks" % n, many, one, oracle)
        check_ranks(".dat", many, p, n)


def case_chunks(tmp):
    n = A.np
    common = [deck("small-gamma"), "--space", "host", "--repeat", "1", "--warmup", "0"]
    base = common + ["--policy", "all"]
    oracle = read_oracle(os.path.join(A.source_dir, "tests", "oracle", "small-gamma.expected"))
    whole, _ = run_json(base + ["--no-reference-cache"], n, os.path.join(tmp, "whole.json"))
    # small-gamma: ncouls 1024, nbands 16, nw 1: the bands' arrays take 262,528 bytes, a G'
    # column 33,544 (session/gpp_chunks.cpp chunk_bytes); 400K leaves room for 4 columns: two
    # buffers of 2, so 10 chunks of the 20 columns on 1 rank, 5 of 10 on 2 ranks, 4 of 7 on 3.
    chunked, p = run_json(base + ["--max-device-mem", "400K"], n, os.path.join(tmp, "chunked.json"))
    if whole and chunked:
        counts = {r["chunks"] for r in chunked["runs"]}
        if not all(c > 1 for c in counts) or any(r["chunks"] != 1 for r in whole["runs"]):
            fail("chunk counts: chunked %s, whole %s" % (counts, {r["chunks"] for r in whole["runs"]}))
        print("chunks per pass: %s" % sorted(counts))
        compare_records("chunked vs whole", chunked, whole, oracle)
        check_stored_reference("chunked", chunked, oracle, "computed")  # the whole run stored none
        if "G' chunks on the host" not in p.stdout:
            fail("no chunk line in the output")
    # One column per chunk: the smallest budget that fits.
    tiny, _ = run_json(common + ["--max-device-mem", "300K", "--policy", "tuned,v0-collapse3"], n,
                       os.path.join(tmp, "tiny.json"))
    if tiny and whole:
        want = [r for r in whole["runs"] if r["policy"] in ("tuned", "v0-collapse3")]
        compare_records("one-column chunks", tiny, dict(whole, runs=want), oracle)
    # Too small for one column: refused before any work.
    p = launch(["run"] + base + ["--max-device-mem", "100K"], n)
    if p is not None:
        expect_one_error("--max-device-mem below one column", p, "too small for one G' column")


def gpp_lines(p):
    """gpp's own lines on stderr: Open MPI's notices and prefixed lines left out."""
    err = without_launcher(p.stdout.encode(), p.stderr.encode())[1].decode()
    return [l for l in err.splitlines() if l.strip()]


def expect_one_error(label, p, text):
    # Exactly one line of gpp's: no other line after it (a stop line, when mpirun ends
    # rank 0 as it tears down after another rank's exit 1).
    lines = gpp_lines(p)
    if p.returncode != 1 or len(lines) != 1 or "error" not in lines[0] or text not in lines[0] or "RESULT" in p.stdout:
        fail("%s: exit %d, expected one error line containing %r; stderr:\n%s\nstdout:\n%s"
             % (label, p.returncode, text, p.stderr[-1500:], p.stdout[-500:]))
    else:
        print("%s: %s" % (label, lines[0]))


def case_errors(tmp):
    n = A.np
    good = [deck("small-gamma"), "--policy", "tuned", "--space", "host", "--repeat", "1"]
    cases = [
        ("ngpown > ncouls", ["run", "--nbands", "8", "--ngpown", "50", "--ncouls", "40"], "must not exceed ncouls"),
        ("missing input file", ["run", "--input", os.path.join(tmp, "missing.h5")], "missing.h5"),
        ("more ranks than G'", ["run", "--nbands", "8", "--ngpown", str(n - 1), "--ncouls", "40", "--skipped-gp", "0"]
         if n > 1 else None, "G' columns to share"),
        ("bad --max-device-mem", ["run"] + good + ["--max-device-mem", "lots"], "--max-device-mem must be"),
    ]
    if n > 1:
        cases.append(("bench on several ranks", ["bench", deck("small-gamma")], "runs on one rank"))
    for label, args, text in cases:
        if args is None:
            continue
        p = launch(args, n, timeout=120)
        if p is not None:
            expect_one_error(label, p, text)
    if n > 1:
        # The ranks end at once after an error they agree on; the first to exit non-zero
        # makes mpirun send SIGTERM to the others, rank 0 among them, while it tears down.
        # Its answer must stand whatever the order: repeated, as the order varies.
        for i in range(10):
            p = launch(cases[0][1], n, timeout=120)
            if p is not None:
                expect_one_error("%s, launch %d of 10" % (cases[0][0], i + 1), p, cases[0][2])
        # Rank 0 has a good deck, the others a file that does not exist: every rank must
        # learn of it and stop (one line, from rank 0, naming the failing rank).
        p = launch(["run"] + good, 1, timeout=120, mpmd=[(n - 1, ["run", "--input", os.path.join(tmp, "absent.dat")])])
        if p is not None:
            expect_one_error("only ranks 1.. fail", p, "rank 1: ")
        # And the other way round.
        p = launch(["run", "--input", os.path.join(tmp, "absent.dat")], 1, timeout=120, mpmd=[(n - 1, ["run"] + good)])
        if p is not None:
            expect_one_error("only rank 0 fails", p, "absent.dat")


def tiny_long():
    # A run of a few seconds: long enough to be killed or stopped while it holds its directory.
    return ["run", deck("small-gamma"), "--policy", "tuned", "--space", "host", "--repeat", "400", "--warmup", "0"]


def start_and_wait_for_its_directory(args, e, tmpdir, label):
    """Starts gpp ARGS as a singleton in TMPDIR tmpdir; returns (process, its directory) once
    the directory holds its lock file, or None."""
    before = set(os.listdir(tmpdir))
    proc = subprocess.Popen([A.gpp] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(e, TMPDIR=tmpdir))
    deadline = time.time() + 60
    while time.time() < deadline and proc.poll() is None:
        for name in set(os.listdir(tmpdir)) - before:
            if os.path.exists(os.path.join(tmpdir, name, "held-by-a-running-gpp")):
                return proc, os.path.join(tmpdir, name)
        time.sleep(0.01)
    out = proc.communicate()[0] if proc.poll() is not None else ""
    if proc.poll() is None:
        proc.kill()
    fail("%s: no directory of its own with its lock appeared in TMPDIR (exit %s)\n%s"
         % (label, proc.returncode, out[-1500:]))
    return None


def case_session(tmp):
    # A regular file where Open MPI 4 makes the host's session directory: a singleton that
    # uses the shared place cannot start; one with a directory of its own does.
    tmpdir = os.path.join(tmp, "tmpdir")
    os.mkdir(tmpdir)
    host = socket.gethostname()
    blocks = sorted({"ompi.%s.%d" % (h, os.geteuid()) for h in (host, host.split(".")[0])})
    for b in blocks:
        open(os.path.join(tmpdir, b), "w").close()
    tiny = ["run", deck("small-gamma"), "--policy", "tuned", "--space", "host", "--repeat", "1", "--warmup", "0"]
    base = env()
    base.pop("OMPI_MCA_orte_tmpdir_base", None)
    base["TMPDIR"] = tmpdir

    def singleton(extra_env, label):
        e = dict(base, **extra_env)
        try:
            return subprocess.run([A.gpp] + tiny, capture_output=True, text=True, timeout=120, env=e)
        except subprocess.TimeoutExpired:
            fail("%s: timed out (a hang?) after 120 s" % label)
            return None

    # The control: the user's base is the blocked TMPDIR itself.
    control = singleton({"OMPI_MCA_orte_tmpdir_base": tmpdir}, "user's base")
    if control is None:
        return
    if control.returncode == 0:
        print("SKIP: this MPI library does not keep its session directory at TMPDIR/ompi.HOST.UID "
              "(a run whose base is blocked there started)")
        sys.exit(77)
    if "mkdir" not in control.stdout + control.stderr:
        fail("user's base: exit %d without Open MPI's mkdir message (was the base not the one used?):\n%s"
             % (control.returncode, (control.stdout + control.stderr)[-1500:]))
    left = sorted(os.listdir(tmpdir))
    p = singleton({}, "own directory")
    if p is not None:
        if p.returncode != 0:
            fail("own directory: exit %d with the shared place blocked:\n%s"
                 % (p.returncode, (p.stdout + p.stderr)[-1500:]))
        else:
            print("own directory: started with TMPDIR/%s blocked" % blocks[0])
        after = sorted(os.listdir(tmpdir))
        if after != left:
            fail("own directory: TMPDIR holds %s after the run, %s before" % (after, left))
    # A singleton killed (SIGKILL) leaves its directory; the next start removes it, and
    # leaves alone the directory of one that lives (stopped, SIGSTOP, holding its lock).
    for b in blocks:
        os.remove(os.path.join(tmpdir, b))
    killed = start_and_wait_for_its_directory(tiny_long(), base, tmpdir, "killed")
    stopped = start_and_wait_for_its_directory(tiny_long(), base, tmpdir, "stopped") if killed else None
    if killed and stopped:
        killed[0].kill()
        killed[0].wait()
        stopped[0].send_signal(signal.SIGSTOP)
        if not os.path.isdir(killed[1]):
            fail("killed: its directory %s went with it (nothing to check)" % killed[1])
        p = singleton({}, "after a kill")
        if p is not None and p.returncode != 0:
            fail("after a kill: exit %d\n%s" % (p.returncode, (p.stdout + p.stderr)[-1500:]))
        if os.path.isdir(killed[1]):
            fail("a start left the killed singleton's %s in TMPDIR" % killed[1])
        else:
            print("a start removed the killed singleton's directory")
        if not os.path.isdir(stopped[1]):
            fail("a start removed %s, the directory of a singleton that lives" % stopped[1])
        else:
            print("a start left a living singleton's directory alone")
        stopped[0].send_signal(signal.SIGCONT)
        out, _ = stopped[0].communicate(timeout=240)
        if stopped[0].returncode != 0:
            fail("stopped: exit %d after SIGCONT\n%s" % (stopped[0].returncode, out[-1500:]))
        if os.listdir(tmpdir):
            fail("TMPDIR holds %s after every singleton ended" % sorted(os.listdir(tmpdir)))
    # Starts racing ends: eight at a time in a TMPDIR of their own, 40 in all. With the
    # host's shared directory about one start in 200 failed this way.
    crowd = os.path.join(tmp, "crowd")
    os.mkdir(crowd)
    e = dict(base, TMPDIR=crowd)
    failed = []
    for wave in range(5):
        procs = [subprocess.Popen([A.gpp] + tiny, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e)
                 for _ in range(8)]
        for q in procs:
            out, _ = q.communicate(timeout=240)
            if q.returncode != 0:
                failed.append(out[-600:])
    if failed:
        fail("%d of 40 singletons started at once failed; the first:\n%s" % (len(failed), failed[0]))
    else:
        print("40 singletons, 8 at a time: all started")
    if os.listdir(crowd):
        fail("the crowd left %s in its TMPDIR" % sorted(os.listdir(crowd)))


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("case", choices=["agree", "chunks", "errors", "session"])
    ap.add_argument("--gpp", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--mpiexec", default=None)
    ap.add_argument("--np", type=int, default=None)
    A = ap.parse_args()
    if A.np is not None and not A.mpiexec:
        ap.error("--np needs --mpiexec")
    if A.case in ("agree", "errors") and A.np is None:
        ap.error(A.case + " needs --np and --mpiexec")
    with tempfile.TemporaryDirectory() as tmp:
        # The reference cache of these runs (docs/wall-time.md): their own, never the user's.
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "xdg-cache")
        {"agree": case_agree, "chunks": case_chunks, "errors": case_errors, "session": case_session}[A.case](tmp)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
