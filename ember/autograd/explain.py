"""`explain(t, loss=None)`: a few sentences on why `t.grad` is what it is.

Why: `t.grad is None` has half a dozen causes -- requires_grad off, a non-leaf without
`retain_grad()`, a tensor made under `no_grad`/`inference_mode` or by `.detach()`, a loss
that does not depend on it, a backward that has not run yet -- and a `.grad` that is set
may hold the sum of several backward passes. Everything here is read off the tensor and
the graph as they stand: nothing is recorded on the hot path except the count of
`backward()` calls (kept by `retention`). Inference mode marks its tensors already; a
`.detach()`ed tensor is recognised, given the loss, by sharing memory with a tensor of the
loss's graph; what `no_grad()` made cannot be told from a tensor created without
`requires_grad` (a flag on every such result would cost every evaluation step), so the
text names both. Without the loss, a `.detach()`ed tensor is still recognised while the
tensor it came from is alive: the garbage collector finds the tensors that share its
storage, and one that requires grad gives the detach away.
"""
import gc

from .grad_mode import state as _grad_state
from .graph import AccumulateGrad, _FREED
from . import graph_draw, retention

__all__ = ["explain"]


def explain(tensor, loss=None):
    """Why `tensor.grad` is what it is, as text; pass the loss to check that it depends on it.

    `loss` is the tensor you call (or called) `backward()` on; with it, the text says whether
    its graph reaches `tensor` and shows the chain of `grad_fn`s that leads there.
    """
    if not hasattr(tensor, "grad_fn"):
        raise TypeError(f"explain() expects a Tensor, got {type(tensor).__name__}")
    lines = [_header(tensor)]
    lines += _why(tensor, loss)
    lines += _chain(tensor, loss)
    return "\n".join(lines)


def _header(tensor):
    shape = graph_draw._shape(tensor)
    dtype = str(tensor.dtype).rpartition(".")[2]
    grad = tensor._grad
    state = ".grad is None" if grad is None else f".grad is set {graph_draw._shape(grad)}"
    kind = "leaf" if tensor.grad_fn is None else f"non-leaf (grad_fn={tensor.grad_fn.name()})"
    return (f"tensor of shape {shape}, {dtype}, {kind}, requires_grad="
            f"{tensor._requires_grad}: {state}.")


def _why(tensor, loss):
    if tensor.is_inference():
        return ["- It was created under inference_mode(): inference tensors never record a "
                "graph and cannot take part in backward. Compute it outside inference_mode(), "
                "or use no_grad() for evaluation, or .clone() it outside the context."]
    if not tensor._requires_grad:
        return _not_tracked(tensor, loss)
    lines = []
    if tensor.grad_fn is not None and not tensor.retains_grad:
        lines.append(
            f"- It is not a leaf (it was computed by {tensor.grad_fn.name()}): backward passes "
            "its gradient on to the leaves and keeps none for it, so .grad stays None. Call "
            ".retain_grad() on it before backward() to keep one, or read it with "
            "register_hook() or autograd.grad().")
        if _looks_like_an_update(tensor):
            lines.append("- It looks like a parameter rebound by an update (`w = w - lr * w.grad`),"
                         " which makes a new non-leaf each step: update it in place under "
                         "no_grad() instead (`with no_grad(): w -= lr * w.grad`).")
        lines += _dependence(tensor, loss)
        return lines
    unreached = _dependence(tensor, loss)
    if unreached and tensor._grad is None:
        return unreached
    return unreached + _accumulation(tensor, loss)


def _looks_like_an_update(tensor):
    """A non-leaf made by adding to / subtracting from a same-shaped leaf that has a .grad."""
    node = tensor.grad_fn
    if node.name() not in ("SubBackward0", "AddBackward0"):
        return False
    return any(child.__class__ is AccumulateGrad and child.variable._grad is not None
               and child.variable.shape == tensor.shape for child, _ in node.next_functions)


def _not_tracked(tensor, loss):
    if loss is not None and loss.grad_fn is not None and _shares_memory_with_graph(tensor, loss):
        return ["- It was made by .detach() (or .data): it shares memory with a tensor of the "
                "loss's graph but is cut from it, so no gradient reaches it. Use the original "
                "tensor, or call .requires_grad_() to make this one a leaf of its own."]
    base = tensor._base
    if base is not None and base._requires_grad:
        return ["- It is a view of a tensor that requires grad, taken under no_grad(): views "
                "made with grad mode off carry no history. Take the view outside no_grad()."]
    origin = _tracked_alias(tensor)
    if origin is not None:
        made = ("computed by " + origin.grad_fn.name().rpartition("::")[2]
                if origin.grad_fn is not None else "a leaf that requires grad")
        return [f"- It was made by .detach() (or .data): it shares its memory with a tensor of "
                f"shape {graph_draw._shape(origin)} that is in a graph ({made}), but it is cut "
                "from that graph, so no gradient reaches it. How to tell: requires_grad is "
                "False and grad_fn is None, yet t.data_ptr() equals the original's (and "
                "t._version moves with it). Use the original tensor where the gradient should "
                "flow, or call .requires_grad_() to make this one a leaf of its own."]
    if not tensor.is_floating_point():
        return [f"- requires_grad is False, and it must stay so: only floating point tensors "
                f"can require gradients ({tensor.dtype} cannot)."]
    lines = ["- requires_grad is False: autograd does not track it, so backward() never writes "
             "its .grad. Either it was created without requires_grad=True (call "
             ".requires_grad_() on it, or create it with requires_grad=True), or it came out "
             "of an op run under no_grad() (or set_grad_enabled(False)), whose results carry "
             "no history: compute it outside that block; or it was made by .detach(), which "
             "cuts a tensor from its graph."]
    if not _grad_state.enabled:
        lines.append("- Grad mode is off right now: you are inside no_grad() or "
                     "set_grad_enabled(False).")
    return lines


