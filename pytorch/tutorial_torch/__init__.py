"""The tutorial's kernels as PyTorch operators: ``torch.ops.tutorial.*``.

Build the libraries with CMake (``cmake --build build --target tutorial_torch
tutorial_torch_exercises``; they are built only where the Python on PATH imports torch), then::

    import torch, tutorial_torch
    ops = tutorial_torch.load()          # finds build/lib/libtutorial_torch.so
    y = ops.softmax(torch.randn(4, 1000, device="cuda"))

The chapters' operators: add(a, b), relu(x), sum(x), max(x), dot(x, y), softmax(x) over the last
dimension, gemv(A, x), transpose(A) (float32); gemm(A, B, C=None, alpha=1.0, beta=0.0) (float32
or bfloat16 inputs, float32 result); conv2d(x, w, stride=[1, 1], padding=[0, 0]) (float32 NCHW or
channels_last, bfloat16 channels_last); attention(q, k, v, causal=False) -> (O, lse) (float32 or
bfloat16, scale 1/sqrt(D)). They raise RuntimeError, naming the argument, for inputs they do not
take. ``load_exercises()`` adds ``exercise_<chapter>``: your own kernels from exercises/;
``load_exercises("solution")`` adds ``solution_<chapter>``.
"""
import os
import pathlib

import torch

_REPO = pathlib.Path(__file__).resolve().parents[2]
_LIBS = {"ops": ("TUTORIAL_TORCH_LIB", "libtutorial_torch.so", "tutorial_torch"),
         "exercise": ("TUTORIAL_TORCH_EXERCISES_LIB", "libtutorial_torch_exercises.so", "tutorial_torch_exercises"),
         "solution": ("TUTORIAL_TORCH_SOLUTIONS_LIB", "libtutorial_torch_solutions.so", "tutorial_torch_solutions")}


def library_path(which="ops"):
    """Where a built library is: its environment variable ($TUTORIAL_TORCH_LIB, ...), else the
    first build*/lib/ of the repository that has it."""
    env, name, target = _LIBS[which]
    if os.environ.get(env):
        return pathlib.Path(os.environ[env])
    for candidate in sorted(_REPO.glob(f"build*/lib/{name}")):
        return candidate
    raise FileNotFoundError(f"{name} not found: build it with `cmake --build build --target {target}` (needs torch "
                            f"importable by the python3 CMake finds), or set {env}")


def load(path=None):
    """Loads the chapters' operators once and returns ``torch.ops.tutorial``."""
    if not hasattr(torch.ops.tutorial, "add"):
        torch.ops.load_library(str(path or library_path("ops")))
    return torch.ops.tutorial


def load_exercises(which="exercise", path=None):
    """Loads ``tutorial::exercise_<chapter>`` (your files) or, with which="solution",
    ``tutorial::solution_<chapter>``, and returns ``torch.ops.tutorial``."""
    if which not in ("exercise", "solution"):
        raise ValueError("which must be 'exercise' or 'solution'")
    ops = load()
    if not hasattr(ops, f"{which}_gemm"):
        torch.ops.load_library(str(path or library_path(which)))
    return ops
