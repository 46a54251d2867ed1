"""safetensors files: an 8-byte header length, a JSON header, then raw tensor bytes.

The header maps each name to `{"dtype": "F32", "shape": [...], "data_offsets": [begin,
end]}` (offsets into the data that follows), plus an optional `"__metadata__"` of
strings. As the reference writer does, tensors are laid out by descending dtype
(largest alignment first) then by name, and the header is space-padded so the data
starts 8-byte aligned; so files match `safetensors.torch.save_file` byte for byte.
Loading validates the header completely before touching the data.
"""
import json
import struct

from .. import _dtype
from .._backend import numpy as np
from .._device import CPU
from .._tensor import Tensor, _address, make_tensor

__all__ = ["save", "save_file", "load", "load_file", "SafetensorError"]


class SafetensorError(ValueError):
    """A file or buffer that is not valid safetensors data."""


_CODES = {_dtype.bool: "BOOL", _dtype.uint8: "U8", _dtype.int8: "I8", _dtype.int16: "I16",
          _dtype.float16: "F16", _dtype.bfloat16: "BF16", _dtype.int32: "I32",
          _dtype.float32: "F32", _dtype.float64: "F64", _dtype.int64: "I64",
          _dtype.uint16: "U16", _dtype.uint32: "U32", _dtype.uint64: "U64"}
_FROM_CODE = {code: dtype for dtype, code in _CODES.items()}
# The reference writer's dtype order (its enum), largest first in a file.
_RANK = {dtype: rank for rank, dtype in enumerate(
    (_dtype.bool, _dtype.uint8, _dtype.int8, _dtype.int16, _dtype.uint16, _dtype.float16,
     _dtype.bfloat16, _dtype.int32, _dtype.uint32, _dtype.float32, _dtype.float64, _dtype.int64,
     _dtype.uint64))}
_MAX_HEADER = 100_000_000
_SHARED_MEMORY = (
    "\n            Some tensors share memory, this will lead to duplicate memory on disk and "
    "potential differences when loading them again: {}.\n            A potential way to "
    "correctly save your model is to use `save_model`.\n            More information at "
    "https://huggingface.co/docs/safetensors/torch_shared_tensors\n            ")


# ================================================================ saving
def save(tensors, metadata=None):
    """The safetensors bytes for a {name: tensor} dict."""
    header, arrays = _prepare(tensors, metadata)
    return b"".join([header] + [array.tobytes() for array in arrays])


def save_file(tensors, filename, metadata=None):
    """Write a {name: tensor} dict to `filename` in safetensors format."""
    header, arrays = _prepare(tensors, metadata)
    with open(filename, "wb") as file:
        file.write(header)
        for array in arrays:
            file.write(memoryview(array))


def _prepare(tensors, metadata):
    """(header bytes incl. length prefix, [flat uint8 host arrays in file order])."""
    _check_tensors(tensors)
    _check_metadata(metadata)
    order = sorted(tensors, key=lambda name: (-_RANK[tensors[name].dtype], name))
    header = {} if metadata is None else {"__metadata__": dict(metadata)}
    arrays, offset = [], 0
    for name in order:
        tensor = tensors[name]
        data = tensor._data if tensor._device is CPU else tensor._data.get()
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        header[name] = {"dtype": _CODES[tensor.dtype], "shape": list(data.shape),
                        "data_offsets": [offset, offset + raw.size]}
        arrays.append(raw)
        offset += raw.size
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-(8 + len(text)) % 8)
    return struct.pack("<Q", len(text)) + text, arrays


def _check_tensors(tensors):
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"argument 'tensor_dict': '{type(name).__name__}' object is not an "
                            "instance of 'str'")
        if not isinstance(tensor, Tensor):
            raise ValueError(f"Key `{name}` is invalid, expected torch.Tensor but received "
                             f"{type(tensor)}")
        if not tensor.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. "
                "It either means you are trying to save tensors which are reference of each "
                "other in which case it's recommended to save only the full tensors, and "
                "reslice at load time, or simply call `.contiguous()` on your tensor to pack it "
                "before saving.")
    shared = _overlapping(tensors)
    if shared:
        raise RuntimeError(_SHARED_MEMORY.format(shared))


def _overlapping(tensors):
    """Groups of names whose tensors overlap in memory (they would load as copies)."""
    spans = sorted((_address(t._data), _address(t._data) + t._data.nbytes, name)
                   for name, t in tensors.items() if t._data.nbytes)
    groups, current, end = [], None, -1
    for start, stop, name in spans:
        if start < end:
            current.add(name)
        else:
            current = {name}
            groups.append(current)
        end = max(end, stop)
    return [group for group in groups if len(group) > 1]


