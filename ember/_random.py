"""The random-number generator: PyTorch's CPU generator, draw for draw.

A Generator owns the 624-word mt19937 state PyTorch derives from a seed (the
classic `init_genrand` of the seed's low 32 bits), held in NumPy's MT19937 bit
generator, whose 32-bit outputs are std::mt19937's; a 64-bit draw is two of them,
the first high, as PyTorch's `random64` makes it. It also keeps PyTorch's cached
second normal (`next_double_normal_sample`). `get_state` writes PyTorch's
5056-byte CPU state layout, so states move between the two libraries.

Every sampling op draws through one `_draw_*` method, which follows the kernel
PyTorch 2.13 runs on the CPU (aten/src/ATen/native/cpu/DistributionTemplates.h,
core/DistributionsHelper.h, TransformationHelper.h, MultinomialKernel.cpp,
TensorFactories.cpp): the same draws in the same order, the same transformation
in the same precision (the arithmetic lives in `_random_kernels`). Where the
exact bits cannot be had, the method says why:
- float64 results of `log`, `log1p`, `exp` and `tan` over more than 64 values
  use NumPy's vectorised versions, which differ from the C library's in the last
  bit for up to a few values in a hundred (float32 results are unaffected);
- multinomial without replacement orders tied keys (zero-weight categories) by
  index, where PyTorch's topk (std::nth_element) may order them otherwise;
- `bernoulli_(p)` with a scalar p follows PyTorch's default kernel; on Intel CPUs
  some PyTorch builds instead seed an MKL stream (VSL_BRNG_MCG31) from one draw;
- fused multiply-adds are emulated in higher precision, exact save in rare
  double-rounding cases.
"""
import ctypes
import math
import os

from . import _compiled, _dtype
from ._backend import numpy as np
from ._device import device as _device_type
from ._meta import MetaArray as _MetaArray
from ._random_kernels import (_CHUNK, _THREADS, _avx2_rows, _count_below, _fisher_yates, _fma32,
                              _fma64, _inside_out_shuffle, _libm, _narrow, _normal_fill_avx2,
                              _normal_fill_double, _worker_pool)

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]

_DEFAULT_SEED = 67280421310721   # PyTorch's default_rng_seed_val
_STATE_WORDS = 624
_STATE_BYTES = 5056              # sizeof(CPUGeneratorImplState) in PyTorch
_UINT64 = (1 << 64) - 1
# The byte layout of PyTorch's CPUGeneratorImplState (legacy THGeneratorState first).
_LAYOUT = np.dtype([("the_initial_seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"),
                    ("next", "<u8"), ("state", "<u8", (_STATE_WORDS,)),
                    ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
                    ("normal_is_valid", "<i4"), ("next_float_normal_sample", "<f4"),
                    ("is_next_float_normal_sample_valid", "u1")], align=True)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_RANDPERM_64_BITS = (2 ** 32 - 1) // 20   # from here randperm draws 64 bits (inside-out)
_TWO_PI = 2.0 * math.pi
_SMALL = 64                      # up to this many normals, Python floats do the work
_MASK53, _EPS53, _EPS24 = (1 << 53) - 1, 2.0 ** -53, 2.0 ** -24
_SMALL_UNIFORM = 16              # up to this many uniforms, Python floats do the work
_FEW_PAIRS, _AHEAD_MOST = 64, 512  # pairs: the scalar path's limit, the largest batch ahead
_sqrt, _log1p, _cos, _sin, _prod = math.sqrt, math.log1p, math.cos, math.sin, math.prod
# From this many values a draw takes the compiled kernels when numba is installed.
_COMPILED_MIN = _compiled.MIN_SIZE
_STATE_STRUCT = ctypes.c_uint32 * (_STATE_WORDS + 1)   # NumPy's mt19937_state: key, pos


