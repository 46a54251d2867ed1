"""Explanations for a learner's common mistakes, attached to errors as PEP 678 notes.

ember raises PyTorch's exception types with PyTorch's exact text, which names what
broke but rarely why. Python prints an exception's notes under its message, so a
raise site adds one here: `raise _diagnose.noted(RuntimeError(text), "kind", facts...)`.
The note names the cause with the actual values (shapes aligned from the right with
the clashing dim marked, dtypes, devices, the layer's path inside the model) and the
usual fix.

Everything here runs only after something failed: no op pays for it on success.
`noted` never raises itself; a note that cannot be built is left out, so the
original error always reaches the user unchanged. The module imports nothing from
ember (facts arrive as shapes, dtypes and duck-typed tensors), so every layer may
call it.
"""
import traceback

__all__ = ["noted", "in_module", "record_inplace"]


def noted(error, kind, **facts):
    """Add the explanation of `kind` built from `facts` to `error`; return `error`."""
    try:
        text = _BUILDERS[kind](**facts)
    except Exception:  # a diagnosis must never hide the error it explains
        return error
    if text:
        _add_note(error, text)
    return error


def _add_note(error, text):
    """error.add_note(text), also on Python 3.10 (which keeps, but does not print, notes)."""
    notes = getattr(error, "__notes__", None)
    if notes is None:
        notes = error.__notes__ = []
    notes.append(text)


# ---------------------------------------------------------------- pictures
def _dims(shape):
    return [int(s) for s in shape]


def _name(dtype):
    """'float32' for an ember dtype, a NumPy dtype or a string."""
    return str(getattr(dtype, "name", dtype))


def _a(word):
    """'an int64', 'a float32'."""
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _torch_dtype(dtype):
    return "torch." + _name(dtype)


def aligned(rows, marked=None):
    """Shapes right-aligned one per line, with `^` under the dim `marked` (from the right).

    >>> print(aligned([("a", (8, 1, 5)), ("b", (7, 3))], marked=0))
      a: [8, 1, 5]
      b: [   7, 3]
                ^
    """
    ndim = max((len(shape) for _, shape in rows), default=0)
    width = max((len(str(s)) for _, shape in rows for s in shape), default=1)
    label_width = max(len(label) for label, _ in rows)
    lines = []
    for label, shape in rows:
        cells = [" " * width] * (ndim - len(shape)) + [str(s).rjust(width) for s in shape]
        joined = ", ".join(cells)
        if len(shape) < ndim:  # blank the separators left of the first real dim
            blank = (width + 2) * (ndim - len(shape))
            joined = " " * blank + joined[blank:]
        lines.append(f"  {label.rjust(label_width)}: [{joined}]")
    if marked is not None:
        column = ndim - 1 - marked
        offset = 2 + label_width + 3 + column * (width + 2) + width - 1
        lines.append(" " * offset + "^")
    return "\n".join(lines)


# ---------------------------------------------------------------- shapes
def _broadcast(a, b, op=None):
    a, b = _dims(a), _dims(b)
    ndim = max(len(a), len(b))
    pa, pb = [1] * (ndim - len(a)) + a, [1] * (ndim - len(b)) + b
    bad = next(i for i in range(ndim - 1, -1, -1)
               if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1)
    from_right = ndim - 1 - bad
    text = (f"Broadcasting aligns the shapes from the right; each pair of sizes must be "
            f"equal or one of them 1. Dim {bad} (dim {-from_right - 1}) has {pa[bad]} against "
            f"{pb[bad]}:\n"
            + aligned([("a", a), ("b", b)], marked=from_right))
    return text + ("\nFix: make those sizes agree, or insert a size-1 dim where the smaller "
                   "tensor should repeat (x.unsqueeze(d) or x[:, None]).")


