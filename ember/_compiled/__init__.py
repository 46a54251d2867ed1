"""Optional compiled kernels: with numba installed, a few hot loops run in one pass.

Why: some of ember's work is many NumPy passes over the same data (PyTorch's float32
normal kernel replayed step by step is about eighty; drawing mt19937 words through
NumPy's Generator costs twice the generator itself), and memory traffic, not
arithmetic, sets its time. numba compiles the same arithmetic (the same IEEE float32
and float64 operations in the same order, no fast-math, no contraction into fused
multiply-adds) into one loop, so its results are bit for bit those of the NumPy code,
which stays the fallback and the reference the tests compare against. Exceptions, each
bounded by the tests: a transcendental function (NumPy's float32 `exp` is its own SIMD
routine, which a compiled loop cannot call; `activation_kernels` says what it does
instead), sums the NumPy code leaves to BLAS's order (`norm_kernels` adds in float64),
and `softmax_kernels`, which replay PyTorch's own vectorized kernels (SLEEF's `exp`,
PyTorch's summation order and fused multiply-adds) and so give PyTorch's bits where the
NumPy path is only close to them.

numba is optional (`pip install 'ember-tensor[fast]'`). `load(name)` imports
`ember._compiled.<name>` the first time it is asked for and returns it, or None when
numba does not import; callers then take their NumPy path. A kernel module compiles
its functions when it is imported (about two seconds the first time on a machine;
numba's on-disk cache makes later processes load them in a fraction of that), so
callers ask for one only for work large enough to repay that once.
"""
import importlib

from .. import _parallel

__all__ = ["load", "split_run", "MIN_SIZE"]

# Elements from which callers ask for a kernel module: below it NumPy's call costs little,
# and a first use there should not pay the kernels' loading.
MIN_SIZE = 1 << 16
_PIECE = 1 << 16   # elements per job at least when a kernel's work is shared out

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


def split_run(kernel, arrays, *scalars, granule=1):
    """`kernel(*arrays, *scalars)` over equal pieces of the flat, equally long `arrays`,
    shared out to the elementwise threads (`ember._parallel`); the kernels release the GIL
    and treat each element (or each `granule` elements, a piece's length being a multiple
    of it) on its own, so the pieces give the whole call's bits."""
    n = arrays[0].size
    parts = min(2 * _parallel.threads(), n // _PIECE)
    if parts <= 1:
        kernel(*arrays, *scalars)
        return
    step = -(-n // (parts * granule)) * granule
    _parallel.run([(kernel, tuple(a[start:start + step] for a in arrays) + scalars, {})
                   for start in range(0, n, step)])
