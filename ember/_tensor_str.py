"""PyTorch's tensor printing rules: `repr(t)`, `str(t)` and `set_printoptions`.

The output must match PyTorch character for character (with `ember.` for
`torch.`), so the rules below follow `torch/_tensor_str.py`: one formatter
chosen from the printed values decides integer-looking floats (`1.`), fixed
four decimals (`1.5000`) or scientific notation, and pads every element to a
common width; long rows wrap at `linewidth`; tensors past `threshold` elements
show only `edgeitems` at each end of every dimension.

Unlike PyTorch, which formats element by element through tensor indexing, we
first cut the summarised edges out of the array (so a 1000x1000 tensor formats
36 numbers, not a million) and format those with plain Python floats, which
round exactly as PyTorch's `'{:.4f}'.format(value.item())` does.

    >>> import ember
    >>> ember.tensor([1.0, 2.5])
    tensor([1.0000, 2.5000])
    >>> ember.tensor([[1, 2], [3, 40]])
    tensor([[ 1,  2],
            [ 3, 40]])
"""
import contextlib
import math

from . import _dtype
from ._backend import numpy as np

__all__ = ["set_printoptions"]


class _PrinterOptions:
    """The process-wide print options; PyTorch's defaults."""

    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrinterOptions()

# The options a profile sets, in the order of each profile's row below.
_NUMERIC_OPTIONS = ("precision", "threshold", "edgeitems", "linewidth")
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Set options for printing tensors, as `torch.set_printoptions` does.

    `profile` ('default', 'short', 'full') resets the four numeric options first;
    explicit arguments then override it. `sci_mode` is always replaced (None lets
    the formatter choose), exactly as in PyTorch.
    """
    # A name not among the profiles is ignored, as PyTorch ignores it.
    if isinstance(profile, str) and profile in _PROFILES:
        for name, value in zip(_NUMERIC_OPTIONS, _PROFILES[profile]):
            setattr(PRINT_OPTS, name, value)
    for name, value in zip(_NUMERIC_OPTIONS, (precision, threshold, edgeitems, linewidth)):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that `set_printoptions(**options)` accepts."""
    return {name: getattr(PRINT_OPTS, name) for name in _PrinterOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    """Temporarily change the print options (same arguments as `set_printoptions`)."""
    saved = get_printoptions()
    try:
        set_printoptions(**kwargs)
        yield
    finally:
        set_printoptions(**saved)


# ---------------------------------------------------------------- element formatting
def _format_floats(values, opts):
    """PyTorch's _Formatter for a float array: the element strings, unpadded, and the width.

    The mode is decided from the finite nonzero values only: all whole numbers
    give int mode (`3.`), a max/min ratio over 1000, a max over 1e8 or a min
    under 1e-4 give scientific notation. nan, inf and zeros never widen a column.
    """
    flat = values.reshape(-1)
    counted = np.isfinite(flat) & (flat != 0)
    nonzero = flat[counted]
    int_mode, sci_mode = True, False
    if nonzero.size:
        int_mode = bool((nonzero == np.ceil(nonzero)).all())
        if opts.sci_mode is None:
            magnitude = np.abs(nonzero)
            low, high = float(magnitude.min()), float(magnitude.max())
            sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        else:
            sci_mode = opts.sci_mode
    numbers = flat.tolist()
    if sci_mode:
        spec = "{:.%de}" % opts.precision
        strings = [spec.format(v) for v in numbers]
    elif int_mode:
        strings = [f"{v:.0f}." if math.isfinite(v) else f"{v:.0f}" for v in numbers]
    else:
        spec = "{:.%df}" % opts.precision
        strings = [spec.format(v) for v in numbers]
    width = 1
    if nonzero.size:
        lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
        width = max(1, int(lengths[counted].max()))
    return strings, width


def _format_elements(values, is_float, opts):
    """Every element as a string padded to the formatter's common width."""
    if is_float:
        strings, width = _format_floats(values, opts)
    else:
        strings = list(map(str, values.reshape(-1).tolist()))
        width = max(1, max(map(len, strings)))
    return [s.rjust(width) for s in strings], width


# ---------------------------------------------------------------- layout
def _summarized(data, edgeitems, xp):
    """Cut out the first and last `edgeitems` along every dimension longer than 2*edgeitems.

    Returns the (smaller) array and, per dimension, whether it was cut.
    """
    cut = []
    for axis, size in enumerate(data.shape):
        if size > 2 * edgeitems:
            head = (slice(None),) * axis + (slice(None, edgeitems),)
            tail = (slice(None),) * axis + (slice(size - edgeitems, None),)
            data = xp.concatenate((data[head], data[tail]), axis=axis)
            cut.append(True)
        else:
            cut.append(False)
    return data, cut


def _vector_str(cells, start, count, cut, indent, width, opts):
    """One row: `count` cells from `start`, " ..." in the middle when cut, wrapped at linewidth."""
    row = cells[start:start + count]
    if cut:
        half = opts.edgeitems
        row = row[:half] + [" ..."] + row[half:]
    per_line = max(1, math.floor((opts.linewidth - indent) / (width + 2)))
    lines = [", ".join(row[i:i + per_line]) for i in range(0, len(row), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block_str(cells, shape, cuts, start, indent, width, opts):
    """The nested brackets of the (summarised) block whose first cell is `start`."""
    ndim = len(shape)
    if ndim == 1:
        return _vector_str(cells, start, shape[0], cuts[0], indent, width, opts)
    step = math.prod(shape[1:])
    rows = [_block_str(cells, shape[1:], cuts[1:], start + i * step, indent + 1, width, opts)
            for i in range(shape[0])]
    if cuts[0]:
        rows.insert(opts.edgeitems, "...")
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _host_array(data):
    """A NumPy array PyTorch's values print from: floats as float64, others as they are."""
    if not isinstance(data, np.ndarray):
        data = data.get()  # CuPy: only the already-summarised cells cross to the host
    if data.dtype.kind == "f" or data.dtype.name == "bfloat16":
        data = data.astype(np.float64)
    return data


def _tensor_str(tensor, indent):
    """The bracketed body for a non-empty tensor."""
    opts = PRINT_OPTS
    data = tensor._data
    summarize = data.size > opts.threshold
    if summarize and data.ndim and not opts.edgeitems:
        return "[...]"
    cuts = [False] * data.ndim
    if summarize:
        data, cuts = _summarized(data, opts.edgeitems, tensor._device.xp)
    values = _host_array(data)
    cells, width = _format_elements(values, tensor.dtype.is_floating_point, opts)
    if values.ndim == 0:
        return cells[0]
    return _block_str(cells, values.shape, cuts, 0, indent, width, opts)


# ---------------------------------------------------------------- repr
def _add_suffixes(text, suffixes, indent):
    """Append `, name=value` suffixes, moving one to a new line when it would pass linewidth."""
    parts = [text]
    # PyTorch's own arithmetic (its +1 over-counts by two on a single line); matched on purpose.
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _is_plain(cls):
    # PyTorch prints Parameter as a plain `tensor(...)`; other subclasses by their name.
    return cls.__name__ in ("Tensor", "Parameter") and cls.__module__.startswith("ember.")


def tensor_repr(tensor, tensor_contents=None):
    """`repr(tensor)`: PyTorch's `tensor(...)` text with its suffixes."""
    prefix = "tensor(" if _is_plain(type(tensor)) else type(tensor).__name__ + "("
    indent = len(prefix)
    suffixes = []
    device = tensor._device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    dtype = tensor.dtype
    default_float = _dtype.get_default_dtype()
    shape = tensor._data.shape
    if device.type == "meta":  # no values to print: the shape stands in for them
        suffixes.append(f"size={shape}")
        if dtype is not default_float:
            suffixes.append(f"dtype={dtype!r}")
        body = "..."
    elif tensor._data.size == 0:
        if len(shape) != 1:
            suffixes.append("size=" + str(shape))
        if dtype is not default_float:  # nothing to infer the kind from, so always shown
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append("size=" + str(shape))
        if dtype is not default_float and dtype is not _dtype.int64 and dtype is not _dtype.bool:
            suffixes.append(f"dtype={dtype!r}")
        body = None
    if tensor_contents is not None:
        body = tensor_contents
    elif body is None:
        body = _tensor_str(tensor, indent)
    grad_fn = tensor.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name().rpartition('::')[2]}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
