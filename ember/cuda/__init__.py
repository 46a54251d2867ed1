"""ember.cuda: torch.cuda's API, as PyTorch's CPU build has it when no GPU is there.

Every name a script touches at start-up is here. Without CuPy and a GPU each
behaves as in PyTorch's CPU build: `is_available()` is False, `device_count()`
0, seeding is silently ignored (torch queues it for a CUDA that never comes),
memory counters read 0, and what needs a device raises
`AssertionError: Torch not compiled with CUDA enabled`. With CuPy and a GPU the
calls reach CuPy's runtime.
"""
from .. import _backend
from .._device import device as _device_type
from .._random import Generator as _Generator
from ._init import current_index as _current_index
from ._init import device_index as _device_index
from ._init import is_available, lazy_init as _lazy_init
from .memory import *  # noqa: F401,F403
from .streams import *  # noqa: F401,F403
from .streams import ExternalStream
from .graphs import *  # noqa: F401,F403
from .._tensor_types import CUDA_TYPES as _CUDA_TYPES
from . import graphs, memory, nvtx, streams  # noqa: F401

__all__ = ["is_available", "is_initialized", "init", "device_count", "current_device",
           "set_device", "synchronize", "get_device_name", "get_device_capability",
           "get_device_properties", "get_arch_list", "get_gencode_flags", "is_bf16_supported",
           "is_tf32_supported", "can_device_access_peer", "device", "device_of",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "default_generators", "ipc_collect", "cudart", "current_blas_handle",
           "get_sync_debug_mode", "set_sync_debug_mode", "OutOfMemoryError", "CudaError",
           "DeferredCudaCallError", "has_half", "has_magma", "amp",
           *sorted(_CUDA_TYPES), "AcceleratorError", "cudaStatus", "check_error", "current_solver_handle",
           "get_stream_from_external", *memory.__all__, *streams.__all__, *graphs.__all__]

BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, \
    IntTensor, LongTensor, ShortTensor = (_CUDA_TYPES[name] for name in sorted(_CUDA_TYPES))
has_half = True
has_magma = False


class OutOfMemoryError(RuntimeError):
    """The device ran out of memory."""


class AcceleratorError(RuntimeError):
    """An error reported by the accelerator's runtime."""


class cudaStatus:
    SUCCESS = 0
    ERROR_NOT_READY = 34


class CudaError(RuntimeError):
    def __init__(self, code=0):
        super().__init__(f"CUDA error {code}")


class DeferredCudaCallError(Exception):
    pass


def is_initialized():
    """Whether CUDA has been set up: True once CuPy has a device, never in the CPU build."""
    return _backend.cupy_available()


def init():
    """Initialise CUDA now (PyTorch does it lazily); the CPU build's error without a GPU."""
    _lazy_init()


def device_count():
    """The number of CUDA devices CuPy sees (0 without CuPy)."""
    if not _backend.cupy_available():
        return 0
    return _backend.cupy_module().cuda.runtime.getDeviceCount()


def current_device():
    return _lazy_init().getDevice()


def set_device(device):
    """Select the current device; a negative index is a no-op, as in PyTorch."""
    index = _device_index(device)
    if index >= 0:
        if not _backend.cupy_available():
            raise AttributeError("module 'ember._C' has no attribute '_cuda_setDevice'")
        _backend.cupy_module().cuda.runtime.setDevice(index)


def synchronize(device=None):
    """Wait for every kernel queued on the device."""
    runtime = _lazy_init()
    with _DeviceContext(device):
        runtime.deviceSynchronize()


def _properties(device):
    runtime = _lazy_init()
    index = _device_index(device, optional=True)
    return runtime.getDeviceProperties(runtime.getDevice() if index is None else index)


def get_device_name(device=None):
    return _properties(device)["name"].decode()


def get_device_capability(device=None):
    properties = _properties(device)
    return properties["major"], properties["minor"]


def get_device_properties(device=None):
    return _properties(device)


def get_arch_list():
    """The architectures the build targets: none without a GPU."""
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def get_gencode_flags():
    return " ".join(f"-gencode compute={arch.replace('sm', 'compute')},code={arch}"
                    for arch in get_arch_list())


