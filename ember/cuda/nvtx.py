"""NVTX ranges for profilers: PyTorch's CPU build has no NVTX, and neither has ember."""
import contextlib

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]


def _not_installed(*args, **kwargs):
    raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


range_push = range_pop = range_start = range_end = mark = _not_installed


@contextlib.contextmanager
def range(msg, *args, **kwargs):  # noqa: A001 - PyTorch's name
    range_push(msg.format(*args, **kwargs))
    yield
    range_pop()