def _init_genrand(seed):
    """mt19937's state for a 32-bit seed (what std::mt19937 and PyTorch compute)."""
    key = [seed & 0xFFFFFFFF]
    previous = key[0]
    for i in range(1, _STATE_WORDS):
        previous = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
        key.append(previous)
    return np.array(key, dtype=np.uint32)


def _check_seed(seed):
    """PyTorch accepts any int in [-2**63, 2**64) and keeps it as an unsigned 64-bit value."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        if hasattr(seed, "__index__") and not isinstance(seed, bool):
            seed = seed.__index__()
        else:
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    if seed < -(1 << 63) or seed > _UINT64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _UINT64


class Generator:
    """A source of random numbers with its own state: `Generator().manual_seed(0)`."""

    __slots__ = ("_device", "_seed", "_bits", "_np", "_next_double_normal",
                 "_next_float_normal", "_ahead", "_ahead_used", "_ahead_start", "_streak",
                 "_words", "__weakref__")

    def __init__(self, device="cpu"):
        self._device = _device_type(device)
        self._bits = np.random.MT19937(0)
        self._np = np.random.Generator(self._bits)
        self._words = None
        self._reseed(_DEFAULT_SEED)

    @property
    def device(self):
        return self._device

    def _reseed(self, seed):
        self._seed = seed
        self._next_double_normal = self._next_float_normal = None
        self._ahead, self._ahead_used, self._streak = None, 0, 0
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _init_genrand(seed), "pos": _STATE_WORDS}}

    def manual_seed(self, seed):
        """Reset the state from `seed`; returns the generator."""
        self._reseed(_check_seed(seed))
        return self

    def seed(self):
        """Reseed from OS entropy and return the new seed."""
        new_seed = int.from_bytes(os.urandom(8), "little") >> 1
        self._reseed(new_seed)
        return new_seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor in PyTorch's CPU layout (5056 bytes)."""
        self._settle()
        state = self._bits.state["state"]
        pos = int(state["pos"])
        record = np.zeros((), dtype=_LAYOUT)
        record["the_initial_seed"] = self._seed
        record["seeded"] = 1
        # PyTorch counts `left` down to the next regeneration; NumPy counts `pos` up.
        record["left"], record["next"] = (1, 0) if pos >= _STATE_WORDS else (625 - pos, pos)
        record["state"] = state["key"].astype(np.uint64)
        if self._next_double_normal is not None:
            record["normal_is_valid"], record["normal_y"] = 1, self._next_double_normal
        if self._next_float_normal is not None:
            record["is_next_float_normal_sample_valid"] = 1
            record["next_float_normal_sample"] = self._next_float_normal
        raw = np.frombuffer(record.tobytes().ljust(_STATE_BYTES, b"\0"), dtype=np.uint8)
        return _tensor.make_tensor(raw.copy())

    def set_state(self, new_state):
        """Restore a state returned by `get_state` (or by PyTorch's `get_rng_state`)."""
        if not isinstance(new_state, _tensor.Tensor) or new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a ember.ByteTensor")
        if new_state.numel() != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {new_state.numel()}")
        raw = np.ascontiguousarray(new_state._data).tobytes()[:_LAYOUT.itemsize]
        record = np.frombuffer(raw, dtype=_LAYOUT)[0]
        left, next_index = int(record["left"]), int(record["next"])
        pos = _STATE_WORDS if left <= 1 else next_index
        self._seed = int(record["the_initial_seed"])
        self._ahead, self._ahead_used, self._streak = None, 0, 0
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": record["state"].astype(np.uint32), "pos": pos}}
        self._next_double_normal = (float(record["normal_y"]) if record["normal_is_valid"]
                                    else None)
        self._next_float_normal = (float(record["next_float_normal_sample"])
                                   if record["is_next_float_normal_sample_valid"] else None)
        return self

    def __repr__(self):
        return f"<ember.Generator object at {hex(id(self))}>"

    # ------------------------------------------------------------ raw draws
    def _settle(self):
        """Put the generator where its draws so far leave it: undo the normals computed
        ahead (`_few_normals`) but not handed out, and end the run of small normal calls.
        Every other draw, and the state's readers, call this first."""
        self._streak = 0
        ahead = self._ahead
        if ahead is not None:
            used = self._ahead_used
            self._ahead = None
            self._bits.state = self._ahead_start
            self._bits.random_raw(4 * ((used + 1) // 2))   # four 32-bit draws a pair
            self._next_double_normal = ahead[used] if used % 2 else None

    def _bit_state(self):
        """NumPy's state of the bit generator, settled (for samplers that rewind it)."""
        self._settle()
        return self._bits.state

    def _draw_bits32(self, shape):
        """32-bit draws (`random()`); full-range uint32 integers are the raw outputs."""
        if self._streak:
            self._settle()
        if (shape if shape.__class__ is int else _numel(shape)) >= _COMPILED_MIN:
            kernels = _compiled.load("random_kernels")
            words = None if kernels is None else self._state_words()
            if words is not None:
                out = np.empty(shape, np.uint32)
                with self._bits.lock:
                    kernels.mt19937_fill(words, out.reshape(-1))
                return out
        return self._np.integers(0, 1 << 32, size=shape, dtype=np.uint32)

    def _state_words(self):
        """The bit generator's state in place (624 key words, then the position), for the
        compiled mt19937; None where NumPy's state struct is not laid out as expected."""
        words = self._words
        if words is False:
            return None
        address = self._bits.ctypes.state_address
        if words is None or words.ctypes.data != address:   # new, or copied with the object
            words = np.ctypeslib.as_array(_STATE_STRUCT.from_address(address))
            state = self._bits.state["state"]
            if int(words[-1]) != state["pos"] or not np.array_equal(words[:-1], state["key"]):
                self._words = False
                return None
            self._words = words
        return words

    def _draw_bits64(self, shape):
        """64-bit draws (`random64()`): NumPy's next_uint64 is also high word first."""
        if self._streak:
            self._settle()
        return self._np.integers(0, 1 << 64, size=shape, dtype=np.uint64)

    def _unit32(self, n):
        """n floats in [0, 1) from 24 bits of one 32-bit draw each (float's uniform)."""
        bits = self._draw_bits32(n)
        np.bitwise_and(bits, 0xFFFFFF, out=bits)
        unit = bits.astype(np.float32)
        unit *= np.float32(2.0 ** -24)
        return unit

    def _unit64(self, n):
        """n doubles in [0, 1) from 53 bits of one 64-bit draw each (double's uniform)."""
        bits = self._draw_bits64(n)
        np.bitwise_and(bits, (1 << 53) - 1, out=bits)
        unit = bits.astype(np.float64)
        unit *= 2.0 ** -53
        return unit

    # ------------------------------------------------------------ uniform and integers
    def _draw_uniform(self, shape, np_dtype, low=0.0, high=1.0):
        """Uniform in [low, high), bit for bit as PyTorch's CPU kernel draws it.

        24 random bits of one 32-bit draw for float32 (and for half and bfloat16,
        rounded afterwards), 53 bits of a 64-bit draw for double; then
        x * (to - from) + from, fused, in float (or double).
        """
        n = _numel(shape)
        if n <= _SMALL_UNIFORM and low == 0.0 and high == 1.0 and (np_dtype == _F32 or
                                                                   np_dtype == _F64):
            return np.array(self._few_uniforms(n, np_dtype == _F64), np_dtype).reshape(shape)
        if np_dtype == _F64:
            values = self._unit64(n)
            if low != 0.0 or high != 1.0:
                values = _fma64(values, high - low, low)
        else:
            values = self._unit32(n)
            if low != 0.0 or high != 1.0:
                low32, high32 = np.float32(low), np.float32(high)
                values = _fma32(values, np.float32(high32 - low32), low32)
        values = _narrow(values, np_dtype)
        if low != 0.0 or high != 1.0 or np_dtype not in (_F32, _F64):
            # A value that rounds up to `to` in the output dtype becomes `from`: [from, to).
            top, bottom = np.array([high, low]).astype(np.float32).astype(np_dtype)
            values[values >= top] = bottom
        return values.reshape(shape)

    def _few_uniforms(self, n, double):
        """`_draw_uniform(n)` in [0, 1) for a few values, as Python floats: the same bits
        (24 of each 32-bit draw, or 53 of a 64-bit one, high word first) without NumPy's
        per-call costs, which dominate rand(8)."""
        if self._streak:
            self._settle()
        if not double:
            return [(word & 0xFFFFFF) * _EPS24 for word in self._bits.random_raw(n).tolist()]
        raw = iter(self._bits.random_raw(2 * n).tolist())
        return [((high << 32 | low) & _MASK53) * _EPS53 for high, low in zip(raw, raw)]

    def _draw_integers(self, low, high, shape, wide=None):
        """Integers in [low, high) as int64, as PyTorch's random_ draws them.

        One raw draw modulo the range: 64 bits wide from a range of 2**28 up
        (PyTorch 2.13's cut-off for random_(from, to)) unless `wide` says which;
        the whole int64 range is the raw 64 bits themselves.
        """
        span = high - low
        if span > _UINT64:
            return self._draw_bits64(shape).view(np.int64)
        if wide is None:
            wide = span >= 1 << 28
        if not wide and _numel(shape) <= _SMALL_UNIFORM:   # randint(10, (8,)): Python ints
            if self._streak:
                self._settle()
            words = self._bits.random_raw(_numel(shape)).tolist()
            return np.array([word % span + low for word in words], np.int64).reshape(shape)
        bits = self._draw_bits64(shape) if wide else self._draw_bits32(shape)
        return (bits % np.uint64(span)).astype(np.int64) + np.int64(low)

    # ------------------------------------------------------------ normal
    def _draw_normal(self, shape, np_dtype, mean=0.0, std=1.0, contiguous=True):
        """Normal samples as PyTorch's `normal_kernel` makes them.

        From 16 values in a contiguous tensor: `normal_fill`, Box-Muller on blocks
        of 16 uniforms of the output dtype (the first 8 pair with the next 8; a
        ragged end redraws and recomputes the last 16), float32 through the AVX2
        kernel's own log and sincos. Otherwise one `normal_distribution<double>`
        per value, which uses and refills the generator's cached second normal.
        """
        n = _numel(shape)
        if n < 16 or not contiguous:
            if n <= _SMALL and mean == 0.0 and std == 1.0 and (np_dtype == _F32 or
                                                              np_dtype == _F64):
                return np.array(self._few_normals(n), np_dtype).reshape(shape)
            return _narrow(self._normal_doubles(n, mean, std), np_dtype).reshape(shape)
        full = n - n % 16
        if np_dtype == _F64:
            values = np.empty(n)
            values[:full] = _normal_fill_double(self._unit64(n)[:full].reshape(-1, 16),
                                                mean, std).ravel()
            if full != n:
                values[n - 16:] = _normal_fill_double(self._unit64(16).reshape(1, 16),
                                                      mean, std).ravel()
            return values.reshape(shape)
        # float draws the ragged end too, then throws it away; half and bfloat16 do not
        skipped = n - full if np_dtype == _F32 else 0
        if n < 16 * _CHUNK or _THREADS == 1:
            # One pass of the kernel (its ~120 NumPy calls cost as much as its arithmetic
            # up to a few thousand values), the ragged end's 16 draws as one more row.
            bits = self._draw_bits32(full + skipped + (16 if full != n else 0))
            if full != n:
                bits = np.concatenate((bits[:full], bits[-16:]))
            block = _normal_fill_avx2(bits.reshape(-1, 16), mean, std).ravel()
            if full != n:
                values = np.empty(n, dtype=np.float32)
                values[:full] = block[:full]
                values[n - 16:] = block[full:]
                block = values
            return _narrow(block, np_dtype).reshape(shape)
        kernels = _compiled.load("random_kernels")
        if kernels is not None:
            return _narrow(self._compiled_normals(kernels, n, skipped, mean, std),
                           np_dtype).reshape(shape)
        values = np.empty(n, dtype=np.float32)
        self._normal_floats(values[:full].reshape(-1, 16), mean, std)
        if full != n:
            self._draw_bits32(skipped)
            values[n - 16:] = _normal_fill_avx2(self._draw_bits32((1, 16)), mean, std).ravel()
        return _narrow(values, np_dtype).reshape(shape)

    def _normal_floats(self, out, mean, std):
        """Fill rows of 16 with the float kernel, drawing chunk by chunk in order while
        worker threads transform the chunks already drawn (both release the GIL)."""
        rows = len(out)
        pool = _worker_pool()
        pending = [pool.submit(_avx2_rows, self._draw_bits32((len(part), 16)), part, mean, std)
                   for part in (out[start:start + _CHUNK] for start in range(0, rows, _CHUNK))]
        for future in pending:
            future.result()

    def _compiled_normals(self, kernels, n, skipped, mean, std):
        """`_draw_normal`'s float path through the compiled mt19937 and kernel: the draws
        in one call, then whole rows of 16 shared out to the elementwise threads."""
        full = n - n % 16
        mean, std = np.float32(mean), np.float32(std)
        affine = bool(std != 1 or mean != 0)
        values = np.empty(n, dtype=np.float32)
        bits = self._draw_bits32(full + skipped)
        _compiled.split_run(kernels.normal_fill_float, (bits[:full], values[:full]), mean, std,
                            affine, granule=16)
        if full != n:
            kernels.normal_fill_float(self._draw_bits32(16), values[n - 16:], mean, std, affine)
        return values

    def _normal_doubles(self, n, mean=0.0, std=1.0):
        """n draws of `normal_distribution<double>(mean, std)`, as float64.

        Box-Muller on two doubles (u1 drawn first): r = sqrt(-2 log1p(-u2)),
        theta = 2 pi u1; r cos(theta) is returned and r sin(theta) cached for the
        next call.
        """
        if n <= 2 * _FEW_PAIRS:
            return _fma64(np.array(self._few_normals(n)), std, mean)
        self._settle()
        normals = np.empty(n)
        start = 0
        if n and self._next_double_normal is not None:
            normals[0], start = self._next_double_normal, 1
            self._next_double_normal = None
        pairs = (n - start + 1) // 2
        if 0 < pairs <= 64:       # _libm's threshold: the C library for up to 64 pairs
            normals[start:] = self._few_normals(n - start)
        elif pairs:
            u = self._unit64(2 * pairs).reshape(pairs, 2)
            radius = np.sqrt(-2.0 * _libm("log1p", -u[:, 1]))
            theta = _TWO_PI * u[:, 0]
            fresh = np.stack([radius * _libm("cos", theta), radius * _libm("sin", theta)], 1)
            fresh = fresh.ravel()
            normals[start:] = fresh[:n - start]
            if (n - start) % 2:
                self._next_double_normal = float(fresh[-1])
        return _fma64(normals, std, mean)

    def _few_normals(self, n):
        """`_normal_doubles(n)` (mean 0, std 1) for a few values as a list of Python floats
        (IEEE doubles, the C library's log1p, cos and sin, as PyTorch's scalar path): for
        randn(8), NumPy's per-call costs outweigh the arithmetic. Each 64-bit draw is two
        raw 32-bit outputs, high word first; 53 of its bits make the uniform.

        From the second call of a run of such calls (randn(8) in a loop) normals are
        computed ahead, in batches that double from 32 to 512 pairs, vectorised but for
        the C library's functions; the next calls hand them out. The bit generator then
        stands past the batch, and `_settle` (any other draw, or reading the state) puts
        it back where the normals handed out leave it: a run cut short wastes at most
        one batch, tens of microseconds.
        """
        ahead = self._ahead
        if ahead is not None:
            used = self._ahead_used
            end = used + n
            if end <= len(ahead):
                self._ahead_used = end
                return ahead[used:end]
            fresh = ahead[used:]     # all handed out: the generator stands right after them
            self._ahead = None
        else:
            fresh = []
            if self._next_double_normal is not None:
                fresh.append(self._next_double_normal)
                self._next_double_normal = None
        pairs = (n - len(fresh) + 1) // 2
        self._streak += 1
        if self._streak > 1 and pairs:
            batch = max(pairs, 8 << self._streak if self._streak < 6 else _AHEAD_MOST)
            self._ahead_start = self._bits.state
            ahead = self._pairs_ahead(batch)
            taken = n - len(fresh)
            self._ahead, self._ahead_used = ahead, taken
            return fresh + ahead[:taken]
        raw = iter(self._bits.random_raw(4 * pairs).tolist())
        for high1, low1, high2, low2 in zip(raw, raw, raw, raw):
            radius = _sqrt(-2.0 * _log1p(-((high2 << 32 | low2) & _MASK53) * _EPS53))
            theta = _TWO_PI * (((high1 << 32 | low1) & _MASK53) * _EPS53)
            fresh += (radius * _cos(theta), radius * _sin(theta))
        if len(fresh) > n:
            self._next_double_normal = fresh.pop()
        return fresh

    def _pairs_ahead(self, pairs):
        """`pairs` Box-Muller pairs as `_few_normals` computes them, as one list (cosine
        half, sine half, ...): NumPy for the uniforms, IEEE sqrt and products, and cos and
        sin (the C library's values, as in `_normal_doubles`); the C library (`math`) for
        log1p, whose NumPy version differs in the last bit for some inputs."""
        raw = self._bits.random_raw(4 * pairs).reshape(pairs, 2, 2)   # (u1, u2) x (high, low)
        high = raw[:, :, 0] & 0x1FFFFF
        high <<= 32
        high |= raw[:, :, 1]
        u = high * _EPS53
        radius = np.fromiter(map(_log1p, (-u[:, 1]).tolist()), float, pairs)
        radius *= -2.0
        np.sqrt(radius, out=radius)
        theta = _TWO_PI * u[:, 0]
        out = np.empty((pairs, 2))
        np.cos(theta, out=out[:, 0])
        np.sin(theta, out=out[:, 1])
        out *= radius[:, None]
        return out.ravel().tolist()

    def _draw_log_normal(self, shape, np_dtype, mean, std):
        """`lognormal_distribution<double>`: exp of a scalar-path normal, for every size."""
        normals = self._normal_doubles(_numel(shape), mean, std)
        return _narrow(_libm("exp", normals), np_dtype).reshape(shape)

    # ------------------------------------------------------------ other distributions
    def _draw_exponential(self, shape, np_dtype, lambd):
        """`exponential_distribution<double>`: -1/lambda * log1p(-u)."""
        u = self._unit64(_numel(shape))
        return _narrow((-1.0 / lambd) * _libm("log1p", -u), np_dtype).reshape(shape)

    def _draw_geometric(self, shape, np_dtype, p):
        """`geometric_distribution<double>`: ceil(log(u) / log1p(-p))."""
        u = self._unit64(_numel(shape))
        with np.errstate(divide="ignore"):
            values = np.ceil(_libm("log", u) / math.log1p(-p))
        return _narrow(values, np_dtype).reshape(shape)

    def _draw_cauchy(self, shape, np_dtype, median, sigma):
        """`cauchy_distribution<double>`: median + sigma * tan(pi * (u - 0.5))."""
        u = self._unit64(_numel(shape))
        tangent = _libm("tan", math.pi * (u - 0.5))
        return _narrow(_fma64(tangent, sigma, median), np_dtype).reshape(shape)

    def _draw_bernoulli(self, shape, p, double=True):
        """`bernoulli_distribution`: u < p, u a double (p double or a number) or a float.

        `p` is a number or an array broadcast to `shape`. (On Intel CPUs PyTorch's
        scalar-p kernel draws from MKL instead; see the module docstring.)
        """
        n = _numel(shape)
        u = (self._unit64(n) if double else self._unit32(n)).reshape(shape)
        return u < p

    def _draw_permutation(self, n):
        """randperm: Fisher-Yates swaps of i with i + random() % (n - i), resolved at once.

        From (2**32 - 1) / 20 on, PyTorch switches to the inside-out shuffle with
        random64() % (i + 1).
        """
        if n >= _RANDPERM_64_BITS:
            picks = self._draw_bits64(n) % np.arange(1, n + 1, dtype=np.uint64)
            return _inside_out_shuffle(picks.astype(np.int64))
        if n <= 1:
            return np.arange(n, dtype=np.int64)
        ranges = np.arange(n, 1, -1, dtype=np.uint32)
        offsets = (self._draw_bits32(n - 1) % ranges).astype(np.int64)
        return _fisher_yates(offsets + np.arange(n - 1))

    def _draw_multinomial(self, weights, num_samples, replacement, layout=None):
        """Category indices for each row of `weights` (rows, categories), as int64.

        Without replacement (or for one sample) PyTorch takes the top-k of
        w / Exponential(1) in the weights' dtype, the exponentials filling a tensor
        laid out like `layout` (empty_like(input)); ties between equal keys (the
        zero-weight categories) come out in index order, where PyTorch's topk
        (std::nth_element) may order them otherwise. With replacement, a binary
        search of a uniform double in each row's normalised cumulative sums.
        """
        rows, categories = weights.shape
        if not replacement or num_samples == 1:
            dtype = weights.dtype
            q = in_memory_order(layout if layout is not None else weights, lambda shape, _:
                                self._draw_exponential(shape, dtype, 1.0))
            keys = weights / q
            if num_samples == 1:
                return np.argmax(keys, axis=1)[:, None]
            return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
        acc = _F64 if weights.dtype == _F64 else _F32
        cumulative = np.cumsum(weights.astype(acc), axis=1, dtype=acc)
        cumulative /= cumulative[:, -1:]
        cumulative[:, -1] = 1
        u = self._unit64(rows * num_samples).reshape(rows, num_samples)
        return _count_below(cumulative, u)


def in_memory_order(array, draw, *operands):
    """`draw(shape, contiguous, *operands)` laid out as PyTorch's kernels fill `array`.

    PyTorch's TensorIterator visits a non-contiguous tensor in memory order (its
    dims sorted by stride) and its normal kernel takes the scalar path there, so
    the values are drawn for the permuted shape and transposed back. `operands`
    (arrays broadcast to array's shape) are permuted alike.
    """
    shape = array.shape
    if array.__class__ is _MetaArray:
        return array  # nothing to fill, and PyTorch's meta kernels leave the generator alone
    if array.flags.c_contiguous:
        return draw(shape, True, *(np.broadcast_to(x, shape) for x in operands))
    strides = array.strides
    order = sorted(range(array.ndim), key=lambda d: -strides[d])
    permuted = [np.broadcast_to(x, shape).transpose(order) for x in operands]
    values = draw(tuple(shape[d] for d in order), False, *permuted)
    return values.transpose(np.argsort(order))


def _numel(shape):
    return _prod(shape)


default_generator = Generator()


def resolve(generator):
    """The generator a sampling op uses: the given one, or the default."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a ember.Generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed):
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


from . import _tensor  # noqa: E402 - the Tensor module imports the ops, which import us
