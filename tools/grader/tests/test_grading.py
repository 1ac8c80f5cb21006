"""The whole pipeline on a fake repository, with a fake `cmake` that writes fake runners and fake
checkers (tests/fake_cmake.py): one build of every runner, compile and link errors, the checkers'
verdicts (public, hidden, crashes, no GPU), the re-check alone, the sanitizer, the speed runs in
batches, the reports, and the command line. No compiler, CUDA or GPU is needed."""
import io
import json
import os
import pathlib
import subprocess
import tempfile
import time
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

import support
from gradelib import config, grading, repo, symbols

SEED = 987654321
GPU = "NVIDIA H100 80GB HBM3, 9.0 (fake)"


def fake_check_object(obj, protected, complete=True):
    """symbols.check_object for the fake objects (their text): REJECT_SYMBOL means a forbidden call."""
    text = pathlib.Path(obj).read_text()
    return (["calls getenv (an exercise has no use for it)"] if "REJECT_SYMBOL" in text else []), ""


class PipelineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = pathlib.Path(cls.tmp.name)
        cls.repo = support.make_fake_repo(cls.root)
        cls.chapters, cls.notes = repo.discover(cls.repo)
        cls.fake_log = cls.root / "fake_log.jsonl"
        sanitizer = support.write(cls.root / "cuda/bin/compute-sanitizer", "#!/bin/sh\nexit 0\n")
        sanitizer.chmod(0o755)
        subs = {
            "good": {"01_alpha/alpha.cu": "SPEED=2\n", "02_beta/beta.cu": "fine\n"},
            "broken": {"01_alpha/alpha.cu": "COMPILE_ERROR\n", "02_beta/beta.cu": "FAIL_PUBLIC\n"},
            "partial": {"02_beta/beta.cu": "fine\n"},
            "linker": {"01_alpha/alpha.cu": "LINK_ERROR=cublasSgemm_v2\n"},
            "nogpu": {"01_alpha/alpha.cu": "NO_GPU\n"},
            "cheat": {"01_alpha/alpha.cu": "FAIL_HIDDEN\n"},
            "dies": {"01_alpha/alpha.cu": "RUNNER_DIES\n"},
            "flaky": {"01_alpha/alpha.cu": "CRASH_ONCE\n"},
            "nokernel": {"01_alpha/alpha.cu": "NO_KERNEL\n"},
            "claims": {"01_alpha/alpha.cu": "RUNNER_NO_DEVICE\n"},
            "crash": {"01_alpha/alpha.cu": "CHECKER_CRASH\n"},
            "oob": {"01_alpha/alpha.cu": "SANITIZE_FAIL\n"},
            "fast": {"01_alpha/alpha.cu": "SPEED=5\n"},
            "slowwrong": {"01_alpha/alpha.cu": "SPEED_WRONG\n"},
            "copier": {"01_alpha/alpha.cu": '#include "solutions/01_alpha/alpha.cu"\n'},
            "symbolic": {"01_alpha/alpha.cu": "REJECT_SYMBOL\n"},
        }
        cls.paths = [support.make_submission(cls.root, name, files) for name, files in subs.items()]
        cfg = config.from_dict({"hidden": {"seed": SEED, "extra_sizes": [77]},
                                "timeouts": {"test": 60, "sanitize": 60, "speed": 30},
                                "build": {"cmake": support.FAKE_CMAKE, "jobs": 3, "keep": True},
                                "sanitize": {"enabled": True, "command": str(sanitizer)},
                                "chapters": {"beta": {"extra_sizes": [99]}}},
                               "test", [c.name for c in cls.chapters])
        cls.out = cls.root / "out"
        cls.lines = []
        grader = grading.Grader(cls.repo, cls.chapters, cfg, cls.out, say=cls.lines.append)
        grader.device = GPU
        start = time.monotonic()
        with mock.patch.dict(os.environ, {"FAKE_LOG": str(cls.fake_log)}), \
                mock.patch.object(grading, "SPEED_BATCH", 2), \
                mock.patch.object(symbols, "check_object", fake_check_object):
            cls.results = {st.name: st for st in grader.grade(cls.paths)}
        cls.seconds = time.monotonic() - start
        cls.grader = grader
        cls.calls = [json.loads(ln) for ln in cls.fake_log.read_text().splitlines()]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def chapter(self, student, name):
        return next(c for c in self.results[student].chapters if c.chapter == name)

    def statuses(self, student, name="alpha"):
        return [(c.set, c.status) for c in self.chapter(student, name).cases]

    def test_discovery_notes_a_chapter_without_a_checker(self):
        self.assertEqual([c.name for c in self.chapters], ["alpha", "beta"])
        self.assertTrue(any("04_delta: not gradable" in n and "EXERCISE_CHECK" in n for n in self.notes), self.notes)

    def test_good_student(self):
        alpha, beta = self.chapter("good", "alpha"), self.chapter("good", "beta")
        self.assertEqual((alpha.status, beta.status), ("passed", "passed"))
        self.assertEqual([c.label for c in alpha.cases], [
            "public: n=1", "public: n=4097", "public: n=65537", f"hidden: n={SEED % 1000 + 7}",
            f"hidden: n={SEED % 777 + 5}", "hidden: n=77",
            "sanitize: compute-sanitizer --tool memcheck", "speed: timed run against the solution (every repetition "
            "checked)"])
        self.assertAlmostEqual(alpha.speed.ratio, 2.0)
        self.assertEqual(alpha.speed.flags, [])
        self.assertEqual(beta.speed.ratio, 1.0)
        self.assertEqual([c.name for c in beta.cases if c.set == "hidden"][-2:], ["n=77", "n=99"])

    def test_one_build_tree_for_every_runner(self):
        cache = json.loads((self.grader.build_dir / "fake_cache.json").read_text())
        listing = pathlib.Path(cache["defs"]["TUT_GRADING_LIST"]).read_text().splitlines()
        self.assertIn("good|alpha|", "\n".join(listing))
        self.assertEqual(len(listing), 17)  # every accepted (student, chapter), "copier" rejected unbuilt
        # Each student's copies lie in a folder of a random name, not the student's.
        folders = {pathlib.Path(line.split("|")[2]).parent.parent for line in listing}
        self.assertEqual(len(folders), 15)
        for f in folders:
            self.assertEqual(f.parent, self.grader.work / "files")
            self.assertRegex(f.name, r"^[0-9a-f]{24}$")
        # solutions/, the corpus and every submission folder are hidden from students' compiles.
        hide = cache["defs"]["TUT_GRADING_HIDE"].split(";")
        self.assertEqual(hide[:4], ["--hide", str(self.repo.resolve() / "solutions"), "--hide",
                                    str(self.repo.resolve() / "tools/grader/corpus")])
        self.assertIn(str(self.paths[0].resolve()), hide)
        self.assertEqual(len(hide), 2 * (2 + len(self.paths)))

    def test_compile_error_costs_only_its_chapter(self):
        alpha, beta = self.chapter("broken", "alpha"), self.chapter("broken", "beta")
        self.assertEqual(alpha.status, "compile_error")
        self.assertEqual(alpha.detail, '01_alpha/alpha.cu(3): error: identifier "n_vecs" is undefined')  # path shortened
        self.assertEqual(alpha.cases, [])
        log = (self.out / "logs/broken/build_alpha.log").read_text()
        self.assertIn("FAILED:", log)
        self.assertNotIn("grade_good", log)  # only this student's part of the build log
        self.assertEqual(beta.status, "failed")  # built and checked anyway
        self.assertEqual(beta.first_failure().label, "public: n=4097")
        self.assertIn("out[4096] got nan, expected 1.5", beta.first_failure().message)

    def test_link_error_names_the_missing_symbol(self):
        alpha = self.chapter("linker", "alpha")
        self.assertEqual(alpha.status, "compile_error")
        self.assertIn("undefined reference to cublasSgemm_v2", alpha.detail)
        self.assertIn("no solution, CPU reference, cuBLAS or cuDNN", alpha.detail)
        self.assertIn("collect2", alpha.build.errors)

    def test_missing_chapter_is_not_submitted(self):
        self.assertEqual(self.chapter("partial", "alpha").status, "not_submitted")
        self.assertEqual(self.chapter("partial", "beta").status, "passed")
        self.assertEqual(self.results["partial"].totals()["chapters_submitted"], 1)

    def test_not_checked_on_a_machine_with_a_gpu_is_an_error_not_skipped(self):
        alpha = self.chapter("nogpu", "alpha")
        self.assertEqual(alpha.status, "error")
        self.assertIn("this machine has " + GPU, alpha.cases[0].summary)

    def test_hidden_cases_catch_a_public_only_solution_and_the_seed_is_redacted(self):
        alpha = self.chapter("cheat", "alpha")
        self.assertEqual([s for g, s in self.statuses("cheat") if g == "public"], ["passed"] * 3)
        self.assertEqual(alpha.status, "failed")
        first = alpha.first_failure()
        self.assertEqual(first.set, "hidden")
        self.assertNotIn(str(SEED), first.message + first.summary)
        self.assertIn("<hidden>", first.message)
        self.assertEqual(alpha.speed_note, "not measured: the cases did not all pass")
        hidden = [c for c in self.calls if c["checker"] == "alpha" and "--seed" in c["argv"]]
        self.assertTrue(hidden and all(c["argv"][c["argv"].index("--seed") + 1] == str(SEED) for c in hidden))

    def test_a_runner_that_dies_is_a_crashed_case_and_is_checked_again_alone(self):
        alpha = self.chapter("dies", "alpha")
        self.assertEqual(alpha.status, "failed")
        self.assertEqual(alpha.first_failure().status, "crashed")
        self.assertIn("killed by signal 11", alpha.first_failure().summary)
        self.assertTrue(any("checked again alone" in w for w in alpha.warnings))
        runs = [c for c in self.calls if c["checker"] == "alpha" and "--cases" in c["argv"]
                and any("/dies/" in a for a in c["argv"])]
        self.assertEqual(len(runs), 2)

    def test_a_crash_caused_by_a_neighbour_is_forgiven_alone(self):
        alpha = self.chapter("flaky", "alpha")
        self.assertEqual(alpha.status, "passed")
        self.assertTrue(any("checked again alone" in w for w in alpha.warnings))
        self.assertEqual(len([c for c in alpha.cases if c.set in ("public", "hidden")]), 6)  # the second check only

    def test_checks_of_the_captured_graph(self):
        alpha = self.chapter("nokernel", "alpha")
        self.assertEqual(alpha.status, "failed")
        self.assertIn("launched no kernel", alpha.first_failure().summary)

    def test_a_runner_claiming_no_gpu_fails(self):
        alpha = self.chapter("claims", "alpha")
        self.assertEqual(alpha.status, "failed")
        self.assertEqual(alpha.cases[0].name, "the runner")
        self.assertIn("reported no usable CUDA device, but this machine has one", alpha.cases[0].summary)

    def test_a_checker_that_dies_is_a_grader_error(self):
        alpha = self.chapter("crash", "alpha")
        self.assertEqual(alpha.status, "error")
        self.assertIn("stopped with exit status -11 and no report", alpha.cases[0].summary)

    def test_sanitizer(self):
        good, oob = self.chapter("good", "alpha"), self.chapter("oob", "alpha")
        self.assertEqual(good.cases[-2].set, "sanitize")
        self.assertEqual(good.cases[-2].status, "passed")
        self.assertEqual(oob.status, "failed")
        self.assertEqual([s for g, s in self.statuses("oob") if g in ("public", "hidden")], ["passed"] * 6)
        san = oob.cases[-1]
        self.assertEqual((san.name, san.status), ("compute-sanitizer --tool memcheck", "failed"))
        self.assertIn("n=65537: compute-sanitizer memcheck reported errors", san.summary)
        self.assertIsNone(oob.speed)
        runs = [c for c in self.calls if "--sanitizer" in c["argv"]]
        self.assertTrue(runs and all(c["argv"][c["argv"].index("--sanitizer") + 1] == "memcheck" for c in runs))
        # The configured compute-sanitizer's folder comes first on the checker's PATH.
        self.assertTrue(all(c["path"].startswith(str(self.root / "cuda/bin") + os.pathsep) for c in runs))
        # No sanitizer run for a chapter whose cases failed.
        cheat = self.chapter("cheat", "alpha")
        self.assertEqual(cheat.cases[-1].status, "not_run")

    def test_speed_runs_in_batches_with_the_solution(self):
        speed = [c for c in self.calls if "--speed" in c["argv"]]
        alpha = [c for c in speed if c["checker"] == "alpha"]
        self.assertEqual(len(alpha), 2)  # good, flaky, fast, slowwrong: two batches of two
        for c in speed:
            argv = c["argv"]
            self.assertEqual(argv[argv.index("--cases") + 1], "none")
            self.assertIn("bin/solution_" + c["checker"], argv[argv.index("--solution") + 1])
            self.assertEqual(argv[argv.index("--timeout") + 1], "30")  # each runner: the chapter's speed limit
        timed = [a for c in alpha for i, a in enumerate(c["argv"]) if c["argv"][i - 1] == "--runner"]
        self.assertEqual(len(timed), 4)

    def test_speed_flags_and_a_wrong_timed_run(self):
        fast = self.chapter("fast", "alpha")
        self.assertEqual(fast.status, "passed")  # a flag is advice for the instructor, not a verdict
        self.assertAlmostEqual(fast.speed.ratio, 5.0)
        self.assertEqual(fast.speed.flags, ["more than 4x faster than the solution: implausible for this exercise"])
        self.assertIn("speed FLAG: more than 4x faster", "\n".join(fast.warnings))
        wrong = self.chapter("slowwrong", "alpha")
        self.assertEqual(wrong.status, "failed")
        self.assertEqual(wrong.cases[-1].set, "speed")
        self.assertIn("repetition 3 of the timed run is wrong", wrong.cases[-1].summary)
        self.assertIsNone(wrong.speed)

    def test_integrity(self):
        copier = self.chapter("copier", "alpha")
        self.assertEqual(copier.status, "rejected")
        self.assertIsNone(copier.build)
        symbolic = self.chapter("symbolic", "alpha")
        self.assertEqual(symbolic.status, "rejected")
        self.assertIn("calls getenv", symbolic.detail)
        self.assertEqual(symbolic.build.status, "ok")

    def test_checker_arguments(self):
        runs = [c["argv"] for c in self.calls if "--cases" in c["argv"] and "all" in c["argv"]]
        self.assertTrue(runs)
        for argv in runs:
            self.assertEqual(argv[argv.index("--timeout") + 1], "12")  # (60 - 10) / 4 starts
            self.assertIn("--report", argv)
            self.assertEqual(argv[argv.index("--work") + 1], str(self.grader.work / "tmp"))
        beta = [a for a in runs if "bin/check_beta" not in a and any("beta" in x for x in a)]
        self.assertTrue(all(a[a.index("--extra-sizes") + 1] == "77,99" for a in beta))

    def test_reports_and_logs_are_written(self):
        for name in self.results:
            for f in ("report.md", "report.json", "junit.xml"):
                self.assertTrue((self.out / "students" / name / f).is_file(), (name, f))
        for f in ("summary.md", "summary.json", "summary.csv"):
            self.assertTrue((self.out / f).is_file())
        self.assertTrue((self.out / "logs/good/alpha_check.json").is_file())
        self.assertTrue((self.out / "logs/build_students.log").is_file())
        self.assertTrue((self.out / "work/build").is_dir())  # [build] keep = true
        # The student folders can be handed out: no log, so no secret.
        for path in (self.out / "students").rglob("*"):
            if path.is_file():
                self.assertNotIn(str(SEED), path.read_text(), path)
        summary = (self.out / "summary.md").read_text()
        self.assertIn("| good | PASS 8/8, 2.00x | PASS 9/9, 1.00x | 2/2 |", summary)
        run = json.loads((self.out / "summary.json").read_text())["run"]
        self.assertIn("read-only file system", run["isolation"])
        self.assertIn("hidden", run["compile_isolation"])
        self.assertLess(self.seconds, 60)


class SetupTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.repo = support.make_fake_repo(self.root)
        self.chapters, _ = repo.discover(self.repo)
        self.patcher = mock.patch.object(symbols, "check_object", fake_check_object)
        self.patcher.start()
        self.addCleanup(self.patcher.stop)

    def tearDown(self):
        self.tmp.cleanup()

    def grader(self, settings, out="out"):
        cfg = config.from_dict({"build": {"cmake": support.FAKE_CMAKE, "jobs": 1}, **settings})
        g = grading.Grader(self.repo, self.chapters, cfg, self.root / out, say=lambda s: None)
        return g

    def test_repository_that_does_not_configure_stops_the_run(self):
        g = self.grader({"build": {"cmake": support.FAKE_CMAKE, "cmake_args": ["-DFAKE_CONFIGURE_FAIL=1"]}})
        sub = support.make_submission(self.root, "x", {"01_alpha/alpha.cu": "ok"})
        with self.assertRaises(grading.SetupError) as ctx:
            g.grade([sub])
        self.assertIn("fake configure failure", str(ctx.exception))

    def test_no_gpu_here_is_skipped_not_passed(self):
        g = self.grader({})
        g.device = "no GPU (nvidia-smi not found)"
        sub = support.make_submission(self.root, "x", {"01_alpha/alpha.cu": "NO_GPU\n"})
        alpha = g.grade([sub])[0].chapters[0]
        self.assertFalse((self.root / "out/work").exists())  # the build tree is removed
        self.assertEqual(alpha.status, "skipped")
        self.assertEqual(alpha.speed_note, "not measured: no GPU")

    def test_no_verdict_without_the_object_file_check(self):
        self.patcher.stop()  # the real check: nm cannot read the fake object
        g = self.grader({})
        g.device = GPU
        sub = support.make_submission(self.root, "x", {"01_alpha/alpha.cu": "fine\n"})
        alpha = g.grade([sub])[0].chapters[0]
        self.patcher.start()
        self.assertEqual(alpha.status, "error")
        self.assertIn("the object-file check could not run", alpha.detail)
        self.assertEqual(alpha.cases, [])

    def test_a_checker_that_hangs_costs_its_timeout(self):
        g = self.grader({"timeouts": {"test": 1}, "speed": {"enabled": False}})
        g.device = GPU
        sub = support.make_submission(self.root, "x", {"01_alpha/alpha.cu": "CHECKER_HANG\n"})
        start = time.monotonic()
        alpha = g.grade([sub])[0].chapters[0]
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(alpha.status, "failed")
        self.assertEqual(alpha.cases[0].status, "timeout")
        self.assertIn("did not finish in 1 s", alpha.cases[0].summary)
        self.assertEqual(alpha.speed_note, "not measured: the speed run is off")

    def test_a_grader_bug_costs_one_chapter_not_the_run(self):
        g = self.grader({})
        g.device = GPU
        subs = [support.make_submission(self.root, n, {"01_alpha/alpha.cu": "ok\n"}) for n in ("first", "second")]
        real = g.check_cases

        def flaky(st, cr):
            if st.name == "first":
                raise KeyError("boom")
            return real(st, cr)
        g.check_cases = flaky
        results = {st.name: st for st in g.grade(subs)}
        self.assertEqual(results["first"].chapters[0].status, "error")
        self.assertIn("KeyError", results["first"].chapters[0].cases[0].summary)
        self.assertEqual(results["second"].chapters[0].status, "passed")
        self.assertTrue((self.root / "out/students/first/report.md").is_file())

    def test_compile_isolation_warning(self):
        g = self.grader({"speed": {"enabled": False}})
        g.device = GPU
        sub = support.make_submission(self.root, "x", {"01_alpha/alpha.cu": "ok\n"})
        with mock.patch.dict(os.environ, {"FAKE_NO_HIDE": "1"}):
            g.grade([sub])
        self.assertIn("WARNING: solutions/ could not be hidden", g.run["compile_isolation"])
        self.assertIn("no user namespaces", g.run["compile_isolation"])

    def test_command_line(self):
        import grade
        sub = support.make_submission(self.root, "solo", {"02_beta/beta.cu": "fine\n"})
        cfg = self.root / "grading.toml"
        cfg.write_text(f"[hidden]\nseed = 5\n[build]\ncmake = {json.dumps(support.FAKE_CMAKE)}\n")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err), mock.patch.object(grading, "describe_device", lambda: GPU):
            rc = grade.main(["--repo", str(self.repo), "--config", str(cfg), "--out", str(self.root / "o"),
                             "--chapters", "beta", "--jobs", "1", str(sub), str(self.root / "missing")])
        self.assertEqual(rc, 0, err.getvalue())
        self.assertIn("| solo | not graded | PASS 6/6, 1.00x | 1/1 |", out.getvalue())
        self.assertIn("missing is not a folder", out.getvalue())
        listing = io.StringIO()
        with redirect_stdout(listing), redirect_stderr(err):
            self.assertEqual(grade.main(["--repo", str(self.repo), "--list"]), 0)
        self.assertIn("alpha: exercises/01_alpha/alpha.cu (checker check_alpha, solution solution_alpha)",
                      listing.getvalue())
        self.assertIn("04_delta: not gradable", listing.getvalue())
        cfg.write_text("[hidden]\nseed = 'x'\n")
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            rc = grade.main(["--repo", str(self.repo), "--config", str(cfg), str(sub)])
        self.assertEqual(rc, 2)
        self.assertIn("[hidden] seed", err.getvalue())
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            rc = grade.main(["--repo", str(self.repo), "--chapters", "nosuch", str(sub)])
        self.assertEqual(rc, 2)
        self.assertIn("unknown nosuch", err.getvalue())
        cfg.write_text('[sanitize]\ncommand = "no-such-sanitizer-here"\n')
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            rc = grade.main(["--repo", str(self.repo), "--config", str(cfg), "--sanitize", str(sub)])
        self.assertEqual(rc, 2)
        self.assertIn("'no-such-sanitizer-here' not found", err.getvalue())

    def test_grade_py_help_and_list_as_a_program(self):
        for args in (["--help"], ["--repo", str(self.repo), "--list"]):
            r = subprocess.run([*support.FAKE_CMAKE[:1], str(support.GRADER / "grade.py"), *args],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("beta: exercises/02_beta/beta.cu", r.stdout)


class BuildLogTest(unittest.TestCase):
    """The one Ninja log of every student's build, split per target, and the errors shown."""

    # Trimmed from a real grading build (nvcc 13, GCC 12, Ninja 1.11): a compile error, a macro-built
    # include of a hidden folder, two link errors, and students whose runners built.
    LOG = (pathlib.Path(__file__).resolve().parent / "data" / "build_students.log")

    def setUp(self):
        self.text = self.LOG.read_text()
        self.targets = {(s, c): f"grade_{s}__{c}" for s, c in
                        [("cublas", "elementwise"), ("cublas", "gemm"), ("hostref", "elementwise"), ("hostref", "gemm"),
                         ("macro", "elementwise"), ("macro", "gemv"), ("named", "elementwise"), ("sol", "elementwise"),
                         ("sol", "gemm"), ("sol", "gemv"), ("a.b-c", "gemm")]}

    def test_split_per_target(self):
        parts = grading.split_build_log(self.text, self.targets)
        self.assertEqual(sorted(parts), ["grade_a.b-c__gemm", "grade_cublas__elementwise", "grade_cublas__gemm",
                                         "grade_hostref__gemm", "grade_macro__elementwise"])
        self.assertIn('error: identifier "n_vecs" is undefined', parts["grade_cublas__elementwise"])
        self.assertNotIn("cublasSgemm", parts["grade_cublas__elementwise"])
        self.assertIn("undefined reference to `cublasSgemm_v2'", parts["grade_cublas__gemm"])
        self.assertNotIn("reference_gemm", parts["grade_cublas__gemm"])
        self.assertIn("undefined reference to `gemm::reference_gemm(", parts["grade_hostref__gemm"])
        self.assertIn("solutions/01_elementwise/add_float4.cu: No such file or directory",
                      parts["grade_macro__elementwise"])
        self.assertIn("multiple definition of `main'", parts["grade_a.b-c__gemm"])
        for part in parts.values():
            self.assertNotIn("ninja: build stopped", part)
            self.assertNotIn("Linking CXX executable grading/sol/", part)

    def test_errors_shown_in_reports(self):
        parts = grading.split_build_log(self.text, self.targets)
        errors = grading.compile_errors(parts["grade_cublas__gemm"])
        self.assertEqual(errors.splitlines()[-1], "collect2: error: ld returned 1 exit status")
        self.assertEqual(sum("undefined reference" in ln for ln in errors.splitlines()), 3)
        self.assertEqual(grading.first_error(errors),
                         "link error: undefined reference to cublasSetStream_v2, cublasSgemm_v2, cublasCreate_v2 "
                         "(the runner links the harness and your file only: no solution, CPU reference, cuBLAS or "
                         "cuDNN)")
        first = grading.first_error(grading.compile_errors(parts["grade_hostref__gemm"]))
        self.assertIn("undefined reference to gemm::reference_gemm(gemm::Shape const&", first)
        compile_error = grading.compile_errors(parts["grade_cublas__elementwise"])
        self.assertTrue(grading.first_error(compile_error).endswith('error: identifier "n_vecs" is undefined'))
        self.assertIn("multiple definition of `main'",
                      grading.first_error(grading.compile_errors(parts["grade_a.b-c__gemm"])))
        self.assertEqual(grading.first_error(""), "the build failed")

    def test_included_files(self):
        deps = ("chapters/x/CMakeFiles/grade_a__x.dir/w/files/tok/01_x/x.cu.o: #deps 3, deps mtime 1 (VALID)\n"
                "    /w/files/tok/01_x/x.cu\n    /usr/include/stdio.h\n    ../common/check.hpp\n\n"
                "chapters/x/CMakeFiles/x.dir/y.cu.o: #deps 0, deps mtime 2 (STALE)\n\n")
        found = grading.included_files(deps, pathlib.Path("/b/build"))
        self.assertEqual(found["chapters/x/CMakeFiles/grade_a__x.dir/w/files/tok/01_x/x.cu.o"],
                         ["/w/files/tok/01_x/x.cu", "/usr/include/stdio.h", "/b/build/../common/check.hpp"])
        self.assertEqual(found["chapters/x/CMakeFiles/x.dir/y.cu.o"], [])

    def test_foreign_includes(self):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            fake = support.make_fake_repo(root)
            chapters, _ = repo.discover(fake)
            g = grading.Grader(fake, chapters, config.Config(), root / "out", say=lambda s: None)
            g.submission_dirs = [root / "subs/alice", root / "subs/bob"]
            g.files_dirs = {"alice": g.work / "files/aaa", "bob": g.work / "files/bbb"}
            obj = g.build_dir / "chapters/01_alpha/CMakeFiles/grade_alice__alpha.dir/x/alpha.cu.o"
            key = os.path.relpath(obj, g.build_dir)
            own = str(g.work / "files/aaa/01_alpha/alpha.cu")
            clean = {key: [own, "/usr/include/stdio.h", str(fake / "common/check.hpp")]}
            self.assertEqual(g.foreign_includes("alice", chapters[0], obj, clean), [])
            for bad in (fake / "solutions/01_alpha/alpha.cu", g.work / "files/bbb/01_alpha/alpha.cu",
                        root / "subs/bob/01_alpha/alpha.cu", fake / "tools/grader/corpus/01_alpha/e/alpha.cu"):
                found = g.foreign_includes("alice", chapters[0], obj, {key: [own, str(bad)]})
                self.assertEqual(len(found), 1, bad)
                self.assertIn("a file from solutions/, the corpus or another submission", found[0])
            self.assertEqual(g.foreign_includes("alice", chapters[0], obj, None), [])


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
