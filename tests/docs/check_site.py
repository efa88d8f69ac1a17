#!/usr/bin/env python3
"""A built MkDocs site works opened as a file (build/site/index.html, no server) as well as
served: every link of every page, followed as a browser follows it from a file:// page,
lands on a file of the site, never on a folder (a browser shows a folder listing there; a
server would have answered with the folder's index.html), and a link that names an anchor
(page.html#anchor) lands on an element of that id (MkDocs 1.4's --strict checks the pages
a link names, not the anchors). The theme's own files (stylesheets, scripts, images) are
links like any other. And no page shows a list as a paragraph's text (a list written
without the blank line above it that Python-Markdown needs).

  check_site.py SITE_DIR      (after mkdocs build --strict; .ci/run runs both)
  check_site.py --self-test   (feeds the checker small sites it must refuse, and one it must pass)

One line per broken link, exit 1 if any; exit 0 and a count otherwise."""
import glob
import html
import os
import re
import shutil
import sys
import tempfile
import urllib.parse

# href= and src= of every element; the scheme-less ones are links inside the site.
LINK = re.compile(r'\b(?:href|src)="([^"]*)"')
ID = re.compile(r'\bid="([^"]+)"')
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")
# A Markdown list written right under a paragraph's last line, without the blank line
# Python-Markdown needs: it renders as that paragraph's text, its items run together.
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
GLUED_ITEM = re.compile(r"\n[ \t]*[-*] \S")


def pages_of(site):
    # 404.html is what a server answers for a missing page, from any folder: its links are
    # absolute (/page.html) and it is never opened as a file.
    return sorted(p for p in glob.glob(os.path.join(site, "**", "*.html"), recursive=True)
                  if os.path.isfile(p) and os.path.relpath(p, site) != "404.html")


def problems(site):
    """(list of one-line problems, number of links checked)."""
    out = []
    pages = pages_of(site)
    if not pages:
        return [f"{site}: no pages (build the site first)"], 0
    if not os.path.isfile(os.path.join(site, "index.html")):
        out.append(f"{site}: no index.html (the page a reader opens first)")
    ids = {}
    texts = {}
    for f in pages:
        texts[f] = open(f, encoding="utf-8", errors="replace").read()
        ids[os.path.normpath(f)] = set(ID.findall(texts[f]))
    checked = 0
    for f in pages:
        where = os.path.relpath(f, site)
        for para in PARAGRAPH.findall(texts[f]):
            item = GLUED_ITEM.search(para)
            if item:
                text = re.sub(r"<[^>]+>", "", para[item.start():]).strip()[:50]
                out.append(f"{where}: a list glued to the paragraph above it (no blank line before '{text}')")
        for raw in sorted(set(LINK.findall(texts[f]))):
            link = html.unescape(raw)
            if not link or link.startswith("#") and len(link) == 1 or EXTERNAL.match(link):
                continue
            path, _, frag = link.partition("#")
            path = urllib.parse.unquote(path.split("?")[0])
            checked += 1
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else os.path.normpath(f)
            inside = os.path.commonpath([os.path.abspath(target), os.path.abspath(site)]) == os.path.abspath(site)
            if not inside:
                out.append(f"{where}: link to {link}: outside the site")
            elif path.endswith("/") or os.path.isdir(target):
                out.append(f"{where}: link to {link}: opens a folder, not a page (a folder listing opened as a "
                           "file; build with use_directory_urls: false)")
            elif not os.path.isfile(target):
                out.append(f"{where}: link to {link}: no such file")
            elif frag and target.endswith(".html") and frag not in ids.get(target, set()):
                out.append(f"{where}: link to {link}: no such anchor")
    return out, checked


def self_test():
    """Small sites the checker must refuse (each for its one reason) and one it must pass."""
    good = {
        "index.html": '<a href="guide/run.html#first">run</a> <link href="assets/main.css"> '
                      '<script src="assets/app.js"></script> <a href="https://example.org/x/">out</a> '
                      '<a href="#">top</a> <a href="#me">me</a> <h1 id="me">x</h1>',
        "guide/run.html": '<h2 id="first">first</h2> <a href="../index.html">home</a> '
                          '<a href="run.html?q=1#first">self</a> <img src="../img/a%20b.png">',
        "assets/main.css": "",
        "assets/app.js": "",
        "img/a b.png": "",
        "404.html": '<a href="/index.html">served only</a>',
    }
    bad = {
        "a folder (directory URL)": ({"index.html": '<a href="guide/">guide</a>'}, "opens a folder"),
        "a folder without its slash": ({"index.html": '<a href="guide">guide</a>'}, "opens a folder"),
        "a missing page": ({"index.html": '<a href="guide/nope.html">x</a>'}, "no such file"),
        "a missing asset": ({"index.html": '<script src="assets/gone.js"></script>'}, "no such file"),
        "a missing anchor": ({"index.html": '<a href="guide/run.html#second">x</a>'}, "no such anchor"),
        "a link out of the site": ({"index.html": '<a href="../../etc/passwd">x</a>'}, "outside the site"),
        "a list under a paragraph": ({"index.html": "<p>Fields:\n- <code>a</code>: one\n- b</p>"}, "list glued"),
    }
    failures = []
    with tempfile.TemporaryDirectory() as tmp:

        def build(files):
            site = os.path.join(tmp, "site")
            shutil.rmtree(site, ignore_errors=True)
            for name, text in files.items():
                p = os.path.join(site, name)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w", encoding="utf-8") as f:
                    f.write(text)
            return site

        found, checked = problems(build(good))
        if found or checked != 7:
            failures.append(f"a good site: expected no problem in 7 links, got {found} in {checked}")
        for what, (change, expect) in bad.items():
            files = dict(good)
            files["index.html"] = files["index.html"] + change["index.html"]
            found, _ = problems(build(files))
            if len(found) != 1 or expect not in found[0]:
                failures.append(f"{what}: expected one problem '{expect}', got {found}")
        found, _ = problems(build({"guide/run.html": "<p>x</p>"}))
        if not any("no index.html" in p for p in found):
            failures.append(f"a site without index.html: expected it said, got {found}")
        found, _ = problems(build({}))
        if not any("no pages" in p for p in found):
            failures.append(f"an empty site: expected it refused, got {found}")
    for f in failures:
        print(f"check_site self-test: {f}")
    print(f"check_site self-test: {len(bad) + 3 - len(failures)} of {len(bad) + 3} cases as expected")
    return 1 if failures else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_site.py SITE_DIR (a built site) | --self-test")
        return 1
    found, checked = problems(sys.argv[1])
    for p in found:
        print(p)
    print(f"check_site: {checked} links checked, {len(found)} broken")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
