"""`ember.compiler`: the compiler's control surface, for a library that never compiles.

`ember.compile` returns the function or module unchanged, so every question here has
the answer an uncompiled program gets: nothing is compiling or exporting, decorators
give back the function they mark, and resets and stances have nothing to change.
"""
import functools

from .._backend import ndarray as _ndarray
from .._tensor import Tensor as _Tensor
from ..jit import compile  # noqa: A004 - PyTorch's name
from ..ops.interop import from_numpy as _from_numpy

__all__ = ["compile", "assume_constant_result", "reset", "allow_in_graph",
           "substitute_in_graph", "list_backends", "disable", "set_default_backend",
           "get_default_backend", "set_stance", "set_enable_guard_collectives",
           "cudagraph_mark_step_begin", "wrap_numpy", "is_compiling", "is_dynamo_compiling",
           "is_exporting", "save_cache_artifacts", "load_cache_artifacts",
           "nested_compile_region"]

_BACKENDS = ["cudagraphs", "inductor", "openxla", "tvm"]
_default_backend = ["inductor"]


def is_compiling():
    return False


def is_dynamo_compiling():
    return False


def is_exporting():
    return False


def reset():
    """Nothing cached to clear."""


def assume_constant_result(fn):
    return fn


def allow_in_graph(fn):
    """`fn` (or each of a list of functions) unchanged; a non-callable is refused."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(item) for item in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def substitute_in_graph(original_fn, *, can_constant_fold_through=False,
                        skip_signature_check=False):
    """A decorator that would stand the decorated function in for `original_fn` inside
    compiled graphs; eagerly the decorated function is simply returned."""
    return lambda fn: fn


def nested_compile_region(fn=None, *, options=None, max_reuse_entries=8, reuse_hash_fn=None):
    if fn is None:
        return lambda f: f
    return fn


def disable(fn=None, recursive=True, *, reason=None):
    """`fn` unchanged (already uncompiled); without `fn`, a decorator doing the same."""
    if fn is None:
        return lambda f: f
    return fn


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names `ember.compile` accepts (each runs the function eagerly)."""
    return list(_BACKENDS)


def set_default_backend(backend):
    _default_backend[0] = "inductor" if backend is None else backend


def get_default_backend():
    return _default_backend[0]


class set_stance:
    """A stance for compiled code; usable as a call, a context manager or a decorator."""

    def __init__(self, stance="default", *, skip_guard_eval_unsafe=False, force_backend=None):
        self.stance = stance

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass

    def __call__(self, fn):
        return fn


def set_enable_guard_collectives(enabled):
    return False


def cudagraph_mark_step_begin():
    """No CUDA graphs to step."""


def save_cache_artifacts():
    return None


def load_cache_artifacts(serialized_artifacts):
    return None


def wrap_numpy(fn):
    """`fn` written for NumPy arrays, called with tensors: tensors in become arrays, arrays
    out become tensors (through nests of tuples and lists)."""
    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        args = _convert(args, _Tensor, lambda t: t.numpy())
        kwargs = {k: _convert(v, _Tensor, lambda t: t.numpy()) for k, v in kwargs.items()}
        return _convert(fn(*args, **kwargs), _ndarray, _from_numpy)
    return wrapped


def _convert(value, kind, change):
    if isinstance(value, kind):
        return change(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_convert(item, kind, change) for item in value)
    return value