def _check_metadata(metadata):
    if metadata is None:
        return
    if not isinstance(metadata, dict):
        raise TypeError(f"argument 'metadata': '{type(metadata).__name__}' object is not an "
                        "instance of 'dict'")
    for key, value in metadata.items():
        for item in (key, value):
            if not isinstance(item, str):
                raise TypeError(f"argument 'metadata': '{type(item).__name__}' object is not "
                                "an instance of 'str'")


# ================================================================ loading
def load(data):
    """{name: tensor} from safetensors bytes (the tensors own copies of the data)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"expected bytes, got {type(data).__name__}")
    return _tensors(np.frombuffer(bytearray(data), np.uint8), "cpu")


def load_file(filename, device="cpu"):
    """{name: tensor} from a safetensors file, placed on `device`."""
    return _tensors(np.fromfile(filename, np.uint8), device)


def _tensors(buffer, device):
    _, entries, start = _parse_header(buffer)
    out = {}
    for name, (dtype, shape, begin, end) in entries.items():
        raw = buffer[start + begin:start + end]
        if (start + begin) % dtype.itemsize:  # misaligned in the file: an aligned copy
            raw = raw.copy()
        tensor = make_tensor(raw.view(dtype.np_dtype).reshape(shape), CPU)
        out[name] = tensor if str(device) == "cpu" else tensor.to(device)
    return out


def _parse_header(buffer):
    """(metadata, {name: (dtype, shape, begin, end)} in file order, data start)."""
    if buffer.size < 8:
        raise SafetensorError("Error while deserializing header: header too small")
    length = int(buffer[:8].view("<u8")[0])
    if length > _MAX_HEADER:
        raise SafetensorError("Error while deserializing header: header too large")
    if 8 + length > buffer.size:
        raise SafetensorError("Error while deserializing header: invalid header length")
    text = buffer[8:8 + length].tobytes()
    if not text.startswith(b"{"):
        raise SafetensorError("Error while deserializing header: invalid header start")
    try:
        header = json.loads(text.decode("utf-8"), object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError) as error:
        raise SafetensorError(f"Error while deserializing header: invalid JSON in header: "
                              f"{error}") from None
    if not isinstance(header, dict):
        raise SafetensorError("Error while deserializing header: the header is not an object")
    metadata = header.pop("__metadata__", None)
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(v, str) for v in metadata.values())):
        raise SafetensorError("Error while deserializing header: __metadata__ must map "
                              "strings to strings")
    entries = {name: _entry(name, info) for name, info in header.items()}
    entries = dict(sorted(entries.items(), key=lambda item: (item[1][2], item[1][3])))
    _check_coverage(entries, buffer.size - 8 - length)
    return metadata, entries, 8 + length


def _unique_keys(pairs):
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("duplicate key in header")
    return found


def _entry(name, info):
    """(dtype, shape, begin, end) of one header entry, validated."""
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise SafetensorError(f"Error while deserializing header: invalid entry for tensor "
                              f"{name!r}: {info!r:.200}")
    dtype = _FROM_CODE.get(info["dtype"])
    if dtype is None:
        raise SafetensorError(f"Error while deserializing header: unsupported dtype "
                              f"{info['dtype']!r:.50} for tensor {name!r}")
    shape, offsets = info["shape"], info["data_offsets"]
    if (not isinstance(shape, list) or len(shape) > 64
            or not all(type(s) is int and s >= 0 for s in shape)
            or not isinstance(offsets, list) or len(offsets) != 2
            or not all(type(o) is int and o >= 0 for o in offsets) or offsets[0] > offsets[1]):
        raise SafetensorError(f"Error while deserializing header: invalid shape or offsets for "
                              f"tensor {name!r}")
    numel = 1
    for size in shape:
        numel *= size
    if numel * dtype.itemsize != offsets[1] - offsets[0]:
        raise SafetensorError(f"Error while deserializing header: tensor {name!r} of shape "
                              f"{shape} and dtype {info['dtype']} needs "
                              f"{numel * dtype.itemsize} bytes but its offsets span "
                              f"{offsets[1] - offsets[0]}")
    return dtype, tuple(shape), offsets[0], offsets[1]


def _check_coverage(entries, data_size):
    """Offsets must tile the data exactly: no gaps, no overlaps, nothing left over."""
    position = 0
    for name, (_, _, begin, end) in entries.items():
        if begin != position:
            raise SafetensorError(f"Error while deserializing header: invalid offset for "
                                  f"tensor {name!r}")
        position = end
    if position != data_size:
        raise SafetensorError("Error while deserializing header: incomplete metadata, file "
                              "not fully covered")
