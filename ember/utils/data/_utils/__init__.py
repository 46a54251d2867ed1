"""Helpers of the DataLoader: collation, fetching, and the worker processes.

Worker code lives at module level so that a `spawn` or `forkserver` context can
pickle it by reference.
"""
import atexit
import sys
import traceback

MP_STATUS_CHECK_INTERVAL = 5.0
"""Seconds between checks that the other side of a queue is still alive, so that
neither the main process nor a worker waits forever on a dead peer."""

python_exit_status = False
"""True once the interpreter is exiting: from then on iterators leave their workers to
multiprocessing's own exit handler (which terminates daemonic processes)."""


@atexit.register
def _note_interpreter_exit():
    """Runs at exit, before multiprocessing's own handler reaps the daemonic workers."""
    global python_exit_status
    python_exit_status = True


class KeyErrorMessage(str):
    """A str whose repr is itself, so a re-raised KeyError shows a readable traceback.

    KeyError's str() is the repr of its argument; without this the worker's
    traceback would print as one quoted line full of escaped newlines.
    """

    __slots__ = ()
    __repr__ = str.__str__


class ExceptionWrapper:
    """An exception and its formatted traceback, picklable across processes.

    `reraise` raises the same exception type in the receiving process with
    PyTorch's text: "Caught ValueError in DataLoader worker process 0.\\nOriginal
    Traceback (most recent call last): ...".
    """

    def __init__(self, exc_info=None, where="in background"):
        kind, value, trace = sys.exc_info() if exc_info is None else exc_info
        # Only the text of the traceback travels: the traceback object would pin every
        # frame alive, and cannot be pickled anyway.
        self.exc_type, self.where = kind, where
        self.exc_msg = "".join(traceback.format_exception(kind, value, trace))

    def reraise(self):
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            message = KeyErrorMessage(message)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=message)
        try:
            exception = self.exc_type(message)
        except Exception:
            # An exception type that does not take one message cannot be rebuilt.
            raise RuntimeError(message) from None
        try:
            raise exception
        finally:
            # Break the frame <-> traceback cycle, so that the iterator whose frame
            # raised is freed (and its workers stopped) as soon as the caller lets go.
            del exception


from . import collate, fetch, worker  # noqa: E402,F401 - they use the names above
