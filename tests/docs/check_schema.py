#!/usr/bin/env python3
"""The JSON gpp writes is what the schemas under docs/schema/ say (registered with ctest as
Docs.Schema and Docs.SchemaSelfTest).

  check_schema.py --gpp GPP --source-dir SRC
  check_schema.py --self-test

The first form runs GPP on small decks in a scratch folder (run, bench, sweep, tune,
roofline records, a ceilings file, a tuning file gpp rewrites) and validates each file, and
every shipped tuning/*.json, against its schema. It is two-sided: broken copies of those
files (a required key removed, a wrong type, an unknown key where the writer's set is
fixed, a wrong kind, a value out of an enum or range) must be refused, and a tuning entry
with a field gpp does not know must be accepted; the schemas' list of policies must be the
one `gpp policies` prints. One line per check; exit status 1 on any failure.

The validator is written here, not taken from the `jsonschema` package, because CI's
Python has no third-party packages. It implements the part of JSON Schema 2020-12 the
schemas use and refuses a schema with any other keyword, so that no rule in a schema can
be silently ignored."""
import argparse
import copy
import json
import math
import os
import re
import subprocess
import sys
import tempfile

SCHEMAS = {"record": "run-record.schema.json", "ceilings": "ceilings.schema.json", "tuning": "tuning.schema.json"}

# Keywords that only annotate: they hold no rule to enforce.
ANNOTATIONS = {"$schema", "$id", "$comment", "$defs", "title", "description"}
# Keywords this validator enforces. Anything else in a schema is refused.
RULES = {"type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum",
         "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems", "minLength", "maxLength", "$ref", "anyOf",
         "oneOf"}
TYPES = {"null", "boolean", "integer", "number", "string", "array", "object"}


class SchemaError(Exception):
    """The schema itself uses something this validator does not implement, or is malformed."""


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def has_type(v, t):
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "number":
        return is_number(v)
    if t == "integer":  # JSON Schema: any number without a fractional part (1.0 is one)
        return is_number(v) and (isinstance(v, int) or (math.isfinite(v) and v == int(v)))
    if t == "string":
        return isinstance(v, str)
    if t == "array":
        return isinstance(v, list)
    if t == "object":
        return isinstance(v, dict)
    raise SchemaError(f"unknown type {t!r}")


