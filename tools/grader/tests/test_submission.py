"""Finding a student's files, integrity checks, and merging over the skeletons."""
import os
import pathlib
import tempfile
import unittest

import support
from gradelib import repo, submission


class SubmissionTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = pathlib.Path(self.tmp.name)
        self.repo = support.make_fake_repo(self.root)
        self.chapters, _ = repo.discover(self.repo)

    def tearDown(self):
        self.tmp.cleanup()

    def find(self, name, files):
        sub = support.make_submission(self.root, name, files)
        return submission.find(sub, self.chapters, self.repo)

    def test_standard_layout_with_only_some_chapters(self):
        found, warnings = self.find("alice", {"01_alpha/alpha.cu": "mine\n"})
        self.assertEqual(list(found), ["alpha"])
        self.assertEqual(found["alpha"].shown_as, "01_alpha/alpha.cu")
        self.assertEqual(found["alpha"].rejected, "")
        self.assertEqual(warnings, [])

    def test_lenient_layouts_are_accepted_with_a_note(self):
        found, _ = self.find("bob", {"alpha/alpha.cu": "x\n", "beta.cu": "y\n"})
        self.assertEqual(sorted(found), ["alpha", "beta"])
        self.assertIn("should be called 01_alpha/", found["alpha"].warnings[0])
        self.assertIn("at the top level", found["beta"].warnings[0])
        found, warnings = self.find("carol", {"exercises/02_beta/beta.cu": "z\n"})
        self.assertEqual(list(found), ["beta"])
        self.assertIn("exercises/ folder inside", warnings[0])

    def test_missing_file_and_stray_files(self):
        found, warnings = self.find("dave", {"01_alpha/alpha_v2.cu": "x\n", "notes.txt": "hi\n",
                                             "02_beta/beta.cu": "y\n", "02_beta/helper.cuh": "z\n"})
        self.assertEqual(list(found), ["beta"])
        self.assertTrue(any("01_alpha/ has no alpha.cu" in w and "alpha_v2.cu" in w for w in warnings), warnings)
        self.assertTrue(any("notes.txt" in w for w in warnings), warnings)
        self.assertTrue(any("helper.cuh" in w and "only beta.cu is graded" in w for w in found["beta"].warnings))

    def test_a_class_folder_given_as_one_submission_says_so(self):
        judy = support.make_submission(self.root / "class", "judy", {"01_alpha/alpha.cu": "x\n"})
        support.make_submission(self.root / "class", "karl", {"exercises/02_beta/beta.cu": "y\n"})
        found, warnings = submission.find(judy.parent, self.chapters, self.repo)
        self.assertEqual(found, {})
        self.assertTrue(any("holds submissions itself (judy, karl)" in w and "/*/" in w for w in warnings), warnings)
        # A student's own stray folder is not mistaken for one.
        _, warnings = self.find("leo", {"01_alpha/alpha.cu": "x\n", "scratch/notes.txt": "hi\n"})
        self.assertFalse(any("holds submissions" in w for w in warnings), warnings)

    def test_integrity(self):
        found, _ = self.find("eve", {"01_alpha/alpha.cu": '#include "../../solutions/01_alpha/alpha.cu"\n',
                                     "02_beta/beta.cu": '#include <solutions/02_beta/beta.cu>\n'})
        self.assertIn("a file from solutions/", found["alpha"].rejected)
        self.assertIn("a file from solutions/", found["beta"].rejected)

        sub = support.make_submission(self.root, "frank", {})
        (sub / "01_alpha").mkdir()
        os.symlink(self.repo / "solutions/01_alpha/alpha.cu", sub / "01_alpha/alpha.cu")
        found, _ = submission.find(sub, self.chapters, self.repo)
        self.assertIn("symbolic link", found["alpha"].rejected)

        found, _ = self.find("grace", {"01_alpha/alpha.cu": "x" * (submission.MAX_FILE_BYTES + 1)})
        self.assertIn("limit", found["alpha"].rejected)

        # The environment is no text check's business any more: the runner gets a clean one, and the
        # object-file check refuses getenv/setenv/environ whatever the source says.
        found, _ = self.find("olivia", {"01_alpha/alpha.cu": 'static int x = unsetenv("TUTORIAL_SEED");\n'})
        self.assertEqual(found["alpha"].rejected, "")

        found, _ = self.find("heidi", {"01_alpha/alpha.cu": '#include "/etc/passwd"\n'})
        self.assertEqual(found["alpha"].rejected, "")
        self.assertIn("check it by hand", found["alpha"].warnings[0])

    def test_same_as_skeleton_or_solution(self):
        skeleton = (self.repo / "exercises/01_alpha/alpha.cu").read_text()
        solution = (self.repo / "solutions/02_beta/beta.cu").read_text()
        found, _ = self.find("ivan", {"01_alpha/alpha.cu": skeleton + "\n\n   \n", "02_beta/beta.cu": solution})
        self.assertTrue(found["alpha"].same_as_skeleton)
        self.assertTrue(found["beta"].same_as_solution)
        self.assertIn("identical to the reference solution", found["beta"].warnings[0])

    def test_copy_accepted(self):
        found, _ = self.find("judy", {"01_alpha/alpha.cu": "student alpha\n",
                                      "02_beta/beta.cu": '#include "solutions/02_beta/beta.cu"\n'})
        dest = self.root / "work" / "files" / "0123abcd"
        stale = dest / "old.txt"
        stale.parent.mkdir(parents=True)
        stale.write_text("from an earlier run")
        copies = submission.copy_accepted(found, dest)
        self.assertEqual(copies, {"alpha": dest / "01_alpha/alpha.cu"})  # the rejected beta is not copied
        self.assertEqual(copies["alpha"].read_text(), "student alpha\n")
        self.assertFalse(stale.exists())  # a fresh folder every run
        self.assertFalse((dest / "02_beta").exists())
        # The copy is a file of its own, not a link to the student's.
        self.assertFalse(copies["alpha"].is_symlink())
        (self.root / "subs/judy/01_alpha/alpha.cu").write_text("changed later\n")
        self.assertEqual(copies["alpha"].read_text(), "student alpha\n")
        self.assertEqual(submission.copy_accepted({}, dest), {})
        self.assertFalse(dest.exists())

    def test_student_names(self):
        self.assertEqual(submission.student_name(pathlib.Path("/x/Alice Smith (2)")), "Alice_Smith_2")
        self.assertEqual(submission.student_name(pathlib.Path("/x/bob.tar")), "bob.tar")


if __name__ == "__main__":
    unittest.main()
