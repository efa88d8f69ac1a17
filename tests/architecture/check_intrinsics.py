#!/usr/bin/env python3
"""No function of the project takes the name of a GPU device intrinsic (docs/architecture.md).

  python3 tests/architecture/check_intrinsics.py SOURCE_DIR     check the tree
  python3 tests/architecture/check_intrinsics.py --self-test    check the checker

A reader, or a tool that follows calls by name, who meets `fma(a, b, c)` in a kernel must
land in CUDA's or HIP's math library, not in a project function of that name. So no C++
source of the project (the rooms, tests/, lab/) defines a function, a member function, a
function-like macro or a named lambda whose name is
  - a floating-point function of CUDA's and HIP's device math library (the double form and
    the single one with the suffix f: sqrt, sqrtf, fma, fmaf, rsqrt, ...),
  - an atomic of either (atomicAdd, ...), or
  - begins with two underscores (__fma_rn, __shfl_sync, __builtin_amdgcn_rcp: every
    intrinsic; C++ reserves such names to the implementation anyway).
The integer functions min, max and abs are left out: they are the standard library's
algorithms as much as the device's, and a project function of those names (mpi::max) is
called qualified. Calls of the intrinsics (`fma(...)`, `xsimd::fma(...)`) are of course
fine. Exit 0 when no such definition is found, else 1 with one line per definition.
"""
import os
import re
import sys

import checker
from check_layers import LITERAL_OR_COMMENT, TOKEN

# CUDA Math API, double precision (HIP's math library has the same names); each has a single
# precision form with the suffix f, except the classification macros.
MATH = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0
cyl_bessel_i1 erf erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod
frexp hypot ilogb j0 j1 jn ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround modf
nan nearbyint nextafter norm norm3d norm4d normcdf normcdfinv pow rcbrt remainder remquo rhypot rint
rnorm rnorm3d rnorm4d round rsqrt scalbln scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma
trunc y0 y1 yn""".split()
CLASSIFY = ["isfinite", "isinf", "isnan", "signbit"]
ATOMICS = """atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd
atomicOr atomicXor""".split()
INTRINSICS = frozenset(MATH + [m + "f" for m in MATH] + CLASSIFY + ATOMICS + ["fdividef"])
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc", ".cu", ".hpp.in")
SKIP_DIRS = {"docs", "inputs", "tuning", "spack", "cmake"}
# Words that stand before `name(` where no function is declared.
NOT_A_TYPE = {"return", "else", "case", "throw", "new", "delete", "sizeof", "alignof", "decltype", "typeid",
              "co_return", "co_yield", "static_assert", "noexcept", "requires", "operator", "namespace", "using",
              "goto", "do", "if", "while", "for", "switch", "and", "or", "not"}
SCALARS = {"double", "float", "int", "long", "short", "char", "bool", "void", "auto", "const", "unsigned", "signed"}
WORD = re.compile(r"[A-Za-z_]\w*$")


def reserved(name):
    return name in INTRINSICS or name.startswith("__")


def closes_template(toks, k):
    """Whether the `>` at k closes a template's arguments (Pack<N>), not a comparison."""
    depth = 0
    while k >= 0 and toks[k] not in (";", "{", "}", "(", ")", "="):
        depth += {">": 1, "<": -1}.get(toks[k], 0)
        if depth == 0:
            return k >= 1 and WORD.match(toks[k - 1]) is not None
        k -= 1
    return False


def definitions(text):
    """(line, name) of every function, member function, function-like macro and named lambda
    the text defines or declares under an intrinsic's name."""
    found = []
    for n, line in enumerate(text.split("\n"), 1):
        m = re.match(r"\s*#\s*define\s+(\w+)\(", line)
        if m and reserved(m.group(1)):
            found.append((n, m.group(1)))
    code = LITERAL_OR_COMMENT.sub(lambda m: "\n" * m.group(0).count("\n") + '""', text)
    kept, directive = [], False
    for line in code.split("\n"):  # preprocessor lines, with their continuations, blanked
        directive = directive or re.match(r"\s*#", line) is not None
        kept.append("" if directive else line)
        directive = directive and line.endswith("\\")
    code = "\n".join(kept)
    toks, lines = [], []
    for n, line in enumerate(code.split("\n"), 1):
        for t in TOKEN.findall(line):
            toks.append(t)
            lines.append(n)
    for i, t in enumerate(toks):
        if not WORD.match(t) or not reserved(t) or i + 1 >= len(toks):
            continue
        j = i
        while j >= 2 and toks[j - 1] == "::" and WORD.match(toks[j - 2]):  # Pack::sqrt(
            j -= 2
        before = toks[j - 1] if j else ""
        before2 = toks[j - 2] if j >= 2 else ""
        typed = ((WORD.match(before) and before not in NOT_A_TYPE) or (before == ">" and closes_template(toks, j - 1))
                 or (before in ("*", "&", "&&") and (before2 in SCALARS
                                                     or (before2 == ">" and closes_template(toks, j - 2)))))
        if toks[i + 1] == "(" and typed and before != ".":
            found.append((lines[i], t))
        elif toks[i + 1] == "=" and i + 2 < len(toks) and toks[i + 2] == "[" and before in SCALARS:
            found.append((lines[i], t))  # auto fma = [...](...) {...}
    return found


def sources(src):
    for root, dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (rel == "." and (d.startswith("build")
                                                                                           or d in SKIP_DIRS)))
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.join(root, f)


def check(src):
    problems = []
    for path in sources(src):
        text = open(path, encoding="utf-8", errors="replace").read()
        for line, name in definitions(text):
            problems.append("%s:%d defines %s, the name of a device intrinsic: a call of it by name leads here"
                            % (os.path.relpath(path, src), line, name))
    return problems


def cases():
    """Each case is one header, room/a.hpp."""
    return [(what, {"room/a.hpp": text}, want) for what, text, want in [
        ("a clean file", "double f(double x) { return fma(x, x, 1.0) + xsimd::fma(x, x, x) + std::sqrt(x); }\n", 0),
        ("a namespace function named fma",
         "namespace gpp::simd {\ntemplate <int N>\ninline Pack<N> fma(const Pack<N>& a) { return a; }\n}\n", 1),
        ("a member function named sqrt", "struct V {\n  V sqrt() const;\n};\nV V::sqrt() const { return *this; }\n", 2),
        ("a reference returned by rsqrt", "const double& rsqrt(const double& x);\n", 1),
        ("a function-like macro", "#define fmaf(a, b, c) ((a) * (b) + (c))\n", 1),
        ("a named lambda", "void g() {\n  auto exp2 = [](double x) { return x; };\n}\n", 1),
        ("an intrinsic's own name", "KOKKOS_INLINE_FUNCTION int __shfl_sync(int v) { return v; }\n", 1),
        ("an atomic", "template <class T>\nT atomicAdd(T* p, T v);\n", 1),
        ("calls, members, comments, strings and variables",
         "// double fma(double);\nconst char* s = \"double sqrt(double)\";\nstd::ostringstream fma;\n"
         "double y = a * sqrt(b) + v.exp(c) + (x > pow(y, 2));\nreturn floor(x);\n", 0),
        ("mpi::max, as the list leaves min and max out", "namespace mpi {\ndouble max(double v);\n}\n", 0),
    ]]


def summary(src):
    print("no function of %s takes a device intrinsic's name (%d names)" % (src, len(INTRINSICS)))


if __name__ == "__main__":
    sys.exit(checker.main(sys.argv, __doc__, check, cases, summary))
