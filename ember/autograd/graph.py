"""The recorded graph: `Node` (a `grad_fn`), saved tensors, and `AccumulateGrad`.

A node is created by an op when grad mode is on and an input requires grad. It
holds `next_functions` -- one `(node, output_nr)` edge per differentiable input,
`(None, 0)` where the input needs no gradient -- plus whatever its `backward`
needs. Saved tensors carry the version they had when saved, so an in-place
change made afterwards is caught instead of silently giving a wrong gradient.
"""
import itertools
import sys
import traceback
import weakref

from .. import _diagnose, _errors
from .grad_mode import anomaly as _anomaly, state as _grad_state

__all__ = ["Node", "AccumulateGrad", "saved_tensors_hooks", "save_on_cpu",
           "disable_saved_tensors_hooks"]

_sequence = itertools.count()
_FREED = object()
# (pack, unpack) pairs of the saved_tensors_hooks contexts now open, innermost last; the
# one `disable_saved_tensors_hooks` message in force (None: hooks may be registered).
_hook_stack = []
_hooks_disabled = [None]


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
        if _hook_stack:
            self._saved = tuple(None if t is None else pack(t, False) for t in tensors)
            return
        saved = []  # a loop, not a generator: this runs once per recorded op
        for t in tensors:
            saved.append(None if t is None else (t, t._storage.version, False))
        self._saved = tuple(saved)

    def save_output(self, tensor, output_nr=0):
        """Remember one of this node's own outputs without a reference cycle.

        The output is kept as a detached alias; unpacking rebuilds its link to
        this node, so a double backward still differentiates through it.
        """
        if tensor._extras is not None:
            _check_not_inference(tensor)
        if _hook_stack:
            entry = pack(tensor, output_nr)
        else:
            alias = tensor._alias()
            entry = (alias, alias._storage.version, output_nr)
        self._saved = (self._saved or ()) + (entry,)

    @property
    def saved_tensors(self):
        """Unpack what was saved, checking that nothing was modified in place since."""
        saved = self._saved
        if saved is _FREED:
            raise _diagnose.noted(RuntimeError(_errors.BACKWARD_TWICE), "freed", node=self.name())
        if saved is None:
            return ()
        out = []
        for entry in saved:
            if entry is None:
                out.append(None)
                continue
            if entry.__class__ is _Packed:
                out.append(entry.unpack(self))
                continue
            tensor, version, output_nr = entry
            if tensor._storage.version != version:
                raise _diagnose.noted(RuntimeError(_errors.modified_by_inplace(
                    tensor, self if output_nr is not False else tensor.grad_fn,
                    0 if output_nr is False else output_nr, version, _anomaly.enabled)),
                    "inplace_modified",
                    tensor=tensor, node=self.name(), version=tensor._storage.version,
                    expected=version)
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
            variable._grad = grad if grad._requires_grad or _unshared(grad) else \
                grad._owned_copy()
        elif grad._requires_grad or existing._requires_grad:
            variable._grad = existing + grad
        else:
            existing._accumulate_(grad)
        post = variable._extras.get("post_accumulate_hooks") if variable._extras else None
        if post:
            for hook in tuple(post):
                hook(variable)
        return ()


# References to an incoming gradient that nobody else holds, inside AccumulateGrad.backward
# called by the engine (its list of inputs, the argument, getrefcount's own), and to its
# array and storage (the tensor's two slots / its one slot, `_unshared`'s local name for
# the array, getrefcount's argument).
_GRAD_REFS, _ARRAY_REFS, _STORAGE_REFS = 3, 4, 2
_getrefcount = sys.getrefcount if sys.implementation.name == "cpython" else None


def _unshared(grad):
    """Whether `.grad` may keep this incoming gradient itself instead of a copy, as
    PyTorch's AccumulateGrad steals a gradient whose use count says it is the only
    holder: a C-contiguous array of its own memory that no other tensor, view, node
    or hook still holds (the reference counts of the tensor, its array and its storage
    are those of the engine's own hands). Saves a copy of every parameter's gradient
    on the first backward after `zero_grad(set_to_none=True)`."""
    if _getrefcount is None or grad._base is not None or grad._extras is not None:
        return False
    data = grad._data
    return (data.base is None and data.flags.c_contiguous
            and _getrefcount(grad) <= _GRAD_REFS + 1      # + this function's argument
            and _getrefcount(data) <= _ARRAY_REFS
            and _getrefcount(grad._storage) <= _STORAGE_REFS)


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


# ------------------------------------------------------------------ saved-tensor hooks
class _Packed:
    """A saved tensor handed to a pack hook: what it returned and how to get a tensor back.

    PyTorch checks no version here: once packed, the saved value is whatever the hooks
    keep, so an in-place change to the original afterwards is not an error.
    """

    __slots__ = ("packed", "unpack_hook", "output_nr")

    def __init__(self, packed, unpack_hook, output_nr):
        self.packed = packed
        self.unpack_hook = unpack_hook
        self.output_nr = output_nr

    def unpack(self, node):
        tensor = self.unpack_hook(self.packed)
        if not hasattr(tensor, "_storage"):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                            f"got result of type {type(tensor).__name__}")
        if self.output_nr is not False:
            # as an unhooked saved output: linked back to its node for double backward
            tensor = tensor._alias()
            tensor.grad_fn = node
            tensor._requires_grad = True
            tensor._output_nr = self.output_nr
        return tensor


def pack(tensor, output_nr):
    """Run the innermost pack hook on `tensor` (with hooks off, so it cannot recurse)."""
    pack_hook, unpack_hook = _hook_stack[-1]
    version = tensor._storage.version
    saved_stack = _hook_stack[:]
    _hook_stack.clear()
    try:
        packed = pack_hook(tensor)
    finally:
        _hook_stack[:] = saved_stack
    if tensor._storage.version != version:
        raise RuntimeError(_PACK_HOOK_INPLACE)
    return _Packed(packed, unpack_hook, output_nr)


_PACK_HOOK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook.")


class saved_tensors_hooks:
    """Context in which every tensor a node saves goes through `pack_hook` when saved and
    `unpack_hook` each time backward reads it (to offload, compress or log activations)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if _hooks_disabled[0] is not None:
            raise RuntimeError(_hooks_disabled[0])
        _hook_stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _hook_stack.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors kept on the CPU and moved back to their device when backward reads them."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            host = tensor.cpu()
            return tensor.device, (host.pin_memory() if pin_memory else host)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)
        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Context in which registering saved-tensor hooks raises `error_message` (for code
    whose saved tensors must not be intercepted); entering it with hooks open raises too."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _hook_stack:
            raise RuntimeError(self.error_message)
        self._previous = _hooks_disabled[0]
        _hooks_disabled[0] = self.error_message
        return self

    def __exit__(self, *exc):
        _hooks_disabled[0] = self._previous
