"""The random-number generator: a Mersenne Twister state, as PyTorch's CPU generator keeps.

A Generator owns the 624-word mt19937 state PyTorch derives from a seed (the
classic `init_genrand` of the seed's low 32 bits), held in NumPy's MT19937 bit
generator, whose raw 32-bit outputs are the same as PyTorch's. Every sampling
op draws through one of the `_draw_*` methods below, so matching PyTorch's
sampling algorithms bit for bit later is a change to those methods alone.
`get_state` writes PyTorch's 5056-byte CPU state layout.
"""
import os

from . import _dtype
from ._backend import numpy as np
from ._device import device as _device_type

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]

_DEFAULT_SEED = 67280421310721   # PyTorch's default_rng_seed_val
_STATE_WORDS = 624
_STATE_BYTES = 5056              # sizeof(CPUGeneratorImplState) in PyTorch
_UINT64 = (1 << 64) - 1
# The byte layout of PyTorch's CPUGeneratorImplState (legacy THGeneratorState first).
_LAYOUT = np.dtype([("the_initial_seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"),
                    ("next", "<u8"), ("state", "<u8", (_STATE_WORDS,)),
                    ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
                    ("normal_is_valid", "<i4"), ("next_float_normal_sample", "<f4"),
                    ("is_next_float_normal_sample_valid", "u1")], align=True)


def _init_genrand(seed):
    """mt19937's state for a 32-bit seed (what std::mt19937 and PyTorch compute)."""
    key = [seed & 0xFFFFFFFF]
    previous = key[0]
    for i in range(1, _STATE_WORDS):
        previous = (1812433253 * (previous ^ (previous >> 30)) + i) & 0xFFFFFFFF
        key.append(previous)
    return np.array(key, dtype=np.uint32)


def _check_seed(seed):
    """PyTorch accepts any int in [-2**63, 2**64) and keeps it as an unsigned 64-bit value."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        if hasattr(seed, "__index__") and not isinstance(seed, bool):
            seed = seed.__index__()
        else:
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    if seed < -(1 << 63) or seed > _UINT64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _UINT64


class Generator:
    """A source of random numbers with its own state: `Generator().manual_seed(0)`."""

    __slots__ = ("_device", "_seed", "_bits", "_np", "__weakref__")

    def __init__(self, device="cpu"):
        self._device = _device_type(device)
        self._bits = np.random.MT19937(0)
        self._np = np.random.Generator(self._bits)
        self._reseed(_DEFAULT_SEED)

    @property
    def device(self):
        return self._device

    def _reseed(self, seed):
        self._seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _init_genrand(seed), "pos": _STATE_WORDS}}

    def manual_seed(self, seed):
        """Reset the state from `seed`; returns the generator."""
        self._reseed(_check_seed(seed))
        return self

    def seed(self):
        """Reseed from OS entropy and return the new seed."""
        new_seed = int.from_bytes(os.urandom(8), "little") >> 1
        self._reseed(new_seed)
        return new_seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor in PyTorch's CPU layout (5056 bytes)."""
        state = self._bits.state["state"]
        pos = int(state["pos"])
        record = np.zeros((), dtype=_LAYOUT)
        record["the_initial_seed"] = self._seed
        record["seeded"] = 1
        # PyTorch counts `left` down to the next regeneration; NumPy counts `pos` up.
        record["left"], record["next"] = (1, 0) if pos >= _STATE_WORDS else (625 - pos, pos)
        record["state"] = state["key"].astype(np.uint64)
        raw = np.frombuffer(record.tobytes().ljust(_STATE_BYTES, b"\0"), dtype=np.uint8)
        return _tensor.make_tensor(raw.copy())

    def set_state(self, new_state):
        """Restore a state returned by `get_state` (or by PyTorch's `get_rng_state`)."""
        if not isinstance(new_state, _tensor.Tensor) or new_state.dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a ember.ByteTensor")
        if new_state.numel() != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {new_state.numel()}")
        raw = np.ascontiguousarray(new_state._data).tobytes()[:_LAYOUT.itemsize]
        record = np.frombuffer(raw, dtype=_LAYOUT)[0]
        left, next_index = int(record["left"]), int(record["next"])
        pos = _STATE_WORDS if left <= 1 else next_index
        self._seed = int(record["the_initial_seed"])
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": record["state"].astype(np.uint32), "pos": pos}}
        return self

    def __repr__(self):
        return f"<ember.Generator object at {hex(id(self))}>"

    # ------------------------------------------------------------ the one place we draw
    # Each returns a NumPy array on the CPU; callers move it to the target device.
    def _draw_uniform(self, shape, np_dtype, low=0.0, high=1.0):
        """Uniform in [low, high), bit for bit as PyTorch's CPU kernel draws it.

        24 random bits of one 32-bit draw for float32 (and for half and bfloat16,
        rounded afterwards), 53 bits of a 64-bit draw for double.
        """
        if np_dtype == np.float64:
            unit = (self._draw_bits64(shape) & ((1 << 53) - 1)) * (1.0 / (1 << 53))
        else:
            unit = (self._draw_bits32(shape) & ((1 << 24) - 1)) * (1.0 / (1 << 24))
        if low != 0.0 or high != 1.0:
            unit = unit * (high - low) + low
        return unit.astype(np_dtype)

    def _draw_bits32(self, shape):
        return self._bits.random_raw(_numel(shape)).reshape(shape)

    def _draw_bits64(self, shape):
        """64-bit words as PyTorch's random64 makes them: first 32-bit draw high."""
        raw = self._bits.random_raw(2 * _numel(shape)).reshape(-1, 2)
        return ((raw[:, 0] << np.uint64(32)) | raw[:, 1]).reshape(shape)

    def _draw_normal(self, shape, mean=0.0, std=1.0):
        return self._np.normal(mean, std, size=shape)

    def _draw_integers(self, low, high, shape, wide=None):
        """Integers in [low, high) as int64, as PyTorch's random_ draws them.

        One raw draw modulo the range: 64 bits wide from a range of 2**28 up
        (PyTorch 2.13's cut-off for random_(from, to)) unless `wide` says which;
        the whole int64 range is the raw 64 bits themselves.
        """
        span = high - low
        if span > _UINT64:
            return self._draw_bits64(shape).view(np.int64)
        if wide is None:
            wide = span >= 1 << 28
        bits = self._draw_bits64(shape) if wide else self._draw_bits32(shape)
        return (bits % np.uint64(span)).astype(np.int64) + np.int64(low)

    def _draw_permutation(self, n):
        return self._np.permutation(n)

    def _draw_exponential(self, shape, scale):
        return self._np.exponential(scale, size=shape)

    def _draw_geometric(self, shape, p):
        return self._np.geometric(p, size=shape)

    def _draw_cauchy(self, shape):
        return self._np.standard_cauchy(size=shape)

    def _draw_choice(self, n, num_samples, probabilities, replacement):
        return self._np.choice(n, size=num_samples, replace=replacement, p=probabilities)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


default_generator = Generator()


def resolve(generator):
    """The generator a sampling op uses: the given one, or the default."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a ember.Generator, but got {type(generator).__name__}")
    return generator


def manual_seed(seed):
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator from OS entropy; returns the seed."""
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


from . import _tensor  # noqa: E402 - the Tensor module imports the ops, which import us
