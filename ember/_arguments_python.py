"""Wrong-type errors of the functions PyTorch writes in Python, in PyTorch's order.

`torch.einsum`, `torch.cdist`, `F.mse_loss`, `F.elu` and their kind are Python functions
in PyTorch: no argument parser guards their entry. A wrong argument fails wherever it is
first touched: an attribute read (`target.size()` gives "'list' object has no attribute
'size'") or the argument parser of the first C++ op it reaches, which names that op
("soft_margin_loss(): argument 'target' (position 2) must be Tensor, not NoneType").
ember's versions are written differently, so they would fail elsewhere, in other words.

`STEPS` lists, per function, what PyTorch's code touches first, in order (read off
PyTorch's source; facts only). Each step is a small Python expression over the function's
parameters, parsed once when the function is wired:
- `target.size`: the attribute is read (AttributeError, in Python's own words);
- `soft_margin_loss(input, target, 1)`: the named C++ op's signatures (ember/_signatures,
  or `_arguments.SIGNATURES`) parse these arguments, and refuse them as PyTorch would;
- `input.sigmoid()`: the attribute is read, then Tensor.sigmoid's signatures parse;
- `cond and step`: the step applies only where `cond` holds (a branch PyTorch takes);
- an expression giving an exception instance: that exception (a Python-level check).

The door (`door`) runs ember's function first and walks the steps only after it raised,
so the success path pays one frame; a parameter whose C++ type ember's function would
quietly accept from a wrong class (`log_input=1.5` as a bool) is screened by class
before the call, and only an unusual class costs the walk. When every step passes, the
original error was a genuine one and is re-raised.
"""
import ast as _ast
import inspect as _inspect

from . import _arguments
from ._tensor import Tensor as _Tensor

__all__ = ["STEPS", "FUNCTIONAL_STEPS", "door", "wire"]

_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                "donot_use_mm_for_euclid_dist")

# Steps shared by the losses: the legacy size_average/reduce flags are read first, else
# the reduction's name is looked up (a ValueError for an unknown one)
_LEGACY = ("(size_average is not None or reduce is not None) and _legacy(size_average, reduce)",
           "size_average is None and reduce is None and _bad_reduction(reduction)")
_SIZES = ("target.size()", "input.size()")
_BROADCAST = "broadcast_tensors([input, target])"
_WEIGHT = ("weight is not None and weight.size", "weight is not None and weight.size() != "
           "input.size() and ValueError('Weights and input must have the same size.')")
_MARGIN = "margin <= 0 and ValueError(f'margin must be greater than 0, got {margin}')"



def _unpool(n):
    """The unpools size their output in Python first, from input.size()'s last n sizes."""
    return ("input.size()", f"_raises(lambda: input.size()[-{n}])",
            "output_size is not None and _raises(lambda: len(output_size))",
            f"output_size is None and _unpool_size(input, kernel_size, stride, padding, {n})")


def _unpool_size(input, kernel_size, stride, padding, n):
    """The ValueError of an unpool's default output size below zero."""
    def expand(value):
        return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
    kernel = expand(kernel_size)
    step = kernel if stride is None else expand(stride)
    pad = expand(padding)
    shape = input.size()
    for d in range(n):
        size = (shape[d - n] - 1) * step[d] + kernel[d] - 2 * pad[d]
        if size < 0:
            return ValueError("max_unpooling: output_size must contain non-negative spatial "
                              f"dimensions, but got output_size[{d}]={size}")
    return None


