"""vmap: map a function over a dimension of its inputs.

PyTorch batches each op through a rule per op; ember has no batching rules, so vmap
runs `func` once per index of the mapped dimension on the unbatched slices and stacks
the results along `out_dims`. The values, shapes and errors are PyTorch's; the cost is
a Python loop over the batch (chunk_size is accepted and changes nothing). Because
each call sees ordinary tensors, every op, autograd and the other transforms work
inside it, so `vmap(grad(f))` gives per-sample gradients.

randomness: 'error' raises PyTorch's error when `func` drew from the default
generator (checked after the call, not at the draw); 'same' rewinds the generator
before each call so every sample draws the same numbers; 'different' lets them differ.
"""
import functools

from .. import _random
from .._tensor import Tensor
from ..ops import joining as _joining
from . import _tree

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """`func` mapped over dimension `in_dims` of its inputs, results stacked at `out_dims`."""
    if randomness not in _RANDOMNESS:
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', "
                           f"or 'same'. Got {randomness}")
    if chunk_size is not None and not chunk_size > 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        name = getattr(func, "__name__", repr(func))
        _check_out_dims(name, out_dims)
        leaves, spec, dims, size = _mapped_inputs(name, args, in_dims)
        start = _random.default_generator.get_state() if randomness != "different" else None
        results = []
        for index in range(size):
            if randomness == "same":
                _random.default_generator.set_state(start)
            sliced = [x if d is None else x.select(d, index) for x, d in zip(leaves, dims)]
            sliced_args = _tree.unflatten(sliced, spec)
            results.append(func(*sliced_args, **kwargs))
            if randomness == "error" and _drew(start):
                raise RuntimeError(
                    "vmap: called random operation while in randomness error mode. Please "
                    "either use the 'same' or 'different' randomness flags on vmap or perform "
                    "the randomness operation out of vmap")
        return _stack_outputs(name, results, out_dims)
    return wrapped


def _check_out_dims(name, out_dims):
    if isinstance(out_dims, int):
        return
    for dim in _tree.flatten(out_dims)[0]:
        if dim is not None and not isinstance(dim, int):
            raise ValueError(f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an "
                             "int, None or a python collection of ints representing where in "
                             "the outputs the vmapped dimension should appear.")


def _drew(start):
    now = _random.default_generator.get_state()
    return now._data.tobytes() != start._data.tobytes()


def _mapped_inputs(name, args, in_dims):
    """The flattened inputs, their mapped dims and the batch size, or PyTorch's error."""
    if not args:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) "
                         f"tuple matching the structure of inputs, got: {type(in_dims)}.")
    leaves, spec = _tree.flatten(args)
    dims = _tree.broadcast(in_dims, spec)
    if dims is None:
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {_tree.describe(_tree.flatten(in_dims)[1])} but inputs has structure "
            f"{_tree.describe(spec)}.")
    sizes, wrapped = [], []
    for x, d in zip(leaves, dims):
        if d is not None and not isinstance(d, int):
            raise ValueError(f"{where}: Got in_dim={d} for an input but in_dim must be either "
                             "an integer dimension or None.")
        if d is not None and not isinstance(x, Tensor):
            raise ValueError(f"{where}: Got in_dim={d} for an input but the input is of type "
                             f"{type(x)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        if d is not None:
            ndim = x.dim()
            if not -ndim <= d < ndim:
                raise ValueError(f"{where}: Got in_dim={d} for some input, but that input is a "
                                 f"Tensor of dimensionality {ndim} so expected in_dim to "
                                 f"satisfy -{ndim} <= in_dim < {ndim}.")
            d %= ndim
            sizes.append(x.shape[d])
        wrapped.append(d)
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if len(set(sizes)) > 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return leaves, spec, wrapped, sizes[0]


def _stack_outputs(name, results, out_dims):
    _, spec = _tree.flatten(results[0]) if results else (None, None)
    per_sample = [_tree.flatten(r)[0] for r in results]
    dims = _tree.broadcast(out_dims, spec)
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            "with the structure of `outputs`. out_dims has structure "
            f"{_tree.describe(_tree.flatten(out_dims)[1])} but outputs has structure "
            f"{_tree.describe(spec)}.")
    stacked = []
    for k, d in enumerate(dims):
        pieces = [leaves[k] for leaves in per_sample]
        if d is None:
            stacked.append(_unmapped(name, pieces))
            continue
        for piece in pieces:
            if not isinstance(piece, Tensor):
                raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got "
                                 f"type {type(piece)}. Did you mean to set out_dims= to None "
                                 "for output?")
        stacked.append(_joining.stack(pieces, d))
    return _tree.unflatten(stacked, spec)


def _unmapped(name, pieces):
    """An output with out_dim None must not vary over the batch; PyTorch knows that from
    the tensor's batching, ember from the values: all samples must give the same one."""
    first = pieces[0]
    if isinstance(first, Tensor):
        for piece in pieces[1:]:
            if piece is not first and not (piece.shape == first.shape
                                           and bool((piece == first).all())):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                                 "when out_dim is None")
    return first
