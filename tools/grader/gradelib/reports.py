"""Reports: per student Markdown (people), JSON (scripts) and JUnit XML (course tools); per class a
summary table (Markdown, JSON, CSV). docs/guides/grading.md explains every field."""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import pathlib
import xml.etree.ElementTree as ET

from .results import FAILING, ChapterResult, StudentResult, class_statistics

SCHEMA_VERSION = 1

STATUS_TEXT = {
    "passed": "PASS",
    "failed": "FAIL",
    "compile_error": "COMPILE ERROR",
    "rejected": "REJECTED",
    "not_submitted": "not submitted",
    "skipped": "skipped",
    "error": "ERROR (grader)",
    "not_graded": "not graded",
}


def fmt_speed(ratio: float | None) -> str:
    """0.9812 -> "0.98x" (solution time / exercise time)."""
    return "-" if ratio is None else f"{ratio:.2f}x"


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or "-"


def _code(text: str) -> str:
    """Inline code span for a Markdown table (backticks inside are replaced)."""
    return "`" + str(text).replace("`", "'") + "`"


def chapter_cell(ch: ChapterResult) -> str:
    """One cell of the class table: verdict, cases passed, speed."""
    text = STATUS_TEXT.get(ch.status, ch.status)
    c = ch.counts()
    if c["total"] and ch.status not in ("not_submitted", "not_graded"):
        text += f" {c['passed']}/{c['total']}"
    if ch.speed is not None and ch.status == "passed":
        text += f", {fmt_speed(ch.speed.ratio)}"
    return text


def failure_line(ch: ChapterResult) -> str:
    """Why a chapter did not pass, in one line (first failing case, or the build / integrity reason)."""
    if ch.status in ("compile_error", "rejected") or (ch.status == "error" and not ch.cases):
        text = ch.detail or (ch.build.errors if ch.build else "")
        return text.splitlines()[0] if text.strip() else STATUS_TEXT.get(ch.status, ch.status)
    first = ch.first_failure()
    if first is None:
        return ""
    return f"{first.label} -> {first.status}: {first.summary}"


# ----------------------------------------------------------------------------- JSON
def _case_json(case) -> dict:
    d = dataclasses.asdict(case)
    d["seconds"] = round(d["seconds"], 3)
    return d


def chapter_json(ch: ChapterResult) -> dict:
    """A chapter as JSON (stable field names; see the grading guide)."""
    d = {
        "chapter": ch.chapter,
        "folder": ch.folder,
        "file": ch.file,
        "status": ch.status,
        "submitted_as": ch.submitted_as,
        "detail": ch.detail,
        "warnings": ch.warnings,
        "counts": ch.counts(),
        "build": ({**dataclasses.asdict(ch.build), "seconds": round(ch.build.seconds, 1)} if ch.build else None),
        "cases": [_case_json(c) for c in ch.cases],
        "speed": dataclasses.asdict(ch.speed) if ch.speed else None,
        "speed_note": ch.speed_note,
    }
    first = ch.first_failure()
    if first is not None:
        d["first_failure"] = {"case": first.label, "status": first.status, "summary": first.summary,
                              "message": first.message}
    elif ch.status in ("compile_error", "rejected") or (ch.status == "error" and not ch.cases):
        step = {"compile_error": "build", "rejected": "integrity"}.get(ch.status, "setup")
        d["first_failure"] = {"case": step, "status": ch.status, "summary": failure_line(ch),
                              "message": ch.build.errors if ch.build and ch.build.errors else ch.detail}
    else:
        d["first_failure"] = None
    return d


def student_json(st: StudentResult, run: dict) -> dict:
    """A student's whole result as JSON."""
    return {
        "schema_version": SCHEMA_VERSION,
        "student": st.name,
        "submission": st.submission,
        "run": run,
        "totals": st.totals(),
        "warnings": st.warnings,
        "seconds": round(st.seconds, 1),
        "chapters": [chapter_json(c) for c in st.chapters],
    }


