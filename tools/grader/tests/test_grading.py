"""The whole pipeline on a fake repository, with a fake `cmake` that writes fake executables
(tests/fake_cmake.py): compile errors, missing chapters, no GPU, hangs, cheats, the speed run,
the command line. No compiler, CUDA or GPU is needed."""
import io
import json
import os
import pathlib
import subprocess
import tempfile
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout

import support
from gradelib import config, grading, repo

SEED = 987654321


class PipelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = pathlib.Path(cls.tmp.name)
        cls.repo = support.make_fake_repo(cls.root)
        cls.chapters, _ = repo.discover(cls.repo)
        cls.fake_log = cls.root / "fake_log.jsonl"
        os.environ["FAKE_LOG"] = str(cls.fake_log)
        subs = {
            "good": {"01_alpha/alpha.cu": "SPEED=2\n", "02_beta/beta.cu": "fine\n"},
            "broken": {"01_alpha/alpha.cu": "COMPILE_ERROR\n", "02_beta/beta.cu": "FAIL_CASE2 FAIL_ALL\n"},
            "partial": {"02_beta/beta.cu": "fine\n"},
            "hangs": {"01_alpha/alpha.cu": "HANG_CASE1\n"},
            "nogpu": {"01_alpha/alpha.cu": "NO_GPU\n"},
            "cheat": {"01_alpha/alpha.cu": "FAIL_HIDDEN\n"},
            "exits": {"01_alpha/alpha.cu": "EXIT0\n", "02_beta/beta.cu": "CRASH\n"},
            "slowwrong": {"01_alpha/alpha.cu": "SPEED_WRONG\n"},
            "linkerr": {"01_alpha/alpha.cu": "EXE_LINK_ERROR\n"},
            "copier": {"01_alpha/alpha.cu": '#include "solutions/01_alpha/alpha.cu"\n'},
            "renamed": {"01_alpha/alpha.cu": "NO_MATCH\n"},
            "oob": {"01_alpha/alpha.cu": "OOB\n"},
        }
        paths = [support.make_submission(cls.root, name, files) for name, files in subs.items()]
        cfg = config.from_dict({"hidden": {"seed": SEED, "extra_sizes": [77]},
                                "timeouts": {"test": 60, "sanitize": 60},
                                "build": {"cmake": support.FAKE_CMAKE, "jobs": 3},
                                "sanitize": {"enabled": True, "command": support.FAKE_CMAKE},
                                # alpha has the hanging submission: a short limit (its other cases take ~0.1 s)
                                "chapters": {"alpha": {"test_timeout": 5},
                                             "beta": {"extra_sizes": [99], "env": {"FAKE_EXTRA": "yes"}}}},
                               "test", [c.name for c in cls.chapters])
        cls.out = cls.root / "out"
        cls.lines = []
        grader = grading.Grader(cls.repo, cls.chapters, cfg, cls.out, say=cls.lines.append)
        start = time.monotonic()
        cls.results = {st.name: st for st in grader.grade(paths)}
        cls.seconds = time.monotonic() - start
        cls.calls = [json.loads(ln) for ln in cls.fake_log.read_text().splitlines()]

    @classmethod
    def tearDownClass(cls):
        os.environ.pop("FAKE_LOG", None)
        cls.tmp.cleanup()

    def chapter(self, student, name):
        return next(c for c in self.results[student].chapters if c.chapter == name)

    def test_good_student(self):
        alpha, beta = self.chapter("good", "alpha"), self.chapter("good", "beta")
        self.assertEqual((alpha.status, beta.status), ("passed", "passed"))
        self.assertEqual([c.label for c in alpha.cases], [
            "public: alpha matches the reference, at every size", "public: alpha is right for fresh inputs",
            "hidden: alpha matches the reference, at every size", "hidden: alpha is right for fresh inputs",
            "speed: default problem, checked before and after timing", "sanitize: compute-sanitizer --tool memcheck"])
        self.assertAlmostEqual(alpha.speed.ratio, 2.0)
        self.assertEqual(beta.speed.ratio, 1.0)

    def test_compile_error_costs_only_its_chapter(self):
        alpha, beta = self.chapter("broken", "alpha"), self.chapter("broken", "beta")
        self.assertEqual(alpha.status, "compile_error")
        self.assertEqual(alpha.detail, '01_alpha/alpha.cu(3): error: expected a ";"')  # merged-folder path removed
        self.assertEqual(alpha.cases, [])
        self.assertEqual(beta.status, "failed")  # built and tested anyway
        self.assertEqual(beta.first_failure().set, "public")
        self.assertIn("[4096] got nan, expected 1.5", beta.first_failure().summary)

    def test_missing_chapter_is_not_submitted(self):
        self.assertEqual(self.chapter("partial", "alpha").status, "not_submitted")
        self.assertEqual(self.chapter("partial", "beta").status, "passed")
        self.assertEqual(self.results["partial"].totals()["chapters_submitted"], 1)

    def test_a_hang_costs_one_case(self):
        alpha = self.chapter("hangs", "alpha")
        self.assertEqual([c.status for c in alpha.cases], ["timeout", "passed", "timeout", "passed", "not_run",
                                                           "not_run"])
        self.assertEqual(alpha.status, "failed")
        self.assertIn("did not finish in 5 s", alpha.first_failure().summary)
        self.assertLess(self.seconds, 120)

    def test_no_gpu_is_skipped_not_passed(self):
        alpha = self.chapter("nogpu", "alpha")
        self.assertEqual(alpha.status, "skipped")
        self.assertTrue(all(c.status == "skipped" for c in alpha.cases))
        self.assertEqual(alpha.speed_note, "not measured: no GPU")

    def test_hidden_cases_catch_a_public_only_solution(self):
        alpha = self.chapter("cheat", "alpha")
        self.assertEqual([c.status for c in alpha.cases if c.set == "public"], ["passed", "passed"])
        self.assertEqual(alpha.status, "failed")
        first = alpha.first_failure()
        self.assertEqual(first.set, "hidden")
        self.assertNotIn(str(SEED), first.message + first.summary)  # the secret is redacted
        self.assertIn("seed <hidden>", first.summary)

    def test_exit_status_alone_is_not_trusted(self):
        alpha, beta = self.chapter("exits", "alpha"), self.chapter("exits", "beta")
        self.assertEqual(alpha.status, "failed")
        self.assertEqual(alpha.cases[0].status, "crashed")
        self.assertIn("exit status 0 without a test report", alpha.cases[0].summary)
        self.assertEqual(beta.cases[0].status, "crashed")
        self.assertIn("signal 11", beta.cases[0].summary)

    def test_speed_run_checks_correctness_too(self):
        alpha = self.chapter("slowwrong", "alpha")
        self.assertEqual(alpha.status, "failed")
        speed = alpha.cases[-2]
        self.assertEqual((speed.set, speed.status), ("speed", "failed"))
        self.assertIn("WRONG on add n=1000", speed.summary)
        self.assertIn("[999] got 0, expected 3.5", speed.summary)
        self.assertIsNone(alpha.speed)

    def test_executable_link_error_is_reported(self):
        alpha = self.chapter("linkerr", "alpha")
        self.assertEqual(alpha.build.status, "partial")
        self.assertEqual(alpha.cases[-2].status, "error")
        self.assertEqual(alpha.status, "error")

    def test_a_case_that_does_not_exist_is_a_grader_error(self):
        alpha = self.chapter("renamed", "alpha")
        self.assertEqual(alpha.cases[0].status, "error")
        self.assertIn("no test case called", alpha.cases[0].summary)
        self.assertEqual(alpha.status, "error")

    def test_sanitizer(self):
        good, oob = self.chapter("good", "alpha"), self.chapter("oob", "alpha")
        self.assertEqual((good.cases[-1].set, good.cases[-1].status), ("sanitize", "passed"))
        self.assertEqual(oob.status, "failed")
        self.assertEqual([c.status for c in oob.cases if c.set != "sanitize"], ["passed"] * 5)
        san = oob.cases[-1]
        self.assertEqual((san.name, san.status), ("compute-sanitizer --tool memcheck", "failed"))
        self.assertIn("Invalid __global__ write of size 4 bytes", san.summary)
        self.assertIn("ERROR SUMMARY: 1 error", san.summary)
        runs = [c for c in self.calls if c.get("sanitize") == "1"]
        self.assertTrue(runs and all(c["seed"] is None for c in runs))  # public seed, small sizes

    def test_including_the_solution_is_rejected_unbuilt(self):
        alpha = self.chapter("copier", "alpha")
        self.assertEqual(alpha.status, "rejected")
        self.assertIsNone(alpha.build)

    def test_environment_of_public_and_hidden_runs(self):
        tests = [c for c in self.calls if "-r" in c["argv"]]
        public = [c for c in tests if c["seed"] is None]
        hidden = [c for c in tests if c["seed"] is not None]
        self.assertTrue(public and hidden)
        self.assertTrue(all(c["sizes"] is None and c["extra"] is None for c in public))
        self.assertTrue(all(c["seed"] == str(SEED) for c in hidden))
        beta = [c for c in hidden if "test_beta_exercise" in c["argv"][0]]
        alpha = [c for c in hidden if "test_alpha_exercise" in c["argv"][0]]
        self.assertTrue(all(c["sizes"] == "77,99" and c["extra"] == "yes" for c in beta))
        self.assertTrue(all(c["sizes"] == "77" and c["extra"] is None for c in alpha))
        # Each case runs alone, selected by its escaped name.
        self.assertIn("alpha matches the reference\\, at every size", [c["argv"][1] for c in alpha])
        speed = [c for c in self.calls if "--json" in c["argv"]]
        self.assertTrue(all(c["argv"][c["argv"].index("--seed") + 1] == str(SEED) for c in speed))

    def test_reports_and_logs_are_written(self):
        for name in self.results:
            for f in ("report.md", "report.json", "junit.xml"):
                self.assertTrue((self.out / "students" / name / f).is_file(), (name, f))
        for f in ("summary.md", "summary.json", "summary.csv"):
            self.assertTrue((self.out / f).is_file())
        self.assertTrue((self.out / "logs/good/alpha_hidden_1.log").is_file())
        self.assertFalse((self.out / "work").exists())  # build trees removed
        # The student folders can be handed out: no log, so no secret.
        for path in (self.out / "students").rglob("*"):
            if path.is_file():
                self.assertNotIn(str(SEED), path.read_text(), path)
        summary = (self.out / "summary.md").read_text()
        self.assertIn("| good | PASS 6/6, 2.00x | PASS 4/4, 1.00x | 2/2 |", summary)


