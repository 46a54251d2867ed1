"""ember.backends.cuda: cuBLAS and attention flags (read back; the CPU computes in full precision)."""
from .. import _settings
from ..cuda import _init

__all__ = ["is_built", "matmul", "cuBLASModule", "preferred_linalg_library",
           "flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled",
           "cudnn_sdp_enabled", "enable_flash_sdp", "enable_mem_efficient_sdp",
           "enable_math_sdp", "enable_cudnn_sdp"]


def is_built():
    """Whether ember can run CUDA: CuPy with a GPU (PyTorch's CPU build answers False)."""
    return _init.is_available()


_SPLIT_K = "_split_k"
# The two halves of a reduced-precision setting, named as PyTorch names them in its errors.
_REDUCTION_PARTS = ("allow_reduced_precision", "allow_splitk")


def _reduction_setting(value, attr_name):
    """(allow reduced precision, allow split-K) from a bool or a list/tuple of one or two.

    A bare bool, or a one-item sequence, leaves split-K allowed, as PyTorch does.
    """
    if isinstance(value, bool):
        return value, True
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, "
                        f"but got {type(value)!r}")
    if len(value) not in (1, 2):
        amount = "at least one" if len(value) == 0 else "at most two"
        raise TypeError(f"{attr_name} expects {amount} boolean argument"
                        + ("" if len(value) == 0 else "s"))
    for part, which in zip(value, _REDUCTION_PARTS):
        if not isinstance(part, bool):
            raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(part)!r}")
    allow, splitk = value[0], value[-1] if len(value) == 2 else True
    if allow and not splitk:
        raise RuntimeError("allow_splitk=False is not supported when reduced precision "
                           "reductions are enabled")
    return allow, splitk


def _require_bool(value, setter):
    """PyTorch's C++ setters refuse non-bools with a RuntimeError naming the setter."""
    if not isinstance(value, bool):
        raise RuntimeError(f"{setter} expects a bool, but got {type(value).__name__}")


class cuBLASModule:
    """`ember.backends.cuda.matmul`: allow_tf32 is float32_matmul_precision != 'highest'.

    The flags are stored here only to be read back; the CPU computes in full precision.
    """

    # name -> (allow reduced precision, allow split-K); `<name>_split_k` reads the second.
    _reduction = {"allow_fp16_reduced_precision_reduction": (True, True),
                  "allow_bf16_reduced_precision_reduction": (True, True)}
    # plain bool flags other than allow_tf32 (which lives in the global settings)
    _plain = {"allow_fp16_accumulation": False}
    # the C++ setter PyTorch names when a bool flag is given something else
    _setter_names = {"allow_tf32": "set_allow_tf32_cublas",
                     "allow_fp16_accumulation": "set_allow_fp16_accumulation_cublas"}

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _settings.get_float32_matmul_precision() != "highest"
        if name in self._plain:
            return self._plain[name]
        base, half = (name[:-len(_SPLIT_K)], 1) if name.endswith(_SPLIT_K) else (name, 0)
        if base in self._reduction:
            return self._reduction[base][half]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name in self._reduction:
            self._reduction[name] = _reduction_setting(value, name)
        elif name in self._setter_names:
            _require_bool(value, self._setter_names[name])
            if name == "allow_tf32":
                _settings.set_float32_matmul_precision("high" if value else "highest")
            else:
                self._plain[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


def preferred_linalg_library(backend=None):
    """'Default' (PyTorch's CPU build prints _LinalgBackend.Default); nothing to choose here."""
    return "Default"


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp["flash"]


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def math_sdp_enabled():
    return _sdp["math"]


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = bool(enabled)