# ----------------------------------------------------------------------------- Markdown
def student_markdown(st: StudentResult, run: dict) -> str:
    """The human-readable report of one student."""
    t = st.totals()
    out = [f"# Grading report: {st.name}", ""]
    out.append(f"- submission: `{st.submission}`")
    out.append(f"- graded: {run.get('date', '?')} on {run.get('device', '?')}, repository commit {run.get('git', '?')}")
    out.append(f"- {run.get('settings', '')}")
    out.append(f"- chapters passed: {t['chapters_passed']} of {t['chapters_submitted']} submitted "
               f"({t['chapters_gradable']} gradable); cases passed: {t['cases_passed']} of {t['cases_total']}")
    for w in st.warnings:
        out.append(f"- note: {w}")
    out += ["", "| chapter | verdict | cases passed | speed vs solution | first failure |", "|---|---|---|---|---|"]
    for ch in st.chapters:
        c = ch.counts()
        cases = f"{c['passed']}/{c['total']}" if c["total"] else "-"
        speed = fmt_speed(ch.speed.ratio) if ch.speed else "-"
        out.append(f"| {ch.chapter} | {STATUS_TEXT.get(ch.status, ch.status)} | {cases} | {speed} | "
                   f"{_cell(failure_line(ch))} |")
    out += ["", "Speed = the solution's median time / yours, measured by the checker in the same run on the "
            "exercise's timed case, every repetition on fresh inputs and checked (1.00x: as fast as the "
            "solution; above 1: faster)."]
    for ch in st.chapters:
        if ch.status in ("not_submitted", "not_graded"):
            continue
        out += ["", f"## {ch.chapter} ({ch.folder}/{ch.file}): {STATUS_TEXT.get(ch.status, ch.status)}", ""]
        if ch.submitted_as:
            out.append(f"- file: `{ch.submitted_as}`")
        for w in ch.warnings:
            out.append(f"- note: {w}")
        if ch.detail:
            out.append(f"- {ch.status.replace('_', ' ')}: {ch.detail.splitlines()[0]}")
        if ch.build:
            b = ch.build
            out.append(f"- build: {b.status} ({b.seconds:.0f} s)" + (f", log `{b.log}`" if b.log else ""))
            if b.errors:
                out += ["", "```", b.errors.rstrip(), "```", ""]
        if ch.speed:
            s = ch.speed
            out.append(f"- speed ({s.problem}): yours {s.exercise_ms:.4f} ms, solution {s.solution_ms:.4f} ms -> "
                       f"{fmt_speed(s.ratio)}")
            for flag in s.flags:
                out.append(f"- speed FLAG: {flag}")
        elif ch.speed_note:
            out.append(f"- speed: {ch.speed_note}")
        if ch.cases:
            # Every case that did not pass, and a count of those that did, by set.
            shown = [c for c in ch.cases if c.status != "passed"]
            for set_name in ("public", "hidden", "speed", "sanitize"):
                ok = sum(c.set == set_name and c.status == "passed" for c in ch.cases)
                total = sum(c.set == set_name for c in ch.cases)
                if total:
                    out.append(f"- {set_name}: {ok} of {total} passed")
            if shown:
                out += ["", "| set | case | result | why |", "|---|---|---|---|"]
                for case in shown[:40]:
                    mark = case.status.upper() if case.status in FAILING or case.status == "error" else case.status
                    out.append(f"| {case.set} | {_cell(case.name)} | {mark} | {_cell(case.summary)[:200]} |")
                if len(shown) > 40:
                    out.append(f"| | ... and {len(shown) - 40} more | | |")
        first = ch.first_failure()
        if first is not None:
            out += ["", f"First failure: **{_cell(first.label)}** ({first.status})"
                    + (f", log `{first.log}`" if first.log else ""), "", "```",
                    (first.message or first.summary).rstrip(), "```"]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- JUnit
def _xml_text(text: str) -> str:
    """Text without the control characters XML 1.0 forbids."""
    return "".join(c for c in str(text) if c in "\t\n\r" or ord(c) >= 0x20)


def student_junit(st: StudentResult) -> str:
    """JUnit XML: one <testsuite> per chapter, one <testcase> per case plus one for the build."""
    root = ET.Element("testsuites", name=f"grading: {st.name}")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for ch in st.chapters:
        suite = ET.SubElement(root, "testsuite", name=f"{st.name}.{ch.chapter}")
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="verdict", value=ch.status)
        if ch.speed:
            ET.SubElement(props, "property", name="speed_vs_solution", value=f"{ch.speed.ratio:.4f}")
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        seconds = 0.0

        def case(classname: str, name: str, status: str, message: str = "", summary: str = "", secs: float = 0.0):
            nonlocal seconds
            tc = ET.SubElement(suite, "testcase", classname=classname, name=_xml_text(name), time=f"{secs:.3f}")
            counts["tests"] += 1
            seconds += secs
            if status in FAILING:
                el = ET.SubElement(tc, "failure", message=_xml_text(summary or status), type=status)
                el.text = _xml_text(message or summary)
                counts["failures"] += 1
            elif status == "error":
                el = ET.SubElement(tc, "error", message=_xml_text(summary or "error"), type="error")
                el.text = _xml_text(message or summary)
                counts["errors"] += 1
            elif status in ("skipped", "not_run", "not_submitted", "not_graded"):
                ET.SubElement(tc, "skipped", message=_xml_text(summary or status))
                counts["skipped"] += 1

        prefix = f"{st.name}.{ch.chapter}"
        if ch.status in ("not_submitted", "not_graded"):
            case(prefix, "submitted", ch.status, summary=STATUS_TEXT[ch.status])
        elif ch.status == "rejected":
            case(prefix, "integrity", "failed", ch.detail, ch.detail)
        elif ch.build is None and not ch.cases:
            case(prefix, "build", "error", ch.detail, ch.detail.splitlines()[0] if ch.detail else "error")
        if ch.build is not None:
            b_status = "passed" if ch.build.status in ("ok", "partial") else "failed"
            first_error = (ch.build.errors.splitlines() or [""])[0]
            case(prefix, "build", b_status, ch.build.errors, first_error or f"build {ch.build.status}",
                 ch.build.seconds)
        for c in ch.cases:
            case(f"{prefix}.{c.set}", c.name, c.status, c.message, c.summary, c.seconds)
        for k, v in counts.items():
            suite.set(k, str(v))
            totals[k] += v
        suite.set("time", f"{seconds:.3f}")
    for k, v in totals.items():
        root.set(k, str(v))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ----------------------------------------------------------------------------- class summary
