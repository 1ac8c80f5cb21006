"""Running one step (configure, build, a test case, a speed run) with a hard time limit.

Each command runs in its own session (process group). On timeout the whole group gets SIGTERM,
then SIGKILL: a student kernel stuck in an infinite loop, or a build that hangs, costs that one
step. Output goes to a log file (capped, so a test that prints without end cannot fill the disk),
and the tail is kept for the report.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import select
import signal
import subprocess
import threading
import time

MAX_LOG_BYTES = 16 * 1024 * 1024

_active: set[subprocess.Popen] = set()
_active_lock = threading.Lock()


@dataclasses.dataclass
class RunResult:
    """How a bounded command ended."""

    cmd: list[str]
    rc: int | None            # exit status; negative: killed by that signal; None: could not start
    timed_out: bool
    seconds: float
    output_tail: str          # the last characters of stdout + stderr
    log_path: str | None = None
    start_error: str = ""     # why it could not start (program not found, ...)

    @property
    def ok(self) -> bool:
        """Exited by itself with status 0."""
        return self.rc == 0 and not self.timed_out


def _kill_group(proc: subprocess.Popen, grace: float) -> None:
    """SIGTERM to the command's process group, then SIGKILL to whatever is left after `grace`."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(timeout=wait)
            if sig == signal.SIGKILL or proc.returncode is not None:
                # Also reap stragglers of the group (a forked child that kept running).
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                return
        except subprocess.TimeoutExpired:
            continue


def kill_all() -> None:
    """Ends every command still running (used when the grader itself is interrupted)."""
    with _active_lock:
        procs = list(_active)
    for p in procs:
        _kill_group(p, grace=1.0)


def run_bounded(cmd: list[str], timeout: float, *, cwd=None, env=None, log_path=None,
                max_log_bytes: int = MAX_LOG_BYTES, tail_chars: int = 12000) -> RunResult:
    """Runs `cmd` (no shell) for at most `timeout` seconds; never raises for the command's sake."""
    cmd = [str(c) for c in cmd]
    log = None
    if log_path is not None:
        pathlib.Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        log = open(log_path, "wb")
        log.write(("$ " + " ".join(cmd) + "\n").encode())
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as e:
        if log:
            log.write(f"could not start: {e}\n".encode())
            log.close()
        return RunResult(cmd, None, False, 0.0, f"could not start {cmd[0]}: {e}",
                         str(log_path) if log_path else None, str(e))
    with _active_lock:
        _active.add(proc)

    tail = bytearray()
    written = 0
    stop = threading.Event()

    def pump() -> None:
        nonlocal written
        fd = proc.stdout.fileno()
        while True:
            try:
                ready, _, _ = select.select([fd], [], [], 0.2)
                if not ready:
                    if stop.is_set():
                        return
                    continue
                chunk = os.read(fd, 65536)
            except (OSError, ValueError):  # the pipe was closed under us
                return
            if not chunk:
                return
            tail.extend(chunk)
            if len(tail) > 4 * tail_chars:
                del tail[:len(tail) - 4 * tail_chars]
            if log and written < max_log_bytes:
                part = chunk[:max_log_bytes - written]
                log.write(part)
                written += len(part)
                if written >= max_log_bytes:
                    log.write(b"\n[grader: log truncated here]\n")

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        _kill_group(proc, grace=3.0)
        with _active_lock:
            _active.discard(proc)
    stop.set()
    reader.join(timeout=5.0)
    seconds = time.monotonic() - start
    try:
        proc.stdout.close()
    except OSError:
        pass
    text = tail.decode("utf-8", errors="replace")[-tail_chars:]
    if timed_out:
        text += f"\n[grader: stopped after {timeout:g} s]"
    if log:
        if timed_out:
            log.write(f"\n[grader: stopped after {timeout:g} s]\n".encode())
        log.write(f"\n[grader: exit status {proc.returncode}, {seconds:.1f} s]\n".encode())
        log.close()
    return RunResult(cmd, proc.returncode, timed_out, seconds, text, str(log_path) if log_path else None)