def _matmul(a, b, operation="mm", names=("mat1", "mat2")):
    a, b = _dims(a), _dims(b)
    first, second = names
    inner = b[-2] if len(b) > 1 else b[0]
    rows = [(first, a), (second, b)]
    if a[-1] == inner:  # only the batch sizes of bmm can differ then
        return (f"{operation} pairs the batches one to one: {first} has {a[0]} matrices, "
                f"{second} has {b[0]}:\n" + aligned(rows, marked=len(a) - 1)
                + "\nFix: give both the same batch size (expand or repeat the smaller).")
    text = (f"{operation}: the inner dims must agree, the last dim of {first} ({a[-1]}) and "
            f"the {'first' if len(b) == 1 else 'second-to-last'} dim of {second} "
            f"({inner}):\n" + aligned(rows))
    t = ".T" if max(len(a), len(b)) == 2 else ".mT"
    if len(b) > 1 and a[-1] == b[-1]:
        text += (f"\n{first} @ {second}{t} would fit: {second} looks transposed "
                 f"({_list(b[-2:])} -> {_list(b[:-3:-1])}).")
    elif len(a) > 1 and a[-2] == inner:
        text += f"\n{first}{t} @ {second} would fit: {first} looks transposed."
    elif len(a) > 1 and len(b) > 1 and a[-2] == b[-1] and a[-1] != b[-2]:
        text += f"\n{second} @ {first} would fit: the operands look swapped."
    if operation == "mm":
        text += ("\n(nn.Linear and F.linear multiply the input, its leading dims flattened, "
                 "as mat1 by the transposed weight [in_features, out_features] as mat2.)")
    return text + ("\nFix: an (n x k) matrix multiplies a (k x m) one; check which operand "
                   "has the wrong size or orientation.")


def _view_stride(shape, stride, target):
    shape, stride = _dims(shape), _dims(stride)
    return (f"view never copies: it reinterprets the same memory, so the new shape must be "
            f"reachable by walking the existing strides. This tensor has shape "
            f"{_list(shape)} and strides {_list(stride)} (elements skipped per step along "
            f"each dim), which is not contiguous (a transpose, permute, expand or step "
            f"slice made it so), so its elements are not laid out in the order "
            f"{_list(target)} would read them.\nFix: use .reshape({_args(target)}) (copies "
            f"only when needed), or .contiguous().view({_args(target)}).")


def _numel(target, numel):
    target = _dims(target)
    known = 1
    for s in target:
        if s != -1:
            known *= s
    text = f"The tensor has {numel} elements in all; the requested shape {_list(target)} "
    if -1 in target:
        text += (f"fixes {known} elements per step of the -1 dim, and {numel} is not a "
                 f"multiple of {known}.")
    else:
        text += f"holds {known}."
    return text + ("\nFix: the product of the new sizes must equal the number of elements; "
                   "put -1 in at most one place to let it be inferred.")


