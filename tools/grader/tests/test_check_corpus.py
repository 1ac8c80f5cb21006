"""check_corpus.py on a fake repository and a fake corpus (fake cmake, no GPU): the exit status is 0
only when every solution passes and every known-wrong entry is rejected."""
import io
import json
import pathlib
import shutil
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import support
import check_corpus
from gradelib import repo


class CheckCorpusTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.repo = support.make_fake_repo(self.root)
        self.corpus = self.root / "corpus"
        support.write(self.corpus / "corpus.toml",
                      f"[build]\ncmake = {json.dumps(support.FAKE_CMAKE)}\njobs = 2\n[timeouts]\ntest = 60\n"
                      "[chapters.alpha]\ntest_timeout = 50\n")
        self.entry("fails_everything", "FAIL_ALL", "fails every case")
        self.entry("does_not_compile", "COMPILE_ERROR", "does not compile")
        self.entry("public_only", "FAIL_HIDDEN", "right only for the public seed")

    def tearDown(self):
        self.tmp.cleanup()

    def entry(self, name, marker, what, folder="01_alpha", file="alpha.cu"):
        support.write(self.corpus / folder / name / file, marker + "\n")
        support.write(self.corpus / folder / name / "README.md", what + "\n")

    def run_check(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = check_corpus.main(["--repo", str(self.repo), "--corpus", str(self.corpus),
                                    "--out", str(self.root / "out"), "--seed", "31337", *extra])
        return rc, out.getvalue(), err.getvalue()

    def test_every_wrong_entry_rejected(self):
        rc, out, err = self.run_check()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("OK: every solution passed and every known-wrong submission was rejected", out)
        self.assertIn("| alpha--public_only | REJECT | FAIL | 2/5 | hidden |", out)
        self.assertIn("| alpha--does_not_compile | REJECT | COMPILE ERROR | 0/0 | build |", out)
        self.assertIn("| solutions (beta) | PASS | PASS | 3/3 | - | 1.00x | ok |", out)
        self.assertIn("| alpha--skeleton | REJECT | FAIL | 0/5 | public |", out)
        data = json.loads((self.root / "out/corpus_summary.json").read_text())
        self.assertEqual(data["outcome"], "ok")
        self.assertEqual(data["seed"], 31337)
        self.assertTrue((self.root / "out/summary.md").is_file())

    def test_an_entry_that_passes_fails_the_check(self):
        self.entry("sneaky", "fine", "should have been caught")
        rc, out, _ = self.run_check()
        self.assertEqual(rc, 1)
        self.assertIn("| alpha--sneaky | REJECT | PASS | 5/5 | - | 1.00x | WRONG |", out)
        self.assertIn("FAILED: see the rows marked WRONG", out)

    def test_no_gpu_is_not_verified(self):
        self.entry("needs_gpu", "NO_GPU", "cannot run here")
        rc, out, _ = self.run_check()
        self.assertEqual(rc, 77)
        self.assertIn("not verified", out)

    def test_chapter_selection_and_malformed_entries(self):
        rc, out, _ = self.run_check("--chapters", "beta")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("alpha--", out)
        (self.corpus / "01_alpha/fails_everything/README.md").unlink()
        rc, _, err = self.run_check()
        self.assertEqual(rc, 2)
        self.assertIn("one-line README.md", err)
        shutil.rmtree(self.corpus / "01_alpha/fails_everything")
        self.entry("x", "FAIL_ALL", "a chapter that does not exist", folder="09_nothing", file="n.cu")
        rc, _, err = self.run_check()
        self.assertEqual(rc, 2)
        self.assertIn("no gradable chapter has the folder '09_nothing'", err)

    def test_write_submissions(self):
        chapters, _ = repo.discover(self.repo)
        entries = check_corpus.corpus_entries(self.repo, chapters, self.corpus)
        self.assertEqual([e[0] for e in entries], ["alpha--skeleton", "beta--skeleton", "alpha--does_not_compile",
                                                   "alpha--fails_everything", "alpha--public_only"])
        rc, out, _ = self.run_check("--write-submissions", str(self.root / "class"))
        self.assertEqual(rc, 0)
        self.assertEqual((self.root / "class/alpha--public_only/01_alpha/alpha.cu").read_text(), "FAIL_HIDDEN\n")
        self.assertTrue((self.root / "class/solutions/02_beta/beta.cu").is_file())


if __name__ == "__main__":
    unittest.main()
