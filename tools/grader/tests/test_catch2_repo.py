"""Chapter discovery, Catch2 test names and spec escaping, JUnit parsing, failure summaries."""
import pathlib
import tempfile
import textwrap
import unittest

import support
from gradelib import catch2, repo

# What Catch2 2.13's JUnit reporter writes for a failed REQUIRE with INFO (captured from a real run).
V2_FAILURE = textwrap.dedent("""\
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites>
      <testsuite name="t" errors="0" failures="1" tests="2" hostname="tbd" time="0.000" timestamp="2026-11-21T12:20:19Z">
        <properties>
          <property name="filters" value="the float4 add is right for fresh inputs\\, not one fixed data set"/>
        </properties>
        <testcase classname="t.global" name="the float4 add is right for fresh inputs, not one fixed data set" time="0.000" status="run">
          <failure message="n &lt; 2" type="REQUIRE">
    FAILED:
      REQUIRE( tut_stats_.passed(tut_tol_) )
    with expansion:
      false
    testing the exercise in /x/add_float4.cu -- if this fails, look at its TODO(student) markers
    n = 5, offsets (a, b, out) = (0, 0, 0), seed 141682210
    FAIL: 5 elements, rel. norm error inf (limit 1.2e-07), max abs error inf, 1 over atol 0 + rtol 1.2e-07 * |ref|, 1 NaN/Inf outputs (never pass)
      tolerance: one fp32 rounding of the exact result
      worst elements:
        [4] got nan, expected 1.5
        [3] got 2, expected 2.25 &amp; &lt;x>
    at test_support.hpp:47
          </failure>
        </testcase>
        <testcase classname="t.global" name="passes/a" time="0.000" status="run"/>
        <system-out/>
        <system-err/>
      </testsuite>
    </testsuites>
    """)

V2_EXCEPTION = textwrap.dedent("""\
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites><testsuite name="t" errors="1" failures="0" tests="1">
      <testcase classname="t.global" name="throws" time="0.5"><error type="TEST_CASE">
    FAILED:
    kernel launch: cudaErrorIllegalAddress: an illegal memory access was encountered
    at t.cpp:14
      </error></testcase></testsuite></testsuites>
    """)

# Catch2 v3 adds <skipped> for SKIP(); the rest has the same shape.
V3_SKIPPED = textwrap.dedent("""\
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites name="t" errors="0" failures="0" tests="1" skipped="1">
      <testsuite name="t" errors="0" failures="0" skipped="1" tests="1" time="0.01">
        <testcase classname="t.global" name="large" time="0.01" status="run">
          <skipped message="needs 30 GB"/>
        </testcase>
      </testsuite>
    </testsuites>
    """)

GUARD_FAILURE = textwrap.dedent("""\
    FAILED:
      REQUIRE( out.check_guards() == "" )
    with expansion:
      "write outside the output: element 1 (valid: 0..0) was overwritten" == ""
    n = 1, offsets (a, b, out) = (0, 0, 0), seed 20240601
    at test_support.hpp:48""")


class DiscoveryTest(unittest.TestCase):
    def test_parse_chapter_call(self):
        args = repo.parse_chapter_call(textwrap.dedent("""\
            # tutorial_add_chapter(NAME commented_out)
            tutorial_add_chapter(
              NAME gemm   # the chapter
              SOURCES a.cu "b c.cu"
              EXERCISE tiled.cu
              EXERCISE_TESTS test_exercise.cpp
              LIBRARIES CUDA::cublas)
            add_custom_target(other)
            """))
        self.assertEqual(args["NAME"], ["gemm"])
        self.assertEqual(args["SOURCES"], ["a.cu", "b c.cu"])
        self.assertEqual(args["EXERCISE"], ["tiled.cu"])
        self.assertEqual(args["LIBRARIES"], ["CUDA::cublas"])
        self.assertIsNone(repo.parse_chapter_call("add_library(x y.cu)"))

    def test_fake_repository(self):
        with tempfile.TemporaryDirectory() as d:
            root = support.make_fake_repo(pathlib.Path(d))
            (root / "solutions/02_beta/beta.cu").unlink()
            chapters, notes = repo.discover(root)
        self.assertEqual([c.name for c in chapters], ["alpha"])
        alpha = chapters[0]
        self.assertEqual((alpha.folder, alpha.exercise, alpha.test_target, alpha.exe_target),
                         ("01_alpha", "alpha.cu", "test_alpha_exercise", "alpha"))
        self.assertEqual(alpha.test_names, ["alpha matches the reference, at every size",
                                            "alpha is right for fresh inputs"])
        self.assertTrue(any("02_beta" in n and "solutions/02_beta/beta.cu is missing" in n for n in notes))
        self.assertFalse(any("03_gamma" in n for n in notes))  # no exercise: nothing to say

    def test_the_real_repository_has_chapter_01(self):
        chapters, _ = repo.discover(support.REPO)
        by = {c.name: c for c in chapters}
        self.assertIn("elementwise", by)
        self.assertEqual(by["elementwise"].exercise_path, "01_elementwise/add_float4.cu")
        self.assertGreaterEqual(len(by["elementwise"].test_names), 1)


