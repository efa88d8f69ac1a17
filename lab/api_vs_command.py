#!/usr/bin/env python3
"""The library against the command: the same deck, policy and tunables through the C++ API
(gpp_api_bench, a caller's arrays) and through `gpp run`, in interleaved rounds of one call,
and the ratio of their kernel medians (docs/library.md, "Performance through the API").

  lab/api_vs_command.py --build build/serial --deck si214 [--policy host] [--space host]
                          [--repeat 5] [--rounds 5] [--tunable band-block=64]... [--json out.json]
  lab/api_vs_command.py --gpp GPP --bench GPP_API_BENCH --deck inputs/small.toml ...

Both runs read no tuning file (the shipped defaults, or the tunables given), verify nothing,
and time each run fenced after one warm-up; the static remainder is left out of both. The
deck is a TOML deck (a path, or a name under inputs/) made by gpp's generator in both, so
the sums must agree (1e-12 relative; the same runner on the same numbers): the script
exits 1 when they do not, or when a run fails. Rounds alternate which runs first. It
prints each round's medians and, at the end, the ratio of the medians of the rounds'
medians (API / command) with the range of the rounds' ratios: the noise."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

DECK_KEYS = ("name", "generator", "seed", "nbands", "ngpown", "ncouls", "nvband", "nstart", "nend", "gamma",
             "sexcut", "e_lk", "dw", "efermi", "tol", "skipped_gp")
SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_deck(deck):
    path = deck if os.path.isfile(deck) else os.path.join(SOURCE, "inputs", deck + ".toml")
    if not os.path.isfile(path):
        raise SystemExit(f"api_vs_command: no deck {deck!r} (a TOML file, or a name under {SOURCE}/inputs)")
    text = open(path, "rb").read()
    if tomllib:
        values = tomllib.loads(text.decode("utf-8"))
    else:  # the decks are `key = value` lines
        values = {}
        for line in text.decode("utf-8").splitlines():
            line = line.split("#")[0].strip()
            if "=" in line:
                k, v = (s.strip() for s in line.split("=", 1))
                values[k] = v.strip('"') if v.startswith('"') else (float(v) if "." in v or "e" in v else int(v))
    unknown = sorted(set(values) - set(DECK_KEYS))
    if unknown:
        raise SystemExit(f"api_vs_command: {path}: keys the helper does not pass: {', '.join(unknown)}")
    return path, values


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"api_vs_command: `{' '.join(cmd)}` exited {r.returncode}:\n{(r.stdout + r.stderr)[-2000:]}")
    return r.stdout


def first_run(path):
    with open(path, encoding="utf-8") as f:
        rec = json.load(f)
    return rec["runs"][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", help="a build folder: its app/gpp and tests/api/gpp_api_bench")
    ap.add_argument("--gpp")
    ap.add_argument("--bench")
    ap.add_argument("--deck", required=True)
    ap.add_argument("--policy", default="")
    ap.add_argument("--space", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--tunable", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--json", help="write the rounds and the summary here")
    a = ap.parse_args()
    gpp = a.gpp or (a.build and os.path.join(a.build, "app", "gpp"))
    bench = a.bench or (a.build and os.path.join(a.build, "tests", "api", "gpp_api_bench"))
    for what, exe in (("gpp", gpp), ("gpp_api_bench", bench)):
        if not exe or not os.access(exe, os.X_OK):
            raise SystemExit(f"api_vs_command: no {what} (--build or --{'gpp' if what == 'gpp' else 'bench'})")
    if a.repeat < 1 or a.rounds < 1:
        raise SystemExit("api_vs_command: --repeat and --rounds must be at least 1")
    path, deck = read_deck(a.deck)
    common_cmd = ["--repeat", str(a.repeat), "--warmup", "1"]
    command = [gpp, "run", path, "--verify", "none", "--no-branch-stats", "--tuning", "none"] + common_cmd
    api = [bench] + common_cmd
    for k, v in deck.items():
        api += ["--" + k, str(v)]
    for opt, value in (("--policy", a.policy), ("--space", a.space)):
        if value:
            command += [opt, value]
            api += [opt, value]
    for t in a.tunable:
        name, _, value = t.partition("=")
        if not value:
            raise SystemExit(f"api_vs_command: --tunable {t!r}: expected NAME=VALUE")
        api += ["--tunable", t]
        command += (["--" + name, value] if name in ("band-block", "ig-block", "team-size", "vector-length", "tile")
                    else ["--param", t])
    rounds = []
    with tempfile.TemporaryDirectory() as d:
        cj, aj = os.path.join(d, "command.json"), os.path.join(d, "api.json")
        print(f"deck {path}; {a.rounds} rounds of {a.repeat} timed runs (1 warm-up) each way")
        print(f"command: {' '.join(command)} --json FILE\napi:     {' '.join(api)} --json FILE")
        for i in range(a.rounds):
            order = [("command", command + ["--json", cj]), ("api", api + ["--json", aj])]
            for _, cmd in order if i % 2 == 0 else reversed(order):
                run(cmd)
            c, p = first_run(cj), first_run(aj)
            if c["policy"] != p["policy"] or c["tunables"] != p["tunables"]:
                raise SystemExit(f"api_vs_command: the two ran differently: command {c['policy']} {c['tunables']}, "
                                 f"api {p['policy']} {p['tunables']}")
            worst = 0.0
            for key in ("achtemp", "asxtemp"):
                for x, y in zip(c[key], p[key]):
                    zx, zy = complex(x[0], x[1]), complex(y[0], y[1])
                    worst = max(worst, abs(zx - zy) / max(abs(zx), 1e-300))
            if worst > 1e-12:
                raise SystemExit(f"api_vs_command: the sums differ by {worst:.3g} (relative): not the same deck?")
            mc, ma = statistics.median(c["times_s"]), statistics.median(p["times_s"])
            rounds.append({"command_median_s": mc, "api_median_s": ma, "ratio": ma / mc, "sums_rel_diff": worst})
            print(f"round {i + 1}: command {mc:.6g} s, api {ma:.6g} s, api/command {ma / mc:.4f} "
                  f"(sums differ by {worst:.1e})")
    mc = statistics.median(r["command_median_s"] for r in rounds)
    ma = statistics.median(r["api_median_s"] for r in rounds)
    ratios = [r["ratio"] for r in rounds]
    print(f"{p['policy']} on the {p['space']['kind'] if isinstance(p['space'], dict) else p['space']}: "
          f"command {mc:.6g} s, api {ma:.6g} s (medians of the rounds' medians); api/command {ma / mc:.4f}, "
          f"rounds {min(ratios):.4f}..{max(ratios):.4f}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"deck": path, "policy": p["policy"], "tunables": p["tunables"], "repeat": a.repeat,
                       "rounds": rounds, "command_median_s": mc, "api_median_s": ma, "ratio": ma / mc}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
