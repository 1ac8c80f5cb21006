"""The result model, the summary maths, and the three report formats plus the class summary."""
import csv
import io
import json
import pathlib
import tempfile
import unittest
import xml.etree.ElementTree as ET

import support  # noqa: F401
from gradelib import reports
from gradelib.results import BuildResult, CaseResult, ChapterResult, Speed, StudentResult, class_statistics

RUN = {"date": "2026-01-01 00:00 UTC", "device": "NVIDIA H100 80GB HBM3, 9.0", "git": "abc123",
       "settings": "hidden cases ON; speed run ON; sanitizer OFF; configuration: grading.toml"}


def chapter(name, status=None, cases=(), speed=None, build="ok", detail=""):
    ch = ChapterResult(name, f"0x_{name}", f"{name}.cu", status or "pending", f"0x_{name}/{name}.cu", detail)
    ch.build = BuildResult(build, 12.0, "a.cu(3): error: x" if build == "error" else "", "logs/s/build.log")
    ch.cases = [CaseResult(s, n, st, 0.5, msg, summ) for s, n, st, msg, summ in cases]
    ch.speed = speed
    return ch


SPEED_CASE = "timed run against the solution (every repetition checked)"
PASS_CASES = [("public", "n=1", "passed", "", ""), ("public", "m=7 n=5 | k=3", "passed", "", ""),
              ("hidden", "n=77", "passed", "", ""), ("hidden", "m=9 n=2 | k=1", "passed", "", ""),
              ("speed", SPEED_CASE, "passed", "", "")]
FAIL_CASES = [("public", "n=1", "passed", "", ""),
              ("hidden", "n=7", "failed", "worst elements:\n  out[6] got nan, expected 1",
               "wrong result: 1 of 7 elements wrong (1 not written or not finite)"),
              ("hidden", "m=3 | n=4099", "crashed", "the runner stopped in this case: it was killed by signal 11",
               "the runner stopped in this case: it was killed by signal 11"),
              ("sanitize", "compute-sanitizer --tool memcheck", "not_run", "", "not run: a case did not pass")]
FLAG = "more than 4x faster than the solution: implausible for this exercise"


def make_class():
    alice = StudentResult("alice", "/subs/alice")
    alice.chapters = [chapter("elementwise", cases=PASS_CASES, speed=Speed(1.0, 0.9, 0.9, "n=8388608")),
                      chapter("reduce", cases=FAIL_CASES)]
    bob = StudentResult("bob", "/subs/bob", warnings=["ignored notes.txt"])
    bob.chapters = [chapter("elementwise", cases=PASS_CASES, speed=Speed(0.5, 0.6, 1.2, "n=8388608")),
                    chapter("reduce", build="error")]
    carol = StudentResult("carol", "/subs/carol")
    carol.chapters = [chapter("elementwise", cases=[("public", "case one", "skipped", "SKIPPED: no GPU", "")]),
                      ChapterResult("reduce", "02_reduce", "reduce.cu")]
    dave = StudentResult("dave", "/subs/dave")
    dave.chapters = [chapter("elementwise", status="rejected", detail="x.cu includes 'solutions/x.cu'", cases=()),
                     chapter("reduce", cases=PASS_CASES, speed=Speed(0.4, 2.0, 5.0, "n=2^24", [FLAG]))]
    dave.chapters[0].build = None
    students = [alice, bob, carol, dave]
    for st in students:
        for ch in st.chapters:
            ch.derive_status()
    return students


