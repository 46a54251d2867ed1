"""einsum: Einstein summation over labelled dimensions.

The equation is parsed once into explicit subscripts (an ellipsis becomes spare
letters, right-aligned and broadcast across operands, as in PyTorch), checked
with PyTorch's messages, and handed to `xp.einsum`. The gradient for one operand
is another einsum: of the incoming gradient with the other operands, onto that
operand's labels; labels only that operand has are broadcast back, and repeated
labels (a trace, a diagonal) put the gradient back on their diagonal.

PyTorch decomposes einsum into permutes, multiplies and bmm, so its `grad_fn`
names vary by equation; ember records one `EinsumBackward0` node instead.
"""
import string

from . import _autocast
from .._dtype import is_floating as _is_floating
from .. import _dtype, _errors
from ..autograd.graph import Node
from ._common import Tensor, attach, grad_state, make_tensor, sum_to_shape

__all__ = ["einsum"]

_LETTERS = string.ascii_letters
# PyTorch orders labels with A-Z before a-z (sublist integers 0-25 are 'A'-'Z').
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase
_REDUCED = _dtype.COMPUTED_IN_FLOAT32  # float16, and bfloat16 once loaded
_FLOAT32 = _dtype.float32.np_dtype
_INT64 = _dtype.int64.np_dtype


