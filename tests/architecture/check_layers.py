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

The public headers (include/gpp/, installed) belong to the library's room (PUBLIC_ROOM, api/):
only that room and the rooms above it include them (`#include <gpp/...>`), and they include
no room's header (`#include "..."`): what is installed stands on its own.

Namespaces follow the rooms: the rooms of the kernel itself (KERNEL_ROOMS: its types and
physics, its spaces, its policies) may open `gpp`, whose names every room uses unqualified;
every other room opens only `gpp::<room>` and namespaces nested in it; and no namespace but
`gpp` is opened in two rooms.

Files form no cycle either: file A leads to header B when A includes B, or when A names
what B alone defines (a type, an alias, a function, a macro, a variable at namespace scope,
found where A's namespaces and using-declarations would find it): a header that calls what
its includer defines is a cycle the compiler does not see. Exit 0 when all holds, else 1
with one line per violation.
"""
import os
import re
import sys

import checker

# Targets that are not rooms: third-party libraries and the generated build information.
NOT_ROOMS = {"kokkos", "kokkoskernels", "hdf5", "xsimd", "build_info"}
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc")
# The rooms whose names are the kernel's vocabulary (Deck, SpaceKind, Tunables, PolicyEntry),
# declared in `gpp` itself.
KERNEL_ROOMS = {"backend", "core", "policies"}
# The room that owns the public headers, include/gpp/ (the library: docs/library.md).
PUBLIC_ROOM = "api"
PUBLIC_DIR = os.path.join("include", "gpp")
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


def check(src, kernel=KERNEL_ROOMS, public_room=PUBLIC_ROOM):
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
    public = os.path.join(src, PUBLIC_DIR)
    if os.path.isdir(public):
        if public_room not in rooms:
            problems.append("%s/ exists but its room %s/ does not" % (PUBLIC_DIR, public_room))
        for f in sorted(os.listdir(public)):
            path = os.path.join(public, f)
            if not os.path.isfile(path):
                continue
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
                if m:
                    problems.append('%s/%s:%d includes "%s": a public header includes only <...> headers'
                                    % (PUBLIC_DIR, f, n, m.group(1)))
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
                m = re.match(r"\s*#\s*include\s*<gpp/([^>]+)>", line)
                if m:
                    if r != public_room and public_room not in below[r]:
                        problems.append("%s includes the public header gpp/%s, which belongs to %s/, which %s/ does "
                                        "not depend on" % (where, m.group(1), public_room, r))
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
    return problems + file_cycles(src, rooms)


# ---------------------------------------------------------------- cycles between files

HEADER_EXT = (".hpp", ".h", ".hpp.in")
# Literals and comments (replaced by a blank: a name in them is no use), then tokens.
LITERAL_OR_COMMENT = re.compile(
    r'R"([^(\s]*)\(.*?\)\1"|//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|(?<!\w)\'(?:\\[^\']+|[^\'\\\n])\'', re.S)
TOKEN = re.compile(r"[A-Za-z_]\w*|::|->|\S")
# Words that may stand before `name(` where no function is declared.
NOT_A_TYPE = {"return", "else", "case", "throw", "new", "delete", "sizeof", "alignof", "decltype", "typeid",
              "co_return", "co_yield", "static_assert", "noexcept", "requires", "operator", "namespace", "using",
              "goto", "do", "explicit", "alignas", "typename"}


def code_of(text):
    """(the code without comments, literals or preprocessor lines; the macros it defines; the
    text of its preprocessor conditions and macro bodies, whose names it uses)."""
    text = LITERAL_OR_COMMENT.sub(lambda m: '""' if m.group(0)[:1] in "R\"'" else " ", text.replace("\\\n", " "))
    code, defines, conditions = [], set(), []
    for line in text.split("\n"):
        m = re.match(r"\s*#\s*(\w+)\s*(.*)", line)
        if not m:
            code.append(line)
        elif m.group(1) == "define":
            d = re.match(r"(\w+)(.*)", m.group(2))
            if d:
                defines.add(d.group(1))
                conditions.append(d.group(2))
        elif m.group(1) != "include":
            conditions.append(m.group(2))
    return "\n".join(code), defines, " ".join(conditions)


def scan(code):
    """One pass over a file's code: the names it defines at namespace scope (types, aliases,
    functions, variables) with their namespace, the names it uses with the namespace they are
    used in and their qualifier, and its using-declarations and -directives."""
    toks = TOKEN.findall(code)
    word = re.compile(r"[A-Za-z_]")
    defs, uses, using_names, using_spaces, local = [], [], {}, [], set()
    stack = []  # one entry per open brace: the namespace components it opened, or None
    parens = 0

    def here():
        return tuple(c for entry in stack if entry for c in entry)

    def qualifier(i):
        q = []
        while i >= 2 and toks[i - 1] == "::" and word.match(toks[i - 2]):
            q.insert(0, toks[i - 2])
            i -= 2
        return tuple(q), i

    i = 0
    while i < len(toks):
        t = toks[i]
        at_ns = parens == 0 and all(e is not None for e in stack)
        if t == "template" and i + 1 < len(toks) and toks[i + 1] == "<":
            depth, j = 0, i + 1
            while j < len(toks):
                depth += {"<": 1, ">": -1}.get(toks[j], 0)
                if depth == 0:
                    break
                named = word.match(toks[j - 1]) and toks[j + 1:j + 2] in (["="], [","], [">"])
                if toks[j - 1] in ("class", "typename") or named:
                    local.add(toks[j])
                elif word.match(toks[j]) and toks[j] not in ("class", "typename"):
                    uses.append((toks[j], here(), qualifier(j)[0]))
                j += 1
            i = j + 1
            continue
        if t == "{":
            j, opened = i - 1, None
            while j >= 0 and (word.match(toks[j]) or toks[j] in ("::", '"')):
                if toks[j] in ("namespace", "extern"):
                    opened = tuple(c for c in toks[j + 1:i] if word.match(c))
                    break
                j -= 1
            stack.append(opened)
        elif t == "}":
            if stack:
                stack.pop()
        elif t == "(":
            parens += 1
        elif t == ")":
            parens = max(0, parens - 1)
        elif t == "using" and not at_ns:
            if toks[i + 2:i + 3] == ["="]:
                local.add(toks[i + 1])  # a member alias
                i += 2
                continue
        elif t == "using":
            j = i + 1
            while j < len(toks) and toks[j] != ";":
                j += 1
            body = toks[i + 1:j]
            if len(body) >= 2 and body[1] == "=":
                defs.append((body[0], here()))
                uses.extend((b, here(), qualifier(i + 1 + k)[0]) for k, b in enumerate(body[2:], 2) if word.match(b))
            elif body[:1] == ["namespace"]:
                using_spaces.append(tuple(b for b in body[1:] if word.match(b)))
            elif body and word.match(body[-1]):
                using_names.setdefault(body[-1], []).append(tuple(b for b in body[:-1] if word.match(b)))
            i = j
            continue
        elif word.match(t) and t not in ("namespace",):
            before = toks[i - 1] if i else ""
            after = toks[i + 1] if i + 1 < len(toks) else ""
            declares = (word.match(before) and before not in NOT_A_TYPE) or before in (">", "*", "&", "&&")
            if before in (".", "->"):
                pass
            elif t in ("struct", "class", "union", "enum"):
                j = i + 1
                if j < len(toks) and toks[j] in ("class", "struct"):
                    j += 1
                k = j + 1
                while k < len(toks) and toks[k] not in ("{", ";", "(", "=", ")", ",", ">"):
                    k += 1
                if j < len(toks) and word.match(toks[j]) and k < len(toks) and toks[k] == "{":
                    if at_ns:
                        defs.append((toks[j], here()))
                    else:
                        local.add(toks[j])  # a nested type
                i = j + 1
                continue
            elif declares and after in ("(", "=", "{", ";", "[", ",", ")", ":") and before not in ("::",):
                if at_ns and after in ("(", "=", "{", ";", "["):
                    defs.append((t, here()))
                else:
                    local.add(t)  # a variable, parameter or member: the file's own name from here on
            else:
                q, _ = qualifier(i)
                uses.append((t, here(), q if before == "::" else None))
        i += 1
    # A name the file declares for itself (a local, a parameter, a member) hides, here, what
    # another file defines under it, unless the use is qualified.
    uses = [(n, site, q) for n, site, q in uses if q or n not in local]
    return defs, uses, using_names, using_spaces


def file_cycles(src, rooms):
    """One line per cycle of files: includes, and names that one header alone defines."""
    texts, headers = {}, {}
    for r in rooms:
        for f in sorted(os.listdir(os.path.join(src, r))):
            if f.endswith(SOURCE_EXT) or f.endswith(HEADER_EXT):
                u = "%s/%s" % (r, f)
                texts[u] = open(os.path.join(src, r, f), encoding="utf-8", errors="replace").read()
                if f.endswith(HEADER_EXT):
                    headers[f[:-3] if f.endswith(".in") else f] = u
    defined, scanned = {}, {}
    for u, text in texts.items():
        code, macros, conditions = code_of(text)
        includes = [os.path.basename(m) for m in re.findall(r'^\s*#\s*include\s*"([^"]+)"', text, re.M)]
        defs, uses, using_names, using_spaces = scan(code)
        uses += [(m, (), None) for m in TOKEN.findall(conditions) if re.match(r"[A-Za-z_]", m)]
        scanned[u] = (includes, uses, using_names, using_spaces)
        if u.endswith(HEADER_EXT):
            for name, space in defs:
                defined.setdefault(name, set()).add((u, space))
            for m in macros:
                defined.setdefault(m, set()).add((u, None))

    def resolve(name, site, q, using_names, using_spaces):
        found = set()
        for u, space in defined.get(name, ()):
            if space is None:  # a macro
                found.add(u)
            elif q is not None:
                if space[len(space) - len(q):] == q:
                    found.add(u)
            elif (space == site[:len(space)] or any(space[len(space) - len(n):] == n for n in using_names.get(name, ()))
                  or any(n and space[len(space) - len(n):] == n for n in using_spaces)):
                found.add(u)
        return found

    edges = {u: {} for u in texts}
    for u, (includes, uses, using_names, using_spaces) in scanned.items():
        for name in includes:
            v = headers.get(name)
            if v and v != u:
                edges[u].setdefault(v, set()).add("#include " + name)
        for name, site, q in uses:
            found = resolve(name, site, q, using_names, using_spaces)
            if len(found) == 1 and u not in found:
                edges[u].setdefault(found.pop(), set()).add(name)
    problems = []
    for scc in strongly_connected(edges):
        if len(scc) < 2:
            continue
        ties = []
        for a in sorted(scc):
            for b in sorted(edges[a]):
                if b in scc:
                    what = sorted(edges[a][b])
                    ties.append("%s -> %s (%s%s)" % (a, b, ", ".join(what[:4]), ", ..." if len(what) > 4 else ""))
        problems.append("files in a cycle: %s" % "; ".join(ties))
    return problems


def strongly_connected(edges):
    """Tarjan's strongly connected components of a graph {node: {successor: ...}}."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = set()
            while True:
                w = stack.pop()
                on.discard(w)
                scc.add(w)
                if w == v:
                    break
            out.append(scc)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def cases():
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
        ("an include upwards in a header", dict(good, **{"low/low.hpp": '#pragma once\n#include "mid.hpp"\n'}), 2),
        ("an include of a room not linked", dict(good, **{"mid/b.cpp": '#include "top.hpp"\n', "top/top.hpp": ""}), 1),
        ("a cycle", dict(good, **{"low/CMakeLists.txt": "add_library(gpp_low a.cpp)\ntarget_link_libraries(gpp_low PUBLIC gpp::top)\n"}), 3),
        ("one header name in two rooms", dict(good, **{"top/mid.hpp": ""}), 2),
        ("a room above the kernel in namespace gpp", dict(good, **{"top/c.cpp": "namespace gpp {\n}\n"}), 1),
        ("a room in another room's namespace", dict(good, **{"top/c.cpp": "namespace gpp::mid {\n}\n"}), 1),
        ("a room's namespace nested elsewhere",
         dict(good, **{"top/c.cpp": "namespace gpp::top {\n}\n  namespace gpp::other::top {\n}\n"}), 1),
        ("the public headers included from below their room",
         dict(good, **{"include/gpp/pub.hpp": "#pragma once\n", "low/a.cpp": "#include <gpp/pub.hpp>\n",
                       "mid/b.cpp": "#include <gpp/pub.hpp>\n"}), 1),
        ("a public header that includes a room's header",
         dict(good, **{"include/gpp/pub.hpp": '#pragma once\n#include "low.hpp"\n#include <vector>\n'}), 1),
        ("one namespace in two kernel rooms",
         dict(good, **{"low/a.cpp": "namespace gpp::util {\n}\n", "mid/b.cpp": "namespace gpp {\nnamespace gpp::util {\n}\n"}), 1),
    ]
    # Files: the backend seam's shape. The seam includes a backend's header, which calls the
    # Newton step that the seam itself defines: a cycle no include shows.
    seam = '#pragma once\nnamespace gpp::low {\ninline double refine(double x, double r) { return r; }\n}\n#include "dev.hpp"\n'
    dev = '#pragma once\nnamespace gpp::low {\ninline double fast(double x) { return refine(x, 1 / x); }\n}\n'
    apart = '#pragma once\nnamespace gpp::low {\ninline double refine(double x, double r) { return r; }\n}\n'
    cases += [
        ("two headers that include each other",
         dict(good, **{"low/low.hpp": '#pragma once\n#include "low2.hpp"\n', "low/low2.hpp": '#pragma once\n#include "low.hpp"\n'}), 1),
        ("a header that calls what its includer defines", dict(good, **{"low/low.hpp": seam, "low/dev.hpp": dev}), 1),
        ("the Newton step in a header both include",
         dict(good, **{"low/low.hpp": '#pragma once\n#include "newton.hpp"\n#include "dev.hpp"\n',
                       "low/dev.hpp": '#pragma once\n#include "newton.hpp"\n' + dev[12:], "low/newton.hpp": apart}), 0),
        ("the name only in a comment, a string, a member call, a local or another namespace",
         dict(good, **{"low/low.hpp": seam, "low/dev.hpp": '#pragma once\n// refine(x)\nnamespace gpp::low {\n'
                       'inline const char* what() { return "refine(x)"; }\n'
                       'template <class T> double f(T t, double refine) { return t.refine(1) + refine; }\n'
                       'inline double g(double x) { return other::refine(x, x); }\n}\n'}), 0),
        ("a macro its includer defines",
         dict(good, **{"low/low.hpp": '#pragma once\n#define GPP_WIDE 1\n#include "dev.hpp"\n',
                       "low/dev.hpp": '#pragma once\n#if GPP_WIDE\n#endif\n'}), 1),
    ]
    # a cycle through three rooms is reported once per room on it; a header name in two
    # rooms also makes the include of that name in the lower room an include upwards; an
    # include upwards between two headers that include each other is a cycle of files too
    return cases


def summary(src):
    rooms = rooms_of(src)
    below = closure(rooms)
    for r in sorted(rooms, key=lambda r: len(below[r])):
        print("%-9s -> %s" % (r, ", ".join(sorted(rooms[r])) or "(Kokkos only)"))


if __name__ == "__main__":
    sys.exit(checker.main(sys.argv, __doc__, check, cases, summary, lambda d: check(d, kernel={"low", "mid"}, public_room="mid")))