class ModelTest(unittest.TestCase):
    def test_verdicts(self):
        alice, bob, carol, dave = make_class()
        self.assertEqual([c.status for c in alice.chapters], ["passed", "failed"])
        self.assertEqual([c.status for c in bob.chapters], ["passed", "compile_error"])
        self.assertEqual([c.status for c in carol.chapters], ["skipped", "not_submitted"])
        self.assertEqual([c.status for c in dave.chapters], ["rejected", "passed"])
        errored = chapter("x", cases=[("public", "a", "passed", "", ""), ("speed", "s", "error", "", "")])
        skipped = chapter("x", cases=[("public", "checker", "skipped", "", "not checked: no usable CUDA device")])
        self.assertEqual(skipped.derive_status(), "skipped")
        self.assertEqual(chapter("x", cases=[("public", "a", "skipped", "", ""), ("public", "b", "failed", "", "")]
                                 ).derive_status(), "failed")
        self.assertEqual(errored.derive_status(), "error")
        configure_failed = chapter("x", status="error", detail="configure failed")
        configure_failed.build = None
        self.assertEqual(configure_failed.derive_status(), "error")

    def test_counts_and_first_failure(self):
        alice = make_class()[0]
        c = alice.chapters[1].counts()
        self.assertEqual(c, {"passed": 1, "failed": 2, "skipped": 0, "not_run": 1, "error": 0, "total": 4})
        first = alice.chapters[1].first_failure()
        self.assertEqual(first.label, "hidden: n=7")
        self.assertIsNone(alice.chapters[0].first_failure())
        self.assertEqual(alice.totals(), {"chapters_gradable": 2, "chapters_submitted": 2, "chapters_passed": 1,
                                          "cases_passed": 6, "cases_total": 9})

    def test_class_statistics(self):
        stats = {s["chapter"]: s for s in class_statistics(make_class(), ["elementwise", "reduce"])}
        e, r = stats["elementwise"], stats["reduce"]
        self.assertEqual((e["submitted"], e["passed"], e["skipped"], e["rejected"]), (4, 2, 1, 1))
        self.assertAlmostEqual(e["pass_rate"], 2 / 3)  # skipped has no verdict: not in the rate
        self.assertAlmostEqual(e["speed_median"], (0.9 + 1.2) / 2)
        self.assertEqual((e["speed_min"], e["speed_max"]), (0.9, 1.2))
        self.assertEqual((r["submitted"], r["passed"], r["failed"], r["compile_error"], r["not_submitted"]),
                         (3, 1, 1, 1, 1))
        self.assertAlmostEqual(r["pass_rate"], 1 / 3)
        self.assertEqual(r["speed_median"], 5.0)  # a flagged speed is still the measured one
        empty = class_statistics([], ["elementwise"])[0]
        self.assertIsNone(empty["pass_rate"])
        self.assertIsNone(empty["speed_median"])