def json_equal(a, b):
    """Equality as JSON Schema's enum and const mean it: true is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


class Validator:
    def __init__(self, root):
        self.root = root
        self.check_schema(root, "#")

    def check_schema(self, s, where):
        """Refuses, before any instance is validated, a keyword anywhere in the schema that is not
        implemented here, and a $ref that does not resolve."""
        if isinstance(s, bool):
            return
        if not isinstance(s, dict):
            raise SchemaError(f"{where}: a schema must be an object or a boolean")
        for k in s:
            if k not in ANNOTATIONS and k not in RULES:
                raise SchemaError(f"{where}: keyword {k!r} is not implemented by this validator")
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not types or any(t not in TYPES for t in types):
                raise SchemaError(f"{where}/type: {s['type']!r} is not a type or a list of types")
        if "required" in s and not (isinstance(s["required"], list) and all(isinstance(k, str) for k in s["required"])):
            raise SchemaError(f"{where}/required: not a list of names")
        if "enum" in s and not isinstance(s["enum"], list):
            raise SchemaError(f"{where}/enum: not a list")
        for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if k in s and not is_number(s[k]):
                raise SchemaError(f"{where}/{k}: not a number")
        for k in ("minItems", "maxItems", "minLength", "maxLength"):
            if k in s and not (isinstance(s[k], int) and not isinstance(s[k], bool) and s[k] >= 0):
                raise SchemaError(f"{where}/{k}: not a count")
        if "$ref" in s:
            self.resolve(s["$ref"], where)
        for name, sub in s.get("properties", {}).items():
            self.check_schema(sub, f"{where}/properties/{name}")
        for k in ("additionalProperties", "items"):
            if k in s:
                self.check_schema(s[k], f"{where}/{k}")
        for k in ("anyOf", "oneOf"):
            if k in s:
                if not isinstance(s[k], list) or not s[k]:
                    raise SchemaError(f"{where}/{k}: not a non-empty list of schemas")
                for i, sub in enumerate(s[k]):
                    self.check_schema(sub, f"{where}/{k}/{i}")
        for name, sub in s.get("$defs", {}).items():
            self.check_schema(sub, f"{where}/$defs/{name}")

    def resolve(self, ref, where="#"):
        m = re.fullmatch(r"#/\$defs/([A-Za-z0-9_.-]+)", ref) if isinstance(ref, str) else None
        if not m:
            raise SchemaError(f"{where}/$ref: {ref!r} is not of the form #/$defs/NAME")
        defs = self.root.get("$defs", {})
        if m.group(1) not in defs:
            raise SchemaError(f"{where}/$ref: {ref!r} names no definition")
        return defs[m.group(1)]

    def errors(self, v, s=None, path="$"):
        """Every way `v` breaks schema `s` (the root by default): a list of 'PATH: what'."""
        s = self.root if s is None else s
        if s is True:
            return []
        if s is False:
            return [f"{path}: not allowed here"]
        out = []
        if "$ref" in s:
            out += self.errors(v, self.resolve(s["$ref"]), path)
        if "type" in s:
            types = s["type"] if isinstance(s["type"], list) else [s["type"]]
            if not any(has_type(v, t) for t in types):
                return out + [f"{path}: {kind(v)} is not {' or '.join(types)}"]
        if "const" in s and not json_equal(v, s["const"]):
            out.append(f"{path}: {short(v)} is not {short(s['const'])}")
        if "enum" in s and not any(json_equal(v, e) for e in s["enum"]):
            out.append(f"{path}: {short(v)} is not one of {', '.join(short(e) for e in s['enum'])}")
        if is_number(v):
            if "minimum" in s and v < s["minimum"]:
                out.append(f"{path}: {v} is below the minimum {s['minimum']}")
            if "maximum" in s and v > s["maximum"]:
                out.append(f"{path}: {v} is above the maximum {s['maximum']}")
            if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
                out.append(f"{path}: {v} is not above {s['exclusiveMinimum']}")
            if "exclusiveMaximum" in s and v >= s["exclusiveMaximum"]:
                out.append(f"{path}: {v} is not below {s['exclusiveMaximum']}")
        if isinstance(v, str):
            if "minLength" in s and len(v) < s["minLength"]:
                out.append(f"{path}: shorter than {s['minLength']} characters")
            if "maxLength" in s and len(v) > s["maxLength"]:
                out.append(f"{path}: longer than {s['maxLength']} characters")
        if isinstance(v, list):
            if "minItems" in s and len(v) < s["minItems"]:
                out.append(f"{path}: fewer than {s['minItems']} items")
            if "maxItems" in s and len(v) > s["maxItems"]:
                out.append(f"{path}: more than {s['maxItems']} items")
            if "items" in s:
                for i, x in enumerate(v):
                    out += self.errors(x, s["items"], f"{path}[{i}]")
        if isinstance(v, dict):
            for k in s.get("required", []):
                if k not in v:
                    out.append(f"{path}: no {k!r}")
            props = s.get("properties", {})
            for k, x in v.items():
                if k in props:
                    out += self.errors(x, props[k], f"{path}.{k}")
                elif "additionalProperties" in s:
                    extra = s["additionalProperties"]
                    if extra is False:
                        out.append(f"{path}: unknown key {k!r}")
                    else:
                        out += self.errors(x, extra, f"{path}.{k}")
        if "anyOf" in s and all(self.errors(v, sub, path) for sub in s["anyOf"]):
            out.append(f"{path}: matches none of anyOf's {len(s['anyOf'])} schemas")
        if "oneOf" in s:
            n = sum(not self.errors(v, sub, path) for sub in s["oneOf"])
            if n != 1:
                out.append(f"{path}: matches {n} of oneOf's {len(s['oneOf'])} schemas, not exactly one")
        return out


def kind(v):
    for t in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if has_type(v, t):
            return "a float" if t == "number" else ("an " if t in ("integer", "array", "object") else "a ") + t
    return type(v).__name__


def short(v):
    t = json.dumps(v)
    return t if len(t) <= 40 else t[:37] + "..."


def load_json(path):
    """Strict JSON, as gpp's reader takes it: no NaN or Infinity, no key given twice."""
    def pairs(items):
        d = {}
        for k, x in items:
            if k in d:
                raise ValueError(f"key {k!r} given twice")
            d[k] = x
        return d

    def constant(c):
        raise ValueError(f"{c} is not JSON")

    with open(path, encoding="utf-8") as f:
        return json.load(f, object_pairs_hook=pairs, parse_constant=constant)


