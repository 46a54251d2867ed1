"""ember.utils.safetensors: round trips, byte-for-byte agreement with the reference
writer, cross-reading with the `safetensors` package, and header validation."""
import json
import struct

import numpy as np
import pytest

import ember
from ember.utils import safetensors
from tests.oracle import to_numpy

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]


def sample(dtype, shape, seed=0):
    values = np.random.default_rng(seed).uniform(-9, 9, shape)
    values = values > 0 if dtype == "bool" else np.abs(values) if dtype == "uint8" else values
    return ember.tensor(values.tolist() if shape else values.item(),
                        dtype=getattr(ember, dtype))


def mixed():
    tensors = {f"{dtype}_{i}": sample(dtype, shape, i) for dtype in DTYPES
               for i, shape in enumerate([(), (0,), (3,), (2, 3)])}
    tensors["é unicode"] = ember.ones(2)
    return tensors


def assert_same_tensors(got, expected):
    assert sorted(got) == sorted(expected)
    for name, tensor in expected.items():
        assert got[name].dtype is tensor.dtype and got[name].shape == tensor.shape, name
        np.testing.assert_array_equal(to_numpy(got[name]), to_numpy(tensor))


def header(data):
    length = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + length]), length


def test_bytes_and_file_round_trips(tmp_path):
    tensors = mixed()
    data = safetensors.save(tensors, metadata={"format": "pt"})
    assert_same_tensors(safetensors.load(data), tensors)
    path = tmp_path / "m.safetensors"
    safetensors.save_file(tensors, path, metadata={"format": "pt"})
    assert path.read_bytes() == data
    loaded = safetensors.load_file(path)
    assert_same_tensors(loaded, tensors)
    loaded["float32_3"][0, 0] = 100.0  # loaded tensors are writable and independent
    assert safetensors.load_file(path)["float32_3"][0, 0].item() != 100.0


def test_header_layout_follows_the_format():
    data = safetensors.save({"b": ember.ones(3), "a": ember.ones(2, dtype=ember.int8),
                             "c": ember.zeros(2, dtype=ember.float64)}, metadata={"k": "v"})
    parsed, length = header(data)
    assert (8 + length) % 8 == 0
    assert list(parsed) == ["__metadata__", "c", "b", "a"]  # largest dtype first, then name
    assert parsed["b"] == {"dtype": "F32", "shape": [3], "data_offsets": [16, 28]}
    assert parsed["c"]["data_offsets"] == [0, 16] and parsed["a"]["data_offsets"] == [28, 30]
    assert len(data) == 8 + length + 30


def test_load_file_places_tensors_on_a_device(tmp_path):
    path = tmp_path / "x.safetensors"
    safetensors.save_file({"x": ember.arange(3)}, path)
    assert safetensors.load_file(path, device="cpu")["x"].device == ember.device("cpu")


def test_ember_load_dispatches_safetensors_paths(tmp_path):
    path = str(tmp_path / "w.safetensors")
    safetensors.save_file({"w": ember.ones(2)}, path)
    assert ember.load(path)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="with dict map_location is not supported"):
        ember.load(path, map_location={"cpu": "cpu"})


# ================================================================ the reference implementation
def test_matches_the_reference_writer_byte_for_byte(torch):
    reference = pytest.importorskip("safetensors.torch")
    tensors = mixed()
    theirs = reference.save({k: torch.tensor(to_numpy(v).tolist(),
                                             dtype=getattr(torch, str(v.dtype)[6:]))
                             for k, v in tensors.items()}, metadata={"format": "pt"})
    assert safetensors.save(tensors, metadata={"format": "pt"}) == theirs
    assert_same_tensors(safetensors.load(theirs), tensors)


def test_cross_reads_with_the_numpy_api(tmp_path):
    reference = pytest.importorskip("safetensors.numpy")
    arrays = {"a": np.arange(6, dtype=np.int32).reshape(2, 3), "b": np.ones(0, np.float16),
              "c": np.array(True), "d": np.linspace(0, 1, 5)}
    ours = safetensors.load(reference.save(arrays, metadata={"m": "1"}))
    for name, array in arrays.items():
        np.testing.assert_array_equal(ours[name].numpy(), array)
        assert ours[name].numpy().dtype == array.dtype
    path = tmp_path / "e.safetensors"
    safetensors.save_file({name: ember.from_numpy(a) for name, a in arrays.items()}, path)
    theirs = reference.load_file(str(path))
    for name, array in arrays.items():
        np.testing.assert_array_equal(theirs[name], array)


# ================================================================ validation
def test_save_argument_errors():
    with pytest.raises(ValueError, match=r"Expected a dict of \[str, torch.Tensor\]"):
        safetensors.save([ember.ones(1)])
    with pytest.raises(ValueError, match="Key `b` is invalid"):
        safetensors.save({"a": ember.ones(1), "b": None})
    with pytest.raises(ValueError, match="non contiguous tensor: `a`"):
        safetensors.save({"a": ember.ones(2, 2).t()})
    base = ember.ones(4)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        safetensors.save({"a": base, "b": base[:2]})
    assert len(safetensors.load(safetensors.save({"a": base[:2], "b": base[2:]}))) == 2
    with pytest.raises(TypeError, match="argument 'metadata'"):
        safetensors.save({"a": base}, metadata={"k": 1})


def _with_header(entries, data=b"", raw=None):
    text = raw if raw is not None else json.dumps(entries).encode()
    return struct.pack("<Q", len(text)) + text + data


@pytest.mark.parametrize("data, message", [
    (b"\x01\x02", "header too small"),
    (struct.pack("<Q", 10 ** 9) + b"{}", "header too large"),
    (struct.pack("<Q", 50) + b"{}", "invalid header length"),
    (_with_header(None, raw=b"[1, 2]"), "invalid header start"),
    (_with_header(None, raw=b"{bad json"), "invalid JSON"),
    (_with_header(None, raw=b'{"a": 1, "a": 2}'), "invalid JSON"),
    (_with_header({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 4),
     "incomplete metadata"),
    (_with_header({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, b"\0" * 8),
     "needs 12 bytes"),
    (_with_header({"a": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, b"\0" * 8),
     "unsupported dtype"),
    (_with_header({"a": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}}, b"\0" * 2),
     "invalid offset"),
    (_with_header({"a": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 1]}}, b"\0"),
     "invalid shape or offsets"),
    (_with_header({"a": {"dtype": "U8", "shape": [1]}}, b"\0"), "invalid entry"),
    (_with_header({"__metadata__": {"k": 1}}), "__metadata__ must map"),
])
def test_invalid_data_is_refused(data, message):
    with pytest.raises(safetensors.SafetensorError, match=message):
        safetensors.load(data)


def test_truncated_and_mutated_files_fail_cleanly():
    data = safetensors.save(mixed())
    rng = np.random.default_rng(0)
    for _ in range(500):
        damaged = bytearray(data[:rng.integers(len(data))] if rng.random() < 0.3 else data)
        for position in rng.integers(0, len(damaged) or 1, rng.integers(1, 4)):
            if damaged:
                damaged[position] = rng.integers(256)
        try:
            safetensors.load(bytes(damaged))
        except (safetensors.SafetensorError, RuntimeError):
            pass