class FormatTest(unittest.TestCase):
    def setUp(self):
        self.students = make_class()
        self.tmp = tempfile.TemporaryDirectory()
        self.out = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_student_files(self):
        alice = self.students[0]
        reports.write_student(self.out / "alice", alice, RUN)
        md = (self.out / "alice/report.md").read_text()
        self.assertIn("# Grading report: alice", md)
        self.assertIn("| elementwise | PASS | 5/5 | 0.90x | - |", md)
        self.assertIn("| reduce | FAIL | 1/4 | - | hidden: n=7 -> failed: wrong result: 1 of 7 elements wrong", md)
        self.assertIn("First failure: **hidden: n=7** (failed)", md)
        self.assertIn("out[6] got nan, expected 1", md)
        self.assertIn("- speed (n=8388608): yours 1.0000 ms, solution 0.9000 ms -> 0.90x", md)
        self.assertIn("| hidden | m=3 \\| n=4099 | CRASHED | the runner stopped in this case", md)  # | escaped

        data = json.loads((self.out / "alice/report.json").read_text())
        self.assertEqual(data["schema_version"], 1)
        self.assertEqual(data["student"], "alice")
        self.assertEqual(data["totals"]["chapters_passed"], 1)
        red = data["chapters"][1]
        self.assertEqual(red["status"], "failed")
        self.assertEqual(red["counts"]["failed"], 2)
        self.assertEqual(red["first_failure"]["case"], "hidden: n=7")
        self.assertEqual(data["chapters"][0]["speed"], {"exercise_ms": 1.0, "solution_ms": 0.9, "ratio": 0.9,
                                                        "problem": "n=8388608", "flags": []})
        self.assertEqual(set(red["cases"][0]), {"set", "name", "status", "seconds", "message", "summary", "log"})

        root = ET.parse(self.out / "alice/junit.xml").getroot()
        self.assertEqual(root.tag, "testsuites")
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["alice.elementwise", "alice.reduce"])
        red = suites[1]
        self.assertEqual((red.get("tests"), red.get("failures"), red.get("errors"), red.get("skipped")),
                         ("5", "2", "0", "1"))  # build + 4 cases; failed + crashed; not_run is skipped
        failure = red.find("testcase[@name='n=7'][@classname='alice.reduce.hidden']/failure")
        self.assertIn("1 of 7 elements wrong", failure.get("message"))
        self.assertIn("out[6] got nan", failure.text)
        self.assertEqual(root.get("tests"), str(int(suites[0].get("tests")) + 5))

    def test_json_first_failure_of_a_build_or_integrity_failure(self):
        bob, dave = self.students[1], self.students[3]
        first = reports.chapter_json(bob.chapters[1])["first_failure"]
        self.assertEqual((first["case"], first["status"], first["summary"]), ("build", "compile_error", "a.cu(3): error: x"))
        first = reports.chapter_json(dave.chapters[0])["first_failure"]
        self.assertEqual((first["case"], first["status"]), ("integrity", "rejected"))
        self.assertIsNone(reports.chapter_json(bob.chapters[0])["first_failure"])

    def test_junit_of_every_kind_of_chapter(self):
        bob, carol, dave = self.students[1:]
        root = ET.fromstring(reports.student_junit(bob))
        build = root.find("testsuite[@name='bob.reduce']/testcase[@name='build']/failure")
        self.assertIn("error: x", build.text)
        root = ET.fromstring(reports.student_junit(carol))
        self.assertIsNotNone(root.find("testsuite[@name='carol.reduce']/testcase[@name='submitted']/skipped"))
        self.assertIsNotNone(root.find("testsuite[@name='carol.elementwise']/testcase[@name='case one']/skipped"))
        root = ET.fromstring(reports.student_junit(dave))
        self.assertIsNotNone(root.find("testsuite[@name='dave.elementwise']/testcase[@name='integrity']/failure"))

    def test_speed_flags_are_shown(self):
        dave = self.students[3]
        reports.write_student(self.out / "dave", dave, RUN)
        md = (self.out / "dave/report.md").read_text()
        self.assertIn("- speed (n=2^24): yours 0.4000 ms, solution 2.0000 ms -> 5.00x", md)
        self.assertIn("- speed FLAG: " + FLAG, md)
        data = json.loads((self.out / "dave/report.json").read_text())
        self.assertEqual(data["chapters"][1]["speed"]["flags"], [FLAG])
        root = ET.parse(self.out / "dave/junit.xml").getroot()
        prop = root.find("testsuite[@name='dave.reduce']/properties/property[@name='speed_vs_solution']")
        self.assertEqual(prop.get("value"), "5.0000")
        self.assertIn("PASS 5/5, 5.00x", reports.chapter_cell(dave.chapters[1]))

    def test_control_characters_do_not_break_the_xml(self):
        st = self.students[0]
        st.chapters[1].cases[1].message = "bad bytes \x00\x1b[31m here"
        root = ET.fromstring(reports.student_junit(st))
        self.assertIn("bad bytes", root.find(".//failure").text)

    def test_class_summary(self):
        md = reports.write_summary(self.out, self.students, ["elementwise", "reduce"], RUN)
        self.assertIn("| student | elementwise | reduce | chapters passed |", md)
        self.assertIn("| alice | PASS 5/5, 0.90x | FAIL 1/4 | 1/2 |", md)
        self.assertIn("| bob | PASS 5/5, 1.20x | COMPILE ERROR | 1/2 |", md)
        self.assertIn("| carol | skipped 0/1 | not submitted | 0/1 |", md)
        self.assertIn("| dave | REJECTED | PASS 5/5, 5.00x | 1/2 |", md)
        self.assertIn("| elementwise | 4 | 2 | 0 | 0 | 1 | 1 | 0 | 67% | 1.05x (0.90x..1.20x) |", md)
        self.assertIn("| bob | reduce | a.cu(3): error: x |", md)
        data = json.loads((self.out / "summary.json").read_text())
        self.assertEqual(data["students"][0]["chapters"]["reduce"]["status"], "failed")
        self.assertEqual(data["chapters"][1]["chapter"], "reduce")
        rows = list(csv.DictReader(io.StringIO((self.out / "summary.csv").read_text())))
        self.assertEqual(len(rows), 8)
        self.assertEqual(rows[0]["speed_vs_solution"], "0.9000")
        self.assertEqual(rows[1]["status"], "failed")
        self.assertIn("hidden: n=7", rows[1]["first_failure"])
        self.assertEqual(rows[7]["speed_vs_solution"], "5.0000")


if __name__ == "__main__":
    unittest.main()
