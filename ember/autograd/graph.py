"""The recorded graph: `Node` (a `grad_fn`), saved tensors, and `AccumulateGrad`.

A node is created by an op when grad mode is on and an input requires grad. It
holds `next_functions` -- one `(node, output_nr)` edge per differentiable input,
`(None, 0)` where the input needs no gradient -- plus whatever its `backward`
needs. Saved tensors carry the version they had when saved, so an in-place
change made afterwards is caught instead of silently giving a wrong gradient.
"""
import itertools
import traceback
import weakref

from .. import _errors
from .grad_mode import state as _grad_state

__all__ = ["Node", "AccumulateGrad"]

_sequence = itertools.count()
_FREED = object()


class Node:
    """Base of every backward node; subclasses are named as PyTorch names them.

    `backward(grad)` returns one gradient (or None) per entry of `next_functions`,
    computed with ember ops so that the backward pass itself can be recorded
    (`create_graph=True`).
    """

    __slots__ = ("next_functions", "_saved", "_sequence_nr", "_pre_hooks", "_hooks",
                 "_retained", "metadata", "_anomaly_trace", "__weakref__")

    def __init__(self, next_functions=()):
        self.next_functions = next_functions
        self._saved = None
        self._sequence_nr = next(_sequence)
        self._pre_hooks = None
        self._hooks = None
        self._retained = None

    # PyTorch's hand-written C++ nodes (AccumulateGrad, CopySlices, CopyBackwards,
    # NotImplemented) name() themselves with their namespace; reprs use the bare name
    _namespace = ""

    def name(self):
        """The node's PyTorch name, e.g. 'MulBackward0' or 'ember::autograd::CopySlices'."""
        return self._namespace + type(self).__name__

    def __repr__(self):
        return f"<{self.name().rpartition('::')[2]} object at {hex(id(self))}>"

    def backward(self, grad):
        raise NotImplementedError(f"{self.name()} has no backward")

    def needs_input_grad(self, index):
        """Whether the input at `index` takes part in the graph."""
        return self.next_functions[index][0] is not None

    # ---------------------------------------------------------- saved tensors
    def save(self, *tensors):
        """Remember tensors (or None) for backward, with their current versions."""
        for t in tensors:
            if t is not None and t._extras is not None:
                _check_not_inference(t)
        self._saved = tuple(
            None if t is None else (t, t._storage.version, False) for t in tensors)

    def save_output(self, tensor, output_nr=0):
        """Remember one of this node's own outputs without a reference cycle.

        The output is kept as a detached alias; unpacking rebuilds its link to
        this node, so a double backward still differentiates through it.
        """
        if tensor._extras is not None:
            _check_not_inference(tensor)
        alias = tensor._alias()
        self._saved = (self._saved or ()) + ((alias, alias._storage.version, output_nr),)

    @property
    def saved_tensors(self):
        """Unpack what was saved, checking that nothing was modified in place since."""
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(_errors.BACKWARD_TWICE)
        if saved is None:
            return ()
        out = []
        for entry in saved:
            if entry is None:
                out.append(None)
                continue
            tensor, version, output_nr = entry
            if tensor._storage.version != version:
                raise RuntimeError(_errors.modified_by_inplace(
                    tensor, self if output_nr is not False else tensor.grad_fn,
                    0 if output_nr is False else output_nr, version))
            if output_nr is not False:
                tensor = tensor._alias()
                tensor.grad_fn = self
                tensor._requires_grad = True
                tensor._output_nr = output_nr
            out.append(tensor)
        return tuple(out)

    def release(self):
        """Drop saved tensors after a backward pass that does not retain the graph."""
        if self._saved is not None:
            self._saved = _FREED

    # ---------------------------------------------------------- hooks
    def register_hook(self, hook):
        """Call `hook(grad_inputs, grad_outputs)` after this node runs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return _RemovableHandle(self._hooks, hook)

    def register_prehook(self, hook):
        """Call `hook(grad_outputs)` before this node runs; it may return replacements."""
        return self._add_pre_hook(None, hook)

    def _add_pre_hook(self, output_nr, hook):
        if self._pre_hooks is None:
            self._pre_hooks = []
        entry = (output_nr, hook)
        self._pre_hooks.append(entry)
        return _RemovableHandle(self._pre_hooks, entry)


class _RemovableHandle:
    __slots__ = ("_list", "_item")

    def __init__(self, hooks, item):
        self._list = hooks
        self._item = item

    def remove(self):
        try:
            self._list.remove(self._item)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into `variable.grad`."""
    _namespace = "ember::autograd::"

    __slots__ = ("variable",)

    def __init__(self, variable):
        Node.__init__(self, ())
        # Leaves run as soon as they are ready, as PyTorch's max sequence number does.
        self._sequence_nr = float("inf")
        self.variable = variable

    def backward(self, grad):
        variable = self.variable
        if grad._data.dtype != variable._data.dtype:
            # Mixed-dtype ops send back the promoted dtype; PyTorch casts to the input's.
            grad = grad.to(variable.dtype)
        hooks = variable._extras.get("hooks") if variable._extras else None
        if hooks:
            for hook in tuple(hooks):
                replaced = hook(grad)
                if replaced is not None:
                    grad = _errors.check_hook_result(hook, grad, replaced)
        existing = variable._grad
        if existing is None:
            variable._grad = grad if grad._requires_grad else grad._owned_copy()
        elif grad._requires_grad or existing._requires_grad:
            variable._grad = existing + grad
        else:
            existing._accumulate_(grad)
        post = variable._extras.get("post_accumulate_hooks") if variable._extras else None
        if post:
            for hook in tuple(post):
                hook(variable)
        return ()


def grad_accumulator(tensor):
    """The AccumulateGrad node of a leaf, shared while any graph still uses it."""
    ref = tensor._grad_accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(tensor)
        tensor._grad_accumulator = weakref.ref(node)
    return node


def record_forward_trace(node):
    """Anomaly mode: remember where the forward op that made `node` was called."""
    node._anomaly_trace = traceback.format_stack()[:-2]


def _check_not_inference(tensor):
    if tensor._extras.get("inference") and not _grad_state.inference:
        raise RuntimeError(_errors.INFERENCE_SAVED)
