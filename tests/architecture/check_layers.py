#!/usr/bin/env python3
"""The rooms of the source tree and the one direction of their imports (docs/architecture.md).

  python3 tests/architecture/check_layers.py SOURCE_DIR     check the tree
  python3 tests/architecture/check_layers.py --self-test    check the checker

A room is a top-level folder whose CMakeLists.txt defines one gpp target (a library
gpp_<room>, or the gpp executable in app/). Its dependencies are the gpp::<room> targets its
CMakeLists.txt links. Every `#include "name"` in a room's sources must name a header of
that room or of a room it depends on, directly or through others; the dependencies must
not form a cycle; and no two rooms may hold a header of the same name (includes are by
name). The compiler already refuses most upward includes (a room sees only the include
directories of the rooms below it), but not one in a header that only rooms above include:
this check does.

Namespaces follow the rooms: the rooms of the kernel itself (KERNEL_ROOMS: its types and
physics, its spaces, its policies) may open `gpp`, whose names every room uses unqualified;
every other room opens only `gpp::<room>` and namespaces nested in it; and no namespace but
`gpp` is opened in two rooms. Exit 0 when all holds, else 1 with one line per violation.
"""
import os
import re
import sys
import tempfile

# Targets that are not rooms: third-party libraries and the generated build information.
NOT_ROOMS = {"kokkos", "kokkoskernels", "hdf5", "xsimd", "build_info"}
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc")
# The rooms whose names are the kernel's vocabulary (Deck, SpaceKind, Tunables, PolicyEntry),
# declared in `gpp` itself.
KERNEL_ROOMS = {"backend", "core", "policies"}
NAMESPACE = re.compile(r"\s*namespace\s+([A-Za-z_][\w:]*)\s*\{")


def rooms_of(src):
    rooms = {}
    for name in sorted(os.listdir(src)):
        cml = os.path.join(src, name, "CMakeLists.txt")
        if name in ("tests", "tools", "cmake", "docs", "build") or name.startswith(".") or not os.path.isfile(cml):
            continue
        text = open(cml, encoding="utf-8").read()
        if not re.search(r"add_(library|executable)\(\s*gpp(_%s)?\b" % re.escape(name), text):
            continue
        deps = set()
        for block in re.findall(r"target_link_libraries\(([^)]*)\)", text):
            deps.update(d for d in re.findall(r"gpp::(\w+)", block) if d not in NOT_ROOMS)
        rooms[name] = deps
    return rooms


def closure(rooms):
    below = {}
    for r in rooms:
        seen, stack = set(), list(rooms[r])
        while stack:
            d = stack.pop()
            if d not in seen:
                seen.add(d)
                stack.extend(rooms.get(d, ()))
        below[r] = seen
    return below


def check(src, kernel=KERNEL_ROOMS):
    problems = []
    rooms = rooms_of(src)
    if not rooms:
        return ["no rooms found under " + src]
    for r, deps in rooms.items():
        for d in deps:
            if d not in rooms:
                problems.append("%s/CMakeLists.txt links gpp::%s, which is not a room" % (r, d))
    below = closure(rooms)
    for r in rooms:
        if r in below[r]:
            problems.append("room %s depends on itself through %s" % (r, ", ".join(sorted(below[r]))))
    owner = {}
    for r in rooms:
        for f in sorted(os.listdir(os.path.join(src, r))):
            if f.endswith((".hpp", ".h")):
                if f in owner:
                    problems.append("header %s is in both %s/ and %s/" % (f, owner[f], r))
                owner[f] = r
    # One pass over every source line: its includes and the namespaces it opens.
    opened = {}
    for r in rooms:
        own = "gpp::" + r
        for f in sorted(os.listdir(os.path.join(src, r))):
            if not f.endswith(SOURCE_EXT):
                continue
            for n, line in enumerate(open(os.path.join(src, r, f), encoding="utf-8", errors="replace"), 1):
                where = "%s/%s:%d" % (r, f, n)
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if m:
                    name = os.path.basename(m.group(1))
                    home = owner.get(name)
                    if home is not None and home != r and home not in below[r]:
                        problems.append("%s includes %s from %s/, which %s/ does not depend on" % (where, name, home, r))
                    continue
                m = NAMESPACE.match(line)
                if not m:
                    continue
                ns = m.group(1)
                if ns == "gpp":
                    if r not in kernel:
                        problems.append("%s opens namespace gpp: the names of %s/ belong in %s" % (where, r, own))
                    continue
                if r not in kernel and ns != own and not ns.startswith(own + "::"):
                    problems.append("%s opens namespace %s, outside %s" % (where, ns, own))
                first = opened.setdefault(ns, (r, where))
                if first[0] != r:
                    problems.append("%s opens namespace %s, which %s (room %s) opens too" % (where, ns, first[1], first[0]))
    return problems