# ember.* functions (and Tensor methods) that are Python in PyTorch
STEPS = {
    "einsum": ("isinstance(args[0], str) and len(args) > 1 and not (len(args) == 2 and "
               "isinstance(args[1], (list, tuple))) and einsum(args[0], args[1:])",),
    "tensordot": (
        "not isinstance(dims, (tuple, list, Tensor, int)) and RuntimeError('tensordot expects "
        "dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two "
        "lists, but got dims=' + f'{dims}')",
        "isinstance(dims, int) and dims < 0 and RuntimeError(f'tensordot expects dims >= 0, "
        "but got dims={dims}')",
        "isinstance(dims, (tuple, list)) and _unpack_two(dims)",
        "isinstance(dims, int) and a.dim", "isinstance(dims, int) and b.dim",
        "tensordot(a, b, [], [])"),
    "cdist": ("not (isinstance(compute_mode, str) and compute_mode in _CDIST_MODES) and "
              "ValueError(f'{compute_mode} is not a valid value for compute_mode')",
              "cdist(x1, x2, p, None)"),
    "chain_matmul": ("chain_matmul(matrices)",),
    "block_diag": ("block_diag(tensors)",),
    "cartesian_prod": ("cartesian_prod(tensors)",),
    "broadcast_tensors": ("broadcast_tensors(tensors)",),
    "atleast_1d": ("atleast_1d(tensors[0] if len(tensors) == 1 else tensors)",),
    "atleast_2d": ("atleast_2d(tensors[0] if len(tensors) == 1 else tensors)",),
    "atleast_3d": ("atleast_3d(tensors[0] if len(tensors) == 1 else tensors)",),
    "norm": ("input.layout", "(p is None or not isinstance(p, str) or p == 'fro' and "
             "(dim is None or isinstance(dim, int) or len(dim) <= 2)) and linalg_vector_norm("
             "input, 2 if p is None or isinstance(p, str) else p, dim, keepdim, dtype=dtype)"),
    "Tensor.norm": ("(p is None or not isinstance(p, str) or p == 'fro' and "
                    "(dim is None or isinstance(dim, int) or len(dim) <= 2)) and "
                    "linalg_vector_norm(self, 2 if p is None or isinstance(p, str) else p, dim, "
                    "keepdim, dtype=dtype)",),
    "unravel_index": ("indices.is_complex",),
    "lu": ("_raises(lambda: not get_infos)",
           "_lu_with_info(A, pivot=pivot, check_errors=not get_infos)"),
    "Tensor.lu": ("_raises(lambda: not get_infos)",
                  "_lu_with_info(self, pivot=pivot, check_errors=not get_infos)"),
}