def summary_markdown(students: list[StudentResult], chapter_names: list[str], run: dict) -> str:
    """The class summary: a verdict table, per-chapter statistics, and every first failure."""
    out = ["# Class summary", ""]
    out.append(f"- graded: {run.get('date', '?')} on {run.get('device', '?')}, repository commit {run.get('git', '?')}")
    out.append(f"- {run.get('settings', '')}")
    out.append(f"- {len(students)} submissions; cell = verdict, cases passed/total, speed vs the solution "
               "(solution time / student time)")
    out += ["", "| student | " + " | ".join(chapter_names) + " | chapters passed |",
            "|---|" + "---|" * len(chapter_names) + "---|"]
    for st in students:
        by = {c.chapter: c for c in st.chapters}
        t = st.totals()
        cells = [chapter_cell(by[n]) if n in by else "-" for n in chapter_names]
        out.append(f"| {_cell(st.name)} | " + " | ".join(_cell(c) for c in cells)
                   + f" | {t['chapters_passed']}/{t['chapters_submitted']} |")
    stats = class_statistics(students, chapter_names)
    out += ["", "| chapter | submitted | passed | failed | compile error | rejected | skipped | error | pass rate "
            "| speed of passing (median, min..max) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s in stats:
        rate = "-" if s["pass_rate"] is None else f"{100 * s['pass_rate']:.0f}%"
        speed = ("-" if s["speed_median"] is None else
                 f"{fmt_speed(s['speed_median'])} ({fmt_speed(s['speed_min'])}..{fmt_speed(s['speed_max'])})")
        out.append(f"| {s['chapter']} | {s['submitted']} | {s['passed']} | {s['failed']} | {s['compile_error']} | "
                   f"{s['rejected']} | {s['skipped']} | {s['error']} | {rate} | {speed} |")
    failures = [(st.name, ch) for st in students for ch in st.chapters
                if ch.status in ("failed", "compile_error", "rejected", "error")]
    if failures:
        out += ["", "| student | chapter | first failure |", "|---|---|---|"]
        for name, ch in failures:
            out.append(f"| {_cell(name)} | {ch.chapter} | {_cell(failure_line(ch))} |")
    return "\n".join(out) + "\n"


def summary_json(students: list[StudentResult], chapter_names: list[str], run: dict) -> dict:
    """The class summary as JSON: run facts, per-chapter statistics, and each student's verdicts."""
    return {
        "schema_version": SCHEMA_VERSION,
        "run": run,
        "chapters": class_statistics(students, chapter_names),
        "students": [{
            "student": st.name,
            "submission": st.submission,
            "totals": st.totals(),
            "chapters": {ch.chapter: {
                "status": ch.status,
                "counts": ch.counts(),
                "speed": ch.speed.ratio if ch.speed else None,
                "first_failure": failure_line(ch) or None,
            } for ch in st.chapters},
        } for st in students],
    }


def summary_csv(students: list[StudentResult]) -> str:
    """One row per student and chapter (for spreadsheets)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["student", "chapter", "status", "cases_passed", "cases_total", "speed_vs_solution",
                "exercise_ms", "solution_ms", "first_failure"])
    for st in students:
        for ch in st.chapters:
            c = ch.counts()
            w.writerow([st.name, ch.chapter, ch.status, c["passed"], c["total"],
                        f"{ch.speed.ratio:.4f}" if ch.speed else "",
                        f"{ch.speed.exercise_ms:.6f}" if ch.speed else "",
                        f"{ch.speed.solution_ms:.6f}" if ch.speed else "", failure_line(ch)])
    return buf.getvalue()


def write_student(folder: pathlib.Path, st: StudentResult, run: dict) -> None:
    """folder/report.md, report.json, junit.xml."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text(student_markdown(st, run))
    (folder / "report.json").write_text(json.dumps(student_json(st, run), indent=2) + "\n")
    (folder / "junit.xml").write_text(student_junit(st))


def write_summary(out: pathlib.Path, students: list[StudentResult], chapter_names: list[str], run: dict) -> str:
    """out/summary.md, summary.json, summary.csv; returns the Markdown."""
    out.mkdir(parents=True, exist_ok=True)
    md = summary_markdown(students, chapter_names, run)
    (out / "summary.md").write_text(md)
    (out / "summary.json").write_text(json.dumps(summary_json(students, chapter_names, run), indent=2) + "\n")
    (out / "summary.csv").write_text(summary_csv(students))
    return md