class SetupTest(unittest.TestCase):
    def test_repository_that_does_not_configure_stops_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            fake = support.make_fake_repo(root)
            chapters, _ = repo.discover(fake)
            cfg = config.from_dict({"build": {"cmake": support.FAKE_CMAKE, "cmake_args": ["-DFAKE_CONFIGURE_FAIL=1"]}})
            grader = grading.Grader(fake, chapters, cfg, root / "out", say=lambda s: None)
            sub = support.make_submission(root, "x", {"01_alpha/alpha.cu": "ok"})
            with self.assertRaises(grading.SetupError) as ctx:
                grader.grade([sub])
            self.assertIn("fake configure failure", str(ctx.exception))

    def test_a_grader_bug_costs_one_student_not_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            fake = support.make_fake_repo(root)
            chapters, _ = repo.discover(fake)
            cfg = config.from_dict({"build": {"cmake": support.FAKE_CMAKE, "jobs": 1}})
            grader = grading.Grader(fake, chapters, cfg, root / "out", say=lambda s: None)
            subs = [support.make_submission(root, n, {"01_alpha/alpha.cu": "ok\n"}) for n in ("first", "second")]
            real = grader.run_chapter

            def flaky(name, *args):
                if name == "first":
                    raise RuntimeError("boom")
                return real(name, *args)
            grader.run_chapter = flaky
            results = {st.name: st for st in grader.grade(subs)}
            self.assertEqual(results["first"].chapters[0].status, "error")
            self.assertIn("boom", results["first"].chapters[0].detail)
            self.assertEqual(results["second"].chapters[0].status, "passed")
            self.assertTrue((root / "out/students/first/report.md").is_file())

    def test_command_line(self):
        import grade
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            fake = support.make_fake_repo(root)
            sub = support.make_submission(root, "solo", {"02_beta/beta.cu": "fine\n"})
            cfg = root / "grading.toml"
            cfg.write_text(f"[hidden]\nseed = 5\n[build]\ncmake = {json.dumps(support.FAKE_CMAKE)}\n")
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                rc = grade.main(["--repo", str(fake), "--config", str(cfg), "--out", str(root / "o"),
                                 "--chapters", "beta", "--jobs", "1", str(sub), str(root / "missing")])
            self.assertEqual(rc, 0, err.getvalue())
            self.assertIn("| solo | not graded | PASS 3/3, 1.00x | 1/1 |", out.getvalue())
            self.assertIn("missing is not a folder", out.getvalue())
            listing = io.StringIO()
            with redirect_stdout(listing), redirect_stderr(err):
                self.assertEqual(grade.main(["--repo", str(fake), "--list"]), 0)
            self.assertIn("alpha: exercises/01_alpha/alpha.cu", listing.getvalue())
            self.assertIn("  case: beta [works]", listing.getvalue())
            cfg.write_text("[hidden]\nseed = 'x'\n")
            with redirect_stdout(io.StringIO()), redirect_stderr(err):
                rc = grade.main(["--repo", str(fake), "--config", str(cfg), str(sub)])
            self.assertEqual(rc, 2)
            self.assertIn("[hidden] seed", err.getvalue())
            with redirect_stdout(io.StringIO()), redirect_stderr(err):
                rc = grade.main(["--repo", str(fake), "--chapters", "nosuch", str(sub)])
            self.assertEqual(rc, 2)
            self.assertIn("unknown nosuch", err.getvalue())
            cfg.write_text('[sanitize]\ncommand = "no-such-sanitizer-here"\n')
            with redirect_stdout(io.StringIO()), redirect_stderr(err):
                rc = grade.main(["--repo", str(fake), "--config", str(cfg), "--sanitize", str(sub)])
            self.assertEqual(rc, 2)
            self.assertIn("'no-such-sanitizer-here' not found", err.getvalue())