# nn.functional names that are Python in PyTorch
FUNCTIONAL_STEPS = {
    "celu": ("inplace and celu_(input, alpha)", "celu(input, alpha)"),
    "elu": ("inplace and elu_(input, alpha)", "elu(input, alpha)"),
    "leaky_relu": ("inplace and leaky_relu_(input, negative_slope)",
                   "leaky_relu(input, negative_slope)"),
    "rrelu": ("inplace and rrelu_(input, lower, upper, training)",
              "rrelu(input, lower, upper, training)"),
    "threshold": ("inplace and threshold_(input, threshold, value)",
                  "threshold(input, threshold, value)"),
    "sigmoid": ("input.sigmoid()",),
    "tanh": ("input.tanh()",),
    "normalize": ("input.norm", "not isinstance(p, str) and linalg_vector_norm(input, 2.0 if p "
                  "is None else p, dim, True)"),
    "layer_norm": ("layer_norm(input, normalized_shape, weight, bias, eps, True)",),
    "rms_norm": ("rms_norm(input, normalized_shape, weight, eps)",),
    "instance_norm": ("use_input_stats and input.size",
                      "instance_norm(input, weight, bias, running_mean, running_var, "
                      "use_input_stats, momentum, eps, True)"),
    "embedding": ("padding_idx is not None and _raises(lambda: padding_idx > 0)",
                  "padding_idx is not None and padding_idx != 0 and weight.size",
                  "max_norm is not None and input.contiguous",
                  "max_norm is not None and weight.detach",
                  "max_norm is not None and embedding_renorm_(weight, input, max_norm, "
                  "norm_type)",
                  "embedding(weight, input, -1 if padding_idx is None else padding_idx, "
                  "scale_grad_by_freq, sparse)"),
    "embedding_bag": ("weight.dtype", "per_sample_weights is not None and input.size",
                      "per_sample_weights is not None and per_sample_weights.size",
                      "weight.dim", "input.dim"),
    "grid_sample": (
        "mode not in ('bilinear', 'nearest', 'bicubic') and ValueError('nn.functional.grid_"
        "sample(): expected mode to be ' + f\"'bilinear', 'nearest' or 'bicubic', but got: "
        "'{mode}'\")",
        "padding_mode not in ('zeros', 'border', 'reflection') and ValueError('nn.functional."
        "grid_sample(): expected padding_mode to be ' + f\"'zeros', 'border', or 'reflection',"
        " but got: '{padding_mode}'\")",
        "grid_sampler(input, grid, 0, 0, False if align_corners is None else align_corners)"),
    "pad": ("pad(input, pad, mode, value)",),
    "kl_div": (_LEGACY[0], "size_average is None and reduce is None and _bad_reduction("
               "reduction, ('batchmean',))", "kl_div(input, target, 1, log_target=log_target)"),
    "nll_loss": _LEGACY + ("nll_loss_nd(input, target, weight, 1, ignore_index)",),
    "cross_entropy": _LEGACY + ("cross_entropy_loss(input, target, weight, 1, ignore_index, "
                                "label_smoothing)",),
    "cosine_embedding_loss": _LEGACY + ("cosine_embedding_loss(input1, input2, target, margin, "
                                        "1)",),
    "hinge_embedding_loss": _LEGACY + ("hinge_embedding_loss(input, target, margin, 1)",),
    "margin_ranking_loss": _LEGACY + ("input1.dim", "input2.dim", "target.dim",
                                      "margin_ranking_loss(input1, input2, target, margin, 1)"),
    "huber_loss": _SIZES + (_BROADCAST,) + _WEIGHT + (
                            "weight is None and _bad_reduction(reduction)",
                            "huber_loss(input, target, 1, delta)"),
    "l1_loss": _SIZES + _LEGACY[:1] + (_BROADCAST,) + _WEIGHT + (
        "weight is None and l1_loss(input, target, 1)",),
    "mse_loss": _SIZES + _LEGACY[:1] + (_BROADCAST,) + _WEIGHT + (
        "weight is None and mse_loss(input, target, 1)",),
    "smooth_l1_loss": _SIZES + _LEGACY[:1] + (_BROADCAST,
                                              "smooth_l1_loss(input, target, 1, beta)"),
    "binary_cross_entropy": _LEGACY + _SIZES + (
        "target.size() != input.size() and ValueError(f'Using a target size ({target.size()}) "
        "that is different to the input size ({input.size()}) is deprecated. Please ensure "
        "they have the same size.')", "weight is not None and weight.size",
                                                "binary_cross_entropy(input, target, weight, "
                                                "1)"),
    "binary_cross_entropy_with_logits": _LEGACY + _SIZES + (
        "target.size() != input.size() and ValueError(f'Target size ({target.size()}) must be "
        "the same as input size ({input.size()})')",
        "binary_cross_entropy_with_logits(input, target, weight, pos_weight, 1)",),
    "multi_margin_loss": _LEGACY + (
        "p != 1 and p != 2 and ValueError('only p == 1 and p == 2 supported')",
        "weight is not None and weight.dim",
        "weight is not None and weight.dim() != 1 and ValueError('weight must be "
        "one-dimensional')",
        "multi_margin_loss(input, target, p, margin, weight, 1)"),
    "multilabel_margin_loss": _LEGACY + ("multilabel_margin_loss(input, target, 1)",),
    "multilabel_soft_margin_loss": _LEGACY[:1] + ("log_sigmoid(input)",),
    "poisson_nll_loss": _LEGACY[:1] + (
        "size_average is None and reduce is None and reduction not in ('none', 'mean', 'sum') "
        "and ValueError(reduction + ' is not a valid value for reduction')",
        "poisson_nll_loss(input, target, log_input, full, eps, 1)"),
    "soft_margin_loss": _LEGACY + ("soft_margin_loss(input, target, 1)",),
    "triplet_margin_loss": _LEGACY + (_MARGIN, "triplet_margin_loss(anchor, positive, negative, "
                                      "margin, p, eps, swap, 1)"),
    "triplet_margin_with_distance_loss": (
        "reduction not in ('mean', 'sum', 'none') and ValueError(f'{reduction} is not a valid "
        "value for reduction')", _MARGIN, "anchor.ndim", "positive.ndim", "negative.ndim"),
    "max_unpool1d": _unpool(1) + ("input.unsqueeze", "indices.unsqueeze",
                                  "max_unpool2d(input, indices, [1, 1])"),
    "max_unpool2d": _unpool(2) + ("max_unpool2d(input, indices, [1, 1])",),
    "max_unpool3d": _unpool(3) + ("max_unpool3d(input, indices, [1, 1, 1], [1, 1, 1], "
                                  "[0, 0, 0])",),
    "ctc_loss": ("_bad_reduction(reduction)", "ctc_loss(log_probs, targets, input_lengths, "
                 "target_lengths, blank, 1, zero_infinity)"),
}

