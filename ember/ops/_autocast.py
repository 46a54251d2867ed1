"""Autocast: which ops run in the fast dtype, which in float32, and the casts they need.

PyTorch applies autocast at its dispatcher, below every Python entry point, so an
op is cast however it is reached (`F.linear`, `nn.Linear`, `x @ w`). ember's ops
are plain functions, so each op on one of PyTorch's CPU autocast lists opens with
one line:

    if _autocast.on:
        return _autocast.lower_precision(matmul, input, other)

`on` is a module global, False unless an autocast region is active, so the cost
outside autocast is one attribute read. Inside, the helper casts the eligible
tensors and runs the op again with autocast suspended, as PyTorch redispatches
below its Autocast key: the op's own inner calls (matmul's mm, cdist's matmul) are
not cast a second time.

The policies (measured against PyTorch 2.13's CPU build, tests/test_amp.py):
- lower_precision: floating tensors other than float64 go to the region's dtype
  (matmul, mm, bmm, addmm, baddbmm, addbmm, linear, convolutions, prelu, and the
  composites PyTorch reaches them through: einsum, inner, multi_dot, vecdot,
  matrix_power, affine_grid);
- float32: float16/bfloat16 tensors go to float32 (losses, linear algebra
  solvers and decompositions, prod, cdist, quantile, 3-D pooling, padding ...);
- promote: mixed floating inputs go to the widest (cat, stack, index_copy).
float64 tensors are never cast; neither are calls with an explicit `dtype=` or
`out=`, nor in-place ops (PyTorch's eligibility rules).

Casts of float32 leaf tensors that require grad (a model's weights) are cached for
the region when its cache is enabled, so a weight used twice is cast once; the
cache empties when the outermost region exits.
"""
import weakref

from .. import _dtype
from .._tensor import Tensor

__all__ = ["on", "lower_precision", "float32", "promote", "unlisted", "State", "state"]

# Autocast-capable device types (PyTorch's `is_autocast_available`) and each one's
# default fast dtype.
DEVICE_TYPES = ("cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla", "mps",
                "privateuseone")
_BFLOAT16_BY_DEFAULT = ("cpu", "mtia", "maia", "xla", "hpu")


class State:
    """The process's autocast settings: per device type enabled and fast dtype; the cache."""
    __slots__ = ("enabled", "fast_dtype", "cache_enabled", "depth", "cache")

    def __init__(self):
        self.enabled = dict.fromkeys(DEVICE_TYPES, False)
        self.fast_dtype = {name: (_dtype.bfloat16 if name in _BFLOAT16_BY_DEFAULT
                                  else _dtype.float16) for name in DEVICE_TYPES}
        self.cache_enabled = True
        self.depth = 0  # nesting of autocast regions (PyTorch's autocast nesting)
        self.cache = {}  # id(weight) -> (weakref to weight, its cast)


state = State()
on = False  # any device type enabled, and not suspended inside an autocast op


def refresh():
    """Recompute `on` after a device type was enabled or disabled."""
    global on
    on = any(state.enabled.values())


def clear_cache():
    state.cache.clear()


# ---------------------------------------------------------------- the casts
def _eligible(value):
    """Floating, not float64, on a device type whose autocast is enabled."""
    return (isinstance(value, Tensor) and value.dtype.is_floating_point
            and value.dtype is not _dtype.float64 and state.enabled.get(value.device.type, False))


def _cast_to_fast(value):
    if not _eligible(value):
        return value
    target = state.fast_dtype[value.device.type]
    if value.dtype is target:
        return value
    cacheable = (state.cache_enabled and value.dtype is _dtype.float32
                 and value.grad_fn is None and value.requires_grad)
    if not cacheable:
        return value.to(target)
    held = state.cache.get(id(value))
    if held is not None and held[0]() is value and held[1].dtype is target:
        return held[1]
    cast = value.to(target)
    state.cache[id(value)] = (weakref.ref(value), cast)
    return cast


def _cast_to_float32(value):
    if _eligible(value) and value.dtype is not _dtype.float32:
        return value.to(_dtype.float32)
    return value


def _map(cast, value):
    """Cast tensors, also inside lists and tuples (tensor-list arguments)."""
    if isinstance(value, Tensor):
        return cast(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_map(cast, item) for item in value)
    return value


def _suspended(op, args, kwargs):
    """Run op with autocast off (PyTorch redispatches below Autocast), then back on."""
    global on
    on = False
    try:
        return op(*args, **kwargs)
    finally:
        on = True


def unlisted(op, *args, **kwargs):
    """op as it is, with autocast off inside: for a composite that PyTorch runs as one
    kernel (tensordot), whose inner matmul must not be cast."""
    return _suspended(op, args, kwargs)


def lower_precision(op, *args, **kwargs):
    """op with its eligible tensors in the region's fast dtype."""
    args = tuple(_map(_cast_to_fast, a) for a in args)
    kwargs = {k: _map(_cast_to_fast, v) for k, v in kwargs.items()}
    return _suspended(op, args, kwargs)


def float32(op, *args, **kwargs):
    """op with its eligible float16/bfloat16 tensors in float32."""
    args = tuple(_map(_cast_to_float32, a) for a in args)
    kwargs = {k: _map(_cast_to_float32, v) for k, v in kwargs.items()}
    return _suspended(op, args, kwargs)


def promote(op, *args, **kwargs):
    """op with its eligible tensors in the widest floating dtype among them."""
    found = []
    for value in (*args, *kwargs.values()):
        _map(lambda t: found.append(t.dtype) if _eligible(t) else None, value)
    if len(set(found)) > 1:  # any two of float16, bfloat16, float32 meet in float32
        widest = _dtype.float32

        def cast(value):
            return value.to(widest) if _eligible(value) and value.dtype is not widest else value
        args = tuple(_map(cast, a) for a in args)
        kwargs = {k: _map(cast, v) for k, v in kwargs.items()}
    return _suspended(op, args, kwargs)
