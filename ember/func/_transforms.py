"""grad, grad_and_value, vjp, jvp, jacrev, jacfwd and hessian on ember's reverse-mode engine.

PyTorch's torch.func lifts tensors into levels; ember runs the same function once on
fresh leaves and asks `autograd.grad`. Nesting works because a transform that sees
inputs already in a graph (an enclosing transform's, or the user's) differentiates with
`create_graph=True`, so its result stays differentiable for the level around it.
jvp is the double-vjp trick: differentiate a vjp with respect to its cotangent.
"""
import functools

from .._tensor import Tensor
from ..autograd.api import grad as _autograd_grad
from ..autograd.grad_mode import enable_grad
from ..ops import creation as _creation
from ..ops import joining as _joining
from . import _tree

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"]

_depth = [0]  # transforms currently running; inside one, results keep their graph


def _lift(x, nested):
    """A leaf that requires grad standing for `x` (an alias in its graph when nested)."""
    if nested and x.requires_grad:
        return x.view_as(x)
    return x.detach().requires_grad_()


def _lift_tree(tree, nested):
    leaves, spec = _tree.flatten(tree)
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(leaf)}")
    lifted = [_lift(leaf, nested) for leaf in leaves]
    return lifted, _tree.unflatten(lifted, spec), spec


def _nested(leaves):
    return _depth[0] > 0 or any(isinstance(x, Tensor) and x.requires_grad for x in leaves)


def _settle(tensors, nested):
    return [t if nested or t is None else t.detach() for t in tensors]


def _grads(outputs, inputs, cotangents, nested, retain=False):
    """d(outputs)/d(inputs) weighted by cotangents, zeros where an input is unused."""
    used = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if used:
        found = _autograd_grad([o for o, _ in used], inputs, [c for _, c in used],
                               retain_graph=True if retain else None,
                               create_graph=nested, allow_unused=True)
    else:
        found = (None,) * len(inputs)
    return [_creation.zeros_like(x) if g is None else g for g, x in zip(found, inputs)]


def _check_argnums(argnums, nargs):
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        chosen = (argnums,)
    elif isinstance(argnums, tuple) and all(isinstance(a, int) for a in argnums):
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        chosen = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in chosen:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
    return tuple(a % nargs for a in chosen)


def _split_aux(output, has_aux, api):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    aux_leaves, _ = _tree.flatten(output[1])
    for leaf in aux_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _detach_tree(tree, nested):
    leaves, spec = _tree.flatten(tree)
    return _tree.unflatten(_settle(leaves, nested), spec)


class _Running:
    """Marks a transform as running, so transforms called inside it keep graphs."""

    def __enter__(self):
        _depth[0] += 1

    def __exit__(self, *exc):
        _depth[0] -= 1


# ------------------------------------------------------------------------ grad
def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of `func` with respect to `argnums`, func's value)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        positions = _check_argnums(argnums, len(args))
        nested = _nested(_tree.flatten([args[i] for i in positions])[0])
        args = list(args)
        lifted = []
        for i in positions:
            leaves, args[i], spec = _lift_tree(args[i], nested)
            lifted.append((leaves, spec))
        with enable_grad(), _Running():
            output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {output.dim()} dims. Maybe "
                                   "you wanted to use the vjp or jacrev APIs instead?")
            flat = [leaf for leaves, _ in lifted for leaf in leaves]
            grads = _settle(_grads([output], flat, [_creation.ones_like(output)], nested), nested)
        trees, start = [], 0
        for leaves, spec in lifted:
            trees.append(_tree.unflatten(grads[start:start + len(leaves)], spec))
            start += len(leaves)
        result = trees[0] if isinstance(argnums, int) else tuple(trees)
        value = output if nested else output.detach()
        if has_aux:
            return result, (value, _detach_tree(aux, nested))
        return result, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of scalar `func` with respect to `argnums`."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        gradients, value = inner(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients
    return wrapper


