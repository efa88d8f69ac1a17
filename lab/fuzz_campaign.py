#!/usr/bin/env python3
"""A fuzzing campaign: gpp's libFuzzer targets (the `fuzz` preset) run until each has used
CPU_SECONDS of CPU time in all (user + system, its children included, every run of the
campaign added up), at most PARALLEL at a time, each under `nice -n 19` so that other work
on the machine goes first (with kernel.sched_autogroup_enabled = 0: otherwise each process
gets a share of its own whatever its niceness). docs/dev/testing.md, "A campaign".

  lab/fuzz_campaign.py --build build/fuzz --dir CAMPAIGN [--cpu-seconds 3600] [--parallel 2] TARGET...

TARGET is a target's name without `fuzz_` (dat, h5, toml, tuning, ceilings, csv_resume,
ncu_report, c_api). In CAMPAIGN: corpus/TARGET/ (a copy of tests/fuzz/corpus/TARGET on the
first run, then grown), artifacts/TARGET/ (libFuzzer's crash-, leak-, timeout- and oom-
files), logs/TARGET.log (each run's output, libFuzzer's final statistics at its end) and
summary.json (per target: CPU seconds in all and each run: its end, CPU and wall seconds,
exit status and why it ended). A target whose fuzzer stops by itself (a finding) is
recorded and not restarted. The summary is written after every poll: a campaign ended
by SIGKILL or a machine's end loses at most one poll's CPU time, and a campaign run again
in the same folder goes on from where it stopped. SIGINT or SIGTERM stop the fuzzers
(libFuzzer prints its statistics) and record them; SIGKILL ends them with the campaign."""
import argparse
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import time

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLL_S = 20
PR_SET_PDEATHSIG = 1


