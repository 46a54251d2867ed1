"""Higher-level autograd: jacobian, hessian, vjp, jvp, hvp, vhp (torch.autograd.functional).

All are built on `autograd.grad`. jvp uses the double-vjp trick (differentiate
a vjp with respect to its cotangent), as PyTorch's reference implementation does.
"""
from ..ops import creation as _creation
from ..ops import joining as _joining
from .api import grad as _grad
from .grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(x):
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _prepare_inputs(inputs, create_graph):
    # Fresh leaves (or graph-connected aliases when create_graph) that require grad.
    if create_graph:
        return tuple(x.view_as(x) if x.requires_grad else x.detach().requires_grad_()
                     for x in inputs)
    return tuple(x.detach().requires_grad_() for x in inputs)


def _finish(values, create_graph):
    return tuple(v if create_graph or v is None else v.detach() for v in values)


def _zeros_for_none(grads, like):
    return tuple(_creation.zeros_like(x) if g is None else g for g, x in zip(grads, like))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J): the vector-Jacobian product."""
    inputs, tuple_in = _as_tuple(inputs)
    with enable_grad():
        inputs = _prepare_inputs(inputs, create_graph)
        outputs, tuple_out = _as_tuple(func(*inputs))
        if v is None:
            if len(outputs) != 1 or outputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function "
                                   "returns a single Tensor with a single element.")
            v = (_creation.ones_like(outputs[0]),)
        else:
            v, _ = _as_tuple(v)
        grads = _grad(outputs, inputs, v, create_graph=create_graph, allow_unused=True)
    result = _finish(_zeros_for_none(grads, inputs), create_graph)
    outputs = _finish(outputs, create_graph)
    return (outputs if tuple_out else outputs[0]), (result if tuple_in else result[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v): the Jacobian-vector product, via two reverse passes."""
    inputs, tuple_in = _as_tuple(inputs)
    with enable_grad():
        inputs = _prepare_inputs(inputs, create_graph)
        if v is None:
            if len(inputs) != 1 or inputs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the input to the "
                                   "user-provided function is a single Tensor with a single "
                                   "element.")
            v = (_creation.ones_like(inputs[0]),)
        else:
            v, _ = _as_tuple(v)
        outputs, tuple_out = _as_tuple(func(*inputs))
        cotangents = tuple(_creation.zeros_like(o).requires_grad_() for o in outputs)
        vjps = _grad(outputs, inputs, cotangents, create_graph=True, allow_unused=True)
        used = [(g, t) for g, t in zip(vjps, v) if g is not None]
        if used:
            jvps = _grad([g for g, _ in used], cotangents, [t for _, t in used],
                         create_graph=create_graph, allow_unused=True)
        else:
            jvps = (None,) * len(outputs)
    result = _finish(_zeros_for_none(jvps, outputs), create_graph)
    outputs = _finish(outputs, create_graph)
    return (outputs if tuple_out else outputs[0]), (result if tuple_out else result[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """d func(inputs) / d inputs, shaped output.shape + input.shape (nested for tuples)."""
    inputs, tuple_in = _as_tuple(inputs)
    with enable_grad():
        inputs = _prepare_inputs(inputs, create_graph)
        outputs, tuple_out = _as_tuple(func(*inputs))
        per_output = []
        for out in outputs:
            flat = out.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                one_hot = _creation.zeros_like(flat)
                one_hot[k] = 1
                grads = _grad(flat, inputs, one_hot, retain_graph=True,
                              create_graph=create_graph, allow_unused=True)
                for i, (g, x) in enumerate(zip(grads, inputs)):
                    rows[i].append(_creation.zeros_like(x) if g is None else g)
            blocks = []
            for i, x in enumerate(inputs):
                if rows[i]:
                    block = _joining.stack(rows[i]).reshape(tuple(out.shape) + tuple(x.shape))
                else:
                    block = _creation.zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype)
                blocks.append(block if create_graph else block.detach())
            per_output.append(tuple(blocks) if tuple_in else blocks[0])
    return tuple(per_output) if tuple_out else per_output[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The matrix of second derivatives of a scalar function."""
    inputs_tuple, tuple_in = _as_tuple(inputs)

    def gradient(*xs):
        out = func(*xs)
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should "
                               "contain a single element")
        grads = _grad(out.reshape(()), xs, create_graph=True, allow_unused=True)
        grads = _zeros_for_none(grads, xs)
        return grads if tuple_in else grads[0]
    return jacobian(gradient, inputs, create_graph=create_graph)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T H) for a scalar function."""
    inputs, tuple_in = _as_tuple(inputs)
    v, _ = _as_tuple(v)
    with enable_grad():
        inputs = _prepare_inputs(inputs, create_graph)
        out = func(*inputs)
        grads = _grad(out, inputs, create_graph=True, allow_unused=True)
        used = [(g, t, x) for g, t, x in zip(grads, v, inputs) if g is not None]
        result = _grad([g for g, _, _ in used], inputs, [t for _, t, _ in used],
                       create_graph=create_graph, allow_unused=True) if used else \
            (None,) * len(inputs)
    result = _finish(_zeros_for_none(result, inputs), create_graph)
    out = out if create_graph else out.detach()
    return out, (result if tuple_in else result[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), H v); equal to vhp for the symmetric Hessians of smooth functions."""
    return vhp(func, inputs, v, create_graph, strict)