# ------------------------------------------------------------------------ vjp / jvp
def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives one gradient per primal."""
    nested = _nested(_tree.flatten(primals)[0])
    leaves, lifted, spec = _lift_tree(primals, nested)
    with enable_grad(), _Running():
        output, aux = _split_aux(func(*lifted), has_aux, "vjp(f, *primals)")
    out_leaves, out_spec = _tree.flatten(output)
    for leaf in out_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError("vjp(f, *primals): expected f(*primals) to return only tensors"
                               f", got unsupported type {type(leaf)}")

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        given, given_spec = _tree.flatten(cotangents)
        if given_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {_short(given_spec)}, primal output: "
                f"{_short(out_spec)}")
        keep = nested if create_graph is None else create_graph
        with enable_grad(), _Running():
            grads = _grads(out_leaves, leaves, given, keep, retain=retain_graph)
        return _tree.unflatten(_settle(grads, keep), spec)

    shown = _detach_tree(output, nested)
    if has_aux:
        return shown, vjp_fn, _detach_tree(aux, nested)
    return shown, vjp_fn


def _short(spec):
    """A structure in PyTorch's short pytree notation: *, (*, *), [*], {'a': *}."""
    if spec is None:
        return "*"
    if spec[0] is dict:
        return "{" + ", ".join(f"{k!r}: {_short(c)}" for k, c in zip(spec[1], spec[2])) + "}"
    inner = ", ".join(_short(c) for c in spec[1])
    return f"[{inner}]" if spec[0] is list else f"({inner}{',' if len(spec[1]) == 1 else ''})"


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J @ tangents), by two reverse passes (the double-vjp trick)."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    primal_leaves, primal_spec = _tree.flatten(primals)
    tangent_leaves, tangent_spec = _tree.flatten(tangents)
    if primal_spec != tangent_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {_tree.describe(primal_spec)} and tangents with structure "
            f"{_tree.describe(tangent_spec)}")
    for leaf in primal_leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"{api}: Expected primals to only contain Tensors, got "
                               f"{type(leaf)}")
    for p, t in zip(primal_leaves, tangent_leaves):
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: Expected tangents to only contain Tensors, got "
                               f"{type(t)}")
        if p.shape != t.shape:
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{list(p.shape)} while the given forward gradient is of size {list(t.shape)}.")
    nested = _nested(primal_leaves + tangent_leaves)
    leaves, lifted, _ = _lift_tree(primals, nested)
    with enable_grad(), _Running():
        output, aux = _split_aux(func(*lifted), has_aux, api)
        out_leaves, out_spec = _tree.flatten(output)
        for leaf in out_leaves:
            if not isinstance(leaf, Tensor):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(leaf)}")
        tangents_out = _double_vjp(out_leaves, leaves, tangent_leaves, nested)
    result = (_detach_tree(output, nested), _tree.unflatten(tangents_out, out_spec))
    return result + (_detach_tree(aux, nested),) if has_aux else result


def _double_vjp(outputs, inputs, tangents, nested):
    """J @ tangents: u -> vjp(u) is linear in u, and its vjp against `tangents` is J t."""
    dummies = [_creation.zeros_like(o).requires_grad_() for o in outputs]
    pulled = _grads(outputs, inputs, dummies, True, retain=True)
    pairs = [(g, t) for g, t in zip(pulled, tangents) if g.requires_grad]
    if pairs:
        found = _autograd_grad([g for g, _ in pairs], dummies, [t.to(g.dtype) for g, t in pairs],
                               create_graph=nested, allow_unused=True)
    else:
        found = (None,) * len(outputs)
    result = [_creation.zeros_like(o) if g is None else g for g, o in zip(found, outputs)]
    return _settle(result, nested)