_REDUCTIONS = ("none", "mean", "sum", "elementwise_mean")


def _legacy(size_average, reduce):
    """What PyTorch's legacy size_average/reduce translation raises: it takes the truth
    of each flag (a tensor of several values, or none, is refused there)."""
    try:
        if (True if size_average is None else size_average) and (True if reduce is None
                                                                 else reduce):
            return None
    except Exception as error:  # noqa: BLE001 - the error is the answer
        return error
    try:
        bool(True if reduce is None else reduce)
    except Exception as error:  # noqa: BLE001
        return error
    return None


def _bad_reduction(reduction, extra=()):
    if isinstance(reduction, str) and (reduction in _REDUCTIONS or reduction in extra):
        return None
    return ValueError(f"{reduction} is not a valid value for reduction")


def _unpack_two(value):
    """Python's own error for `first, second = value`, or None."""
    try:
        first, second = value   # noqa: F841 - the unpacking is the check
    except Exception as error:  # noqa: BLE001
        return error
    return None


def _raises(thunk):
    try:
        thunk()
    except Exception as error:  # noqa: BLE001
        return error
    return None


# What a step's expression may name besides the function's parameters
_NAMES = {"_CDIST_MODES": _CDIST_MODES, "_legacy": _legacy, "_bad_reduction": _bad_reduction,
          "_unpool_size": _unpool_size, "_raises": _raises, "_unpack_two": _unpack_two,
          "Tensor": _Tensor,
          "isinstance": isinstance, "len": len, "bool": bool, "str": str, "int": int,
          "list": list, "tuple": tuple, "min": min, "ValueError": ValueError,
          "RuntimeError": RuntimeError}


class _Step:
    """One parsed step: an optional condition, then an attribute read, a parse, or an
    exception to raise."""
    __slots__ = ("condition", "kind", "owner", "attribute", "op", "args", "names", "keywords",
                 "keyword_names", "value")

    def __init__(self, text):
        node = _ast.parse(text, mode="eval").body
        self.condition = None
        if isinstance(node, _ast.BoolOp) and isinstance(node.op, _ast.And):
            self.condition = _compiled(_ast.BoolOp(_ast.And(), node.values[:-1])
                                       if len(node.values) > 2 else node.values[0])
            node = node.values[-1]
        self.owner = self.attribute = self.op = self.value = None
        self.args, self.names, self.keywords, self.keyword_names = (), (), (), ()
        if isinstance(node, _ast.Attribute):
            self.kind, self.owner, self.attribute = "attribute", _compiled(node.value), node.attr
        elif isinstance(node, _ast.Call) and isinstance(node.func, _ast.Name) and \
                node.func.id not in _NAMES:
            self.kind, self.op = "parse", node.func.id
            self._arguments(node)
        elif isinstance(node, _ast.Call) and isinstance(node.func, _ast.Attribute):
            self.kind, self.op = "method", "Tensor." + node.func.attr
            self.owner, self.attribute = _compiled(node.func.value), node.func.attr
            self._arguments(node)
        else:
            self.kind, self.value = "raise", _compiled(node)

    def _arguments(self, node):
        self.args = tuple(_compiled(arg) for arg in node.args)
        self.names = tuple(arg.id if isinstance(arg, _ast.Name) else None for arg in node.args)
        self.keywords = tuple((k.arg, _compiled(k.value)) for k in node.keywords)
        self.keyword_names = tuple((k.arg, k.value.id) for k in node.keywords
                                   if isinstance(k.value, _ast.Name))

    def error(self, bound):
        """The exception PyTorch raises at this step for these arguments, or None."""
        names = dict(_NAMES)
        names.update(bound)
        try:
            if self.condition is not None and not eval(self.condition, names):
                return None
            if self.kind == "raise":
                found = eval(self.value, names)
                return found if isinstance(found, Exception) else None
            if self.kind in ("attribute", "method"):
                owner = eval(self.owner, names)
                if not hasattr(owner, self.attribute):
                    return AttributeError(f"'{_arguments.typename(owner)}' object has no "
                                          f"attribute '{self.attribute}'")
                if self.kind == "attribute":
                    return None
                found = getattr(owner, self.attribute)
                if not callable(found):   # a NumPy scalar's .size is a number
                    return TypeError(f"'{_arguments.typename(found)}' object is not callable")
                if not isinstance(owner, _Tensor):
                    return None
            args = tuple(eval(arg, names) for arg in self.args)
            kwargs = {key: eval(value, names) for key, value in self.keywords}
        except Exception:   # noqa: BLE001 - a step that does not apply to these arguments
            return None
        return _arguments.explain(self.op, args, kwargs)


