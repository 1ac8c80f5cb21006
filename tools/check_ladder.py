#!/usr/bin/env python3
"""Checks that a chapter's ladder, its files and its page say the same thing (issue 24).

For one chapter, from the registry as the executable lists it (`<chapter> --list`, no GPU
needed) and the files under chapters/NN_name/:

  1. every ladder version (kind `ours`, named like v07_pipelined or t3_streaming_loads) has
     exactly one file <name>.cu in the chapter (outside tune/, the searches);
  2. every file named like a ladder step (vN_*.cu, tN_*.cu) outside tune/ is registered;
  3. a ladder's numbers run 0, 1, 2, ... in registry order, and a ladder that reaches 10 writes
     them with two digits (v00 ... v17), so that `ls` lists the reading order;
  4. the chapter page (README.md) has a `###` heading naming the step's short id (`v07`,
     `t3`; "### v00 and v01: ..." names two) and a `\\snippet` of the step's own file (its path
     under chapters/, e.g. 06_gemm/fp32/v07_pipelined.cu, or the file's name alone);
  5. the step's doc comment has its **Idea**, **Changed since ...** (not the first step of a
     ladder), **Predicted** and **Measured** paragraphs, and the Measured one gives a measured
     quantity, a number with its unit (a paragraph that only points at the page's table drifts
     from it unseen).

Exit status 0 when everything holds; 1 with one line per finding otherwise.

    python3 tools/check_ladder.py chapters/06_gemm --exe build/bin/gemm
"""
import argparse
import pathlib
import re
import subprocess
import sys

LADDER_NAME = re.compile(r"^([a-z])(\d+)_[a-z0-9_]+$")
# A measured quantity: a number with its unit (a version's name, "v06", is not a measurement).
MEASURED_QUANTITY = re.compile(r"\d(?:[\d.,]*\d)?\s*(?:ms|us|µs|%|x\b|GB/s|TB/s|TFLOP/s)")
LIST_ROW = re.compile(r"^  (\S+)\s+(ours|library|exercise|solution)\s+sm_\d+\+\s")


def registry(exe):
    """The (name, kind) rows of `<exe> --list`, in registry order."""
    out = subprocess.run([exe, "--list"], check=True, capture_output=True, text=True).stdout
    return [(m.group(1), m.group(2)) for m in map(LIST_ROW.match, out.splitlines()) if m]


def doc_comment(text):
    """The `///` lines of a file, joined (the doc comments a reader sees on the page)."""
    return "\n".join(line.strip()[3:].strip() for line in text.splitlines() if line.strip().startswith("///"))


def paragraph(doc, label):
    """The text of the **<label>...** paragraph of a doc comment, or None."""
    m = re.search(r"\*\*" + label + r"[^*]*\*\*(.*?)(?=\n\s*\n|\*\*[A-Z][a-z]+[^*]*\*\*|\Z)", doc, re.S)
    return None if m is None else m.group(1)


def check(chapter_dir, rows):
    findings = []
    chapter = chapter_dir.name
    files = {}
    for p in sorted(chapter_dir.rglob("*.cu")):
        rel = p.relative_to(chapter_dir)
        if rel.parts[0] == "tune" or not LADDER_NAME.match(p.stem):
            continue
        files.setdefault(p.stem, []).append(p)
    ladder = [name for name, kind in rows if kind == "ours" and LADDER_NAME.match(name)]
    page = (chapter_dir / "README.md").read_text()
    headings = [line for line in page.splitlines() if line.startswith("###")]
    snippets = set(re.findall(r"\\snippet(?:\{[^}]*\})?\s+(\S+)", page))

    for name in sorted(set(files) - set(ladder)):
        findings.append(f"{files[name][0].relative_to(chapter_dir.parent)}: named like a step, but not registered")

    next_number = {}
    highest = {}
    for name in ladder:
        prefix, digits = LADDER_NAME.match(name).group(1, 2)
        highest[prefix] = max(highest.get(prefix, 0), int(digits))
    for name in ladder:
        prefix, digits = LADDER_NAME.match(name).group(1, 2)
        short = prefix + digits
        expected = next_number.get(prefix, 0)
        if int(digits) != expected:
            findings.append(f"{chapter}: {name} comes where {prefix}{expected} should (registry order)")
        next_number[prefix] = int(digits) + 1
        if highest[prefix] >= 10 and len(digits) != 2:
            findings.append(f"{chapter}: {name}: a ladder that reaches {prefix}{highest[prefix]} writes its numbers "
                            "with two digits (`ls` lists v10 before v2)")
        where = files.get(name, [])
        if len(where) != 1:
            findings.append(f"{chapter}: {name}: {len(where)} files named {name}.cu (one expected)")
            continue
        path = where[0]
        rel = path.relative_to(chapter_dir.parent).as_posix()  # e.g. 06_gemm/fp32/v07_pipelined.cu
        if not any(re.search(r"\b" + re.escape(short) + r"\b", h) for h in headings):
            findings.append(f"{rel}: the page has no ### heading naming {short}")
        if not any(("/" + rel).endswith("/" + s) for s in snippets):  # a path under chapters/, or unique tail
            findings.append(f"{rel}: the page shows no \\snippet of this file")
        doc = doc_comment(path.read_text())
        first = int(digits) == 0
        for label in ("Idea", "Predicted", "Measured") + (() if first else ("Changed since",)):
            if paragraph(doc, label) is None:
                findings.append(f"{rel}: no **{label}...** paragraph in its doc comment")
        measured = paragraph(doc, "Measured")
        if measured is not None and not MEASURED_QUANTITY.search(measured):
            findings.append(f"{rel}: its **Measured** paragraph gives no measured quantity (ms, GB/s, TFLOP/s, %, x)")
    return findings


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("chapter_dir", type=pathlib.Path, help="chapters/NN_name")
    ap.add_argument("--exe", required=True, help="the chapter executable (its --list is the registry)")
    args = ap.parse_args()
    findings = check(args.chapter_dir.resolve(), registry(args.exe))
    for f in findings:
        print(f)
    print(f"{args.chapter_dir.name}: {'ladder, files and page agree' if not findings else f'{len(findings)} findings'}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