# ---- the check against gpp ----

def run_gpp(gpp, args, cwd, env):
    p = subprocess.run([gpp] + args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"gpp {' '.join(args)} exited {p.returncode}:\n{p.stdout[-2000:]}")
    return p.stdout


def breakages(kind_, doc):
    """Broken copies of a valid file that its schema must refuse: (what, document)."""
    out = []

    def broken(what, change):
        d = copy.deepcopy(doc)
        change(d)
        out.append((what, d))

    broken("wrong kind", lambda d: d.update(kind="gpp-something-else"))
    broken("schema_version 2", lambda d: d.update(schema_version=2))
    broken("schema_version true", lambda d: d.update(schema_version=True))
    broken("kind removed", lambda d: d.pop("kind"))
    if kind_ == "record":
        broken("runs[0].status removed", lambda d: d["runs"][0].pop("status"))
        broken("deck.nbands a string", lambda d: d["deck"].update(nbands=str(d["deck"]["nbands"])))
        broken("deck.nbands 1.5", lambda d: d["deck"].update(nbands=1.5))
        broken("passed a number", lambda d: d.update(passed=1))
        broken("build.extra (unknown key)", lambda d: d["build"].update(extra="x"))
        broken("unknown top-level key", lambda d: d.update(comment="x"))
        broken("runs[0].status 'fine'", lambda d: d["runs"][0].update(status="fine"))
        broken("runs[0].policy unknown", lambda d: d["runs"][0].update(policy="v9-fantasy"))
        broken("runs[0].tunables.bogus", lambda d: d["runs"][0]["tunables"].update(bogus=4))
        broken("runs[0].tunables.band_block 0", lambda d: d["runs"][0]["tunables"].update(band_block=0))
        broken("runs[0].achtemp[0] of 3 numbers", lambda d: d["runs"][0]["achtemp"][0].append(0.0))
        broken("runs[0].time_median_s a string", lambda d: d["runs"][0].update(time_median_s="0.1"))
        broken("runs[0].space.kind 'gpu'", lambda d: d["runs"][0]["space"].update(kind="gpu"))
        broken("setup.read_bytes null", lambda d: d["setup"].update(read_bytes=None))
        broken("time_to_solution a list", lambda d: d.update(time_to_solution=[]))
    elif kind_ == "ceilings":
        broken("device.name removed", lambda d: d["device"].pop("name"))
        broken("device.concurrency a string", lambda d: d["device"].update(concurrency="1"))
        broken("bandwidth[0].level 'L4'", lambda d: d["bandwidth"][0].update(level="L4"))
        broken("bandwidth[0].gbs 0", lambda d: d["bandwidth"][0].update(gbs=0))
        broken("compute empty", lambda d: d.update(compute=[]))
        broken("sweep[0].extra (unknown key)", lambda d: d["sweep"][0].update(extra=1))
        broken("unknown top-level key", lambda d: d.update(comment="x"))
    elif kind_ == "tuning":
        broken("entries[0].policy removed", lambda d: d["entries"][0].pop("policy"))
        broken("entries removed", lambda d: d.pop("entries"))
        broken("entries[0].size_class 'huge'", lambda d: d["entries"][0].update(size_class="huge"))
        broken("entries[0].device empty", lambda d: d["entries"][0].update(device=""))
        broken("entries[0].tunables.bogus", lambda d: d["entries"][0]["tunables"].update(bogus=4))
        broken("entries[0].tunables.band_block 2^20+1",
               lambda d: d["entries"][0]["tunables"].update(band_block=(1 << 20) + 1))
        broken("entries[0].tunables.tile of 4", lambda d: d["entries"][0]["tunables"].update(tile=[1, 1, 1, 1]))
        broken("entries[0].tunables.params.loops a number",
               lambda d: d["entries"][0]["tunables"].update(params={"loops": 1}))
        broken("entries[0].time_median_s -1", lambda d: d["entries"][0].update(time_median_s=-1))
        broken("entries[0].evidence.p_value 2", lambda d: d["entries"][0].update(evidence=dict(
            test="t", repeats=8, p_value=2, gain=0.1, time_median_s=1, spread=0, default_time_median_s=1,
            default_spread=0)))
        broken("entries[0].evidence without gain", lambda d: d["entries"][0].update(evidence=dict(
            test="t", repeats=8, p_value=0.001, time_median_s=1, spread=0, default_time_median_s=1,
            default_spread=0)))
    return out