def _compiled(node):
    return compile(_ast.fix_missing_locations(_ast.Expression(node)), "<step>", "eval")


def _pytorch_error(signature, steps, args, kwargs):
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    values = bound.arguments
    for step in steps:
        error = step.error(values)
        if error is not None:
            return error
    return None


def _screens(signature, steps):
    """(position, keyword, usual classes) of each parameter a parse step hands straight
    to a C++ parameter of a screenable type (bool, int, float, Number)."""
    found = []
    names = list(signature.parameters)
    for step in steps:
        if step.kind != "parse":
            continue
        parsed = _arguments._PARSED.get(step.op) or _arguments._parsed(step.op)
        if parsed is None or len(parsed) != 1:
            continue
        params = parsed[0].params
        by_name = {param.name: param for param in params}
        pairs = [(params[i], name) for i, name in enumerate(step.names) if i < len(params)]
        pairs += [(by_name[key], name) for key, name in step.keyword_names if key in by_name]
        for param, name in pairs:
            if name not in names:
                continue
            usual = _arguments._usual_for(param)
            if isinstance(usual, frozenset) and param.type_name in _SCREENED:
                found.append((names.index(name), name, usual))
    return tuple(found)


_MISSING = object()
_SCREENED = frozenset({"bool", "int", "SymInt", "float", "Number"})


def door(function, steps_text):
    """`function` behind a try that raises PyTorch's error for a wrong-typed argument."""
    signature = _inspect.signature(function)
    steps = tuple(_Step(text) for text in steps_text)
    screens = _screens(signature, steps)

    def wrapped(*args, **kwargs):
        for position, name, usual in screens:
            value = args[position] if position < len(args) else kwargs.get(name, _MISSING)
            if value is not _MISSING and value.__class__ not in usual:
                error = _pytorch_error(signature, steps, args, kwargs)
                if error is not None:
                    raise error
                break
        try:
            return function(*args, **kwargs)
        except Exception:
            error = _pytorch_error(signature, steps, args, kwargs)
            if error is not None:
                raise error from None
            raise
    wrapped.__name__, wrapped.__qualname__ = function.__name__, function.__qualname__
    wrapped.__doc__, wrapped.__wrapped__ = function.__doc__, function
    wrapped.__module__ = function.__module__
    wrapped.__signature__ = signature
    wrapped._python_level = True
    return wrapped


def wire(namespace, table):
    """Put a `door` around each `namespace[name]` for `name` in `table` (idempotent)."""
    for name, steps in table.items():
        function = namespace.get(name)
        if function is not None and not getattr(function, "_python_level", False):
            namespace[name] = door(function, steps)


def wire_methods(cls):
    """The Tensor methods that are Python in PyTorch ("Tensor.norm")."""
    for key, steps in STEPS.items():
        if key.startswith("Tensor."):
            name = key[len("Tensor."):]
            function = cls.__dict__.get(name)
            if function is not None and not getattr(function, "_python_level", False):
                setattr(cls, name, door(function, steps))
