#!/usr/bin/env python3
"""Every link of a built MkDocs site that names an anchor (page/#anchor) lands on an
element of that id: MkDocs 1.4's --strict checks the pages a link names, not the anchors.

  check_site.py SITE_DIR      (after mkdocs build --strict; .ci/run runs both)

One line per broken link, exit 1 if any; exit 0 and a count otherwise."""
import glob
import os
import re
import sys


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print("usage: check_site.py SITE_DIR (a built site)")
        return 1
    site = sys.argv[1]
    broken = checked = 0
    pages = glob.glob(os.path.join(site, "**", "index.html"), recursive=True)
    if not pages:
        print(f"{site}: no pages (build the site first)")
        return 1
    ids = {}
    for f in pages:
        ids[os.path.normpath(f)] = set(re.findall(r'\bid="([^"]+)"', open(f, encoding="utf-8").read()))
    for f in pages:
        for path, frag in set(re.findall(r'href="([^"#:]*)#([^"]+)"', open(f, encoding="utf-8").read())):
            target = os.path.normpath(os.path.join(os.path.dirname(f), path, "index.html") if path else f)
            checked += 1
            if frag not in ids.get(target, set()):
                broken += 1
                print(f"{os.path.relpath(f, site)}: link to {path}#{frag}: no such anchor")
    print(f"check_site: {checked} links with an anchor, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