def self_test():
    def tree(files):
        d = tempfile.mkdtemp(prefix="gpp_layers_")
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
            open(os.path.join(d, path), "w").write(text)
        return d

    good = {
        "low/CMakeLists.txt": "add_library(gpp_low a.cpp)\ntarget_link_libraries(gpp_low PUBLIC gpp::kokkos)\n",
        "low/low.hpp": "#pragma once\n",
        "low/a.cpp": '#include "low.hpp"\n',
        "mid/CMakeLists.txt": "add_library(gpp_mid b.cpp)\ntarget_link_libraries(gpp_mid PUBLIC gpp::low)\n",
        "mid/mid.hpp": '#pragma once\n#include "low.hpp"\n',
        "mid/b.cpp": '#include "mid.hpp"\n',
        "top/CMakeLists.txt": "add_library(gpp_top c.cpp)\ntarget_link_libraries(gpp_top PRIVATE gpp::mid)\n",
        "top/c.cpp": '#include "low.hpp"\n#include "mid.hpp"\n#include <vector>\nnamespace gpp::top {\nnamespace {\n}\n}\n',
        "top/top.hpp": "#pragma once\nnamespace gpp::top::detail {\n}\n",
    }
    cases = [
        ("a clean tree", good, 0),
        ("an include upwards in a header", dict(good, **{"low/low.hpp": '#pragma once\n#include "mid.hpp"\n'}), 1),
        ("an include of a room not linked", dict(good, **{"mid/b.cpp": '#include "top.hpp"\n', "top/top.hpp": ""}), 1),
        ("a cycle", dict(good, **{"low/CMakeLists.txt": "add_library(gpp_low a.cpp)\ntarget_link_libraries(gpp_low PUBLIC gpp::top)\n"}), 3),
        ("one header name in two rooms", dict(good, **{"top/mid.hpp": ""}), 2),
        ("a room above the kernel in namespace gpp", dict(good, **{"top/c.cpp": "namespace gpp {\n}\n"}), 1),
        ("a room in another room's namespace", dict(good, **{"top/c.cpp": "namespace gpp::mid {\n}\n"}), 1),
        ("a room's namespace nested elsewhere",
         dict(good, **{"top/c.cpp": "namespace gpp::top {\n}\n  namespace gpp::other::top {\n}\n"}), 1),
        ("one namespace in two kernel rooms",
         dict(good, **{"low/a.cpp": "namespace gpp::util {\n}\n", "mid/b.cpp": "namespace gpp {\nnamespace gpp::util {\n}\n"}), 1),
    ]
    ok = True
    for what, files, want in cases:
        got = check(tree(files), kernel={"low", "mid"})
        # a cycle through three rooms is reported once per room on it; a header name in two
        # rooms also makes the include of that name in the lower room an include upwards
        if len(got) != want:
            ok = False
            print("self-test FAILED: %s: %s" % (what, got or "no problem found"))
        else:
            print("self-test ok: %s (%d problem%s)" % (what, len(got), "" if len(got) == 1 else "s"))
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if not problems:
        rooms = rooms_of(argv[1])
        below = closure(rooms)
        for r in sorted(rooms, key=lambda r: len(below[r])):
            print("%-9s -> %s" % (r, ", ".join(sorted(rooms[r])) or "(Kokkos only)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
