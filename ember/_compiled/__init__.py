"""Optional compiled kernels: with numba installed, a few hot loops run in one pass.

Why: some of ember's work is many NumPy passes over the same data (PyTorch's float32
normal kernel replayed step by step is about eighty; drawing mt19937 words through
NumPy's Generator costs twice the generator itself), and memory traffic, not
arithmetic, sets its time. numba compiles the same arithmetic (the same IEEE float32
and float64 operations in the same order, no fast-math, no contraction into fused
multiply-adds) into one loop, so its results are bit for bit those of the NumPy code,
which stays the fallback and the reference the tests compare against.

numba is optional (`pip install 'ember-tensor[fast]'`). `load(name)` imports
`ember._compiled.<name>` the first time it is asked for and returns it, or None when
numba does not import; callers then take their NumPy path. A kernel module compiles
its functions when it is imported (about two seconds the first time on a machine;
numba's on-disk cache makes later processes load them in a fraction of that), so
callers ask for one only for work large enough to repay that once.
"""
import importlib

__all__ = ["load"]

_modules = {}


def load(name):
    """The compiled kernel module `name`, or None without numba."""
    try:
        return _modules[name]
    except KeyError:
        pass
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ImportError:   # numba (or its llvmlite) missing or unusable here
        module = None
    _modules[name] = module
    return module
