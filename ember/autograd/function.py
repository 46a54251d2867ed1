"""User-defined differentiable functions: `ember.autograd.Function`.

A Function's `apply` runs `forward` with grad mode off and records one node for
the engine -- the same `Node` the built-in ops record, so hooks, saved-tensor
version checks, `retain_graph` and anomaly mode all work alike. The `ctx`
passed to `forward`/`backward` *is* that node (as in PyTorch), named
`<Function name>Backward`.
"""
import functools

from .. import _tensor
from . import graph as _graph
from .graph import Node, grad_accumulator
from .grad_mode import no_grad, state as _grad_state

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """The methods `forward` may call on `ctx`."""

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward; in-place changes afterwards are detected."""
        self._to_save = tensors

    def save_for_forward(self, *tensors):
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors):
        """Declare inputs that `forward` modified in place (their history is rebased)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that must not require grad (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """Whether `backward` receives zeros (True, default) or None for unused outputs."""
        self._materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node (and ctx) of one `Function.apply` call."""

    _function = None

    def __init__(self):
        Node.__init__(self, ())
        self._to_save = ()
        self._dirty = ()
        self._non_differentiable = ()
        self._materialize_grads = True
        self.needs_input_grad = ()
        self._input_positions = ()
        self._output_meta = ()

    @property
    def saved_variables(self):
        return self.saved_tensors

    def backward(self, *grads):
        grads = list(grads) + [None] * (len(self._output_meta) - len(grads))
        if self._materialize_grads:
            for i, (grad, meta) in enumerate(zip(grads, self._output_meta)):
                if grad is None and meta is not None:
                    shape, dtype, device = meta
                    grads[i] = _tensor.make_tensor(device.xp.zeros(shape, dtype), device)
        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self.needs_input_grad)
        if len(result) != expected:
            if len(result) > expected and all(r is None for r in result[expected:]):
                result = result[:expected]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of "
                                   f"gradients (expected {expected}, got {len(result)})")
        out = []
        for position, shape in zip(self._input_positions, self._input_shapes):
            grad = result[position]
            if grad is not None and tuple(grad.shape) != shape:
                if grad.numel() != _numel(shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index "
                        f"{position} - got {list(grad.shape)} but expected shape compatible "
                        f"with {list(shape)}")
                grad = grad.reshape(shape)
            out.append(grad)
        return tuple(out)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Function(FunctionCtx):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `apply`.

    `forward` may instead take only the inputs, with a separate static
    `setup_context(ctx, inputs, output)`, as in PyTorch 2.
    """

    _backward_cls = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # One node class per Function, so grad_fn prints as <MyFunctionBackward ...>.
        cls._backward_cls = type(cls.__name__ + "Backward", (BackwardCFunction,),
                                 {"_function": cls, "__module__": cls.__module__})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode "
                                  "AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls._backward_cls is None:
            raise RuntimeError("Function.apply must be called on a subclass")
        ctx = cls._backward_cls()
        Tensor = _tensor.Tensor
        tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        separate_setup = cls.setup_context is not Function.setup_context
        with no_grad():
            if separate_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
            else:
                outputs = cls.forward(ctx, *args, **kwargs)
        record = _grad_state.enabled and any(ctx.needs_input_grad)
        single = not isinstance(outputs, tuple)
        outputs = (outputs,) if single else outputs
        inputs = [args[i] for i in tensor_positions]
        outputs = tuple(_wrap_output(ctx, out, inputs, i, record)
                        for i, out in enumerate(outputs))
        if record:
            ctx._input_positions = tensor_positions
            ctx._input_shapes = tuple(tuple(args[i].shape) for i in tensor_positions)
            ctx.next_functions = tuple(_edge_before(args[i], ctx) for i in tensor_positions)
            ctx._output_meta = tuple(
                (out._data.shape, out._data.dtype, out._device)
                if isinstance(out, Tensor) else None for out in outputs)
            _save(ctx, outputs)
        return outputs[0] if single else outputs


def _edge_before(tensor, ctx):
    # An input marked dirty was rebased onto ctx; its edge is its previous history.
    previous = ctx.__dict__.get("_previous_edges", {}).get(id(tensor))
    if previous is not None:
        return previous
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    if tensor._requires_grad:
        return (grad_accumulator(tensor), 0)
    return (None, 0)


def _wrap_output(ctx, out, inputs, index, record):
    Tensor = _tensor.Tensor
    if not isinstance(out, Tensor):
        return out
    non_differentiable = any(out is n for n in ctx._non_differentiable)
    dirty = any(out is d for d in ctx._dirty)
    if dirty:
        previous = ctx.__dict__.setdefault("_previous_edges", {})
        previous[id(out)] = _edge_before(out, ctx)
        if record and out.grad_fn is None and out._requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation.")
    elif any(out is i for i in inputs):
        out = out._alias()
    if non_differentiable or not out.is_floating_point():
        return out
    if record:
        out.grad_fn = ctx
        out._requires_grad = True
        out._output_nr = index
    return out


def _save(ctx, outputs):
    entries = []
    for t in ctx._to_save:
        if t is None:
            entries.append(None)
            continue
        output_nr = next((i for i, o in enumerate(outputs) if o is t), None)
        if _graph._hook_stack:
            entries.append(_graph.pack(t, output_nr if output_nr is not None
                                       and t.grad_fn is ctx else False))
        elif output_nr is not None and t.grad_fn is ctx:
            alias = t._alias()
            entries.append((alias, alias._storage.version, output_nr))
        else:
            entries.append((t, t._storage.version, False))
    ctx._saved = tuple(entries) if entries else None
    ctx._to_save = ()


def once_differentiable(backward):
    """Run a Function's backward with grad mode off: its result is not differentiable again."""
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with no_grad():
            return backward(ctx, *grads)
    return wrapper
