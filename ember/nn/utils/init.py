"""skip_init: build a module without spending time (or random numbers) on initialisation."""
import inspect

from ..._random import get_rng_state, set_rng_state
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """An instance of `module_cls` whose parameters and buffers hold unspecified values.

    PyTorch builds on the meta device and allocates afterwards; ember has no meta device, so
    it builds normally and restores the random generator, leaving the stream as PyTorch's.
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    accepted = inspect.signature(module_cls).parameters
    if "device" not in accepted:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    target = kwargs.pop("device", "cpu")
    saved = get_rng_state()
    try:
        built = module_cls(*args, **kwargs)
    finally:
        set_rng_state(saved)
    return built.to_empty(device=target)
