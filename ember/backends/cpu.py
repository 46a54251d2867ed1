"""ember.backends.cpu: the SIMD level ember's arithmetic (NumPy) dispatches to."""
from .._backend import cpu_features

__all__ = ["get_cpu_capability"]


def get_cpu_capability():
    """'AVX512', 'AVX2' or 'DEFAULT', by PyTorch's rule, from the features NumPy detected."""
    features = cpu_features()
    if all(features.get(name) for name in ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")):
        return "AVX512"
    if features.get("AVX2") and features.get("FMA3"):
        return "AVX2"
    return "DEFAULT"
