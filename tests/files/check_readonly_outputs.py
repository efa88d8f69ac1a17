#!/usr/bin/env python3
"""One rule for existing outputs, for every command and format (files/gpp_outputs.hpp,
require_replaceable): an output file its user may not write (its owner made it read-only)
is refused before any work in one line, exit 1, as the shell's `>` refuses it, and left as
it was; the same file made writable is written. The rule is about a user's rights, which
root bypasses: run as root (as the tests are here), every gpp runs as `nobody` through
setpriv; run as another user, gpp runs as that user.

  check_readonly_outputs.py --gpp GPP --source-dir SRC [--hdf5] [--python PY]

Exit 0 when every case is as expected, 1 otherwise, 77 (skipped) when root cannot drop
its rights here (no setpriv, or no user nobody)."""
import argparse
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpp", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--python", default="", help="a python3 for tools/gpp_plot.py (its own --out)")
    ap.add_argument("--hdf5", action="store_true", help="this gpp writes HDF5 results (--output)")
    a = ap.parse_args()
    gpp = os.path.abspath(a.gpp)
    deck = os.path.join(os.path.abspath(a.source_dir), "inputs", "small.toml")
    plot = os.path.join(os.path.abspath(a.source_dir), "tools", "gpp_plot.py")

    drop = []
    uid = gid = None
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        try:
            user = pwd.getpwnam("nobody")
        except KeyError:
            user = None
        if not setpriv or not user:
            print("check_readonly_outputs: skipped: running as root, and no setpriv or no user nobody to drop "
                  "root's rights to (root may write any file, so the rule cannot be seen as root)")
            return SKIP
        uid, gid = user.pw_uid, user.pw_gid
        drop = [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]
        # The user must reach the binary and the deck.
        for p in (gpp, deck):
            r = subprocess.run(drop + ["test", "-r", p, "-a", "-x", os.path.dirname(p)])
            if r.returncode != 0:
                print(f"check_readonly_outputs: skipped: user nobody cannot reach {p} (a private folder on its path)")
                return SKIP

    work = tempfile.mkdtemp(prefix="gpp-readonly.")
    os.chmod(work, 0o777)
    failures = []
    tiny = ["--nbands", "12", "--ngpown", "8", "--ncouls", "40", "--nvband", "5", "--repeat", "1", "--warmup", "0"]

    def own(path):
        if uid is not None:
            os.chown(path, uid, gid)

    def run(argv, extra_env=None):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPP_")}
        env.update(HOME=work, OMP_PROC_BIND="false")
        env.update(extra_env or {})
        return subprocess.run(drop + argv, cwd=work, env=env, capture_output=True, text=True, timeout=600)

    # (name, the file, the command line that writes it, extra environment)
    cases = [
        ("run --json", "r.json", [gpp, "run", deck, "--json", "r.json"] + tiny, None),
        ("run --csv", "r.csv", [gpp, "run", deck, "--csv", "r.csv"] + tiny, None),
        ("bench --json", "b.json", [gpp, "bench", deck, "--policy", "host", "--json", "b.json"] + tiny, None),
        ("bench --csv", "b.csv", [gpp, "bench", deck, "--policy", "host", "--csv", "b.csv"] + tiny, None),
        ("sweep --csv", "s.csv", [gpp, "sweep", deck, "--policy", "host", "--band-block", "4,8", "--csv", "s.csv"]
         + tiny, None),
        ("sweep --resume", "s2.csv", [gpp, "sweep", deck, "--policy", "host", "--band-block", "4,8", "--resume",
                                      "s2.csv"] + tiny, None),
        ("sweep --tuning-out", "t.json", [gpp, "sweep", deck, "--policy", "host", "--band-block", "4,8",
                                          "--tuning-out", "t.json"] + tiny, None),
        ("tune, its tuning file from GPP_TUNING_FILE", "t2.json", [gpp, "tune", deck, "--policy", "host",
                                                                    "--budget", "5"] + tiny,
         {"GPP_TUNING_FILE": os.path.join(work, "t2.json")}),
        ("roofline --csv", "rf.csv", [gpp, "roofline", deck, "--policy", "host", "--csv", "rf.csv"] + tiny, None),
        ("roofline --json", "rf.json", [gpp, "roofline", deck, "--policy", "host", "--csv", "rf2.csv", "--json",
                                        "rf.json"] + tiny, None),
        ("ceilings --json", "c.json", [gpp, "ceilings", "--quick", "--json", "c.json"], None),
        ("convert OUT", "d.dat", [gpp, "convert", deck, "d.dat"] + tiny[:8], None),
    ]
    if a.hdf5:
        cases.append(("run --output", "r.h5", [gpp, "run", deck, "--output", "r.h5"] + tiny, None))
    if a.python and subprocess.run([a.python, "-c", "import matplotlib"], capture_output=True).returncode == 0:
        table_csv = os.path.join(os.path.abspath(a.source_dir), "tests", "fixtures", "roofline-h100.csv")
        cases.append(("gpp_plot.py table --out", "table.md", [a.python, plot, "table", "--csv", table_csv, "--out",
                                                               "table.md"], None))
        os.makedirs(os.path.join(work, "charts"))
        os.chmod(os.path.join(work, "charts"), 0o777)
        cases.append(("roofline --plot (a chart file)", "charts/times.png",
                      [gpp, "roofline", deck, "--policy", "host", "--csv", "rf3.csv", "--plot", "charts"] + tiny,
                      {"GPP_PLOT_PYTHON": a.python}))

    for name, rel, argv, extra in cases:
        path = os.path.join(work, rel)
        text = "made read-only by its owner\n"
        for f in os.listdir(work):
            if f.endswith(".lock") or ".tmp" in f:
                os.unlink(os.path.join(work, f))
        with open(path, "w") as f:
            f.write(text)
        own(path)
        os.chmod(path, 0o444)
        r = run(argv, extra)
        lines = [l for l in r.stderr.split("\n") if l]
        problems = []
        if r.returncode != 1:
            problems.append(f"exit {r.returncode}, expected 1")
        if len(lines) != 1 or "Permission denied" not in lines[0] or rel.split("/")[-1] not in lines[0]:
            problems.append(f"expected one line naming {rel} and 'Permission denied', got {lines}")
        if r.stdout.strip():
            problems.append(f"printed before refusing: {r.stdout.strip()[:200]!r}")
        with open(path, "rb") as f:
            if f.read() != text.encode():
                problems.append("the file was replaced")
        if (os.stat(path).st_mode & 0o777) != 0o444:
            problems.append("the file's mode was changed")
        left = [f for f in os.listdir(os.path.dirname(path)) if ".tmp" in f]
        if left:
            problems.append(f"left behind: {left}")
        if problems:
            failures.append(f"{name}: " + "; ".join(problems))
        else:
            print(f"ok   {name}: {lines[0]}")
        os.chmod(path, 0o644)
        os.unlink(path)

    # Two-sided: the same file writable by its user is written (the refusal is the mode's).
    path = os.path.join(work, "w.json")
    with open(path, "w") as f:
        f.write("old\n")
    own(path)
    os.chmod(path, 0o644)
    r = run([gpp, "run", deck, "--json", "w.json"] + tiny)
    if r.returncode != 0 or open(path, "rb").read() == b"old\n":
        failures.append(f"a writable --json file was not written: exit {r.returncode}, {r.stderr.strip()[:300]}")
    else:
        print("ok   run --json onto a file its user may write: written")

    shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f"FAIL {f}")
    print(f"check_readonly_outputs: {len(cases) + 1 - len(failures)} of {len(cases) + 1} cases as expected"
          + (" (as user nobody)" if drop else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