def end_with_parent():
    """In the fuzzer's process, before exec: SIGTERM when the campaign dies, even by SIGKILL
    (the fuzzer runs in a session of its own, which a terminal's signals do not reach)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the campaign's own handler still stops it on SIGINT and SIGTERM


def cpu_of(pid):
    """CPU seconds of pid and of its children, live and reaped; None once it is gone."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        own = sum(int(x) for x in fields[11:15]) / tick  # utime stime cutime cstime
    except (OSError, IndexError, ValueError):
        return None
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(c) for c in f.read().split()]
    except OSError:
        kids = []
    return own + sum(cpu_of(k) or 0.0 for k in kids)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="the fuzz build: BUILD/tests/fuzz/fuzz_TARGET")
    ap.add_argument("--dir", required=True, help="the campaign's folder (made if absent)")
    ap.add_argument("--cpu-seconds", type=float, default=3600)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--max-len", type=int, default=32768)
    ap.add_argument("targets", nargs="+")
    a = ap.parse_args()
    for t in a.targets:
        exe = os.path.join(a.build, "tests", "fuzz", "fuzz_" + t)
        if not os.access(exe, os.X_OK):
            sys.exit(f"fuzz_campaign: {exe}: no such fuzz target (build the fuzz preset first)")
        if not os.path.isdir(os.path.join(SOURCE, "tests", "fuzz", "corpus", t)):
            sys.exit(f"fuzz_campaign: no seed corpus tests/fuzz/corpus/{t}")
    if a.cpu_seconds <= 0 or a.parallel < 1:
        sys.exit("fuzz_campaign: --cpu-seconds and --parallel must be positive")
    for d in ("logs", "artifacts", "corpus"):
        os.makedirs(os.path.join(a.dir, d), exist_ok=True)
    summary_path = os.path.join(a.dir, "summary.json")
    summary = {}
    if os.path.exists(summary_path):
        with open(summary_path) as f:
            summary = json.load(f)
    # a run the last campaign did not record (it was killed): its last polled CPU time counts
    for t, s in summary.items():
        left = s.pop("running", None)
        if left:
            s["cpu_s"] += left["cpu_s"]
            s["runs"].append(dict(left, why="campaign ended while it ran (CPU time to its last poll)"))

    def save():
        tmp = summary_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(summary, f, indent=1)
        os.replace(tmp, summary_path)

    def done_cpu(t):
        return summary.get(t, {}).get("cpu_s", 0.0)

    queue = [t for t in a.targets if done_cpu(t) < a.cpu_seconds and not summary.get(t, {}).get("finding")]
    running = {}
    stopping = []

    def on_signal(sig, frame):
        stopping.append(sig)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    def start(t):
        corpus = os.path.join(a.dir, "corpus", t)
        if not os.path.isdir(corpus):
            shutil.copytree(os.path.join(SOURCE, "tests", "fuzz", "corpus", t), corpus)
        art = os.path.join(a.dir, "artifacts", t) + "/"
        os.makedirs(art, exist_ok=True)
        log = open(os.path.join(a.dir, "logs", t + ".log"), "a")
        cmd = ["nice", "-n", "19", os.path.join(a.build, "tests", "fuzz", "fuzz_" + t), corpus,
               "-dict=" + os.path.join(SOURCE, "tests", "fuzz", "dict", t + ".dict"), "-print_final_stats=1",
               "-rss_limit_mb=2048", "-malloc_limit_mb=2048", "-timeout=30", "-max_len=%d" % a.max_len,
               "-artifact_prefix=" + art, "-reload=0"]
        log.write("\n=== %s start: %s\n" % (time.strftime("%F %T"), " ".join(cmd)))
        log.flush()
        env = dict(os.environ, OMP_PROC_BIND="false",
                   ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:suppressions=" +
                   os.path.join(SOURCE, "cmake", "asan-suppressions.txt"),
                   UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1")
        # its own session: a Ctrl-C at the terminal reaches the campaign, which stops it
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                             preexec_fn=end_with_parent)
        running[t] = {"p": p, "log": log, "t0": time.time(), "cpu": 0.0}
        print(time.strftime("%T"), "started", t, "(%.0f of %.0f CPU s done)" % (done_cpu(t), a.cpu_seconds),
              flush=True)

    def record(t, why):
        r = running.pop(t)
        r["log"].close()
        s = summary.setdefault(t, {"cpu_s": 0.0, "wall_s": 0.0, "runs": []})
        s.pop("running", None)
        s["cpu_s"] += r["cpu"]
        s["wall_s"] += time.time() - r["t0"]
        s["runs"].append({"end": time.strftime("%F %T"), "cpu_s": r["cpu"], "wall_s": time.time() - r["t0"],
                          "rc": r["p"].returncode, "why": why})
        if why == "stopped by itself":
            s["finding"] = True
        save()
        print(time.strftime("%T"), t, why, "rc", r["p"].returncode, "CPU s %.0f in all" % s["cpu_s"], flush=True)

    def stop(t, why):
        p = running[t]["p"]
        os.kill(p.pid, signal.SIGINT)  # libFuzzer prints its final statistics
        try:
            p.wait(120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
        record(t, why)

    while (queue or running) and not stopping:
        while queue and len(running) < a.parallel:
            start(queue.pop(0))
        for _ in range(POLL_S):  # a second at a time: a signal is acted on within one
            if stopping:
                break
            time.sleep(1)
        for t in list(running):
            r = running[t]
            cpu = cpu_of(r["p"].pid)  # (nice execs the fuzzer: the same pid)
            if cpu is not None:
                r["cpu"] = cpu
            if r["p"].poll() is not None:
                record(t, "stopped by itself")
            elif r["cpu"] + done_cpu(t) >= a.cpu_seconds:
                stop(t, "CPU time reached")
            else:
                summary.setdefault(t, {"cpu_s": 0.0, "wall_s": 0.0, "runs": []})["running"] = {
                    "end": time.strftime("%F %T"), "cpu_s": r["cpu"], "wall_s": time.time() - r["t0"], "rc": None}
                save()
    for t in list(running):
        stop(t, "campaign stopped by signal %d" % stopping[0])
    if stopping:
        sys.exit(128 + stopping[0])
    for t in a.targets:
        print("%-12s %6.0f CPU s%s" % (t, done_cpu(t), "  (stopped by itself: see artifacts/%s)" % t
                                       if summary.get(t, {}).get("finding") else ""))


if __name__ == "__main__":
    main()
