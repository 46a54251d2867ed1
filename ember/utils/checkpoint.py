"""Activation checkpointing: keep a block's inputs, drop what its ops save, and run the
block again during backward to get those tensors back (memory for compute).

Two ways in, as in PyTorch:
- use_reentrant=True: the block runs under no_grad inside a custom Function
  (`CheckpointFunctionBackward`); its backward re-runs the block with grad on and
  calls the engine again on the fresh graph. The engine cannot then serve a pass that
  wants gradients for chosen inputs only (autograd.grad), which PyTorch refuses too.
- use_reentrant=False: the block runs normally under saved-tensor hooks that keep an
  index instead of each saved tensor; the first unpack re-runs the block under hooks
  that collect the recomputed tensors, which then answer every unpack. The graph is
  the block's own (grad_fn is e.g. SinBackward0).
With preserve_rng_state the recomputation draws the same random numbers as the
forward (dropout masks agree): the generator is set to its forward state and
restored afterwards.
"""
import warnings

from .. import _random
from .._tensor import Tensor
from ..autograd import api as _api
from ..autograd.engine import is_checkpoint_valid
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad, state as _grad_state
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "detach_variable"]

_REENTRANT_GRAD = (
    "When use_reentrant=True, ember.utils.checkpoint is incompatible with .grad() or passing "
    "an `inputs` parameter to .backward(). To resolve this error, you can either set "
    "use_reentrant=False, or call .backward() without passing the `inputs` argument.")
_EXPLICIT = ("the use_reentrant parameter should be passed explicitly. {}use_reentrant=False "
             "is recommended, but if you need to preserve the current default behavior, you "
             "can pass use_reentrant=True. Refer to docs for more details on the differences "
             "between the two variants.")


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved."""


def detach_variable(inputs):
    """Each tensor detached, keeping whether it requires grad (recomputation's inputs)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            detached = x.detach()
            detached.requires_grad = x.requires_grad
            out.append(detached)
        else:
            out.append(x)
    return tuple(out)


class _RngAt:
    """Run a block with the default generator at `state`, restoring it afterwards."""

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        if self.state is not None:
            self.now = _random.get_rng_state()
            _random.set_rng_state(self.state)

    def __exit__(self, *exc):
        if self.state is not None:
            _random.set_rng_state(self.now)


# ------------------------------------------------------------------ use_reentrant=True
class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without a graph, backward by recomputing."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.arguments = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_GRAD)
        tensors = iter(detach_variable(tuple(ctx.saved_tensors)))
        inputs = [next(tensors) if a is None else a for a in ctx.arguments]
        with _RngAt(ctx.rng_state), enable_grad():
            outputs = ctx.run_function(*inputs)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _api.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


# ------------------------------------------------------------------ use_reentrant=False
class _Recomputation:
    """One non-reentrant checkpoint call: what it saved (by position) and how to redo it."""

    def __init__(self, function, args, kwargs, rng_state):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = rng_state
        self.count = 0
        self.tensors = None

    def pack(self, tensor):
        self.count += 1
        return self.count - 1

    def unpack(self, index):
        if self.tensors is None:
            self.tensors = self._recompute()
        return self.tensors[index]

    def _recompute(self):
        collected = []
        inputs = detach_variable(tuple(self.args))
        with _RngAt(self.rng_state), enable_grad(), \
                saved_tensors_hooks(lambda t: collected.append(t), _never_unpacked):
            self.function(*inputs, **self.kwargs)
        if len(collected) != self.count:
            raise CheckpointError(
                "ember.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{self.count}\nNumber of tensors saved during recomputation: "
                f"{len(collected)}.\n")
        self.function = self.args = self.kwargs = None  # nothing more to recompute
        return collected


def _never_unpacked(packed):
    raise AssertionError("a recomputed tensor was read before the recomputation finished")


def _checkpoint_without_reentrant(function, preserve, args, kwargs):
    if not _grad_state.enabled:
        return function(*args, **kwargs)
    frame = _Recomputation(function, args, kwargs,
                           _random.get_rng_state() if preserve else None)
    with saved_tensors_hooks(frame.pack, frame.unpack):
        return function(*args, **kwargs)


# ------------------------------------------------------------------ the doors
def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """function(*args, **kwargs), keeping only the inputs for backward and recomputing the
    rest there."""
    if use_reentrant is None:
        warnings.warn("ember.utils.checkpoint: " + _EXPLICIT.format(
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. "), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          stacklevel=2)
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run `functions` in order, checkpointing all but the last of `segments` equal chunks."""
    if use_reentrant is None:
        warnings.warn("ember.utils.checkpoint.checkpoint_sequential: " + _EXPLICIT.format(
            "In version 2.9 we will raise an exception if use_reentrant is not passed. "),
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(_chunk(functions, start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return _chunk(functions, end + 1, len(functions) - 1)(input)


def _chunk(functions, first, last):
    def run(x):
        for f in functions[first:last + 1]:
            x = f(x)
        return x
    return run