def einsum(*args):
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist form."""
    if _autocast.on:
        return _autocast.lower_precision(einsum, *args)
    equation, operands = _parse_args(args)
    inputs, output = _explicit_subscripts(equation, operands)
    arrays = [t._data for t in operands]
    # one dtype for all; bool meets bmm's refusal in _integral_contract, where it gets there
    _check_dtypes(arrays, len(operands) if _is_floating(arrays[0].dtype) else 1)
    xp = operands[0]._device.xp
    if _is_floating(arrays[0].dtype):
        result = _contract(xp, ",".join(inputs) + "->" + output, arrays)
    else:
        result = _integral_contract(xp, inputs, output, arrays)
    out = make_tensor(result, operands[0]._device)
    if grad_state.enabled and any(t._requires_grad for t in operands):
        node = EinsumBackward0()
        node.inputs, node.output = inputs, output
        node.shapes = [a.shape for a in arrays]
        node.save(*operands)
        attach(out, node, *operands)
    return out


def _contract(xp, explicit, arrays):
    dtype = arrays[0].dtype
    if dtype in _REDUCED:
        arrays = [a.astype(_FLOAT32) for a in arrays]
    # The optimizer routes large contractions to BLAS; for small ones its planning costs more.
    optimize = len(arrays) > 2 or len(arrays) == 2 and max(a.size for a in arrays) > 4096
    result = xp.einsum(explicit, *arrays, optimize=optimize)
    if result.dtype != dtype:
        result = result.astype(dtype)
    elif len(arrays) == 1 and getattr(result, "base", None) is not None:
        result = result.copy()  # NumPy may return a view of the operand; ours is a new tensor
    return xp.asarray(result)


def _integral_contract(xp, inputs, output, arrays):
    """Integer and bool operands, contracted the way PyTorch's steps set the dtype.

    PyTorch sums out first the labels that only one operand has (and the output lacks),
    and a summed label of size 1 on one side of a pair by summing the other side; those
    sums promote to int64, as `sum` does. Then it joins operands left to right: a pair
    with nothing left to sum is multiplied (promoting), an empty pair gives zeros, any
    other goes to bmm, which wants one dtype and has no bool kernel.
    """
    ops = []
    for k, (labels, array) in enumerate(zip(inputs, arrays)):
        needed = set(output).union(*(inputs[j] for j in range(len(inputs)) if j != k))
        kept = "".join(dict.fromkeys(label for label in labels if label in needed))
        if len(kept) != len(set(labels)):
            array = xp.einsum(f"{labels}->{kept}", array.astype(_INT64))
        elif len(kept) != len(labels):
            array = xp.einsum(f"{labels}->{kept}", array)   # a diagonal keeps the dtype
        ops.append((kept, array))
    labels, left = ops[0]
    for i in range(1, len(ops)):
        other, right = ops[i]
        needed = set(output).union(*(term for term, _ in ops[i + 1:]))
        for label in [label for label in labels if label in other and label not in needed]:
            size_left, size_right = (left.shape[labels.index(label)],
                                     right.shape[other.index(label)])
            if size_left == 1 and size_right != 1:
                left, labels = _squeezed(xp, left, labels, label)
                right, other = _summed_out(xp, right, other, label)
            elif size_right == 1 and size_left != 1:
                left, labels = _summed_out(xp, left, labels, label)
                right, other = _squeezed(xp, right, other, label)
            elif size_left == 1:   # size 1 on both sides: nothing to sum
                left, labels = _squeezed(xp, left, labels, label)
                right, other = _squeezed(xp, right, other, label)
        joined = "".join(dict.fromkeys(labels + other))
        kept = "".join(label for label in joined if label in needed)
        if kept == joined or not left.size or not right.size:
            dtype = _dtype.promote_types(_dtype.FROM_NUMPY[left.dtype],
                                         _dtype.FROM_NUMPY[right.dtype]).np_dtype
        else:   # bmm: the left operand's kernel first, then one dtype
            _check_dtypes([left], 2 if left.dtype.kind == "b" else 1)
            _check_dtypes([left, right], 1)
            dtype = left.dtype
        left = xp.einsum(f"{labels},{other}->{kept}", left.astype(dtype), right.astype(dtype))
        labels = kept
    return xp.asarray(xp.einsum(f"{labels}->{output}", left)).copy()


def _summed_out(xp, array, labels, label):
    kept = labels.replace(label, "")
    return xp.einsum(f"{labels}->{kept}", array.astype(_INT64)), kept


def _squeezed(xp, array, labels, label):
    return array.squeeze(labels.index(label)), labels.replace(label, "")


class EinsumBackward0(Node):
    __slots__ = ("inputs", "output", "shapes")

    def backward(self, grad):
        operands = self.saved_tensors
        return tuple(_operand_grad(grad, self.output, operands, self.inputs, self.shapes, k)
                     if self.needs_input_grad(k) else None
                     for k in range(len(operands)))


def _operand_grad(grad, output, operands, inputs, shapes, k):
    """The gradient for operand `k`: an einsum of `grad` with the other operands."""
    labels, shape = inputs[k], shapes[k]
    unique = "".join(dict.fromkeys(labels))
    others = [inputs[j] for j in range(len(inputs)) if j != k]
    elsewhere = set(output).union(*others)
    present = "".join(label for label in unique if label in elsewhere)
    terms = [output] + others
    if others or present != output:
        operands_g = [grad] + [operands[j] for j in range(len(operands)) if j != k]
        grad = einsum(",".join(terms) + "->" + present, *operands_g)
    sizes = {label: shape[labels.index(label)] for label in unique}
    full = tuple(sizes[label] if label in present else 1 for label in unique)
    if len(present) != len(unique):  # labels only this operand has: broadcast back over them
        grad = grad.reshape(tuple(grad._data.shape[present.index(label)] if label in present
                                  else 1 for label in unique))
    grad = sum_to_shape(grad, full).expand(tuple(sizes[label] for label in unique))
    if len(unique) == len(labels):
        return grad
    return _onto_diagonals(grad, labels, shape)


def _onto_diagonals(grad, labels, shape):
    """Spread a gradient over unique labels back onto an operand with repeated labels."""
    xp = grad._device.xp
    seen = {}
    expanded = []
    for position, label in enumerate(labels):
        expanded.append(shape[position] if label not in seen else 1)
        seen.setdefault(label, position)
    grad = grad.reshape(tuple(expanded))
    mask = xp.ones((1,) * len(labels), dtype=bool)
    for position, label in enumerate(labels):
        first = seen[label]
        if first != position:
            index_shape = [1] * len(labels)
            index_shape[first] = shape[first]
            rows = xp.arange(shape[first]).reshape(index_shape)
            index_shape[first], index_shape[position] = 1, shape[position]
            cols = xp.arange(shape[position]).reshape(index_shape)
            mask = mask & (rows == cols)
    return grad * make_tensor(mask.astype(grad._data.dtype), grad._device)


# ---------------------------------------------------------------- parsing
def _parse_args(args):
    if not args:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                        "or at least one operand and its subscripts list")
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    for i, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not "
                            f"{type(operand).__name__}")
    return equation, operands


def _sublist_equation(args):
    """einsum(op1, [0, 1], op2, [1, 2], [0, 2]) -> ('Ab,bC...' style equation, operands)."""
    def subscripts(sublist):
        parts = []
        for label in sublist:
            if label is Ellipsis:
                parts.append("...")
            elif isinstance(label, int) and 0 <= label < 52:
                parts.append(_SUBLIST_LETTERS[label])
            else:
                raise ValueError("einsum(): subscript in subscript list is not within the valid "
                                 f"range [0, 52), got {label}")
        return "".join(parts)
    operands = list(args[0::2])
    terms = [subscripts(s) for s in args[1::2]]
    equation = ",".join(terms[:len(operands)])
    if len(args) % 2 == 1:
        operands = operands[:-1]
        equation = ",".join(terms) + "->" + subscripts(args[-1])
    return equation, operands


def _split_term(term, i, equation, offset):
    """A term's labels and whether (and where) it has an ellipsis."""
    labels, ellipsis_at, j = [], None, 0
    while j < len(term):
        char = term[j]
        if char == ".":
            if term[j:j + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {i} that is not part of any "
                                   "ellipsis")
            if ellipsis_at is not None:
                raise RuntimeError(f"einsum(): found '.' for operand {i} for which an ellipsis "
                                   "was already found")
            ellipsis_at = len(labels)
            j += 3
            continue
        if char == " ":
            j += 1
            continue
        if char not in _LETTERS:
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + j} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        labels.append(char)
        j += 1
    return labels, ellipsis_at


