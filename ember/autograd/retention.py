"""Warn once when the graphs of finished backward passes stay alive: the loss kept across steps.

Why at `backward()`: a training step ends with it, so a graph root that outlives later
`backward()` calls belongs to a step that is over. In a correct loop the previous loss is
rebound and its graph freed before the next `backward()`; with `total = total + loss` the
accumulator's `AddBackward0` holds every step's root, with `history.append(loss)` the list
does, and memory grows by one graph per step. A long graph that is legitimately one graph
(an RNN unrolled for 200 steps, or gradient accumulation into one sum) has one
`backward()` and one root, so it never counts; neither do roots that were backpropagated
with `retain_graph=True`, which keeps the graph on purpose.

How: the roots of the last `WINDOW` backward calls are kept as weak references in a ring
(keeping nothing alive); each time the ring is full, the distinct roots still alive are
counted, and half of the window or more means the loop keeps its graphs. Judging a
recent window, not a running total, keeps a few long-lived graphs collected over hours
(or over a test session) from adding up to a false alarm, and still catches a loop that
keeps one of its two losses per step. Cost: a weak reference and a list store per
`backward()` call, and a scan of the window every `WINDOW` calls; nothing in the forward
ops. The count of backward calls is what `explain` reports.
"""
import os
import sys
import warnings
from weakref import ref as _ref

__all__ = ["note_backward", "backward_calls", "WINDOW", "THRESHOLD"]

WINDOW = 32
THRESHOLD = WINDOW // 2

_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Watch:
    __slots__ = ("calls", "ring", "slot")

    def __init__(self):
        self.calls = 0
        self.reset()

    def reset(self):
        self.ring = [None] * WINDOW
        self.slot = 0


_watch = _Watch()

MESSAGE = (
    "The graphs of {count} of the last {window} backward() calls are still alive: a tensor "
    "that carries a graph (usually the loss) is being kept across iterations, e.g. "
    "`total = total + loss` or `history.append(loss)`, so every step's graph stays in memory "
    "and the loop grows without bound. Keep a number or a detached tensor instead: "
    "`total += loss.item()`, `history.append(loss.item())` or "
    "`history.append(loss.detach())`.")


def note_backward(tensors, retain_graph):
    """Count a backward call and remember its root weakly; judge the window when it is full."""
    watch = _watch
    watch.calls += 1
    if retain_graph or not tensors:
        return
    node = tensors[0].grad_fn
    if node is None:
        return
    slot = watch.slot
    watch.ring[slot] = _ref(node)
    slot += 1
    if slot == WINDOW:
        slot = 0
        _judge(watch.ring)
    watch.slot = slot


def _judge(ring):
    alive = {id(node) for node in (r() for r in ring if r is not None) if node is not None}
    if len(alive) >= THRESHOLD:
        warnings.warn(MESSAGE.format(count=len(alive), window=WINDOW), UserWarning,
                      stacklevel=_user_stacklevel())


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
