"""check_corpus.py on a fake repository and a fake corpus (fake cmake, no GPU): the exit status is 0
only when every solution and correct entry passes and every known-wrong entry is rejected; and the
real corpus is well formed (every entry has its file and a README; the new "CORRECT:" entries)."""
import io
import json
import pathlib
import shutil
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

import support
import check_corpus
from gradelib import grading, repo, symbols

GPU = "NVIDIA H100 80GB HBM3, 9.0 (fake)"


class CheckCorpusTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.repo = support.make_fake_repo(self.root)
        self.corpus = self.root / "corpus"
        support.write(self.corpus / "corpus.toml",
                      f"[build]\ncmake = {json.dumps(support.FAKE_CMAKE)}\njobs = 2\n[timeouts]\ntest = 60\n"
                      "[chapters.alpha]\ntest_timeout = 50\n[chapters.delta]\nextra_sizes = [5]\n")
        self.entry("fails_everything", "FAIL_ALL", "fails every case")
        self.entry("does_not_compile", "COMPILE_ERROR", "does not compile")
        self.entry("public_only", "FAIL_HIDDEN", "right only for the public seed")
        self.entry("correct_scalar", "fine", "CORRECT: written another way; must pass")
        self.entry("remembers", "SPEED=40", "FLAG: copies its last answer; only the speed run sees it")
        self.entry("calls_cublas", "LINK_ERROR=cublasSgemm_v2", "calls cuBLAS: a link error", folder="02_beta",
                   file="beta.cu")
        self.entry("ported_later", "FAIL_ALL", "an entry of a chapter without a checker yet", folder="04_delta",
                   file="delta.cu")

    def tearDown(self):
        self.tmp.cleanup()

    def entry(self, name, marker, what, folder="01_alpha", file="alpha.cu"):
        support.write(self.corpus / folder / name / file, marker + "\n")
        support.write(self.corpus / folder / name / "README.md", what + "\n")

    def run_check(self, *extra, device=GPU):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err), mock.patch.object(grading, "describe_device", lambda: device), \
                mock.patch.object(symbols, "check_object", lambda obj, names, complete=True: ([], "")):
            rc = check_corpus.main(["--repo", str(self.repo), "--corpus", str(self.corpus),
                                    "--out", str(self.root / "out"), "--seed", "31337", *extra])
        return rc, out.getvalue(), err.getvalue()

    def test_every_entry_as_expected(self):
        rc, out, err = self.run_check()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("OK: every solution and correct entry passed and every known-wrong submission was rejected",
                      out)
        self.assertIn("| alpha--public_only | REJECT | FAIL | 3/5 | hidden |", out)
        self.assertIn("| alpha--does_not_compile | REJECT | COMPILE ERROR | 0/0 | build |", out)
        self.assertIn("| alpha--correct_scalar | PASS | PASS | 6/6 | - | 1.00x | ok |", out)
        self.assertIn("| alpha--remembers | FLAG | PASS | 6/6 | speed flag | 40.00x FLAG | ok |", out)
        self.assertIn("| beta--calls_cublas | REJECT | COMPILE ERROR | 0/0 | build | - | ok | link error: undefined "
                      "reference to cublasSgemm_v2", out)
        self.assertIn("| solutions (beta) | PASS | PASS | 6/6 | - | 1.00x | ok |", out)
        self.assertIn("| alpha--skeleton | REJECT | FAIL | 4/5 | public |", out)
        self.assertIn("04_delta: not gradable yet: its 1 corpus entries are skipped", out)
        self.assertNotIn("delta--", out)
        data = json.loads((self.root / "out/corpus_summary.json").read_text())
        self.assertEqual(data["outcome"], "ok")
        self.assertEqual(data["seed"], 31337)
        self.assertTrue((self.root / "out/summary.md").is_file())

    def test_each_wrong_outcome_fails_the_check(self):
        self.entry("sneaky", "fine", "should have been caught")
        self.entry("correct_but_failed", "FAIL_PUBLIC", "CORRECT: the grader must not fail this")
        self.entry("not_flagged", "SPEED=2", "FLAG: the speed run should have flagged this")
        self.entry("needs_gpu", "NO_GPU", "not checked, on a machine with a GPU")
        rc, out, _ = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("FAILED: see the rows marked WRONG", out)
        self.assertIn("| alpha--sneaky | REJECT | PASS | 6/6 | - | 1.00x | WRONG |", out)
        self.assertIn("| alpha--correct_but_failed | PASS | FAIL | 4/5 | public | - | WRONG |", out)
        self.assertIn("| alpha--not_flagged | FLAG | PASS | 6/6 | - | 2.00x | WRONG |", out)
        self.assertIn("| alpha--needs_gpu | REJECT | ERROR (grader) | 0/1 | - | - | WRONG |", out)
        self.assertEqual(out.count("| ok |"), 10)  # the ten other rows as expected

    def test_no_gpu_is_not_verified(self):
        self.entry("needs_gpu", "NO_GPU", "cannot run here")
        rc, out, _ = self.run_check(device="no GPU (nvidia-smi not found)")
        self.assertEqual(rc, 77)
        self.assertIn("| alpha--needs_gpu | REJECT | skipped | 0/1 | - | - | not verified |", out)
        self.assertIn("NOT VERIFIED", out)
        self.assertNotIn("WRONG", out)

    def test_chapter_selection_and_malformed_entries(self):
        rc, out, _ = self.run_check("--chapters", "beta")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("alpha--", out)
        self.assertIn("beta--calls_cublas", out)
        rc, _, err = self.run_check("--chapters", "nosuch")
        self.assertEqual(rc, 2)
        self.assertIn("unknown chapter(s) nosuch", err)
        (self.corpus / "01_alpha/fails_everything/README.md").unlink()
        rc, _, err = self.run_check()
        self.assertEqual(rc, 2)
        self.assertIn("one-line README.md", err)
        shutil.rmtree(self.corpus / "01_alpha/fails_everything")
        self.entry("x", "FAIL_ALL", "a chapter that does not exist", folder="09_nothing", file="n.cu")
        rc, _, err = self.run_check()
        self.assertEqual(rc, 2)
        self.assertIn("no chapter of the repository has the folder '09_nothing'", err)

    def test_entries_and_write_submissions(self):
        chapters, _ = repo.discover(self.repo)
        notes = []
        entries = check_corpus.corpus_entries(self.repo, chapters, self.corpus, notes=notes)
        self.assertEqual([(e[0], e[4]) for e in entries], [
            ("alpha--skeleton", "REJECT"), ("beta--skeleton", "REJECT"), ("alpha--correct_scalar", "PASS"),
            ("alpha--does_not_compile", "REJECT"), ("alpha--fails_everything", "REJECT"),
            ("alpha--public_only", "REJECT"), ("alpha--remembers", "FLAG"), ("beta--calls_cublas", "REJECT")])
        self.assertEqual(notes, ["04_delta: not gradable yet: its 1 corpus entries are skipped"])
        rc, out, _ = self.run_check("--write-submissions", str(self.root / "class"))
        self.assertEqual(rc, 0)
        self.assertEqual((self.root / "class/alpha--public_only/01_alpha/alpha.cu").read_text(), "FAIL_HIDDEN\n")
        self.assertTrue((self.root / "class/solutions/02_beta/beta.cu").is_file())

    def test_expectation(self):
        self.assertEqual(check_corpus.expectation("CORRECT: a scalar loop"), "PASS")
        self.assertEqual(check_corpus.expectation("  correct: lower case too"), "PASS")
        self.assertEqual(check_corpus.expectation("FLAG: too fast"), "FLAG")
        self.assertEqual(check_corpus.expectation("Writes past the end; correct otherwise"), "REJECT")


