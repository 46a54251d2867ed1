"""CUDA graphs and memory pools: names PyTorch's CPU build defines but cannot construct."""
import contextlib

from ._init import lazy_init
from .streams import Stream

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "make_graphed_callables", "MemPool", "use_mem_pool"]


def _dummy(name):
    """The CPU build's error for a CUDA-only class (ember has no CUDA graphs even with CuPy)."""
    return RuntimeError(f"Tried to instantiate dummy base class {name}")


class CUDAGraph:
    def __init__(self, *args, **kwargs):
        raise _dummy("CUDAGraph")


class graph:
    """`with ember.cuda.graph(g):` captures kernels into a CUDA graph (needs a stream)."""

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global"):
        self.capture_stream = Stream() if stream is None else stream
        raise _dummy("CUDAGraph")


def graph_pool_handle():
    raise _dummy("_graph_pool_handle")


def is_current_stream_capturing():
    raise _dummy("_cuda_isCurrentStreamCapturing")


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    raise _dummy("CUDAGraph")


class MemPool:
    def __init__(self, *args, **kwargs):
        raise _dummy("MemPool")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    lazy_init()
    yield