def _tracked_alias(tensor):
    """A live tensor that requires grad and shares `tensor`'s storage, or None.

    Asked of the garbage collector (the objects that refer to the storage), so that
    `.detach()` records nothing: a scan of the heap is fine for a call made by hand.
    """
    storage = tensor._storage
    for other in gc.get_referrers(storage):
        if (other is not tensor and getattr(other, "_storage", None) is storage
                and hasattr(other, "grad_fn") and other._requires_grad):
            return other
    return None


def _shares_memory_with_graph(tensor, loss):
    """Whether a leaf or saved tensor of `loss`'s graph uses `tensor`'s storage."""
    storage = tensor._storage
    seen = {loss.grad_fn}
    stack = [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node.__class__ is AccumulateGrad and node.variable._storage is storage:
            return True
        saved = node._saved
        if saved is not None and saved is not _FREED:
            for entry in saved:
                if entry.__class__ is tuple and entry[0]._storage is storage:
                    return True
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return False


def _target(tensor):
    """The node whose arrival means a gradient reaches `tensor`, as a test on nodes."""
    if tensor.grad_fn is not None:
        node = tensor.grad_fn
        return lambda other: other is node
    return lambda other: other.__class__ is AccumulateGrad and other.variable is tensor


def _path(loss, tensor):
    """The nodes from `loss.grad_fn` down to `tensor`'s node (breadth first), or None."""
    start = loss.grad_fn
    if start is None:
        return None
    is_target = _target(tensor)
    parent = {start: None}
    queue = [start]
    for node in queue:  # the list grows as we go: a breadth-first walk without recursion
        if is_target(node):
            path = []
            while node is not None:
                path.append(node)
                node = parent[node]
            return path[::-1]
        for child, _ in node.next_functions:
            if child is not None and child not in parent:
                parent[child] = node
                queue.append(child)
    return None


def _dependence(tensor, loss):
    if loss is None:
        return []
    if loss is tensor:
        return ["- It is the loss itself: backward() starts here and fills no .grad for a "
                "non-leaf unless it retains it."] if tensor.grad_fn is not None else []
    if not loss._requires_grad:
        return ["- The loss does not require grad: it has no graph at all, so backward() on it "
                "raises. Was it computed under no_grad(), or from detached tensors?"]
    if _path(loss, tensor) is None:
        return ["- The loss does not depend on it: no path in the loss's graph leads to it, so "
                "backward() on this loss leaves its .grad as it is. Was the loss computed from "
                "a copy, a .detach()ed tensor, or an older tensor of the same name?"]
    return []


def _freed(loss):
    """Whether a backward pass without retain_graph has gone through `loss`'s graph."""
    node = loss.grad_fn
    seen = {node}
    stack = [node]
    while stack:
        node = stack.pop()
        if node._saved is _FREED:
            return True
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return False


def _accumulation(tensor, loss):
    grad = tensor._grad
    calls = retention.backward_calls()
    if grad is None:
        if loss is not None and loss.grad_fn is not None and _path(loss, tensor) is not None:
            if not _freed(loss):
                return ["- backward() has not been called on this loss yet (its graph still "
                        "holds its saved tensors): call loss.backward()."]
            return ["- backward() did run through this loss, but .grad was reset since: "
                    "optimizer.zero_grad() and `t.grad = None` set it to None."]
        if calls == 0:
            return ["- backward() has not been called yet (none has run in this process): "
                    ".grad is filled by loss.backward()."]
        return [f"- backward() has run {calls} time(s) in this process, but none reached it "
                "since its .grad was last reset (zero_grad() sets it to None). Pass the loss, "
                "explain(t, loss), to check that the loss depends on it."]
    updates = grad._storage.version
    if updates == 0:
        return ["- One backward() pass wrote .grad. Gradients accumulate: another backward() "
                "adds to it, so call optimizer.zero_grad() (or set t.grad = None) between "
                "steps unless you mean to accumulate."]
    return [f"- .grad was updated in place {updates} time(s) since it was created: it holds "
            f"the sum over {updates + 1} backward() passes (or fewer, if zero_grad("
            "set_to_none=False) zeroed it in place). Gradients accumulate: call "
            "optimizer.zero_grad() each step unless you mean to sum them."]


def _chain(tensor, loss):
    if loss is not None and loss._requires_grad and loss is not tensor:
        path = _path(loss, tensor)
        if path is not None:
            names = " -> ".join(node.name().rpartition("::")[2] for node in path)
            return [f"grad_fn chain from the loss: {names} (this tensor)"]
    if tensor.grad_fn is None:
        return []
    return ["its history (grad_fn tree):", graph_draw.tree_text(tensor, max_depth=4)]