# ------------------------------------------------------------------------ jacobians
def _jacobian(func, argnums, has_aux, forward):
    @functools.wraps(func)
    def wrapper(*args):
        positions = _check_argnums(argnums, len(args))
        chosen = [args[i] for i in positions]
        nested = _nested(_tree.flatten(chosen)[0])
        args = list(args)

        def partial(*picked):
            for i, value in zip(positions, picked):
                args[i] = value
            return func(*args)
        if forward:
            blocks, output, aux = _jacobian_forward(partial, chosen, has_aux, nested)
        else:
            blocks, output, aux = _jacobian_reverse(partial, chosen, has_aux, nested)
        out_leaves, out_spec = _tree.flatten(output)
        per_output = []
        for k in range(len(out_leaves)):
            rows = [_settle([b], nested)[0] for b in blocks[k]]
            per_output.append(rows[0] if isinstance(argnums, int) else tuple(rows))
        result = _tree.unflatten(per_output, out_spec)
        return (result, _detach_tree(aux, nested)) if has_aux else result
    return wrapper


def _jacobian_reverse(func, chosen, has_aux, nested):
    """Row by row: one vjp per output element with a one-hot cotangent."""
    output, vjp_fn, *aux = vjp(func, *chosen, has_aux=has_aux)
    out_leaves, out_spec = _tree.flatten(output)
    blocks = []
    for k, out in enumerate(out_leaves):
        rows = [[] for _ in chosen]
        for j in range(out.numel()):
            cotangents = [_creation.zeros_like(o) for o in out_leaves]
            cotangents[k].view(-1)[j] = 1
            pulled = vjp_fn(_tree.unflatten(cotangents, out_spec), create_graph=nested)
            for i, g in enumerate(pulled):
                rows[i].append(g)
        blocks.append([_stack(rows[i], tuple(out.shape) + tuple(x.shape), x)
                       for i, x in enumerate(chosen)])
    return blocks, output, aux[0] if aux else None


def _jacobian_forward(func, chosen, has_aux, nested):
    """Column by column: one jvp per input element with a one-hot tangent."""
    columns, output, aux = None, None, None
    for i, x in enumerate(chosen):
        for j in range(x.numel()):
            tangents = [_creation.zeros_like(p) for p in chosen]
            tangents[i].view(-1)[j] = 1
            result = jvp(func, tuple(chosen), tuple(tangents), has_aux=has_aux)
            output, pushed = result[0], result[1]
            aux = result[2] if has_aux else None
            pushed_leaves = _tree.flatten(pushed)[0]
            if columns is None:
                columns = [[[] for _ in chosen] for _ in pushed_leaves]
            for k, t in enumerate(pushed_leaves):
                columns[k][i].append(t)
    if output is None:  # no input elements: run once for the output's structure
        output = func(*chosen)
        output, aux = (output if has_aux else (output, None))
    out_leaves = _tree.flatten(output)[0]
    if columns is None:
        columns = [[[] for _ in chosen] for _ in out_leaves]
    blocks = []
    for k, out in enumerate(out_leaves):
        blocks.append([_stack(columns[k][i], tuple(x.shape) + tuple(out.shape), x)
                       .movedim(tuple(range(x.dim())),
                                tuple(range(out.dim(), out.dim() + x.dim())))
                       for i, x in enumerate(chosen)])
    return blocks, output, aux


def _stack(pieces, shape, like):
    if not pieces:
        return _creation.zeros(shape, dtype=like.dtype)
    return _joining.stack(pieces).reshape(shape)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """The Jacobian of `func` with respect to `argnums`, by reverse mode (one row at a time)."""
    return _jacobian(func, argnums, has_aux, forward=False)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of `func` with respect to `argnums`, by forward mode (one column at a
    time; each jvp is a double vjp here)."""
    return _jacobian(func, argnums, has_aux, forward=True)


def hessian(func, argnums=0):
    """The Hessian of scalar `func`: jacfwd of jacrev, as PyTorch composes it."""
    return jacfwd(jacrev(func, argnums), argnums)
