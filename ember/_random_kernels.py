"""The arithmetic behind `_random.Generator`'s draws: PyTorch's CPU kernels, replayed.

Each function reproduces one piece of what PyTorch 2.13 computes on the CPU, in the
same precision and order of operations: `normal_fill_16` (double) and its AVX2
float version with avx_mathfun's log and sincos, fused multiply-adds, the C
library's transcendental functions, and randperm's shuffles and multinomial's
binary search resolved for a whole tensor at once.
"""
import concurrent.futures
import math
import os
import threading

from ._backend import numpy as np

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_SMALL = 64          # up to this many values, transcendental functions come from libm
_TWO_PI = 2.0 * math.pi


def _narrow(values, np_dtype):
    """double -> output dtype as C++'s static_cast does: half and bfloat16 through float."""
    if np_dtype != _F64 and np_dtype != _F32 and values.dtype == _F64:
        values = values.astype(np.float32)
    return values.astype(np_dtype, copy=False)


def _libm(name, x):
    """`name`(x) from the C library (as PyTorch calls it) for a few values, else NumPy's.

    NumPy's vectorised float64 log/log1p/exp/tan can differ from libm's in the last
    bit; a handful of values (a scalar kernel's small tensor) go through `math`.
    """
    if x.size <= _SMALL:
        function = getattr(math, name)
        return np.array([function(v) for v in x.ravel().tolist()]).reshape(x.shape)
    return getattr(np, name)(x)


def _fma64(a, b, c):
    """a * b + c with one rounding where it matters: PyTorch's kernels are built with FMA.

    Exact when b is 1 and c is 0; otherwise the rounding errors of the product
    (Dekker's split) and of the sum (Knuth's two-sum) are added back, which gives
    the fused result save in vanishingly rare double-rounding cases.
    """
    if b == 1.0 and c == 0.0:
        return a
    product = a * b
    split = a * 134217729.0
    a_high = split - (split - a)
    a_low = a - a_high
    split_b = b * 134217729.0
    b_high = split_b - (split_b - b)
    b_low = b - b_high
    error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    virtual = total - product
    error += (product - (total - virtual)) + (c - virtual)
    return total + error


# ---------------------------------------------------------------- normal_fill kernels
def _normal_fill_double(u, mean, std):
    """`normal_fill_16<double>` on rows of 16 uniforms (libm's log, cos, sin; FMA)."""
    radius = np.sqrt(-2.0 * _libm("log", 1.0 - u[:, :8]))
    theta = _TWO_PI * u[:, 8:]
    out = np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    return _fma64(out, std, mean)


_CHUNK = 4096   # rows of 16 per pass of the float32 kernel: its buffers stay near the core
_SAME_KIND = "same_kind"
_F32_CONSTANTS = {name: np.float32(value) for name, value in dict(
    sqrt_half=0.707106781186547524, two_pi=_TWO_PI, four_over_pi=1.27323954473516,
    log_q1=-2.12194440e-4, log_q2=0.693359375, dp1=-0.78515625,
    dp2=-2.4187564849853515625e-4, dp3=-3.77489497744594108e-8).items()}