def keepers(kind_, doc):
    """Changed copies its schema must accept, so the schema is no stricter than gpp."""
    out = []
    if kind_ == "tuning":
        d = copy.deepcopy(doc)
        d["comment"] = {"any": ["json"]}
        d["entries"][0]["my_field"] = [1, "two", None]
        out.append(("unknown fields at the top and in an entry", d))
    if kind_ == "record":
        d = copy.deepcopy(doc)
        d["runs"][0].update(time_median_s=None, rel_error=None, times_s=[])
        out.append(("a run's numbers null (NaN or Inf written)", d))
    return out


def policies_of(gpp, env, cwd):
    return [line.split()[0] for line in run_gpp(gpp, ["policies"], cwd, env).splitlines()
            if line and not line[0].isspace()]


def check_gpp(gpp, source_dir):
    failures = 0

    def report(ok, what):
        nonlocal failures
        print(("ok     " if ok else "FAILED ") + what, flush=True)
        failures += not ok

    schema_dir = os.path.join(source_dir, "docs", "schema")
    validators = {}
    for k, name in SCHEMAS.items():
        try:
            validators[k] = Validator(load_json(os.path.join(schema_dir, name)))
            report(True, f"docs/schema/{name}: a schema this validator implements in full")
        except (SchemaError, ValueError, OSError) as e:
            report(False, f"docs/schema/{name}: {e}")
    if len(validators) != len(SCHEMAS):
        return 1

    with tempfile.TemporaryDirectory(prefix="gpp-schema-") as work:
        # gpp reads $GPP_TUNING_FILE or ~/.config/gpp/tuning.json: neither may be the user's.
        env = dict(os.environ, HOME=work)
        env.pop("GPP_TUNING_FILE", None)
        files = []  # (kind, path, what)

        def gpp_writes(kind_, name, args):
            path = os.path.join(work, name)
            run_gpp(gpp, args, work, env)
            files.append((kind_, path, f"{name} (gpp {' '.join(args)})"))
            return path

        try:
            run = gpp_writes("record", "run.json",
                             ["run", "small", "--policy", "host", "--repeat", "1", "--json", "run.json"])
            gpp_writes("record", "run-unverified.json",
                       ["run", "small", "--policy", "host", "--repeat", "1", "--warmup", "0", "--verify", "none",
                        "--no-branch-stats", "--json", "run-unverified.json"])
            gpp_writes("record", "bench.json",
                       ["bench", "small", "--policies", "host", "--repeat", "1", "--json", "bench.json"])
            ceilings = gpp_writes("ceilings", "ceilings.json",
                                  ["ceilings", "--space", "host", "--quick", "--json", "ceilings.json"])
            gpp_writes("record", "roofline.json",
                       ["roofline", "small", "--policy", "host", "--space", "host", "--repeat", "1",
                        "--ceilings", ceilings, "--csv", "roofline.csv", "--json", "roofline.json"])
            # A team of 2^20 threads fits no space: the sweep's record has an invalid point
            # (no times: its numbers are null).
            sweep_invalid = gpp_writes("record", "sweep-invalid.json",
                                       ["sweep", "small", "--policy", "v6-blocked", "--space", "host",
                                        "--band-block", "8", "--team-size", "1,1048576", "--repeat", "1",
                                        "--warmup", "0", "--json", "sweep-invalid.json"])
            gpp_writes("record", "tune.json",
                       ["tune", "small", "--policy", "host", "--space", "host", "--repeat", "1", "--budget", "1e-9",
                        "--json", "tune.json"])
            # gpp rewrites a tuning file whichever way the sweep decides: the stale entry of
            # this machine's key is replaced (a faster point) or removed (the defaults win);
            # another machine's entry and fields gpp does not know are written back.
            space = load_json(run)["runs"][0]["space"]
            tuning = os.path.join(work, "tuning.json")
            stale = {"device": space["device"], "backend": space["backend"], "policy": "host", "size_class": "small",
                     "tunables": {"band_block": 2, "ig_block": 512}}
            other = dict(stale, device="another machine", comment="kept")
            seed = json.dumps({"schema_version": 1, "kind": "gpp-tuning", "entries": [stale, other], "note": "kept"})
            with open(tuning, "w") as f:
                f.write(seed)
            gpp_writes("record", "sweep.json",
                       ["sweep", "small", "--policy", "host", "--space", "host", "--band-block", "8,16", "--repeat",
                        "1", "--json", "sweep.json", "--tuning-out", tuning])
            with open(tuning) as f:
                report(f.read() != seed, "tuning.json: rewritten by gpp sweep --tuning-out (not the seeded file)")
            files.append(("tuning", tuning, "tuning.json (gpp sweep --tuning-out, merged into a seeded file)"))
            names = policies_of(gpp, env, work)
        except (RuntimeError, subprocess.TimeoutExpired, OSError, ValueError, KeyError, IndexError) as e:
            report(False, f"running gpp: {e}")
            return 1
        invalid = [r for r in load_json(sweep_invalid)["runs"] if r["status"] == "invalid"]
        report(bool(invalid), "sweep-invalid.json: has an invalid point (its null times are validated)")

        shipped = sorted(f for f in os.listdir(os.path.join(source_dir, "tuning")) if f.endswith(".json"))
        report(bool(shipped), f"tuning/: {len(shipped)} shipped files")
        files += [("tuning", os.path.join(source_dir, "tuning", f), f"tuning/{f} (shipped)") for f in shipped]

        samples = {}
        for kind_, path, what in files:
            try:
                doc = load_json(path)
            except (ValueError, OSError) as e:
                report(False, f"{what}: not strict JSON: {e}")
                continue
            errs = validators[kind_].errors(doc)
            report(not errs, f"{what} against {SCHEMAS[kind_]}" + "".join(f"\n         {e}" for e in errs[:10]))
            if not errs:  # a broken copy of a valid file is refused for what was broken
                samples.setdefault(kind_, doc)

        # Two-sided: what gpp would never write is refused, what gpp keeps is accepted.
        report(sorted(samples) == sorted(SCHEMAS), f"a valid file of each schema to break: {', '.join(sorted(samples))}")
        for kind_, doc in sorted(samples.items()):
            for what, bad in breakages(kind_, doc):
                report(bool(validators[kind_].errors(bad)), f"{SCHEMAS[kind_]} refuses a copy with {what}")
            for what, good in keepers(kind_, doc):
                errs = validators[kind_].errors(good)
                report(not errs, f"{SCHEMAS[kind_]} accepts a copy with {what}" + "".join(f"\n         {e}" for e in errs))

        # The policy enums are the policies this gpp has.
        record_policies = validators["record"].root["$defs"]["policy"]["enum"]
        tuning_policies = validators["tuning"].root["$defs"]["entry"]["properties"]["policy"]["enum"]
        for name, listed in (("run-record", record_policies), ("tuning", tuning_policies)):
            report(sorted(listed) == sorted(names),
                   f"{name}.schema.json lists the policies of gpp policies ({', '.join(names)})"
                   + ("" if sorted(listed) == sorted(names) else f"; the schema has {', '.join(listed)}"))
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


