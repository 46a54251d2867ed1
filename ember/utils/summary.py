"""`summary(model, input_size)`: a table of a model's layers, shapes and parameter counts.

In the manner of torchinfo: one forward pass on a dummy input, watched by forward hooks
on every submodule, gives each layer's output shape in the order layers run; parameter
counts come from the modules themselves. The memory estimate is the one a learner needs
to see why a batch does not fit: parameters, the input, and the activations a training
step keeps (each leaf layer's output, counted twice: once kept for backward, once as
its gradient).
"""
from ..autograd.grad_mode import no_grad
from ..ops.creation import zeros
from ..ops.random import randn
from .._dtype import float32

__all__ = ["summary", "ModelSummary", "LayerRow"]

_WIDTHS = (40, 25, 15)


class LayerRow:
    """One row: a module call, its hierarchical name, its output shape and parameters."""

    __slots__ = ("name", "type", "depth", "output_shape", "num_params", "shows_children",
                 "output_bytes", "is_leaf")

    def __init__(self, name, module, depth):
        self.name = name
        self.type = type(module).__name__
        self.depth = depth
        self.output_shape = None
        self.num_params = 0
        self.shows_children = False
        self.output_bytes = 0
        self.is_leaf = not any(True for _ in module.children())

    def __repr__(self):
        return (f"LayerRow({self.name!r}, {self.type}, output_shape={self.output_shape}, "
                f"num_params={self.num_params})")


class ModelSummary:
    """What `summary` found; `str()` of it is the printed table."""

    def __init__(self, rows, total, trainable, input_bytes, activation_bytes, params_bytes):
        self.rows = rows
        self.total_params = total
        self.trainable_params = trainable
        self.non_trainable_params = total - trainable
        self.input_bytes = input_bytes
        self.forward_backward_bytes = 2 * activation_bytes
        self.params_bytes = params_bytes
        self.total_bytes = input_bytes + 2 * activation_bytes + params_bytes

    def __str__(self):
        rule = "=" * sum(_WIDTHS)
        lines = [rule, _columns("Layer (type)", "Output Shape", "Param #"), rule]
        for row in self.rows:
            label = "  " * row.depth + (f"{row.name} ({row.type})" if row.name else row.type)
            params = "--" if row.num_params == 0 else f"{row.num_params:,}"
            shape = "--" if row.output_shape is None else str(row.output_shape)
            lines.append(_columns(label, shape, params))
        lines += [rule,
                  f"Total params: {self.total_params:,}",
                  f"Trainable params: {self.trainable_params:,}",
                  f"Non-trainable params: {self.non_trainable_params:,}",
                  "-" * sum(_WIDTHS),
                  f"Input size (MB): {self.input_bytes / 1e6:.2f}",
                  f"Forward/backward pass size (MB): {self.forward_backward_bytes / 1e6:.2f}",
                  f"Params size (MB): {self.params_bytes / 1e6:.2f}",
                  f"Estimated Total Size (MB): {self.total_bytes / 1e6:.2f}",
                  rule]
        return "\n".join(lines)

    __repr__ = __str__


def _columns(*cells):
    return "".join(str(cell).ljust(width) for cell, width in zip(cells, _WIDTHS)).rstrip()


def summary(model, input_size=None, input_data=None, dtypes=None, device=None, depth=3,
            verbose=1):
    """Run `model` once on a dummy input and tabulate its layers; returns a `ModelSummary`.

    `input_size` is one shape (batch included) or a list of shapes, one per forward
    argument; or give `input_data` (a tensor, or a list/tuple of forward arguments).
    `dtypes` lists one dtype per input (float32 by default; integer inputs are zeros,
    as embedding indices must be in range). Rows deeper than `depth` are folded into
    their parent. `verbose=0` returns without printing.
    """
    inputs = _inputs(input_size, input_data, dtypes, device)
    rows = []
    handles = []
    names = {module: name for name, module in model.named_modules()}

    def before(module, args):
        name = names.get(module, "")
        row_depth = 0 if module is model else name.count(".") + 1
        rows.append(LayerRow(name, module, row_depth))
        stack.append((module, rows[-1]))

    def after(module, args, output):
        _, row = stack.pop()
        row.output_shape = _shape_of(output)
        row.output_bytes = _bytes_of(output)

    stack = []
    for module in names:
        handles.append(module.register_forward_pre_hook(before))
        handles.append(module.register_forward_hook(after))
    try:
        with no_grad():
            model(*inputs)
    finally:
        for handle in handles:
            handle.remove()
    activation_bytes = sum(row.output_bytes for row in rows if row.is_leaf)
    rows = _fold(rows, model, names, depth)
    parameters = list(model.parameters())
    total = sum(p.numel() for p in parameters)
    trainable = sum(p.numel() for p in parameters if p.requires_grad)
    result = ModelSummary(rows, total, trainable, sum(_bytes_of(x) for x in inputs),
                          activation_bytes, sum(p.nbytes for p in parameters))
    if verbose:
        print(result)
    return result


def _fold(rows, model, names, depth):
    """Keep rows down to `depth`; a shown row counts its own parameters when its children
    are shown too, and everything below it otherwise (so each parameter is counted once)."""
    modules = {name: module for module, name in names.items()}
    kept = [row for row in rows if row.depth <= depth]
    for row in kept:
        module = model if row.depth == 0 else modules[row.name]
        row.shows_children = not row.is_leaf and row.depth < depth
        recurse = not row.shows_children
        row.num_params = sum(p.numel() for p in module.parameters(recurse=recurse))
    return kept


def _inputs(input_size, input_data, dtypes, device):
    if input_data is not None:
        if hasattr(input_data, "grad_fn"):
            return [input_data]
        return list(input_data)
    if input_size is None:
        raise ValueError("summary() needs input_size or input_data")
    sizes = [input_size] if all(isinstance(n, int) for n in input_size) else list(input_size)
    dtypes = list(dtypes) if dtypes is not None else [float32] * len(sizes)
    return [randn(*size, dtype=dtype, device=device) if dtype.is_floating_point
            else zeros(*size, dtype=dtype, device=device)
            for size, dtype in zip(sizes, dtypes)]


def _shape_of(output):
    if hasattr(output, "grad_fn"):
        return list(output.shape)
    if isinstance(output, (tuple, list)):
        shapes = [_shape_of(item) for item in output]
        return shapes if any(shape is not None for shape in shapes) else None
    return None


def _bytes_of(output):
    if hasattr(output, "grad_fn"):
        return output.nbytes
    if isinstance(output, (tuple, list)):
        return sum(_bytes_of(item) for item in output)
    return 0
