"""The kernels behind quasirandom.SobolEngine, under PyTorch's private names.

A Sobol point is the XOR of direction numbers (`sobolstate`, one row of MAXBIT 30-bit
integers per dimension) chosen by the bits of the point's Gray code; consecutive
points differ by one direction number, the one at the lowest zero bit of the previous
index. So a run of n points is one `bitwise_xor.accumulate` over the n chosen rows,
with no loop over points. The direction numbers are Joe and Kuo's (scipy's table,
identical to PyTorch's); scrambling multiplies each by a random lower-triangular bit
matrix (Owen's linear matrix scramble) over GF(2): bit parities of ANDs, as one
matrix product of 0/1 arrays.
"""
from .. import _dtype, _errors
from .._backend import _LazyModule
from ._common import make_tensor

__all__ = []  # private kernels: ember._sobol_engine_* as torch._sobol_engine_*

MAXBIT = 30
_RECIPROCAL = 1.0 / (1 << MAXBIT)
_DRAW_TYPES = ("float32", "float64")
_qmc = _LazyModule("scipy.stats.qmc")


def _sobol_engine_initialize_state_(sobolstate, dimension):
    """Fill the (dimension, MAXBIT) int64 `sobolstate` with the direction numbers."""
    table = _qmc.Sobol(dimension, scramble=False, bits=MAXBIT)._sv  # (dimension, MAXBIT)
    sobolstate._data[:dimension] = table.astype(sobolstate._data.dtype)
    return sobolstate


def _lowest_zero_bit(xp, indices):
    """For each index m, the position of m's lowest zero bit (m = 0b0111 -> 3)."""
    above = indices + 1
    lowest = above & -above
    return (xp.frexp(lowest.astype(xp.float64))[1] - 1).astype(xp.int64)


def _walk(quasi, n, sobolstate, num_generated):
    """The n states after `quasi` (points num_generated + 1 ... + n), as int64 rows."""
    xp = quasi._device.xp
    steps = _lowest_zero_bit(xp, xp.arange(num_generated, num_generated + n, dtype=xp.int64))
    rows = sobolstate._data[:, steps].T  # (n, dimension)
    return xp.bitwise_xor.accumulate(rows, axis=0) ^ quasi._data[None, :]


def _sobol_engine_draw(quasi, n, sobolstate, dimension, num_generated, *, dtype=None):
    """(n points as floats in [0, 1), the state after the last one)."""
    dtype = _dtype.float32 if dtype is None else dtype
    if dtype.name not in _DRAW_TYPES:
        raise NotImplementedError('"_sobol_engine_draw" not implemented for '
                                  f"'{_errors.scalar_type_name(dtype)}'")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: "
                           f"[{n}, {dimension}]")
    xp = quasi._device.xp
    if n == 0:
        return (make_tensor(xp.empty((0, dimension), dtype.np_dtype), quasi._device),
                make_tensor(quasi._data.copy(), quasi._device))
    states = _walk(quasi, n, sobolstate, num_generated)
    # PyTorch converts the integer state to the result dtype first, then scales by 2**-30
    # (exact), so each value is rounded once
    points = states.astype(dtype.np_dtype) * dtype.np_dtype.type(_RECIPROCAL)
    return (make_tensor(points, quasi._device),
            make_tensor(states[-1].copy(), quasi._device))


def _sobol_engine_ff_(quasi, n, sobolstate, dimension, num_generated):
    """Advance `quasi` in place by n points."""
    if n > 0:
        quasi._data[...] = _walk(quasi, n, sobolstate, num_generated)[-1]
    return quasi


def _sobol_engine_scramble_(sobolstate, ltm, dimension):
    """Scramble the direction numbers in place with the 0/1 lower-triangular matrices
    `ltm` (dimension, MAXBIT, MAXBIT), their diagonals taken as 1."""
    xp = sobolstate._device.xp
    matrices = ltm._data.astype(xp.float64)  # bit counts of at most 30 stay exact
    matrices[:, xp.arange(MAXBIT), xp.arange(MAXBIT)] = 1
    state = sobolstate._data[:dimension]
    positions = xp.arange(MAXBIT, dtype=xp.int64)
    # bit k of direction number j, and row p of a matrix read as the integer whose bit
    # (MAXBIT - 1 - c) is the matrix's entry in column c
    state_bits = ((state[:, :, None] >> positions) & 1).astype(xp.float64)  # (d, j, k)
    row_bits = matrices[:, :, ::-1]                                         # (d, p, k)
    parity = (row_bits @ state_bits.transpose(0, 2, 1)).astype(xp.int64) & 1  # (d, p, j)
    weights = (1 << (MAXBIT - 1 - positions))                              # bit of row p
    state[...] = (parity * weights[None, :, None]).sum(axis=1)
    return sobolstate