def _list(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _args(shape):
    return ", ".join(str(s) for s in shape)


def _cat(shapes, dim, index):
    rows = [(f"tensor {i}", s) for i, s in enumerate(shapes)]
    first, bad = _dims(shapes[0]), _dims(shapes[index])
    clash = next(d for d in range(len(first)) if d != dim and first[d] != bad[d])
    return (f"cat joins along dim {dim}, so every other dim must match tensor 0; tensor "
            f"{index} differs at dim {clash} ({bad[clash]} vs {first[clash]}):\n"
            + aligned(rows, marked=len(first) - 1 - clash)
            + f"\nFix: make tensor {index} size {first[clash]} at dim {clash}, or join "
              f"along dim {clash} instead.")


def _stack(shapes, index):
    first, bad = _dims(shapes[0]), _dims(shapes[index])
    rows = [(f"tensor {i}", s) for i, s in enumerate(shapes)]
    marked = None
    if len(first) == len(bad):
        clash = next(d for d in range(len(first)) if first[d] != bad[d])
        marked = len(first) - 1 - clash
    return ("stack puts the tensors side by side along a new dim, so all must have the "
            f"same shape; tensor {index} is {_list(bad)}, tensor 0 is {_list(first)}:\n"
            + aligned(rows, marked=marked)
            + "\nFix: make the shapes equal, or use torch.cat to join along an existing dim "
              "(where only that dim may differ).")


# ---------------------------------------------------------------- dtypes and devices
def _dtype_mismatch(input_dtype, parameter_dtype, operation="mm"):
    text = (f"{operation}: both operands must share one dtype, but the input is "
            f"{_name(input_dtype)} and the other operand (usually a layer's weight) is "
            f"{_name(parameter_dtype)}.")
    return text + _dtype_fix(input_dtype, parameter_dtype)


def _dtype_fix(input_dtype, parameter_dtype):
    input_name, parameter_name = _name(input_dtype), _name(parameter_dtype)
    if input_name.startswith(("int", "uint", "bool")):
        fix = (f"\nFix: convert the input with x.float() (or create it with "
               f"dtype={_torch_dtype(parameter_dtype)}); if these are class or token ids, "
               "an nn.Embedding layer turns them into float vectors.")
    else:
        fix = (f"\nFix: convert the input with x.to({_torch_dtype(parameter_dtype)})"
               f"{' (x.float())' if parameter_name == 'float32' else ''}, or create it "
               f"with dtype={_torch_dtype(parameter_dtype)} (NumPy arrays are float64 by "
               f"default, and torch.from_numpy keeps that); or convert the model with "
               f"model.to({_torch_dtype(input_dtype)}).")
    return fix


def _device(first, second, names=None):
    names = names or ("the first tensor", "the second tensor")
    text = (f"All tensors of one op must live on one device: {names[0]} is on {first}, "
            f"{names[1]} is on {second}.")
    if "meta" in (str(first), str(second)):
        return text + _META_EXPLAINED + _META_FIX
    return text + (f"\nFix: move one of them with .to({str(first)!r}) or "
                   f".to({str(second)!r}); for a model, model.to(device) moves every "
                   "parameter and buffer, and inputs must follow it.")


_META_EXPLAINED = (" A meta tensor has a shape, a dtype and strides but no values, so it "
                   "cannot meet a tensor that has them.")
_META_FIX = ("\nFix: a model built on the meta device (device='meta', `with "
             "torch.device('meta')`) gets memory with model.to_empty(device='cpu') and then its "
             "values: reset_parameters() on each layer, or "
             "model.load_state_dict(state, assign=True); a meta input has no values to move, so "
             "create it where the model lives.")


def _layer_devices(module, x, told=""):
    """The layer's parameters and buffers that live apart from its input, each by its path
    (`\x00` stands for the layer's path, filled in as the error leaves the model)."""
    device = getattr(x, "device", None)
    apart = [(name, tensor.device)
             for name, tensor in list(module.named_parameters(recurse=False))
             + list(module.named_buffers(recurse=False))
             if tensor is not None and tensor.device != device]
    if device is None or not apart:
        return ""
    listed = ", ".join(f"\x00{name} on {where}" for name, where in apart)
    text = f"The input is on {device}; {listed}."
    fix = "" if _META_FIX in told else _META_FIX
    if "meta" in [str(where) for _, where in apart]:
        return (text + " This layer was built on the meta device: its parameters have shapes "
                "but no values." + fix)
    if str(device) == "meta":
        return text + " The input is a meta tensor: it has a shape but no values." + fix
    return text + (f"\nFix: model.to({str(device)!r}) moves every parameter and buffer, or "
                   f"move the input with x.to({str(apart[0][1])!r}).")


def _integer_reduction(operation, dtype):
    fix = (", or pass the result dtype: x.mean(dtype=torch.float32)." if operation == "mean"
           else ".")
    return (f"{operation}() gives fractional results, and PyTorch will not guess a floating "
            f"dtype for {_a(_name(dtype))} input.\nFix: cast first, x.float().{operation}()"
            + fix)


# ---------------------------------------------------------------- losses
def _target_dtype(dtype, input_shape=None, target_shape=None):
    name = _name(dtype)
    text = (f"nll_loss and cross_entropy take class indices as int64 (torch.long) targets; "
            f"this target is {name}.")
    if name.startswith("float"):
        same = input_shape is not None and _dims(input_shape) == _dims(target_shape)
        text += (" Float targets are read as class indices only when their shape differs "
                 "from the input's" + ("." if not same else "; yours match, so "
                                       "they would be read as probabilities."))
        return text + ("\nFix: target.long() when they hold class numbers (0, 1, 2, ...); "
                       "for class probabilities or one-hot rows, give cross_entropy a float "
                       "target with the input's shape.")
    return text + "\nFix: target.long()."


def _target_range(target, classes, dim=1):
    return (f"Class indices must lie in [0, {classes - 1}]: the input has {classes} classes "
            f"(its size at dim {dim}), and a target holds {target}."
            + ("\nFix: labels numbered from 1 need target - 1; otherwise the layer before "
               "the loss needs one output per class "
               f"(at least {target + 1} here)." if target >= classes else
               "\nFix: class indices are never negative (only ignore_index may be, -100 by "
               "default)."))


def _multi_target(input_shape, target_shape):
    return (f"With class-index targets the target has one index per sample: shape "
            f"{_list(input_shape[:1])} for an input of shape {_list(input_shape)}; this "
            f"target is {_list(target_shape)}, which looks like one-hot rows or scores.\n"
            "Fix: target.argmax(dim=1) turns one-hot rows into indices; or, for "
            "probabilities, pass a float target of exactly the input's shape "
            f"{_list(input_shape)}.")


def _probability_target(input_shape, target_shape, dtype):
    input_shape = _dims(input_shape)
    if len(input_shape) == 1:
        return (f"The input is 1-D {_list(input_shape)} and the target has the same shape, "
                "so cross_entropy read them as one sample's class probabilities, which must "
                f"be float; the target is {_name(dtype)}.\nFix: a batch of N samples over C "
                "classes is an (N, C) input with an N-element int64 target; for one sample, "
                "input.unsqueeze(0) with a 1-element target.")
    return (f"The target has the input's shape {_list(input_shape)}, so cross_entropy read "
            f"it as class probabilities (or one-hot rows), which must be float; it is "
            f"{_name(dtype)}.\nFix: target.float() for probabilities, or target.argmax(dim=1) "
            "for class indices.")


# ---------------------------------------------------------------- autograd
def _freed(node):
    return (f"Backward frees each node's saved tensors once it has used them, and "
            f"{node} had already run a backward.\nFix: call backward(retain_graph=True) the "
            "first time if you need a second pass, or (usually what a training loop "
            "wants) recompute the forward before each backward; a tensor carried over from "
            "a previous iteration (a hidden state, a running loss) should be .detach()ed.")


def _implicit_grad(shape):
    return (f"backward() without arguments starts from d(out)/d(out) = 1, which only "
            f"exists for a single number; this output has shape {_list(shape)}.\nFix: reduce "
            "it to a scalar first (out.sum().backward() or out.mean().backward()), or pass "
            "the upstream gradient: out.backward(gradient=torch.ones_like(out)).")


# id(storage) -> (storage, {version: (op, line)}), filled only in anomaly mode. Storages
# take no weak references (their __slots__ are kept lean), so the entry holds the storage
# itself, which also keeps its id from being reused; the oldest entries are dropped.
_CHANGES = {}
_CHANGES_KEPT = 256


def record_inplace(tensor, op, node):
    """Remember the user's line that changed `tensor` in place (anomaly mode only)."""
    name = getattr(op, "__name__", "")  # a private helper (a write x[i] = v) shows its node
    operation = f"{name}_ ({node})" if name.isidentifier() and name[0] != "_" else node
    frames = [frame for frame in traceback.extract_stack()[:-1]
              if "/ember/" not in frame.filename.replace("\\", "/")]
    where = (f"{frames[-1].filename}:{frames[-1].lineno}: {frames[-1].line}" if frames
             else "?")
    storage = tensor._storage
    entry = _CHANGES.pop(id(storage), None) or (storage, {})
    entry[1][storage.version] = (operation, where)
    _CHANGES[id(storage)] = entry
    while len(_CHANGES) > _CHANGES_KEPT:
        del _CHANGES[next(iter(_CHANGES))]


def _inplace_modified(tensor, node, version, expected):
    shape = _list(tensor.shape)
    text = (f"{node} saved a tensor of shape {shape} (at version {expected}) to compute its "
            f"gradient, and it was changed in place afterwards (now version {version}: each "
            "in-place op, such as x += 1, x.mul_(2), x[0] = 0 or an nn.ReLU(inplace=True), "
            "adds one).")
    storage, changes = _CHANGES.get(id(tensor._storage), (None, {}))
    if storage is not tensor._storage:
        changes = {}
    seen = [changes[v] for v in range(expected + 1, version + 1) if v in changes]
    if seen:
        text += "\nChanged by:\n" + "\n".join(f"  {operation} at {where}"
                                             for operation, where in seen)
    else:
        text += ("\nWith anomaly detection on (torch.autograd.set_detect_anomaly(True)), "
                 "this note names the line of each in-place change.")
    return text + ("\nFix: use the out-of-place form (x = x + 1, x = x.mul(2)), or .clone() "
                   "the tensor before changing it.")


def _leaf_inplace(shape):
    return (f"This tensor (shape {_list(shape)}) is a leaf that requires grad, e.g. a "
            "parameter: autograd needs its value as it was, and .grad is the gradient "
            "with respect to it.\nFix: an update step belongs in `with torch.no_grad():` "
            "(as optimizers do it), or write w = w - lr * g to build a new tensor.")


def _integer_requires_grad(dtype):
    return (f"Gradients are defined for continuous values only; this tensor is "
            f"{_name(dtype)}.\nFix: create it as float (torch.tensor([1., 2.]), "
            "dtype=torch.float32, or x.float().requires_grad_()).")


def _numpy_grad(shape):
    return (f"This tensor (shape {_list(shape)}) requires grad; a NumPy array would share "
            "its memory outside autograd's view.\nFix: x.detach().numpy() (or "
            "x.detach().cpu().numpy() for a GPU tensor).")


def _item(shape, numel):
    return (f".item() returns one Python number; this tensor has shape {_list(shape)}, "
            f"{numel} elements.\nFix: reduce first (x.sum().item(), x.mean().item()), index "
            "one element (x[0, 1].item()), or use x.tolist() for all of them.")


def _index(index, dim, size):
    return (f"Dim {dim} has size {size}: valid indices are 0..{size - 1}, or -{size}..-1 "
            f"counting from the end; {index} is outside.\nFix: indices start at 0, so the "
            f"last one is {size - 1} (or -1).")


def _embedding(low, high, rows):
    text = f"The embedding table has num_embeddings={rows} rows (indices 0..{rows - 1}); "
    if high >= rows:
        text += (f"the largest index in the input is {high}.\nFix: make num_embeddings at "
                 f"least {high + 1} (vocabulary size, plus padding/special tokens).")
    else:
        text += (f"the input holds a negative index ({low}).\nFix: indices are 0-based and "
                 "non-negative.")
    return text


def _conv_channels(weight_shape, input_shape, expected, groups=1):
    input_shape = _dims(input_shape)
    text = (f"Convolution reads channels at dim 1 of an (N, C, ...) input: the weight "
            f"{_list(weight_shape)} expects C = {expected}, and the input "
            f"{_list(input_shape)} has {input_shape[1]}.")
    if len(input_shape) > 2 and input_shape[-1] == expected:
        text += (" The channels seem to sit in the last dim (channels-last, as images load "
                 "from files): x.permute(0, 3, 1, 2) moves them to dim 1.")
    return text + ("\nFix: in_channels of this layer must equal the channel count of its "
                   "input (the out_channels of the layer before it).")


def _conv_dims(operation, shape, spatial):
    shape = _dims(shape)
    text = (f"{operation} takes (N, C{', *' if spatial > 1 else ''}) batches: "
            f"{spatial + 2} dims [N, C, {', '.join('HW'[:spatial] if spatial < 3 else 'DHW')}] "
            f"or {spatial + 1} without the batch dim; the input {_list(shape)} has "
            f"{len(shape)}.")
    if len(shape) == spatial:
        text += "\nFix: add the channel dim (and a batch dim): x.unsqueeze(0).unsqueeze(0)."
    elif len(shape) > spatial + 2:
        text += "\nFix: remove the extra size-1 dims with x.squeeze(d), or reshape."
    else:
        text += "\nFix: reshape the input to [N, C, ...]."
    return text


def _batchnorm(size):
    return (f"In training mode BatchNorm normalizes each channel with the batch's own mean "
            f"and variance, which need more than one value per channel; the input "
            f"{_list(size)} has one.\nFix: use a batch larger than 1 (DataLoader(..., "
            "drop_last=True) drops a last batch of 1), or call model.eval() for "
            "inference.")


_BUILDERS = {
    "broadcast": _broadcast, "matmul": _matmul, "view_stride": _view_stride,
    "numel": _numel, "cat": _cat, "stack": _stack, "dtype": _dtype_mismatch,
    "device": _device, "integer_reduction": _integer_reduction,
    "target_dtype": _target_dtype, "target_range": _target_range,
    "multi_target": _multi_target, "probability_target": _probability_target,
    "freed": _freed, "implicit_grad": _implicit_grad, "inplace_modified": _inplace_modified,
    "leaf_inplace": _leaf_inplace, "integer_requires_grad": _integer_requires_grad,
    "numpy_grad": _numpy_grad, "item": _item, "index": _index, "embedding": _embedding,
    "conv_channels": _conv_channels, "conv_dims": _conv_dims, "batchnorm": _batchnorm,
}


# ---------------------------------------------------------------- inside a model
def in_module(error, module, args):
    """Name the layer whose forward raised, with its path inside the outermost model.

    Module.__call__ calls this from its `except` branch at every level the error
    passes: the innermost layer writes the note (with what that layer expected of its
    input); each enclosing module rewrites the note's path, so the outermost call
    leaves the full dotted path (`features.3`).
    """
    try:
        state = getattr(error, "_ember_layer", None)
        if state is None:
            notes = getattr(error, "__notes__", ())
            error._ember_layer = [module, "", len(notes),
                                  _layer_facts(module, args, "\n".join(notes))]
            _add_note(error, _layer_note(error._ember_layer, module))
            return
        inner, path, index, facts = state
        for name, child in module.named_modules():
            if child is inner and name:
                state[1] = name
                error.__notes__[index] = _layer_note(state, module)
                return
    except Exception:
        return


def _layer_note(state, root):
    inner, path, _, facts = state
    where = (f"in layer '{path}' ({_one_line(inner)}) of {type(root).__name__}" if path
             else f"in {_one_line(inner)}")
    facts = facts.replace("\x00", path + "." if path else "")
    return f"Raised {where}." + ("\n" + facts if facts else "")


def _one_line(module):
    text = repr(module)
    return text if "\n" not in text else type(module).__name__ + "(...)"


def _layer_facts(module, args, told):
    """What this layer expects of its input, compared with what it got (and not yet `told`)."""
    x = args[0] if args else None
    shape = getattr(x, "shape", None)
    weight = getattr(module, "weight", None)
    lines = [_layer_devices(module, x, told)] if hasattr(x, "device") else []
    takes_floats = not hasattr(module, "num_embeddings")
    if (takes_floats and shape is not None and weight is not None
            and getattr(x, "dtype", None) is not None):
        if x.dtype != weight.dtype:
            fix = _dtype_fix(x.dtype, weight.dtype)
            lines.append(f"The input is {_name(x.dtype)}; the layer's weight is "
                         f"{_name(weight.dtype)}." + ("" if fix in told else fix))
    if shape is None:
        return "\n".join(lines)
    kind = type(module).__name__
    if hasattr(module, "in_features") and len(shape) and shape[-1] != module.in_features:
        lines.append(f"{kind} expects in_features={module.in_features} in the input's last "
                     f"dim; the input is {_list(shape)}, whose last dim is {shape[-1]}."
                     f"\nFix: {kind}({shape[-1]}, ...) here, or make the previous layer "
                     f"produce {module.in_features} features"
                     + (" (flatten conv features first: nn.Flatten() or x.flatten(1))."
                        if len(shape) > 3 else "."))
    channels = getattr(module, "in_channels", None)
    spatial = len(getattr(module, "kernel_size", ()))
    if channels is not None and len(shape) in (spatial + 1, spatial + 2):
        dim = len(shape) - spatial - 1  # 1 in a batch, 0 without the batch dim
        if shape[dim] != channels:
            lines.append(f"{kind} expects in_channels={channels}; the input {_list(shape)} "
                         f"has {shape[dim]} at dim {dim}.")
    rows = getattr(module, "num_embeddings", None)
    if rows is not None and hasattr(x, "max") and getattr(x, "numel", lambda: 0)():
        lines.append(f"{kind}(num_embeddings={rows}) got indices from {int(x.min())} to "
                     f"{int(x.max())}.")
    return "\n".join(lines)
