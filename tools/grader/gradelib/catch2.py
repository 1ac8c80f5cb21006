"""Catch2 (v2 and v3): test-case names from sources, test-spec escaping, JUnit results.

The grader runs every test case in its own process (`exe "<escaped name>" -r junit -o FILE`), so a
hang or a crash costs that case only, and a CUDA error that poisons the context does not make
the following cases fail with misleading messages.
"""
from __future__ import annotations

import dataclasses
import re
import xml.etree.ElementTree as ET

# Characters with a meaning in a Catch2 test spec; a backslash makes them literal (v2.13, v3).
_SPEC_SPECIAL = set(',[]"~\\')


def spec_escape(name: str) -> str:
    """A test-spec argument that selects exactly the test case called `name`."""
    return "".join("\\" + c if c in _SPEC_SPECIAL else c for c in name)


def strip_comments(src: str) -> str:
    """C++ source without // and /* */ comments (string and character literals kept intact)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if c == '"' or (c == "'" and not (i and (src[i - 1].isalnum() or src[i - 1] == "_"))):  # not 1'000
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _literal_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) of every string and character literal (comments already removed)."""
    spans, i, n = [], 0, len(text)
    while i < n:
        if text[i] == '"' or (text[i] == "'" and not (i and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + 1
            while j < n and text[j] != text[i]:
                j += 2 if text[j] == "\\" else 1
            spans.append((i, j + 1))
            i = j + 1
        else:
            i += 1
    return spans


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "0": "\0"}


def _string_literals(text: str, pos: int) -> tuple[str | None, int]:
    """Adjacent C string literals starting at text[pos:] (whitespace allowed), concatenated."""
    result, found = [], False
    while True:
        m = re.compile(r'\s*"').match(text, pos)
        if not m:
            return ("".join(result) if found else None), pos
        i = m.end()
        while i < len(text) and text[i] != '"':
            if text[i] == "\\" and i + 1 < len(text):
                result.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                i += 2
            else:
                result.append(text[i])
                i += 1
        found, pos = True, i + 1


def test_case_names(source: str) -> list[str] | None:
    """Names of the TEST_CASE / TEST_CASE_METHOD / SCENARIO cases in a test source, in order.

    None when the source uses a macro whose case names are generated (TEMPLATE_TEST_CASE, ...)
    or a name is not a plain literal: the grader then runs the executable as a single case.
    """
    text = strip_comments(source)
    if re.search(r"\b(TEMPLATE_\w*TEST_CASE\w*|TEMPLATE_LIST_TEST_CASE\w*|METHOD_AS_TEST_CASE|REGISTER_TEST_CASE)\s*\(", text):
        return None
    literals = _literal_spans(text)
    names = []
    for m in re.finditer(r"\b(TEST_CASE_METHOD|TEST_CASE|SCENARIO_METHOD|SCENARIO)\s*\(", text):
        if any(a <= m.start() < b for a, b in literals):
            continue  # inside a string literal
        pos = m.end()
        if m.group(1).endswith("_METHOD"):
            comma = text.find(",", pos)
            if comma < 0:
                return None
            pos = comma + 1
        name, _ = _string_literals(text, pos)
        if name is None:
            return None
        names.append(("Scenario: " + name) if m.group(1).startswith("SCENARIO") else name)
    return names


@dataclasses.dataclass
class JunitCase:
    """One <testcase> of a Catch2 JUnit report (a leaf section of a test case)."""

    name: str
    status: str          # "passed", "failed" (a failed assertion), "error" (an exception), "skipped"
    message: str = ""    # the failure text: assertion, expansion, INFO lines, location
    seconds: float = 0.0


def parse_junit(path) -> list[JunitCase] | None:
    """The test cases of a JUnit file; None if it is missing, empty or not JUnit XML."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    if root.tag not in ("testsuites", "testsuite"):
        return None
    cases = []
    for tc in root.iter("testcase"):
        status, message = "passed", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                status = "failed" if child.tag == "failure" else "error"
                message = (child.text or child.get("message") or "").strip("\n")
                break
            if child.tag == "skipped" and status == "passed":
                status, message = "skipped", (child.get("message") or child.text or "").strip()
        try:
            seconds = float(tc.get("time", "0") or 0)
        except ValueError:
            seconds = 0.0
        cases.append(JunitCase(tc.get("name", "?"), status, message, seconds))
    return cases


WORST_LINE = re.compile(r"^\s*\[[^\]]*\]\s+got\s")
_SIZE = re.compile(r"\b[a-zA-Z]\w*\s*=\s*-?\d")


def clean_message(message: str, max_lines: int = 40) -> str:
    """The failure text without Catch2's boilerplate lines, at most `max_lines` lines."""
    lines = [ln.rstrip() for ln in message.splitlines()]
    lines = [ln for ln in lines if ln.strip() and ln.strip() != "FAILED:"]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more lines)"]
    return "\n".join(lines)


def summarize_failure(message: str, limit: int = 220) -> str:
    """One line for tables: where it failed (the sizes of the case) and what was wrong there
    (the worst elements, or the failed expression when there are none)."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    where = next((ln for ln in lines if _SIZE.search(ln) and not WORST_LINE.match(ln)
                  and not ln.startswith(("REQUIRE", "CHECK", "FAIL:", "PASS:", "at ", "tolerance:"))), "")
    worst = [ln for ln in lines if WORST_LINE.match(ln)][:2]
    if worst:
        what = "worst " + "; ".join(worst)
    else:
        what = ""
        if "with expansion:" in lines:
            k = lines.index("with expansion:")
            what = lines[k + 1] if k + 1 < len(lines) else ""
        if not what:
            what = next((ln for ln in lines if ln not in ("FAILED:",) and not ln.startswith("at ")), "")
    text = f"{where}: {what}" if where and what else (where or what or "failed")
    return text if len(text) <= limit else text[:limit - 3] + "..."
