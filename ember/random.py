"""`ember.random`: the default generator's module-level doors, and `fork_rng`.

The generator itself lives in `_random`; this module is the public path scripts import
(`from torch.random import fork_rng`). `fork_rng` saves the CPU state (always) and the
chosen accelerator devices' states, and puts them back however the block ends.
"""
import contextlib
import warnings

from ._random import (Generator, default_generator, get_rng_state, initial_seed,  # noqa: F401
                      manual_seed, seed, set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "thread_safe_generator"]

_warned_many_devices = False


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Run a block with forked random state: the states are restored on exit.

    Without an accelerator the device type defaults to "cuda", whose module then reports
    no devices, so only the CPU state is forked (as on PyTorch's CPU build).
    """
    if device_type == "meta":
        yield
        return
    # deferred: the accelerator and device-module lookup sit above this module
    from . import accelerator as _accelerator
    from ._device_module import get_device_module
    current = _accelerator.current_accelerator()
    device_type = device_type or (current.type if current is not None else "cuda")
    module = get_device_module(device_type)
    if not enabled:
        yield
        return
    devices = _devices_to_fork(module, device_type, devices, _caller, _devices_kw)
    cpu_state = get_rng_state()
    device_states = [module.get_rng_state(device) for device in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for device, state in zip(devices, device_states):
            module.set_rng_state(state, device)


def _devices_to_fork(module, device_type, devices, caller, devices_kw):
    """Every device when none are named (warning once if that is more than one)."""
    global _warned_many_devices
    if devices is not None:
        return list(devices)   # a generator would be spent after one pass
    count = module.device_count()
    if count > 1 and not _warned_many_devices:
        kind = device_type.upper()
        warnings.warn(
            f"{kind} reports that you have {count} available devices, and you have used "
            f"{caller} without explicitly specifying which devices are being used. For "
            f"safety, we initialize *every* {kind} device by default, which can be quite "
            f"slow if you have a lot of {kind}s. If you know that you are only making use of "
            f"a few {kind} devices, set the environment variable {kind}_VISIBLE_DEVICES or "
            f"the '{devices_kw}' keyword argument of {caller} with the set of devices you "
            "are actually using. For example, if you are using CPU only, set "
            "device.upper()_VISIBLE_DEVICES= or devices=[]; if you are using device 0 only, "
            f"set {kind}_VISIBLE_DEVICES=0 or devices=[0].  To initialize all devices and "
            f"suppress this warning, set the '{devices_kw}' keyword argument to "
            f"`range(ember.{device_type}.device_count())`.", stacklevel=3)
        _warned_many_devices = True
    return list(range(count))


def thread_safe_generator():
    """The DataLoader thread worker's own generator there; None elsewhere (the default
    generator is then used)."""
    from .utils.data import get_worker_info  # deferred: utils.data imports far above us
    info = get_worker_info()
    if info is not None and info.worker_method == "thread" and info.rng is not None:
        return info.rng.torch_generator
    return None
