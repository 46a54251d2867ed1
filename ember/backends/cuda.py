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


def _ensure_bool(value, attr_name, which):
    if isinstance(value, bool):
        return value
    raise TypeError(f"{attr_name} expects a bool for {which}, but got {type(value)!r}")


class cuBLASModule:
    """`ember.backends.cuda.matmul`: allow_tf32 is float32_matmul_precision != 'highest'."""

    _reduction = {"allow_fp16_reduced_precision_reduction": (True, True),
                  "allow_bf16_reduced_precision_reduction": (True, True)}
    _fp16_accumulation = [False]

    @staticmethod
    def _parse_reduction_setting(value, attr_name):
        if isinstance(value, bool):
            return value, True
        if isinstance(value, (list, tuple)):
            if not value:
                raise TypeError(f"{attr_name} expects at least one boolean argument")
            if len(value) > 2:
                raise TypeError(f"{attr_name} expects at most two boolean arguments")
            allow = _ensure_bool(value[0], attr_name, "allow_reduced_precision")
            if len(value) == 1:
                return allow, True
            return allow, _ensure_bool(value[1], attr_name, "allow_splitk")
        raise TypeError(f"{attr_name} expects a bool or a tuple/list of bools, "
                        f"but got {type(value)!r}")

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _settings.get_float32_matmul_precision() != "highest"
        if name in self._reduction:
            return self._reduction[name][0]
        if name.endswith("_split_k") and name[:-8] in self._reduction:
            return self._reduction[name[:-8]][1]
        if name == "allow_fp16_accumulation":
            return self._fp16_accumulation[0]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            if not isinstance(value, bool):
                raise RuntimeError("set_allow_tf32_cublas expects a bool, but got "
                                   f"{type(value).__name__}")
            return _settings.set_float32_matmul_precision("high" if value else "highest")
        if name in self._reduction:
            self._reduction[name] = self._parse_reduction_setting(value, name)
            return None
        if name == "allow_fp16_accumulation":
            if not isinstance(value, bool):
                raise RuntimeError("set_allow_fp16_accumulation_cublas expects a bool, but got "
                                   f"{type(value).__name__}")
            self._fp16_accumulation[0] = value
            return None
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
