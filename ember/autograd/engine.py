"""The backward engine: iterative, deterministic, PyTorch's order.

1. Count, for every node reachable from the roots, how many edges lead into it.
2. Keep a ready queue ordered by sequence number (the most recently created node
   first, leaves' AccumulateGrad as soon as ready), as PyTorch's CPU engine does.
3. Run a node once all its incoming gradients are summed in its input buffer;
   pass each result along its edge. No recursion, so graph depth is unbounded.
"""
import heapq
import warnings

from .._dtype import is_floating as _is_floating
from .. import _errors
from .grad_mode import anomaly, state as _grad_state

__all__ = ["run_backward", "is_checkpoint_valid"]

# One entry per running pass: whether it computes gradients for given inputs only
# (autograd.grad, backward(inputs=...)), which a reentrant checkpoint cannot serve.
_for_inputs = []


def is_checkpoint_valid():
    """False inside a pass that only computes gradients for given inputs."""
    return not (_for_inputs and _for_inputs[-1])


def _dependencies(roots):
    deps = {}
    if len(roots) == 1 and roots[0] is not None:  # loss.backward()
        stack = [roots[0]]
        seen = {roots[0]}
    else:
        # Several roots may share a node (e.g. both outputs of aminmax): count it once.
        stack = list(dict.fromkeys(node for node in roots if node is not None))
        seen = set(stack)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            deps[child] = deps.get(child, 0) + 1
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return deps


def _add_to_buffer(buffers, node, output_nr, grad):
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * (output_nr + 1)
    elif len(buf) <= output_nr:
        buf.extend([None] * (output_nr + 1 - len(buf)))
    old = buf[output_nr]
    buf[output_nr] = grad if old is None else old + grad


def _run_pre_hooks(node, grads):
    for output_nr, hook in tuple(node._pre_hooks):
        if output_nr is None:
            replaced = hook(tuple(grads))
            if replaced is not None:
                grads[:] = list(_errors.check_node_hook_results(hook, grads, tuple(replaced)))
        elif output_nr < len(grads) and grads[output_nr] is not None:
            replaced = hook(grads[output_nr])
            if replaced is not None:
                grads[output_nr] = _errors.check_hook_result(hook, grads[output_nr], replaced)


def _retain(node, grads):
    for output_nr, ref in node._retained.items():
        tensor = ref()
        if tensor is None or output_nr >= len(grads) or grads[output_nr] is None:
            continue
        grad = grads[output_nr]
        if tensor._grad is None:
            tensor._grad = grad if grad._requires_grad else grad._owned_copy()
        else:
            tensor._grad = tensor._grad + grad


def run_backward(roots, grads, retain_graph, create_graph, capture=None):
    """Propagate `grads` from the `(node, output_nr)` `roots` through the graph.

    With `capture` (a dict `node -> {output_nr: slot}`), the gradients arriving at
    those nodes are returned in a list instead of flowing on into leaves, which is
    what `autograd.grad` needs; otherwise leaves accumulate into `.grad`.
    """
    root_nodes = [node for node, _ in roots]
    deps = _dependencies(root_nodes)
    buffers = {}
    for (node, output_nr), grad in zip(roots, grads):
        if node is not None:
            _add_to_buffer(buffers, node, output_nr, grad)
    captured = execute = None
    if capture is not None:
        captured = [None] * len(capture_slots(capture))
        execute = _nodes_leading_to(root_nodes, deps, capture)
    ready = []
    for node in dict.fromkeys(root_nodes):
        if node is not None and deps.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, id(node), node))
    previous_mode = _grad_state.enabled
    _grad_state.enabled = create_graph
    _for_inputs.append(capture is not None)
    try:
        if capture is None and not anomaly.enabled:
            _run_plain(ready, buffers, deps, retain_graph)
        else:
            _run_general(ready, buffers, deps, retain_graph, capture, captured, execute)
    finally:
        _grad_state.enabled = previous_mode
        _for_inputs.pop()
    return captured


def _run_plain(ready, buffers, deps, retain_graph):
    """The loop of an ordinary `backward()`: no captured inputs, no anomaly mode.

    The same steps as `_run_general`, with the per-node work kept to attribute tests
    and local names: this loop runs once per recorded op of every training step.
    """
    heappop, heappush = heapq.heappop, heapq.heappush
    pop_buffer = buffers.pop
    while ready:
        node = heappop(ready)[2]
        grads_in = pop_buffer(node, None) or [None]
        if node._pre_hooks:
            _run_pre_hooks(node, grads_in)
        if node._retained:
            _retain(node, grads_in)
        if len(grads_in) == 1 and grads_in[0] is not None:
            grads_out = node.backward(grads_in[0])
        else:
            grads_out = _call_backward(node, grads_in)
        if node._hooks:
            grads_out = _run_post_hooks(node, grads_out, grads_in)
        if not retain_graph and node._saved is not None:
            node.release()  # a node that saved nothing has nothing to free
        for (child, output_nr), grad in zip(node.next_functions, grads_out):
            if child is None:
                continue
            if grad is not None:
                buf = buffers.get(child)
                if buf is None:
                    if output_nr == 0:
                        buffers[child] = [grad]
                    else:
                        _add_to_buffer(buffers, child, output_nr, grad)
                elif output_nr < len(buf) and buf[output_nr] is not None:
                    buf[output_nr] = buf[output_nr] + grad
                else:
                    _add_to_buffer(buffers, child, output_nr, grad)
            remaining = deps[child] - 1
            deps[child] = remaining
            if remaining == 0:
                heappush(ready, (-child._sequence_nr, id(child), child))
        # Hold no gradient past its hand-off: AccumulateGrad keeps one without a copy only
        # when the engine's own references are the last (graph._unshared counts them).
        grads_out = grad = None


