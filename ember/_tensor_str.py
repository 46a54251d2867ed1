"""PyTorch's tensor printing rules (placeholder: the full formatter lands in this module)."""

__all__ = ["tensor_repr"]


def tensor_repr(tensor):
    data = tensor._data
    body = repr(data.tolist())
    suffix = ""
    if tensor.grad_fn is not None:
        suffix = f", grad_fn=<{tensor.grad_fn.name()}>"
    elif tensor._requires_grad:
        suffix = ", requires_grad=True"
    return f"tensor({body}{suffix})"