def is_bf16_supported(including_emulation=True):
    if not is_available():
        return False
    return get_device_capability()[0] >= 8 or including_emulation


def is_tf32_supported():
    if not is_available():
        return False
    return get_device_capability()[0] >= 8


def can_device_access_peer(device, peer_device):
    runtime = _lazy_init()
    return bool(runtime.deviceCanAccessPeer(_device_index(device), _device_index(peer_device)))


def check_error(res):
    """Raise CudaError for a failed runtime status (the CPU build has no runtime to ask)."""
    if not is_available():
        raise AttributeError("'NoneType' object has no attribute 'cudaError'")
    if res != cudaStatus.SUCCESS:
        raise CudaError(res)


def current_solver_handle():
    _lazy_init()
    return _backend.cupy_module().cuda.device.get_cusolver_handle()


def get_stream_from_external(data_ptr, device=None):
    _lazy_init()
    return ExternalStream(data_ptr, device)


def ipc_collect():
    _lazy_init()


def cudart():
    """The CUDA runtime module (CuPy's)."""
    return _lazy_init()


def current_blas_handle():
    _lazy_init()
    return _backend.cupy_module().cuda.device.get_cublas_handle()


def get_sync_debug_mode():
    _lazy_init()
    return 0


def set_sync_debug_mode(debug_mode):
    _lazy_init()
    if debug_mode not in (0, "default"):
        raise RuntimeError("ember does not support CUDA sync debug modes")


class device:
    """`with ember.cuda.device(i):` makes device i current inside the block.

    A negative index is a no-op; entering a real index needs a GPU (PyTorch's CPU
    build raises 'PyTorch was compiled without CUDA support', and a TypeError for None).
    """

    def __init__(self, device):
        self.idx = _device_index(device, optional=True)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _exchange_device(self.idx)

    def __exit__(self, *exc):
        self.idx = _exchange_device(self.prev_idx)
        return False


def _exchange_device(index):
    if index < 0:   # None fails here, as torch's does: "'<' not supported ..."
        return -1
    if not _backend.cupy_available():
        raise RuntimeError("PyTorch was compiled without CUDA support")
    runtime = _backend.cupy_module().cuda.runtime
    previous = runtime.getDevice()
    if previous != index:
        runtime.setDevice(index)
    return previous


_DeviceContext = device


class device_of(device):
    """`device` of a tensor: a no-op for CPU tensors."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


# ---------------------------------------------------------------- random numbers
default_generators = ()
"""One Generator per GPU, made when CUDA is first seeded; () without a GPU, as in the CPU build.

ember's CUDA sampling ops currently draw through the CPU default generator and copy
to the device, so these generators hold seeds and states but drive no kernel yet.
"""


def _generators():
    global default_generators
    if not default_generators and is_available():
        default_generators = tuple(_Generator(_device_type("cuda", i))
                                   for i in range(device_count()))
    return default_generators


def _current_generator():
    index = _current_index()
    return _generators()[index]


def manual_seed(seed):
    """Seed the current GPU's generator; silently ignored without CUDA (as in PyTorch)."""
    seed = int(seed)
    if is_available():
        _current_generator().manual_seed(seed)


def manual_seed_all(seed):
    """Seed every GPU's generator; silently ignored without CUDA (as in PyTorch)."""
    seed = int(seed)
    for generator in _generators():
        generator.manual_seed(seed)


def seed():
    if is_available():
        _current_generator().seed()


def seed_all():
    generators = _generators()
    if generators:
        new_seed = generators[0].seed()
        for generator in generators[1:]:
            generator.manual_seed(new_seed)


def initial_seed():
    _lazy_init()
    return _current_generator().initial_seed()


def _generator_for(device):
    _lazy_init()
    if isinstance(device, str):
        device = _device_type(device)
    index = device if isinstance(device, int) else device.index
    return _generators()[_current_index() if index is None else index]


def get_rng_state(device="cuda"):
    """The GPU generator's state as a uint8 tensor."""
    return _generator_for(device).get_state()


def get_rng_state_all():
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda"):
    """Restore a GPU generator's state; ignored without CUDA (as in PyTorch)."""
    if is_available():
        _generator_for(device).set_state(new_state)


def set_rng_state_all(new_states):
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


from . import amp  # noqa: E402 - amp builds on the names above