def _run_post_hooks(node, grads_out, grads_in):
    for hook in tuple(node._hooks):
        replaced = hook(tuple(grads_out), tuple(grads_in))
        if replaced is not None:  # a post-hook may replace the input gradients
            grads_out = _errors.check_node_hook_results(hook, grads_out, tuple(replaced))
    return grads_out


def _run_general(ready, buffers, deps, retain_graph, capture, captured, execute):
    """The loop with `autograd.grad`'s capture and anomaly mode's checks."""
    while ready:
        node = heapq.heappop(ready)[2]
        grads_in = buffers.pop(node, None) or [None]
        if node._pre_hooks:
            _run_pre_hooks(node, grads_in)
        if node._retained:
            _retain(node, grads_in)
        if capture is not None:
            if node in capture:
                for output_nr, slot in capture[node].items():
                    if output_nr < len(grads_in):
                        captured[slot] = grads_in[output_nr]
            if node not in execute:
                continue  # nothing beyond it leads to an input; never touch .grad
        if anomaly.enabled:
            grads_out = _backward_with_anomaly_checks(node, grads_in)
        elif len(grads_in) == 1 and grads_in[0] is not None:
            grads_out = node.backward(grads_in[0])
        else:
            grads_out = _call_backward(node, grads_in)
        if node._hooks:
            grads_out = _run_post_hooks(node, grads_out, grads_in)
        _finish(node, retain_graph)
        for (child, output_nr), grad in zip(node.next_functions, grads_out):
            if child is None:
                continue
            if grad is not None:
                _add_to_buffer(buffers, child, output_nr, grad)
            remaining = deps[child] - 1
            deps[child] = remaining
            if remaining == 0:
                heapq.heappush(ready, (-child._sequence_nr, id(child), child))


def _call_backward(node, grads_in):
    if all(g is None for g in grads_in):
        # Nothing flowed in (e.g. only non-differentiable outputs were used):
        # skip the node, but still release its children's dependency counts.
        return (None,) * len(node.next_functions)
    if len(grads_in) == 1:
        return node.backward(grads_in[0])
    return node.backward(*grads_in)


def _warn_forward_trace(node):
    trace = getattr(node, "_anomaly_trace", None)
    if trace is None:
        trace = ["  (no forward trace: the op ran before anomaly detection was enabled)\n"]
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused "
                  "the error:\n" + "".join(trace), UserWarning, stacklevel=4)


def _backward_with_anomaly_checks(node, grads_in):
    """Anomaly mode: name the forward op of a failing node, and treat NaN as failure."""
    try:
        grads_out = _call_backward(node, grads_in)
        if anomaly.check_nan:
            for i, grad in enumerate(grads_out):
                if grad is not None and _is_floating(grad._data.dtype) and \
                        grad._device.xp.isnan(grad._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output.")
    except Exception:
        _warn_forward_trace(node)
        raise
    return grads_out


def capture_slots(capture):
    return [slot for per_node in capture.values() for slot in per_node.values()]


def _nodes_leading_to(roots, deps, capture):
    """The nodes autograd.grad must run: those with a path to a captured input.

    Everything else (other leaves' AccumulateGrad above all) is left alone, so
    `autograd.grad` never writes any `.grad`.
    """
    remaining = dict(deps)
    order = []
    stack = [n for n in dict.fromkeys(roots) if n is not None and remaining.get(n, 0) == 0]
    while stack:  # Kahn's algorithm: parents before children
        node = stack.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                remaining[child] -= 1
                if remaining[child] == 0:
                    stack.append(child)
    reaches_input = set()
    execute = set()
    for node in reversed(order):
        if any(child in reaches_input for child, _ in node.next_functions):
            execute.add(node)
            reaches_input.add(node)
        elif node in capture:
            reaches_input.add(node)
    return execute


def _finish(node, retain_graph):
    if not retain_graph:
        node.release()


def check_root(tensor):
    """Raise PyTorch's error for a tensor that has nothing to differentiate."""
    if not tensor._requires_grad:
        raise RuntimeError(_errors.NOT_REQUIRES_GRAD)
