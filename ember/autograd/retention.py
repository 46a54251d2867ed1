"""Warn once when the graphs of finished backward passes stay alive: the loss kept across steps.

Why at `backward()`: a training step ends with it, so a graph root that outlives later
`backward()` calls belongs to a step that is over. In a correct loop the previous loss is
rebound and its graph freed before the next `backward()`; with `total = total + loss` the
accumulator's `AddBackward0` holds every step's root, with `history.append(loss)` the list
does, and memory grows by one graph per step. A long graph that is legitimately one graph
(an RNN unrolled for 200 steps, or gradient accumulation into one sum) has one
`backward()` and one root, so it never counts; neither do roots that were backpropagated
with `retain_graph=True`, which keeps the graph on purpose.

Cost: one `WeakSet.add` and a `len()` per `backward()` call; nothing in the forward ops.
The counter of backward calls is what `explain` reports.
"""
import os
import sys
import warnings
import weakref

__all__ = ["note_backward", "backward_calls", "LIMIT"]

# Live roots of earlier backward passes that make the loop suspect. A correct loop keeps
# one or two; a leaking one passes this within as many steps, well inside 100.
LIMIT = 32

_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Watch:
    __slots__ = ("calls", "roots")

    def __init__(self):
        self.calls = 0
        self.roots = weakref.WeakSet()


_watch = _Watch()

MESSAGE = (
    "The graphs of {count} earlier backward() calls are still alive: a tensor that carries "
    "a graph (usually the loss) is being kept across iterations, e.g. `total = total + loss` "
    "or `history.append(loss)`, so every step's graph stays in memory and the loop grows "
    "without bound. Keep a number or a detached tensor instead: `total += loss.item()`, "
    "`history.append(loss.item())` or `history.append(loss.detach())`.")


def note_backward(tensors, retain_graph):
    """Count a backward call and remember its roots weakly; warn when too many stay alive."""
    watch = _watch
    watch.calls += 1
    if retain_graph:
        return
    roots = watch.roots
    for tensor in tensors:
        node = tensor.grad_fn
        if node is not None:
            roots.add(node)
    if len(roots) > LIMIT:
        count = len(roots) - 1
        roots.clear()  # re-armed: Python's warning registry shows it once per call site
        warnings.warn(MESSAGE.format(count=count), UserWarning, stacklevel=_user_stacklevel())


def backward_calls():
    """How many times `backward()` has run in this process."""
    return _watch.calls


def _user_stacklevel():
    """The stacklevel of the first frame outside ember, so the warning names the user's line."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_EMBER_DIR):
        frame = frame.f_back
        level += 1
    return level
