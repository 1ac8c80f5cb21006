"""Bounded commands: timeouts that kill the whole process group, logs, exit statuses."""
import os
import pathlib
import sys
import tempfile
import time
import unittest

import support  # noqa: F401
from gradelib import process

PY = sys.executable


class RunBoundedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = pathlib.Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_ok_and_exit_status(self):
        r = process.run_bounded([PY, "-c", "print('hello'); import sys; sys.exit(3)"], 30,
                                log_path=self.dir / "x.log")
        self.assertEqual(r.rc, 3)
        self.assertFalse(r.timed_out)
        self.assertFalse(r.ok)
        self.assertIn("hello", r.output_tail)
        log = (self.dir / "x.log").read_text()
        self.assertIn("hello", log)
        self.assertIn("exit status 3", log)
        self.assertTrue(process.run_bounded([PY, "-c", "pass"], 30).ok)

    def test_a_hanging_command_is_stopped(self):
        start = time.monotonic()
        r = process.run_bounded([PY, "-c", "import time\nprint('spinning', flush=True)\nwhile True: time.sleep(0.1)"],
                                1.0)
        self.assertTrue(r.timed_out)
        self.assertFalse(r.ok)
        self.assertLess(time.monotonic() - start, 15)
        self.assertIn("spinning", r.output_tail)
        self.assertIn("stopped after 1 s", r.output_tail)

    def test_the_whole_process_group_is_killed(self):
        # The command starts a grandchild that would outlive it, then hangs; both must be gone.
        pidfile = self.dir / "child.pid"
        script = (f"import subprocess, sys, time\n"
                  f"p = subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(300)'])\n"
                  f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
                  f"time.sleep(300)\n")
        r = process.run_bounded([PY, "-c", script], 2.0)
        self.assertTrue(r.timed_out)
        child = int(pidfile.read_text())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            # A killed child of a killed parent is reaped by init; until then it is a zombie.
            if pathlib.Path(f"/proc/{child}/stat").exists() and \
                    pathlib.Path(f"/proc/{child}/stat").read_text().split()[2] == "Z":
                break
            time.sleep(0.1)
        else:
            self.fail("the grandchild survived the timeout")

    def test_sigterm_is_not_enough(self):
        script = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('ready', flush=True)\ntime.sleep(300)"
        start = time.monotonic()
        r = process.run_bounded([PY, "-c", script], 1.0)
        self.assertTrue(r.timed_out)
        self.assertEqual(r.rc, -9)
        self.assertLess(time.monotonic() - start, 20)

    def test_a_leftover_background_child_does_not_block(self):
        # The command exits at once but leaves a child holding its output open.
        script = f"import subprocess; subprocess.Popen([{PY!r}, '-c', 'import time; time.sleep(300)']); print('bye')"
        start = time.monotonic()
        r = process.run_bounded([PY, "-c", script], 30)
        self.assertEqual(r.rc, 0)
        self.assertLess(time.monotonic() - start, 15)

    def test_log_is_capped(self):
        r = process.run_bounded([PY, "-c", "print('x' * 100000)"], 30, log_path=self.dir / "big.log",
                                max_log_bytes=1000, tail_chars=50)
        self.assertEqual(r.rc, 0)
        self.assertLess((self.dir / "big.log").stat().st_size, 2000)
        self.assertIn("log truncated", (self.dir / "big.log").read_text())
        self.assertLessEqual(len(r.output_tail), 50)

    def test_missing_program(self):
        r = process.run_bounded(["/nonexistent/program"], 5, log_path=self.dir / "m.log")
        self.assertIsNone(r.rc)
        self.assertTrue(r.start_error)
        self.assertFalse(r.ok)
        self.assertIn("could not start", r.output_tail)


if __name__ == "__main__":
    unittest.main()