def _explicit_subscripts(equation, operands):
    """Per-operand and output subscripts with every ellipsis replaced by spare letters."""
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the "
                           "equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    parsed, offset = [], 0
    for i, term in enumerate(terms):
        parsed.append(_split_term(term, i, equation, offset))
        offset += len(term) + 1
    used = {label for labels, _ in parsed for label in labels}
    spare = [c for c in _LETTERS if c not in used]
    ellipsis_ndim = 0
    for i, ((labels, ellipsis_at), operand) in enumerate(zip(parsed, operands)):
        ndim = operand._data.ndim
        if ellipsis_at is None and len(labels) != ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(labels)}) does not match the number of dimensions "
                               f"({ndim}) for operand {i} and no ellipsis was given")
        if ellipsis_at is not None and len(labels) > ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(labels)}) is more than the number of dimensions ({ndim})"
                               f" for operand {i}")
        ellipsis_ndim = max(ellipsis_ndim, ndim - len(labels))
    broadcast = "".join(spare[:ellipsis_ndim])
    inputs = []
    for (labels, ellipsis_at), operand in zip(parsed, operands):
        if ellipsis_at is None:
            inputs.append("".join(labels))
            continue
        count = operand._data.ndim - len(labels)
        middle = broadcast[ellipsis_ndim - count:]
        inputs.append("".join(labels[:ellipsis_at]) + middle + "".join(labels[ellipsis_at:]))
    _check_sizes(inputs, operands)
    if arrow:
        output = _explicit_output(rhs, broadcast, inputs, len(lhs) + 2)
    else:
        counts = {}
        for labels, _ in parsed:
            for label in labels:
                counts[label] = counts.get(label, 0) + 1
        singles = sorted((label for label, n in counts.items() if n == 1),
                         key=_SUBLIST_LETTERS.index)
        output = broadcast + "".join(singles)
    return inputs, output


def _explicit_output(rhs, broadcast, inputs, offset):
    labels, ellipsis_at = _split_term(rhs, "output", rhs, offset)
    seen = set()
    for label in labels:
        if label in seen:
            raise RuntimeError(f"einsum(): output subscript {label} appears more than once in "
                               "the output")
        if not any(label in term for term in inputs):
            raise RuntimeError(f"einsum(): output subscript {label} does not appear in the "
                               "equation for any input operand")
        seen.add(label)
    if ellipsis_at is None:
        return "".join(labels)
    return "".join(labels[:ellipsis_at]) + broadcast + "".join(labels[ellipsis_at:])


def _check_sizes(inputs, operands):
    sizes = {}
    for i, (labels, operand) in enumerate(zip(inputs, operands)):
        shape = operand._data.shape
        own = {}
        for label, size in zip(labels, shape):
            if label in own and own[label] != size:
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {i} but "
                                   f"the sizes don't match, {size} != {own[label]}")
            own[label] = size
        for label, size in own.items():
            seen = sizes.get(label)
            if seen is None or seen == 1:
                sizes[label] = size
            elif size != 1 and size != seen:
                raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {i}"
                                   f" which does not broadcast with previously seen size {seen}")


def _check_dtypes(arrays, count):
    first = arrays[0].dtype
    for array in arrays[1:]:
        if array.dtype != first:
            raise RuntimeError(
                "expected scalar type "
                f"{_errors.scalar_type_name(_dtype.FROM_NUMPY[first])} but found "
                f"{_errors.scalar_type_name(_dtype.FROM_NUMPY[array.dtype])}")
    if count > 1 and first.kind == "b":
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
