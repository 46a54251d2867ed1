"""`backward` and `grad`: the two ways into the engine."""
from .. import _diagnose, _errors
from .. import _tensor  # partially initialised here; used only at call time
from . import engine, retention
from .graph import grad_accumulator

__all__ = ["backward", "grad"]


def _as_tuple(x):
    """PyTorch's reading of "a tensor or a sequence of them": anything else must iterate,
    so `grad(1.0, x)` fails as it does there ("'float' object is not iterable")."""
    if isinstance(x, _tensor.Tensor):
        return (x,)
    return tuple(x)


def _optional_tuple(x):
    return None if x is None else _as_tuple(x)


def _check_outputs(tensors):
    for tensor in tensors:
        if not isinstance(tensor, _tensor.Tensor):
            raise AssertionError("Expected output to be a ember.Tensor")


def _root_edge(tensor):
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    return (grad_accumulator(tensor), 0)


def _make_root_grads(tensors, grad_tensors):
    grads = []
    for i, tensor in enumerate(tensors):
        given = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if given is None:
            if tensor._data.size != 1:
                raise _diagnose.noted(RuntimeError(_errors.IMPLICIT_GRAD_SCALAR),
                                      "implicit_grad", shape=tensor.shape)
            ones = tensor._device.xp.ones_like(tensor._data)
            grads.append(_tensor.make_tensor(ones, tensor._device))
            continue
        if not hasattr(given, "_data"):
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(given).__name__}")
        if given._data.shape != tensor._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {given.shape} and "
                f"output[{i}] has a shape of {tensor.shape}.")
        grads.append(given)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate into the leaves' `.grad` the gradient of `tensors` (weighted by `grad_tensors`)."""
    if tensors.__class__ is _tensor.Tensor and grad_tensors is None and grad_variables is None \
            and inputs is None and tensors.grad_fn is not None:
        return _backward_from_loss(tensors, retain_graph, create_graph)
    tensors = _as_tuple(tensors)
    grad_tensors = _optional_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    inputs = _optional_tuple(inputs)
    _check_outputs(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    for i, tensor in enumerate(tensors):
        if not tensor._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    grads = _make_root_grads(tensors, grad_tensors)
    roots = [_root_edge(t) for t in tensors]
    retention.note_backward(tensors, retain_graph)  # warns when old steps' graphs stay alive
    if inputs is not None:
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        captured = _run_for_inputs(roots, grads, inputs, retain_graph, create_graph)
        for tensor, grad in zip(inputs, captured):
            if grad is None:
                continue
            if tensor._grad is None:
                tensor._grad = grad if grad._requires_grad else grad._owned_copy()
            else:
                tensor._grad = tensor._grad + grad
        return
    engine.run_backward(roots, grads, retain_graph, create_graph)


def _backward_from_loss(tensor, retain_graph, create_graph):
    """`loss.backward()`, the call of every training step: the checks and the root
    gradient of the general path, without building the tuples it needs for many roots."""
    if retain_graph is None:
        retain_graph = create_graph
    data = tensor._data
    if data.size != 1:
        raise _diagnose.noted(RuntimeError(_errors.IMPLICIT_GRAD_SCALAR),
                              "implicit_grad", shape=tensor.shape)
    root = _tensor.make_tensor(tensor._device.xp.ones_like(data), tensor._device)
    retention.note_backward((tensor,), retain_graph)  # warns when old steps' graphs stay alive
    engine.run_backward([(tensor.grad_fn, tensor._output_nr)], [root], retain_graph,
                        create_graph)


def _run_for_inputs(roots, grads, inputs, retain_graph, create_graph):
    capture = {}
    for slot, tensor in enumerate(inputs):
        if not tensor._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        node, output_nr = _root_edge(tensor)
        capture.setdefault(node, {})[output_nr] = slot
    return engine.run_backward(roots, grads, retain_graph, create_graph, capture=capture)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the gradients of `outputs` with respect to `inputs` (leaves' .grad untouched)."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _optional_tuple(grad_outputs)
    _check_outputs(outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if retain_graph is None:
        retain_graph = create_graph
    for i, tensor in enumerate(outputs):
        if not tensor._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
    grads = _make_root_grads(outputs, grad_outputs)
    roots = [_root_edge(t) for t in outputs]
    captured = _run_for_inputs(roots, grads, inputs, retain_graph, create_graph)
    result = []
    for tensor, g in zip(inputs, captured):
        if g is not None and g._data.dtype != tensor._data.dtype:
            g = g.to(tensor.dtype)
        if g is None:
            if materialize_grads:
                g = tensor.new_zeros(tensor.shape)
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        result.append(g)
    return tuple(result)
