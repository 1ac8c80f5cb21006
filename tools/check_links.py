#!/usr/bin/env python3
"""Checks every local link of a generated HTML site (the Doxygen output in build/docs/html).

For every .html and .svg file under ROOT it collects the targets of href, src and data attributes
(a, link, script, img, iframe, object, area, ...). Each local target must name a file that exists
inside ROOT and, when it carries a #fragment, an element of that file with that id (or name).
External links (http:, https:, mailto:, javascript:, data:) are not fetched.

Every .svg file must also be well-formed XML: a browser shows nothing (or an error box) for an
image that is not, for instance a Graphviz label whose markup its SVG writer gets wrong.

Doxygen's navigation scripts (navtree*.js, menudata.js, search/*.js) hold "page.html#anchor"
strings too: their pages must exist. Their anchors are counted but only fail with --strict-nav,
because Doxygen 1.9 lists some members in the tree (enum values, a file's functions documented
on their namespace's page) under anchors it never writes; the tree still opens the right page.

    tools/check_links.py build/docs/html          # exit 0: all resolve; 1: broken links listed

Standard library only (html.parser), so it runs wherever the docs build.
"""
import argparse
import html.parser
import pathlib
import re
import sys
import urllib.parse
import xml.etree.ElementTree

LINK_ATTRS = {"href", "src", "data", "xlink:href", "poster"}
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # any scheme: http:, mailto:, javascript:, ...
JS_LINK = re.compile(r"""["']([A-Za-z0-9_.\-/]+\.html(?:#[A-Za-z0-9_.:\-]+)?)["']""")


class Collector(html.parser.HTMLParser):
    """Collects ids (anchors) and link targets, with line numbers, from one HTML or SVG file."""

    def __init__(self, svg=False):
        super().__init__(convert_charrefs=True)
        self.svg = svg
        self.ids = set()
        self.links = []  # (line, target)

    def handle_starttag(self, tag, attrs):
        self._element(tag, attrs)

    def handle_startendtag(self, tag, attrs):
        self._element(tag, attrs)

    def _element(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)
            elif name in LINK_ATTRS and (not self.svg or tag == "a"):
                # In SVG only <a> is a link; xlink:href on <use>, <path>, ... points at the
                # image's own definitions (gradients, filters), not at pages.
                self.links.append((self.getpos()[0], value))


def parse(path):
    collector = Collector(svg=path.suffix == ".svg")
    collector.feed(path.read_text(encoding="utf-8", errors="replace"))
    collector.close()
    return collector


def js_links(path):
    """"page.html#anchor" strings in Doxygen's navtree/menu scripts, with line numbers."""
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        for m in JS_LINK.finditer(line):
            found.append((number, m.group(1)))
    return found


def hint(target):
    """A likely cause for a missing page, for the error message."""
    if re.search(r"_8(cpp|cu|cc)\.html", target):
        return (" (a header links its functions to the page of the .cpp/.cu that defines them, which"
                " Doxygen did not write: document the namespace or give that file an @file comment)")
    return ""


def check(root, strict_nav=False):
    root = root.resolve()
    pages = sorted(p for p in root.rglob("*") if p.suffix in (".html", ".svg") and p.is_file())
    scripts = sorted(p for p in root.rglob("*.js") if p.is_file())
    parsed = {p: parse(p) for p in pages}
    ids = {p: c.ids for p, c in parsed.items()}

    broken, nav_misses, checked = [], 0, 0
    for svg in (p for p in pages if p.suffix == ".svg"):
        try:
            xml.etree.ElementTree.parse(svg)
        except xml.etree.ElementTree.ParseError as e:
            broken.append(f"{svg.relative_to(root)}: not well-formed SVG, browsers will not show it ({e})")
    sources = [(p, c.links) for p, c in parsed.items()] + [(s, js_links(s)) for s in scripts]
    for source, links in sources:
        for line, raw in links:
            target = raw.strip()
            if not target or target == "#" or EXTERNAL.match(target) or target.startswith("//"):
                continue
            checked += 1
            parts = urllib.parse.urlsplit(target)
            fragment = urllib.parse.unquote(parts.fragment)
            if parts.path:
                dest = (source.parent / urllib.parse.unquote(parts.path)).resolve()
            else:
                dest = source
            where = f"{source.relative_to(root)}:{line}"
            if root not in dest.parents and dest != root:
                broken.append(f"{where}: '{raw}' points outside the site")
                continue
            if not dest.exists():
                broken.append(f"{where}: '{raw}': no file {dest.relative_to(root)}{hint(raw)}")
                continue
            if fragment:
                if dest not in ids:
                    if dest.suffix in (".html", ".svg"):
                        ids[dest] = parse(dest).ids
                    else:
                        broken.append(f"{where}: '{raw}': #{fragment} in a file that is not HTML")
                        continue
                if fragment not in ids[dest]:
                    if source.suffix == ".js" and not strict_nav:
                        nav_misses += 1
                        continue
                    broken.append(f"{where}: '{raw}': no anchor #{fragment} in {dest.relative_to(root)}")
    return len(pages), len(scripts), checked, broken, nav_misses


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", help="the site's folder, e.g. build/docs/html")
    ap.add_argument("--strict-nav", action="store_true",
                    help="also fail on anchors of the navigation scripts that Doxygen did not write")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    if not (root / "index.html").is_file():
        print(f"check_links: {root}/index.html not found (build the docs first)", file=sys.stderr)
        return 1
    pages, scripts, checked, broken, nav_misses = check(root, args.strict_nav)
    for b in broken:
        print(f"check_links: {b}", file=sys.stderr)
    verdict = f"{len(broken)} BROKEN" if broken else "all resolve"
    nav = f" ({nav_misses} tree/search anchors Doxygen did not write; see --help)" if nav_misses else ""
    print(f"check_links: {pages} pages/images and {scripts} scripts, {checked} local links: {verdict}{nav}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