_LOG_POLY = [np.float32(c) for c in (
    7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
    -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_COS_POLY = [np.float32(c) for c in (2.443315711809948E-005, -1.388731625493765E-003,
                                     4.166664568298827E-002)]
_SIN_POLY = [np.float32(c) for c in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1)]
# The same constants as float64 values, for the steps done in double.
_LOG_POLY64, _COS_POLY64, _SIN_POLY64 = ([float(c) for c in poly]
                                         for poly in (_LOG_POLY, _COS_POLY, _SIN_POLY))
_DP3_64 = float(_F32_CONSTANTS["dp3"])
# theta = (k 2**-24) * 2 pi in float is k * (2 pi 2**-24): scaling by 2**-24 is exact.
_F32_CONSTANTS["two_pi_scaled"] = np.float32(_F32_CONSTANTS["two_pi"] * np.float32(2.0 ** -24))


def _normal_fill_avx2(bits, mean, std):
    """PyTorch's `normal_fill_16_AVX2` on rows of 16 raw 32-bit draws, bit for bit."""
    out = np.empty(bits.shape, np.float32)
    for start in range(0, len(bits), _CHUNK):
        _avx2_rows(bits[start:start + _CHUNK], out[start:start + _CHUNK], mean, std)
    return out


def _avx2_rows(bits, out, mean, std):
    """`normal_fill_16_AVX2` for rows of raw draws into `out` (rows, 16) float32.

    The draws become float uniforms; the kernel's log256_ps and sincos256_ps
    (avx_mathfun.h: Cephes polynomials in float) are replayed step by step, with a
    fused multiply-add wherever the compiler fuses one (found against PyTorch's
    output), through per-thread buffers. Each half depends on 24 bits of its draw
    only, so a change here can be checked on all 2**24 inputs against the previous
    kernel: done so, every fused step of log's Horner rule is needed (rounding any
    one of them in float32 changes some outputs).

    Speed comes from NumPy's plain contiguous loops: the two halves of each row are
    split once into contiguous buffers (as 32-byte items, one strided copy each) and
    joined once at the end, since a ufunc over a (rows, 8) slice of (rows, 16) runs its
    loop 8 elements at a time; and no call mixes dtypes or casts its output (those take
    NumPy's buffered path, several times slower): a fused step is a float64 add,
    a rounding to float32 and back, and an exact float64 product.
    """
    rows = len(bits)
    spaces = getattr(_local, "spaces", None)
    if spaces is None:
        spaces = _local.spaces = {}
    work = spaces.get(rows)
    if work is None:
        if len(spaces) >= 4:     # randn(1000) needs 62 rows and 1: keep a few sizes
            spaces.clear()
        work = spaces[rows] = _Workspace(rows)
    raw = work.raw
    np.bitwise_and(bits, 0xFFFFFF, out=raw)
    np.copyto(work.unit, raw.view(np.int32), casting=_UNSAFE)   # exact: below 2**24
    halves = work.unit.view(_ROW_HALF)
    u1, theta = work.u1, work.theta
    np.copyto(u1.view(_ROW_HALF), halves[:, 0])
    np.copyto(theta.view(_ROW_HALF), halves[:, 1])
    # u1 = 1 - k 2**-24 and theta = (k 2**-24) 2 pi, both as the kernel rounds them:
    # 2**24 - k and the power-of-two scalings are exact in float.
    np.subtract(np.float32(1 << 24), u1, out=u1)
    u1 *= np.float32(2.0 ** -24)
    theta *= _F32_CONSTANTS["two_pi_scaled"]
    radius = _avx_log_radius(work)
    sine, cosine = _avx_sincos(work)
    cosine *= radius
    sine *= radius
    if np.float32(std) != 1 or np.float32(mean) != 0:
        cosine[...] = _fma32(cosine, np.float32(std), np.float32(mean))
        sine[...] = _fma32(sine, np.float32(std), np.float32(mean))
    joined = out.view(_ROW_HALF)
    np.copyto(joined[:, 0], cosine.view(_ROW_HALF))
    np.copyto(joined[:, 1], sine.view(_ROW_HALF))


_local = threading.local()
_THREADS = min(4, os.cpu_count() or 1)
_pool = None
_UNSAFE = "unsafe"
_ROW_HALF = np.dtype((np.void, 32))   # 8 float32 or uint32 values: half a row of 16


def _forget_pool():
    """A forked child (e.g. a DataLoader worker) inherits the pool object but not its
    threads; drop it so the child starts its own."""
    global _pool
    _pool = None


os.register_at_fork(after_in_child=_forget_pool)


def _worker_pool():
    """A few threads for the float32 normal kernel (NumPy releases the GIL in its loops)."""
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(_THREADS, "ember-random")
    return _pool


class _Workspace:
    """The buffers of one chunk of `_normal_fill_avx2`: raw draws and uniforms for whole
    rows, then flat (rows * 8) floats, doubles and ints for each half's arithmetic."""

    __slots__ = ("rows", "raw", "unit", "u1", "theta", "floats", "doubles", "ints")

    def __init__(self, rows):
        self.rows = rows
        self.raw, self.unit = np.empty((rows, 16), np.uint32), np.empty((rows, 16), np.float32)
        half = rows * 8
        self.u1, self.theta = np.empty(half, np.float32), np.empty(half, np.float32)
        self.floats = [np.empty(half, np.float32) for _ in range(9)]
        self.doubles = [np.empty(half, np.float64) for _ in range(3)]
        self.ints = [np.empty(half, np.int32) for _ in range(2)]


def _fma32(a, b, c):
    """float32 fused multiply-add: the float64 product of two floats is exact."""
    product = a.astype(np.float64)
    product *= b
    product += c
    return product.astype(np.float32)


def _fused_round(y64, c, y32):
    """y32 <- fl32(y64 + c) for an exact float64 product y64: one fused multiply-add.

    (float64 holds every product of two floats exactly, so the sum is rounded twice,
    to double and then to float; the exhaustive check above found no input where
    that differs from the single rounding.)"""
    np.add(y64, c, out=y64)
    np.copyto(y32, y64, casting=_SAME_KIND)


def _horner_step(y64, y32, c, x64):
    """y64 <- fl32(y64 + c) * x64: one fused step of Horner's rule (the product is exact)."""
    _fused_round(y64, c, y32)
    np.copyto(y64, y32)
    np.multiply(y64, x64, out=y64)


def _avx_log_radius(work):
    """sqrt(-2 log256_ps(u1)) for u1 in (0, 1]: exponent, mantissa, degree-9 polynomial."""
    m, e, x, z, y, t = work.floats[:6]
    x64, y64 = work.doubles[:2]
    np.frexp(work.u1, out=(m, work.ints[0]))             # the kernel's bit twiddling
    np.copyto(e, work.ints[0], casting=_UNSAFE)
    small = t
    np.less(m, _F32_CONSTANTS["sqrt_half"], out=small, casting=_UNSAFE)
    e -= small
    np.subtract(m, np.float32(1), out=x)
    small *= m
    x += small                                           # 2m - 1 when m < sqrt(1/2)
    np.copyto(x64, x)
    np.multiply(x64, _LOG_POLY64[0], out=y64)
    for c in _LOG_POLY64[1:-1]:
        _horner_step(y64, y, c, x64)
    _fused_round(y64, _LOG_POLY64[-1], y)
    y *= x
    np.multiply(x, x, out=z)
    np.copyto(y64, y)
    np.copyto(x64, z)
    y64 *= x64
    np.multiply(e, _F32_CONSTANTS["log_q1"], out=t)
    np.copyto(x64, t)
    y64 += x64
    np.copyto(y, y64, casting=_SAME_KIND)                # fused: y * z + e * q1
    np.multiply(z, np.float32(0.5), out=t)
    y -= t
    x += y
    e *= _F32_CONSTANTS["log_q2"]
    x += e
    x *= np.float32(-2)
    return np.sqrt(x, out=x)


def _avx_sincos(work):
    """sincos256_ps for theta >= 0: reduction by pi/4 in three parts, two polynomials."""
    x, z, y, t, cosine, sine = work.floats[3:9]
    x64, y64, z64 = work.doubles
    j, k = work.ints
    theta = work.theta
    np.multiply(theta, _F32_CONSTANTS["four_over_pi"], out=t)
    np.copyto(j, t, casting=_UNSAFE)                     # truncation, as cvttps
    j += 1
    j &= ~1
    np.copyto(y, j, casting=_UNSAFE)
    np.multiply(y, _F32_CONSTANTS["dp1"], out=t)         # exact products: fusing
    np.add(theta, t, out=x)                              # changes nothing here
    np.multiply(y, _F32_CONSTANTS["dp2"], out=t)
    x += t
    np.copyto(y64, y)
    y64 *= _DP3_64
    np.copyto(x64, x)
    y64 += x64
    np.copyto(x, y64, casting=_SAME_KIND)                # fused: y * dp3 + x
    np.multiply(x, x, out=z)
    np.copyto(z64, z)
    np.multiply(z64, _COS_POLY64[0], out=y64)
    _horner_step(y64, cosine, _COS_POLY64[1], z64)
    _fused_round(y64, _COS_POLY64[2], cosine)
    cosine *= z
    np.copyto(y64, cosine)
    y64 *= z64
    np.multiply(z, np.float32(0.5), out=t)
    np.copyto(x64, t)
    y64 -= x64
    np.copyto(cosine, y64, casting=_SAME_KIND)           # fused: c * z - z / 2
    cosine += np.float32(1)
    np.multiply(z64, _SIN_POLY64[0], out=y64)
    _horner_step(y64, sine, _SIN_POLY64[1], z64)
    _fused_round(y64, _SIN_POLY64[2], sine)
    sine *= z
    np.copyto(x64, x)
    np.copyto(y64, sine)
    y64 *= x64
    y64 += x64
    np.copyto(sine, y64, casting=_SAME_KIND)             # fused: s * x + x
    # The octant picks the polynomial and the signs: done on the bits, as the kernel does.
    sine_bits, cosine_bits, diff = sine.view(np.int32), cosine.view(np.int32), t.view(np.int32)
    np.bitwise_and(j, 2, out=k)
    np.right_shift(k, 1, out=k)
    np.negative(k, out=k)                                # all ones where sin, cos swap
    np.bitwise_xor(sine_bits, cosine_bits, out=diff)
    diff &= k
    sine_bits ^= diff
    cosine_bits ^= diff
    np.bitwise_and(j, 4, out=k)
    np.left_shift(k, 29, out=k)
    sine_bits ^= k
    j -= 2
    np.invert(j, out=j)
    np.bitwise_and(j, 4, out=k)
    np.left_shift(k, 29, out=k)
    cosine_bits ^= k
    return sine, cosine


# ---------------------------------------------------------------- randperm and multinomial
def _last_write_before(sorted_keys, n, positions, times):
    """For each (position, time): the latest step < time that wrote there, or -1.

    `sorted_keys` holds target * n + step for every step, sorted.
    """
    index = np.searchsorted(sorted_keys, positions * n + times) - 1
    found = sorted_keys[np.maximum(index, 0)]
    return np.where((index >= 0) & (found // n == positions), found % n, -1)


def _resolve_roots(pointer):
    """Follow pointers (each to a smaller index, or to itself) to their roots, by doubling."""
    while True:
        following = pointer[pointer]
        if np.array_equal(following, pointer):
            return pointer
        pointer = following


def _fisher_yates(targets):
    """The permutation of range(n) after swapping i and targets[i] for i = 0 .. n-2.

    Position i is final after step i. What it holds is the value at targets[i] at
    that moment: whatever the last earlier step k writing there carried (the value
    position k held at step k), or targets[i] itself. "What position k held at step
    k" follows the same rule, a chain of smaller indices resolved by doubling.
    """
    n = len(targets) + 1
    steps = np.arange(n - 1, dtype=np.int64)
    keys = np.sort(targets * n + steps)
    met = _last_write_before(keys, n, steps, steps)            # k's own earlier writer
    held = _resolve_roots(np.where(met >= 0, met, steps))       # value position k met
    final_targets = np.append(targets, n - 1)
    writer = _last_write_before(keys, n, final_targets, np.arange(n, dtype=np.int64))
    return np.where(writer >= 0, held[np.maximum(writer, 0)], final_targets)


def _inside_out_shuffle(picks):
    """The inside-out shuffle (a[i] = a[z]; a[z] = i for z = picks[i]), resolved at once.

    Position p ends with the last later step k that picked it (k itself), else with
    what step p wrote there: p if it picked itself, otherwise what position picks[p]
    held then -- the last step between picks[p] and p that picked it, or again what
    step picks[p] wrote: a chain of smaller indices resolved by doubling.
    """
    n = len(picks)
    steps = np.arange(n, dtype=np.int64)
    keys = np.sort(picks * n + steps)
    later = _last_write_before(keys, n, steps, np.full(n, n, dtype=np.int64))
    between = _last_write_before(keys, n, picks, steps)
    between = np.where(between > picks, between, -1)
    terminal = np.where(picks == steps, steps, between)
    root = _resolve_roots(np.where((terminal >= 0) | (picks == steps), steps, picks))
    written = np.where(terminal[root] >= 0, terminal[root], root)
    return np.where(later > steps, later, written)


def _count_below(cumulative, u):
    """For each row: how many of its (sorted) cumulative sums are < each of its samples.

    One lexicographic sort of (row, value, sample-before-sum) for all rows at once.
    """
    rows, categories = cumulative.shape
    samples = u.shape[1]
    values = np.concatenate([u.ravel(), cumulative.astype(np.float64).ravel()])
    row_of = np.concatenate([np.repeat(np.arange(rows), samples),
                             np.repeat(np.arange(rows), categories)])
    is_sum = np.concatenate([np.zeros(rows * samples, np.int64),
                             np.ones(rows * categories, np.int64)])
    order = np.lexsort((is_sum, values, row_of))
    sums_before = np.cumsum(is_sum[order]) - is_sum[order]
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    below = sums_before[rank[:rows * samples]] - row_of[:rows * samples] * categories
    return below.reshape(rows, samples)