class GitCommitTest(unittest.TestCase):
    """The commit in every report: $TUT_GIT_COMMIT if set, else from git, else unknown."""

    def setUp(self):
        self.saved = os.environ.pop("TUT_GIT_COMMIT", None)

    def tearDown(self):
        os.environ.pop("TUT_GIT_COMMIT", None)
        if self.saved is not None:
            os.environ["TUT_GIT_COMMIT"] = self.saved

    def test_copied_tree_without_git_uses_the_environment(self):
        with tempfile.TemporaryDirectory() as tmp:
            copied = support.make_fake_repo(pathlib.Path(tmp))  # no .git: as on the GPU machine
            self.assertEqual(grading.git_commit(copied), "unknown")
            os.environ["TUT_GIT_COMMIT"] = "0123456789ab"
            self.assertEqual(grading.git_commit(copied), "0123456789ab")
            os.environ["TUT_GIT_COMMIT"] = "  "
            self.assertEqual(grading.git_commit(copied), "unknown")

    def test_without_git_installed(self):
        os.environ.pop("TUT_GIT_COMMIT", None)  # so that git_commit() really tries to run git
        saved_path = os.environ.get("PATH", "")
        os.environ["PATH"] = ""  # no git program at all: an OSError inside, never a crash
        try:
            self.assertEqual(grading.git_commit(support.REPO), "unknown")
            os.environ["TUT_GIT_COMMIT"] = "fedcba987654"  # the environment still wins
            self.assertEqual(grading.git_commit(support.REPO), "fedcba987654")
        finally:
            os.environ["PATH"] = saved_path

    def test_git_without_the_environment_and_the_environment_first(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                   "GIT_COMMITTER_EMAIL": "t@t"}
            try:
                subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
                subprocess.run(["git", "-C", str(root), "commit", "-q", "--allow-empty", "-m", "x"], check=True,
                               env=env)
                head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"], check=True,
                                      capture_output=True, text=True, env=env).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                self.skipTest("git is not usable here")
            self.assertEqual(grading.git_commit(root), head)
            # A copied tree that happens to lie inside another checkout does not take that commit.
            (root / "copy").mkdir()
            self.assertEqual(grading.git_commit(root / "copy"), "unknown")
            # The caller's commit wins over git's (a copy with a stale .git, as on the GPU machine).
            os.environ["TUT_GIT_COMMIT"] = "this-one"
            self.assertEqual(grading.git_commit(root), "this-one")


if __name__ == "__main__":
    unittest.main()
