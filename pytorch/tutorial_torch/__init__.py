"""The tutorial's kernels as PyTorch operators: ``torch.ops.tutorial.*``.

Build the library with CMake (``cmake --build build --target tutorial_torch``; it is built only
where the Python on PATH imports torch), then::

    import torch, tutorial_torch
    ops = tutorial_torch.load()          # finds build/lib/libtutorial_torch.so
    y = ops.softmax(torch.randn(4, 1000, device="cuda"))

The operators (first part of issue 26: one fast, general version of each of chapters 01-05):
add(a, b), relu(x), sum(x), max(x), dot(x, y), softmax(x) over the last dimension, gemv(A, x)
for a row-major M x K matrix, transpose(A). They take contiguous float32 CUDA tensors and raise
RuntimeError, naming the argument, for anything else.
"""
import os
import pathlib

import torch

_REPO = pathlib.Path(__file__).resolve().parents[2]


def library_path():
    """Where the built library is: $TUTORIAL_TORCH_LIB, else build*/lib/libtutorial_torch.so."""
    env = os.environ.get("TUTORIAL_TORCH_LIB")
    if env:
        return pathlib.Path(env)
    for candidate in sorted(_REPO.glob("build*/lib/libtutorial_torch.so")):
        return candidate
    raise FileNotFoundError("libtutorial_torch.so not found: build it with `cmake --build build --target "
                            "tutorial_torch` (needs torch importable by the python3 CMake finds), or set "
                            "TUTORIAL_TORCH_LIB")


def load(path=None):
    """Loads the operators once and returns ``torch.ops.tutorial``."""
    if not hasattr(torch.ops.tutorial, "add"):
        torch.ops.load_library(str(path or library_path()))
    return torch.ops.tutorial
