"""ember.jit: TorchScript's entry points, running eagerly.

ember has no TorchScript compiler: `script` returns the function or module it is
given, and `trace` runs it once on the example inputs and returns it. Outputs are
then exactly the eager ones, and a module keeps its parameters, state_dict and
calls. The decorators (`ignore`, `unused`, `export`, ...) are no-ops as they are
in eager PyTorch; `save`/`load` of TorchScript archives raise, since ember cannot
write or read TorchScript code (use ember.save / ember.load for weights).
"""
import contextlib
import os
import typing
import warnings

from .._tensor import Tensor
from ._compile import compile  # noqa: F401,A004 - ember.compile lives beside the jit

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "is_scripting",
           "is_tracing", "script_if_tracing", "annotate", "isinstance", "Final", "Attribute",
           "interface", "save", "load", "freeze", "optimize_for_inference",
           "optimized_execution", "fork", "wait", "Error", "ScriptModule", "ScriptFunction",
           "TracerWarning", "ScriptWarning", "enable_onednn_fusion", "onednn_fusion_enabled",
           "set_fusion_strategy", "strict_fusion", "annotations"]

Final = typing.Final
annotations = typing
_builtin_isinstance = isinstance


def _deprecated(name, instead="`ember.compile` or `ember.export`"):
    warnings.warn(f"`ember.jit.{name}` is deprecated. Please switch to {instead}.",
                  DeprecationWarning, stacklevel=3)


class Error(RuntimeError):
    """TorchScript's compilation error (never raised by ember's eager jit)."""


class TracerWarning(Warning):
    pass


class ScriptWarning(Warning):
    pass


class ScriptModule:
    """The type of scripted modules in PyTorch; ember's scripted modules stay nn.Modules."""


class ScriptFunction:
    """The type of scripted functions in PyTorch; ember's stay plain functions."""


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """The function or module itself: ember runs it eagerly (no TorchScript compiler)."""
    _deprecated("script")
    return obj


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-5, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """Run `func` once on the example inputs (as tracing does) and return it, to run eagerly."""
    _deprecated("trace")
    if example_kwarg_inputs is not None:
        func(**example_kwarg_inputs)
        return func
    if _builtin_isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    elif example_inputs is not None:
        example_inputs = tuple(example_inputs)
    func(*(example_inputs or ()))
    return func


def trace_module(mod, inputs, **kwargs):
    """Run each named method once on its inputs and return the module."""
    _deprecated("trace_module")
    for name, example in inputs.items():
        getattr(mod, name)(*((example,) if _builtin_isinstance(example, Tensor) else example))
    return mod


def _identity_decorator(fn=None, **kwargs):
    if fn is None or not callable(fn):
        return lambda function: function
    return fn


ignore = unused = export = interface = _identity_decorator


def script_if_tracing(fn):
    return fn


def is_scripting():
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def isinstance(obj, target_type):  # noqa: A001 - PyTorch's name
    """Python's isinstance, with typing's List[int] and friends checked by their origin."""
    origin = typing.get_origin(target_type)
    return _builtin_isinstance(obj, origin or target_type)


class Attribute(typing.NamedTuple):
    value: typing.Any
    type: typing.Any


def save(m, f, _extra_files=None):
    _deprecated("save", "`ember.export`")
    raise RuntimeError("ember cannot write TorchScript archives; save the weights with "
                       "ember.save(module.state_dict(), path) instead")


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    _deprecated("load", "`ember.export`")
    if _builtin_isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise ValueError(f"The provided filename {f} does not exist")
    raise RuntimeError("ember cannot read TorchScript archives (they hold compiled code); "
                       "load a state_dict saved with torch.save instead")


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    warnings.warn("`ember.jit.freeze` is deprecated. Please use `ember.compile` instead.",
                  DeprecationWarning, stacklevel=2)
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


@contextlib.contextmanager
def optimized_execution(should_optimize):
    yield


def fork(func, *args, **kwargs):
    """Run now; `wait` returns the result (ember has no inter-op thread pool)."""
    return func(*args, **kwargs)


def wait(future):
    return future


_onednn = [False]


def enable_onednn_fusion(enabled):
    _onednn[0] = bool(enabled)


def onednn_fusion_enabled():
    return _onednn[0]


def set_fusion_strategy(strategy):
    return [("STATIC", 2), ("DYNAMIC", 10)]


@contextlib.contextmanager
def strict_fusion():
    yield
