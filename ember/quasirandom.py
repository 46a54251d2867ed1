"""ember.quasirandom: SobolEngine, Sobol' low-discrepancy sequences.

The engine keeps PyTorch's state (direction numbers `sobolstate`, the current point
`quasi`, the digital `shift`, `num_generated`) as int64 tensors and drives the kernels
in ops/sobol.py, so a run of draws, fast-forwards and resets gives PyTorch's numbers.
A scrambled engine draws its shift and matrices with `randint` from a generator seeded
with `seed` (the global generator when `seed` is None), in PyTorch's order, so that
seeded scrambles match PyTorch's too.
"""
from ._dtype import get_default_dtype, long
from ._random import Generator
from .ops import sobol as _kernels
from .ops.creation import zeros
from .ops.joining import cat
from .ops.random import randint
from .ops.ranges import arange

__all__ = ["SobolEngine"]


class SobolEngine:
    """A generator of Sobol' points in [0, 1)^dimension, optionally scrambled."""

    MAXBIT = _kernels.MAXBIT
    MAXDIM = 21201

    def __init__(self, dimension, scramble=False, seed=None):
        if not 1 <= dimension <= self.MAXDIM:
            raise ValueError(f"Supported range of dimensionality for SobolEngine is "
                             f"[1, {self.MAXDIM}]")
        self.dimension, self.scramble, self.seed = dimension, scramble, seed
        state = zeros(dimension, self.MAXBIT, dtype=long)
        self.sobolstate = _kernels._sobol_engine_initialize_state_(state, dimension)
        self.shift = self._scrambled() if scramble else zeros(dimension, dtype=long)
        self.quasi = self.shift.clone()
        # true division gives the construction-time default dtype: PyTorch keeps the first
        # point in it, and later draws of another dtype convert it from there
        self._first_point = (self.quasi / (1 << self.MAXBIT)).reshape(1, -1)
        self.num_generated = 0

    def draw(self, n=1, out=None, dtype=None):
        """The next `n` points, shape (n, dimension)."""
        dtype = dtype or get_default_dtype()
        fresh = self.num_generated == 0
        if fresh and n == 1:
            points = self._first_point.to(dtype)
        else:
            # the kernel walks from the point before the first one asked for; a fresh
            # engine hands out its stored first point and walks the other n - 1
            count = n - 1 if fresh else n
            points, self.quasi = _kernels._sobol_engine_draw(
                self.quasi, count, self.sobolstate, self.dimension,
                max(self.num_generated - 1, 0), dtype=dtype)
            if fresh:
                points = cat((self._first_point.to(dtype), points), dim=-2)
        self.num_generated += n
        if out is None:
            return points
        out.resize_as_(points).copy_(points)
        return out

    def draw_base2(self, m, out=None, dtype=None):
        """The next 2**m points; the total drawn must stay a power of two."""
        total = self.num_generated + (1 << m)
        if total & (total - 1):
            raise ValueError("The balance properties of Sobol' points require n to be a power "
                             f"of 2. {self.num_generated} points have been previously "
                             f"generated, then: n={self.num_generated}+2**{m}={total}. If "
                             "you still want to do this, please use 'SobolEngine.draw()' "
                             "instead.")
        return self.draw(1 << m, out, dtype)

    def reset(self):
        """Back to the first point (the scramble is kept)."""
        self.quasi.copy_(self.shift)
        self.num_generated = 0
        return self

    def fast_forward(self, n):
        """Skip `n` points, as if drawn."""
        fresh = self.num_generated == 0
        _kernels._sobol_engine_ff_(self.quasi, n - 1 if fresh else n, self.sobolstate,
                                   self.dimension, max(self.num_generated - 1, 0))
        self.num_generated += n
        return self

    def _scrambled(self):
        """The random digital shift, after scrambling the direction numbers in place: both
        drawn with randint in PyTorch's order (shift bits, then the matrices)."""
        generator = None if self.seed is None else Generator().manual_seed(self.seed)
        size, bits = self.dimension, self.MAXBIT
        shift_bits = randint(2, (size, bits), generator=generator)
        matrices = randint(2, (size, bits, bits), generator=generator).tril()
        _kernels._sobol_engine_scramble_(self.sobolstate, matrices, size)
        return shift_bits @ (1 << arange(bits))

    def __repr__(self):
        fields = [f"dimension={self.dimension}"]
        if self.scramble:
            fields.append("scramble=True")
        if self.seed is not None:
            fields.append(f"seed={self.seed}")
        return f"{type(self).__name__}({', '.join(fields)})"