class TestNamesTest(unittest.TestCase):
    def test_names_comments_and_literals(self):
        src = textwrap.dedent('''\
            // TEST_CASE("in a comment")
            /* TEST_CASE("in a block comment") */
            TEST_CASE("plain", "[x]") {}
            TEST_CASE( "joined " "literal" ) {}
            TEST_CASE("quote \\" and comma, inside", "[x]") { auto s = "TEST_CASE(\\"in a string\\")"; }
            TEST_CASE_METHOD(Fixture, "with a fixture", "[x]") {}
            SCENARIO("a story") {}
            ''')
        self.assertEqual(catch2.test_case_names(src),
                         ["plain", "joined literal", 'quote " and comma, inside', "with a fixture",
                          "Scenario: a story"])

    def test_generated_names_fall_back_to_the_whole_executable(self):
        self.assertIsNone(catch2.test_case_names('TEMPLATE_TEST_CASE("t", "[x]", int, float) {}'))
        self.assertIsNone(catch2.test_case_names("TEST_CASE(kName) {}"))
        self.assertEqual(catch2.test_case_names("int main() {}"), [])

    def test_spec_escape(self):
        self.assertEqual(catch2.spec_escape("a, b [c] ~d \\e \"f\""), 'a\\, b \\[c\\] \\~d \\\\e \\"f\\"')
        self.assertEqual(catch2.spec_escape("plain name"), "plain name")


class JunitTest(unittest.TestCase):
    def parse(self, text):
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "r.xml"
            p.write_text(text)
            return catch2.parse_junit(p)

    def test_v2_failure(self):
        cases = self.parse(V2_FAILURE)
        self.assertEqual([(c.name, c.status) for c in cases],
                         [("the float4 add is right for fresh inputs, not one fixed data set", "failed"),
                          ("passes/a", "passed")])
        msg = cases[0].message
        self.assertIn("worst elements:", msg)
        self.assertIn("[3] got 2, expected 2.25 & <x>", msg)  # XML entities decoded
        summary = catch2.summarize_failure(msg)
        self.assertTrue(summary.startswith("n = 5, offsets (a, b, out) = (0, 0, 0), seed 141682210: worst [4] got nan"),
                        summary)
        cleaned = catch2.clean_message(msg)
        self.assertNotIn("FAILED:", cleaned)
        self.assertIn("REQUIRE( tut_stats_.passed(tut_tol_) )", cleaned)

    def test_exception_and_skipped(self):
        cases = self.parse(V2_EXCEPTION)
        self.assertEqual(cases[0].status, "error")
        self.assertEqual(cases[0].seconds, 0.5)
        self.assertIn("illegal memory access", catch2.summarize_failure(cases[0].message))
        cases = self.parse(V3_SKIPPED)
        self.assertEqual((cases[0].status, cases[0].message), ("skipped", "needs 30 GB"))

    def test_guard_failure_summary_shows_the_expression(self):
        s = catch2.summarize_failure(GUARD_FAILURE)
        self.assertIn("n = 1", s)
        self.assertIn("write outside the output: element 1", s)

    def test_missing_empty_or_garbage(self):
        self.assertIsNone(catch2.parse_junit("/nonexistent.xml"))
        self.assertIsNone(self.parse(""))
        self.assertIsNone(self.parse("<html>not junit</html>"))
        self.assertEqual(self.parse('<testsuites><testsuite name="x" tests="0"/></testsuites>'), [])

    def test_long_messages_are_cut(self):
        msg = "\n".join(f"line {i}" for i in range(100))
        self.assertEqual(len(catch2.clean_message(msg, max_lines=10).splitlines()), 11)
        self.assertLessEqual(len(catch2.summarize_failure("n = 1 " + "x" * 1000)), 220)


if __name__ == "__main__":
    unittest.main()
