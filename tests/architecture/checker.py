"""What the checkers of tests/architecture share: the command line (SOURCE_DIR, or
--self-test) and the self-test, which writes each case's tree of files to a temporary
directory and counts the problems the check finds in it against the number it must find.
A case's file is its text, or (text, executable)."""
import os
import sys
import tempfile


def self_test(cases, check):
    ok = True
    for what, files, want in cases:
        with tempfile.TemporaryDirectory(prefix="gpp_check_") as d:
            for rel, content in files.items():
                text, executable = content if isinstance(content, tuple) else (content, False)
                path = os.path.join(d, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
                os.chmod(path, 0o755 if executable else 0o644)
            got = check(d)
        if len(got) != want:
            ok = False
            print("self-test FAILED: %s: %s" % (what, got or "no problem found"))
        else:
            print("self-test ok: %s (%d problem%s)" % (what, len(got), "" if len(got) == 1 else "s"))
    return 0 if ok else 1


def main(argv, doc, check, cases, summary, check_case=None):
    """`check` (SOURCE_DIR -> problems) on argv's tree, or the self-test of `check_case`
    (default: `check`) on `cases()`; `summary(SOURCE_DIR)` prints what holds when nothing is
    wrong."""
    if argv[1:] == ["--self-test"]:
        return self_test(cases(), check_case or check)
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(doc.strip().splitlines()[2], file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if not problems:
        summary(argv[1])
    return 1 if problems else 0