# ---- the validator's own test ----

def self_test():
    failures = 0

    def expect(ok, what):
        nonlocal failures
        print(("ok     " if ok else "FAILED ") + what)
        failures += not ok

    def refused_schema(s):
        try:
            Validator(s)
        except SchemaError:
            return True
        return False

    obj = {
        "type": "object",
        "required": ["a", "n"],
        "additionalProperties": False,
        "properties": {
            "a": {"type": "string", "minLength": 1, "maxLength": 3},
            "n": {"type": ["integer", "null"], "minimum": 1, "maximum": 10},
            "x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "k": {"const": 1},
            "e": {"enum": ["ok", "wrong", False]},
            "l": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"$ref": "#/$defs/pos"}},
            "m": {"type": "object", "additionalProperties": {"type": "string"}},
            "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]},
        },
        "$defs": {"pos": {"type": "integer", "minimum": 1}},
    }
    v = Validator(obj)
    good = [
        {"a": "x", "n": 1},
        {"a": "xyz", "n": None, "x": 0.5, "k": 1.0, "e": False, "l": [1, 2.0], "m": {"p": "q"}, "any": 3, "one": 5.5},
        {"a": "é", "n": 10, "e": "ok", "any": "s", "one": 2},
    ]
    bad = [
        ("no required key", {"a": "x"}),
        ("unknown key", {"a": "x", "n": 1, "z": 0}),
        ("wrong type", {"a": 1, "n": 1}),
        ("a float for an integer", {"a": "x", "n": 1.5}),
        ("a boolean for an integer", {"a": "x", "n": True}),
        ("below minimum", {"a": "x", "n": 0}),
        ("above maximum", {"a": "x", "n": 11}),
        ("at the exclusive minimum", {"a": "x", "n": 1, "x": 0}),
        ("at the exclusive maximum", {"a": "x", "n": 1, "x": 1}),
        ("too short", {"a": "", "n": 1}),
        ("too long", {"a": "abcd", "n": 1}),
        ("const true for 1", {"a": "x", "n": 1, "k": True}),
        ("const 2", {"a": "x", "n": 1, "k": 2}),
        ("not in enum", {"a": "x", "n": 1, "e": "fine"}),
        ("0 in an enum with false", {"a": "x", "n": 1, "e": 0}),
        ("empty array", {"a": "x", "n": 1, "l": []}),
        ("long array", {"a": "x", "n": 1, "l": [1, 2, 3]}),
        ("$ref'd item below minimum", {"a": "x", "n": 1, "l": [0]}),
        ("additionalProperties schema", {"a": "x", "n": 1, "m": {"p": 1}}),
        ("anyOf none", {"a": "x", "n": 1, "any": 1.5}),
        ("oneOf both", {"a": "x", "n": 1, "one": 6}),
        ("oneOf none", {"a": "x", "n": 1, "one": 4.5 - 1}),
        ("not an object", [1]),
        ("null for the object", None),
    ]
    for i, doc in enumerate(good):
        errs = v.errors(doc)
        expect(not errs, f"accepts valid document {i}" + "".join(f"\n         {e}" for e in errs))
    for what, doc in bad:
        expect(bool(v.errors(doc)), f"refuses: {what}")
    expect(not Validator({"type": ["object", "null"], "required": ["a"]}).errors(None),
           "object keywords do not apply to null")
    expect(bool(Validator(False).errors(1)) and not Validator(True).errors(1), "boolean schemas")
    for what, s in [
        ("an unimplemented keyword (pattern)", {"type": "string", "pattern": "^a"}),
        ("an unimplemented keyword deep in $defs", {"$defs": {"d": {"items": {"uniqueItems": True}}}}),
        ("an unimplemented keyword under properties", {"properties": {"a": {"format": "date-time"}}}),
        ("an unimplemented keyword under additionalProperties", {"additionalProperties": {"if": {}}}),
        ("an unimplemented keyword under anyOf", {"anyOf": [{"not": {}}]}),
        ("a $ref outside #/$defs", {"$ref": "other.json#/x"}),
        ("a $ref to a missing definition", {"$ref": "#/$defs/none"}),
        ("an unknown type", {"type": "float"}),
        ("a misspelt keyword", {"requried": ["a"]}),
    ]:
        expect(refused_schema(s), f"refuses a schema with {what}")
    with tempfile.TemporaryDirectory() as d:
        for what, text in [("NaN", '{"a": NaN}'), ("a key given twice", '{"a": 1, "a": 2}')]:
            p = os.path.join(d, "x.json")
            with open(p, "w") as f:
                f.write(text)
            try:
                load_json(p)
                expect(False, f"load_json refuses {what}")
            except ValueError:
                expect(True, f"load_json refuses {what}")
    print(f"{failures} failed" if failures else "all passed")
    return 1 if failures else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpp", help="the gpp executable to run")
    p.add_argument("--source-dir", help="the source tree (docs/schema, tuning)")
    p.add_argument("--self-test", action="store_true", help="test the validator on inline schemas")
    a = p.parse_args()
    if a.self_test:
        return self_test()
    if not a.gpp or not a.source_dir:
        p.error("--gpp and --source-dir are required without --self-test")
    return check_gpp(os.path.abspath(a.gpp), os.path.abspath(a.source_dir))


if __name__ == "__main__":
    sys.exit(main())