class RealCorpusTest(unittest.TestCase):
    """The corpus in the repository: every entry well formed, the doors of issue 23 present."""

    def test_the_real_corpus_is_well_formed(self):
        chapters, _ = repo.discover(support.REPO)
        notes = []
        entries = check_corpus.corpus_entries(support.REPO, chapters, check_corpus.CORPUS, notes=notes)
        names = {e[0]: e for e in entries}
        for name in ("elementwise--rewrites_report_atexit", "elementwise--exits_77", "elementwise--calls_solution_weak",
                     "elementwise--host_compute", "elementwise--host_callback", "elementwise--remembers_last_call",
                     "elementwise--macro_include_solution", "elementwise--getenv_split_name",
                     "elementwise--dlopen_cublas"):
            self.assertEqual(names[name][4], "REJECT", name)
        self.assertEqual(names["elementwise--correct_named_namespace_kernel"][4], "PASS")
        if "gemv" in {c.name for c in chapters}:
            self.assertEqual(names["gemv--correct_scalar_warp_per_row"][4], "PASS")
        if "gemm" in {c.name for c in chapters}:
            for name in ("gemm--calls_cublas", "gemm--host_reference", "gemm--ignores_alpha_when_beta_zero"):
                self.assertEqual(names[name][4], "REJECT", name)
        # Every corpus folder is a chapter of the repository, and every entry there has its file.
        all_names = {c.folder: c for c in chapters}
        for folder in check_corpus.CORPUS.iterdir():
            if not folder.is_dir():
                continue
            self.assertTrue((support.REPO / "chapters" / folder.name / "CMakeLists.txt").is_file(), folder)
            for entry in folder.iterdir():
                readme = entry / "README.md"
                self.assertTrue(readme.is_file(), entry)
                self.assertEqual(len(readme.read_text().strip().splitlines()), 1, readme)
                if folder.name in all_names:
                    self.assertTrue((entry / all_names[folder.name].exercise).is_file(), entry)

    def test_corpus_readme_lists_every_entry(self):
        text = (check_corpus.CORPUS / "README.md").read_text()
        for folder in check_corpus.CORPUS.iterdir():
            if folder.is_dir():
                for entry in folder.iterdir():
                    self.assertIn(entry.name, text, f"{folder.name}/{entry.name} is not in corpus/README.md")


if __name__ == "__main__":
    unittest.main()
