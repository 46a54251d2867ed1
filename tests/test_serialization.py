"""ember.save / ember.load: PyTorch's checkpoint format, both ways, and hostile input.

Checkpoints go ember -> file -> ember, ember -> torch.load and torch.save -> ember.load,
comparing values, dtypes, strides, storage offsets and memory sharing. Damaged and
malicious files must end in clean exceptions with torch's messages.
"""
import collections
import io
import os
import pathlib
import pickle
import pickletools
import random
import signal
import struct
import warnings
import zipfile

import numpy as np
import pytest

import ember
from tests.oracle import to_numpy

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64"]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4), (1, 2, 3, 2)]
# What a damaged checkpoint may raise: torch's own unpickler lets Python's errors from
# short reads, missing memo entries and the like through, and so does ember's.
CLEAN_ERRORS = (RuntimeError, pickle.UnpicklingError, EOFError, ValueError, zipfile.BadZipFile,
                IndexError, KeyError, struct.error, TypeError, AttributeError, AssertionError)


def sample(dtype, shape, seed=0):
    """A deterministic ember tensor of `dtype` (a name) and `shape`."""
    values = np.random.default_rng(seed).uniform(-50, 50, shape)
    if dtype == "bool":
        values = values > 0
    elif dtype.startswith(("uint", "int")):
        values = np.abs(values) if dtype == "uint8" else values
        values = values.astype(np.int64)
    return ember.tensor(values.tolist() if shape else values.item(), dtype=getattr(ember, dtype))


def roundtrip(obj, **load_kwargs):
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    buffer.seek(0)
    return ember.load(buffer, **load_kwargs)


def torch_roundtrip(torch, obj, **load_kwargs):
    """ember.save -> torch.load."""
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


def from_torch(torch, obj, **save_kwargs):
    """torch.save -> ember.load."""
    buffer = io.BytesIO()
    torch.save(obj, buffer, **save_kwargs)
    buffer.seek(0)
    return ember.load(buffer)


def assert_tensor_matches(got, expected):
    """Same class kind, dtype, shape, strides, offset, requires_grad and values."""
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    assert tuple(got.shape) == tuple(expected.shape)
    assert tuple(got.stride()) == tuple(expected.stride())
    assert got.storage_offset() == expected.storage_offset()
    assert got.requires_grad == expected.requires_grad
    assert (type(got).__name__ == "Parameter") == (type(expected).__name__ == "Parameter")
    np.testing.assert_array_equal(to_numpy(got), to_numpy(expected))


def assert_same_structure(got, expected, path="obj"):
    """Containers, scalars, dtypes and tensors alike on both sides (ember vs ember or torch)."""
    if hasattr(expected, "stride") and hasattr(expected, "dtype"):
        assert_tensor_matches(got, expected)
    elif isinstance(expected, dict):
        assert type(got).__name__ == type(expected).__name__, path
        assert list(got) == list(expected), path
        for key in expected:
            assert_same_structure(got[key], expected[key], f"{path}[{key!r}]")
    elif isinstance(expected, (list, tuple)) and type(expected).__name__ != "Size":
        assert type(got) is type(expected) and len(got) == len(expected), path
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same_structure(g, e, f"{path}[{i}]")
    elif type(expected).__module__.startswith(("torch", "ember")):
        assert str(got).replace("ember", "torch") == str(expected).replace("ember", "torch")
        assert type(got).__name__ == type(expected).__name__, path
    else:
        assert type(got) is type(expected) and got == expected, path


def shares_memory(a, b):
    return np.shares_memory(a._data, b._data)


# ================================================================ ember -> ember
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_roundtrip_every_dtype_and_shape(dtype, shape):
    tensor = sample(dtype, shape)
    loaded = roundtrip(tensor)
    assert type(loaded) is ember.Tensor
    assert_tensor_matches(loaded, tensor)
    assert not shares_memory(loaded, tensor)


def test_views_sharing_storage_stay_shared_with_offsets_and_strides():
    base = ember.arange(24.0).reshape(4, 6)
    views = {"base": base, "row": base[2], "col": base[:, 3], "t": base.t(),
             "block": base[1:3, 2:5], "flat": base.view(-1)[5:17:3]}
    loaded = roundtrip(views)
    for name, view in views.items():
        assert_tensor_matches(loaded[name], view)
    loaded["base"][2, 3] = -1.0
    assert loaded["row"][3].item() == -1.0 and loaded["col"][2].item() == -1.0
    assert loaded["t"][3, 2].item() == -1.0
    assert all(loaded[name]._storage is loaded["base"]._storage for name in views)


def test_a_view_saved_alone_keeps_its_whole_storage():
    base = ember.arange(10, dtype=ember.int32)
    loaded = roundtrip(base[4:7])
    assert loaded.storage_offset() == 4 and loaded.tolist() == [4, 5, 6]


def test_the_same_tensor_twice_loads_as_one_object():
    t = ember.ones(3)
    loaded = roundtrip({"a": t, "b": [t, (t,)]})
    assert loaded["a"] is loaded["b"][0] is loaded["b"][1][0]


def test_parameters_requires_grad_and_non_leaves():
    param = ember.nn.Parameter(ember.randn(2, 3))
    frozen = ember.nn.Parameter(ember.randn(2), requires_grad=False)
    leaf = ember.ones(2, requires_grad=True)
    non_leaf = leaf * 2
    loaded = roundtrip([param, frozen, leaf, non_leaf])
    assert type(loaded[0]) is ember.nn.Parameter and loaded[0].requires_grad
    assert type(loaded[1]) is ember.nn.Parameter and not loaded[1].requires_grad
    assert loaded[2].requires_grad and loaded[2].is_leaf
    assert loaded[3].requires_grad and loaded[3].is_leaf  # as torch: values, not history
    np.testing.assert_array_equal(loaded[0].detach().numpy(), param.detach().numpy())


def test_parameter_attributes_round_trip():
    param = ember.nn.Parameter(ember.ones(2))
    param.tag = "encoder"
    assert roundtrip(param).tag == "encoder"


def test_nested_containers_and_plain_values():
    obj = {"list": [1, 2.5, "x", None, True], "tuple": (b"raw", bytearray(b"ab"), 3 + 4j),
           "set": {1, 2}, "int keys": {0: "a", 7: {"deep": [ember.zeros(1)]}},
           "dtypes": [ember.float32, ember.bfloat16, ember.int64, ember.bool],
           "device": ember.device("cpu"), "size": ember.Size([2, 3]), "big": 2 ** 80,
           "ordered": collections.OrderedDict(b=1, a=2), "counter": collections.Counter("aab")}
    loaded = roundtrip(obj)
    assert_same_structure(loaded, obj)
    assert loaded["dtypes"][1] is ember.bfloat16 and type(loaded["size"]) is ember.Size
    assert loaded["device"] is ember.device("cpu")


def test_save_to_a_path_names_the_archive_after_the_file(tmp_path):
    path = tmp_path / "model.ckpt.pt"
    ember.save({"w": ember.ones(2)}, path)
    names = zipfile.ZipFile(path).namelist()
    assert names[0] == "model.ckpt/data.pkl" and "model.ckpt/data/0" in names
    assert ember.load(str(path))["w"].tolist() == [1.0, 1.0]


def test_records_are_aligned_to_64_bytes():
    buffer = io.BytesIO()
    ember.save([ember.ones(3), ember.arange(5), ember.tensor(True)], buffer)
    archive = zipfile.ZipFile(buffer)
    data = buffer.getvalue()
    for info in archive.infolist():
        header = data[info.header_offset:info.header_offset + 30]
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        assert (info.header_offset + 30 + name_length + extra_length) % 64 == 0
        assert info.compress_type == zipfile.ZIP_STORED


def test_pickle_protocols_and_legacy_format_round_trip():
    obj = {"w": ember.arange(6.0).reshape(2, 3), "v": ember.tensor([1, 2], dtype=ember.int16)}
    obj["view"] = obj["w"][1]
    for kwargs in ({"pickle_protocol": 4}, {"pickle_protocol": 5},
                   {"_use_new_zipfile_serialization": False}):
        buffer = io.BytesIO()
        ember.save(obj, buffer, **kwargs)
        buffer.seek(0)
        legacy = "pickle_protocol" not in kwargs
        # torch's weights-only opcodes lack protocol 4's FRAME, even for its own files
        loaded = ember.load(buffer, weights_only=legacy)
        assert_same_structure(loaded, obj)
        if not legacy:
            buffer.seek(0)
            with pytest.warns(UserWarning, match="Detected pickle protocol"):
                with pytest.raises(pickle.UnpicklingError, match="Unsupported operand 149"):
                    ember.load(buffer)


def test_mmap_loading_maps_the_file(tmp_path):
    path = str(tmp_path / "w.pt")
    ember.save({"w": ember.arange(100.0)}, path)
    loaded = ember.load(path, mmap=True)
    assert isinstance(loaded["w"]._storage.root, np.memmap)
    loaded["w"][0] = 5.0  # copy-on-write: the file is untouched
    assert ember.load(path)["w"][0].item() == 0.0


def test_map_location_forms():
    obj = {"a": ember.arange(4.0), "b": ember.ones(2, dtype=ember.int64)}
    for location in (None, "cpu", ember.device("cpu"), {"cpu": "cpu"}):
        assert_same_structure(roundtrip(obj, map_location=location), obj)
    seen = []

    def keep_on_cpu(storage, location):
        seen.append((storage.dtype, location))
        return storage
    assert_same_structure(roundtrip(obj, map_location=keep_on_cpu), obj)
    assert seen == [(ember.uint8, "cpu"), (ember.uint8, "cpu")]
    assert_same_structure(roundtrip(obj, map_location=lambda storage, location: None), obj)


def test_map_location_errors_match_torch(torch):
    for location in ("xyz", "meta:1"):
        with pytest.raises(RuntimeError) as ours:
            roundtrip(ember.ones(1), map_location=location)
        with pytest.raises(RuntimeError) as theirs:
            torch_roundtrip(torch, ember.ones(1), map_location=location)
        if location == "xyz":
            assert str(ours.value) == str(theirs.value)
    if not ember.cuda.is_available():
        with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
            roundtrip(ember.ones(1), map_location="cuda:0")


# ================================================================ ember -> torch
@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_loads_every_dtype(torch, dtype):
    tensors = [sample(dtype, shape, seed) for seed, shape in enumerate(SHAPES)]
    for weights_only in (True, False):
        loaded = torch_roundtrip(torch, tensors, weights_only=weights_only)
        for got, expected in zip(loaded, tensors):
            assert_tensor_matches(expected, got)


def test_torch_sees_shared_storage_offsets_and_strides(torch):
    base = ember.arange(24.0).reshape(4, 6)
    obj = {"base": base, "t": base.t(), "block": base[1:3, 2:5], "row": base[3]}
    loaded = torch_roundtrip(torch, obj)
    for name in obj:
        assert_tensor_matches(obj[name], loaded[name])
    pointers = {loaded[name].untyped_storage().data_ptr() for name in obj}
    assert len(pointers) == 1
    loaded["base"][3, 1] = 100.0
    assert loaded["row"][1].item() == 100.0


def test_ember_checkpoint_is_byte_identical_to_torch_except_its_id(torch, tmp_path):
    """Same pickle, same records, same padding: only the random serialization id differs."""
    def build(lib):
        w = lib.arange(6.0).reshape(2, 3)
        return collections.OrderedDict(
            [("w", w), ("row", w[1]), ("flag", lib.tensor(True)),
             ("p", lib.nn.Parameter(lib.ones(2))), ("half", lib.zeros(3, dtype=lib.float16)),
             ("meta", {"dtype": lib.bfloat16, "size": lib.Size([1, 2]), "step": 3})])
    os.makedirs(tmp_path / "e")
    os.makedirs(tmp_path / "t")
    ember.save(build(ember), tmp_path / "e" / "ck.pt")
    torch.save(build(torch), tmp_path / "t" / "ck.pt")
    ours = (tmp_path / "e" / "ck.pt").read_bytes()
    theirs = (tmp_path / "t" / "ck.pt").read_bytes()
    assert len(ours) == len(theirs)
    name = b"ck/.data/serialization_id"
    info = zipfile.ZipFile(io.BytesIO(ours)).getinfo(name.decode())
    data_start = ours.index(b"PK\x07\x08", info.header_offset) - 40
    central = ours.rindex(name) - 46
    random_parts = set(range(data_start, data_start + 40))  # the id itself
    random_parts |= set(range(data_start + 44, data_start + 48))  # its crc (data descriptor)
    random_parts |= set(range(central + 16, central + 20))  # its crc (central directory)
    differing = {i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b}
    assert differing <= random_parts and len(differing) > 0


def test_torch_loads_nested_values_with_its_own_types(torch):
    obj = {"dtype": ember.float64, "device": ember.device("cpu"), "size": ember.Size([4]),
           "steps": {0: {"step": ember.tensor(3.0), "exp_avg": ember.zeros(2)}},
           "bytes": b"\x00\x01", "set": {3}}
    loaded = torch_roundtrip(torch, obj)
    assert loaded["dtype"] is torch.float64 and loaded["device"] == torch.device("cpu")
    assert type(loaded["size"]) is torch.Size and loaded["size"] == torch.Size([4])
    assert_same_structure(obj, loaded)


def test_torch_loads_parameters_and_requires_grad(torch):
    param = ember.nn.Parameter(ember.ones(2, 2))
    loaded = torch_roundtrip(torch, {"p": param, "g": ember.ones(1, requires_grad=True)})
    assert type(loaded["p"]) is torch.nn.Parameter and loaded["p"].requires_grad
    assert loaded["g"].requires_grad and loaded["g"].is_leaf


def test_torch_loads_legacy_and_protocol_4_files(torch):
    obj = {"w": ember.arange(6.0).reshape(2, 3)}
    obj["v"] = obj["w"][:, 1]
    # torch's weights-only unpickler lacks protocol 4's FRAME, even for its own files
    for kwargs, weights_only in (({"_use_new_zipfile_serialization": False}, True),
                                 ({"pickle_protocol": 4}, False)):
        buffer = io.BytesIO()
        ember.save(obj, buffer, **kwargs)
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=weights_only)
        for name in obj:
            assert_tensor_matches(obj[name], loaded[name])


# ================================================================ torch -> ember
@pytest.mark.parametrize("dtype", DTYPES)
def test_ember_loads_torch_tensors_of_every_dtype(torch, dtype):
    tensors = [torch.tensor(to_numpy(sample(dtype, shape, seed)).tolist(),
                            dtype=getattr(torch, dtype)) for seed, shape in enumerate(SHAPES)]
    base = tensors[4 - 1]
    tensors += [base.t(), base[1], base[:, 1:]]
    loaded = from_torch(torch, tensors)
    for got, expected in zip(loaded, tensors):
        assert_tensor_matches(got, expected)
    assert loaded[-1]._storage is loaded[3]._storage


def test_ember_loads_torch_legacy_format(torch):
    w = torch.arange(12.0).reshape(3, 4)
    obj = {"w": w, "col": w[:, 2], "i": torch.tensor([1, 2], dtype=torch.int8),
           "p": torch.nn.Parameter(torch.ones(2))}
    loaded = from_torch(torch, obj, _use_new_zipfile_serialization=False)
    for name in obj:
        assert_tensor_matches(loaded[name], obj[name])
    loaded["w"][0, 2] = -7.0
    assert loaded["col"][0].item() == -7.0


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))


def _lenet(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
                         nn.Conv2d(6, 16, 5), nn.Sigmoid(), nn.AvgPool2d(2, 2), nn.Flatten(),
                         nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(),
                         nn.Linear(84, 10))


def _batchnorm_net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 26 * 26, 8), nn.BatchNorm1d(8), nn.Linear(8, 3))


@pytest.mark.parametrize("build, input_shape", [(_mlp, (5, 8)), (_lenet, (2, 1, 28, 28)),
                                                (_batchnorm_net, (3, 1, 28, 28))])
def test_torch_state_dicts_load_into_ember_models(torch, build, input_shape):
    torch.manual_seed(0)
    torch_model = build(torch)
    torch_model.train()
    torch_model(torch.randn(*input_shape))  # move the BatchNorm running statistics
    torch_model.eval()
    state = from_torch(torch, torch_model.state_dict())
    assert list(state) == list(torch_model.state_dict())
    model = build(ember)
    result = model.load_state_dict(state)
    assert not result.missing_keys and not result.unexpected_keys
    model.eval()
    x = np.random.default_rng(1).standard_normal(input_shape).astype(np.float32)
    expected = torch_model(torch.tensor(x)).detach().numpy()
    np.testing.assert_allclose(model(ember.tensor(x)).detach().numpy(), expected, rtol=1e-4,
                               atol=1e-5)
    back = torch_roundtrip(torch, model.state_dict())
    for name, value in torch_model.state_dict().items():
        assert torch.equal(back[name], value), name


def test_torch_optimizer_state_dict_loads(torch):
    torch.manual_seed(0)
    model = _mlp(torch)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    for _ in range(2):
        optimizer.zero_grad()
        model(torch.randn(3, 8)).sum().backward()
        optimizer.step()
    state = optimizer.state_dict()
    loaded = from_torch(torch, state)
    assert_same_structure(loaded, state)
    assert sorted(loaded["state"]) == [0, 1, 2, 3]
    assert loaded["param_groups"][0]["betas"] == (0.8, 0.9)
    assert_same_structure(torch_roundtrip(torch, loaded), state)


def test_ember_loads_torch_values_of_every_plain_kind(torch):
    obj = {"dtype": torch.bfloat16, "device": torch.device("cpu"), "size": torch.Size([2]),
           "nested": [(1, 2.5), {"x": None}, b"\xff", {"s"}], "cuda": torch.device("cuda", 1)}
    loaded = from_torch(torch, obj)
    assert loaded["dtype"] is ember.bfloat16 and loaded["device"] is ember.device("cpu")
    assert type(loaded["size"]) is ember.Size and loaded["cuda"] == ember.device("cuda:1")
    assert loaded["nested"] == [(1, 2.5), {"x": None}, b"\xff", {"s"}]


def test_torch_tensor_attributes_and_storage_sharing_between_parameters(torch):
    w = torch.nn.Parameter(torch.ones(4))
    w.note = "kept"
    tagged = torch.arange(3)
    tagged.note = "dropped"
    obj = {"w": w, "alias": w.data[1:3], "tagged": tagged}
    with pytest.warns(UserWarning, match="dropping attribute 'note'"):
        loaded = from_torch(torch, obj)
    assert type(loaded["w"]) is ember.nn.Parameter and loaded["w"].note == "kept"
    assert shares_memory(loaded["w"], loaded["alias"])
    assert loaded["tagged"].tolist() == [0, 1, 2]


# ================================================================ weights_only, malicious pickles
class _RunsShellCommand:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def _checkpoint_with(torch, payload):
    """A real checkpoint whose pickle carries `payload` (written by torch, never loaded)."""
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2), "payload": payload}, buffer)
    return buffer.getvalue()


def _zip_with_pickle(pickle_bytes, name="archive"):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}/data.pkl", pickle_bytes)
        archive.writestr(f"{name}/byteorder", "little")
        archive.writestr(f"{name}/version", "3\n")
    return buffer.getvalue()


def test_malicious_checkpoint_is_refused_by_default_with_torchs_message(torch):
    data = _checkpoint_with(torch, _RunsShellCommand())
    with pytest.raises(pickle.UnpicklingError) as ours:
        ember.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)
    assert "Weights only load failed" in str(ours.value)
    assert "GLOBAL posix.system" in str(ours.value) or "GLOBAL nt.system" in str(ours.value)


def test_an_os_system_global_is_named_in_the_refusal(torch):
    payload = (b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.")
    data = _zip_with_pickle(payload)
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL os.system") as ours:
        ember.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)


def test_unsupported_globals_get_torchs_allowlist_message(torch):
    data = _checkpoint_with(torch, collections.defaultdict(list))
    with pytest.raises(pickle.UnpicklingError) as ours:
        ember.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as theirs:
        torch.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)
    assert "GLOBAL collections.defaultdict was not an allowed global" in str(ours.value)


def test_weights_only_false_runs_the_full_unpickler():
    payload = b"\x80\x02cos\ngetcwd\nq\x00)Rq\x01."
    assert ember.load(io.BytesIO(_zip_with_pickle(payload)), weights_only=False) == os.getcwd()
    obj = {"w": ember.ones(2), "d": collections.defaultdict(list, a=[1])}
    loaded = roundtrip(obj, weights_only=False)
    assert loaded["d"] == {"a": [1]} and loaded["w"].tolist() == [1.0, 1.0]


def test_safe_globals_allow_a_trusted_class():
    obj = {"w": ember.ones(1), "d": collections.defaultdict(int)}
    with pytest.raises(pickle.UnpicklingError):
        roundtrip(obj)
    with ember.serialization.safe_globals([collections.defaultdict, int]):
        assert roundtrip(obj)["d"] == {}
    assert ember.serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        roundtrip(obj)


def test_weights_only_with_a_pickle_module_is_refused():
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit "
                                           "pickle_module is specified"):
        roundtrip(ember.ones(1), pickle_module=pickle, weights_only=True)
    assert roundtrip(ember.ones(1), pickle_module=pickle).tolist() == [1.0]


# ================================================================ the opcode allowlist
# torch's weights-only unpickler knows these opcodes and no others. Each program is
# wrapped in a zip checkpoint and loaded by both libraries; results, exception types,
# messages and warnings must agree.
_ALLOWED_PROGRAMS = {
    "PROTO": b"\x80\x02K\x01.", "MARK": b"(K\x01K\x02t.", "NONE": b"N.", "NEWTRUE": b"\x88.",
    "NEWFALSE": b"\x89.", "BININT": b"J\xff\xff\xff\xff.", "BININT1": b"K\x05.",
    "BININT2": b"M\x01\x02.", "LONG1": b"\x8a\x02\x01\x80.",
    "BINFLOAT": b"G" + struct.pack(">d", 1.5) + b".", "SHORT_BINSTRING": b"U\x03abc.",
    "BINUNICODE": b"X\x02\x00\x00\x00\xc3\xa9.", "EMPTY_TUPLE": b").", "TUPLE": b"(K\x01t.",
    "TUPLE1": b"K\x01\x85.", "TUPLE2": b"K\x01K\x02\x86.", "TUPLE3": b"K\x01K\x02K\x03\x87.",
    "EMPTY_LIST": b"].", "APPEND": b"]K\x01a.", "APPENDS": b"](K\x01K\x02e.",
    "EMPTY_DICT": b"}.", "SETITEM": b"}K\x01K\x02s.", "SETITEMS": b"}(K\x01K\x02u.",
    "EMPTY_SET": b"\x8f.", "BINPUT": b"K\x07q\x00h\x00\x86.", "BINGET": b"K\x07q\x03h\x03.",
    "LONG_BINPUT": b"K\x07r\x00\x00\x01\x00j\x00\x00\x01\x00\x86.",
    "LONG_BINGET": b"K\x07r\x05\x00\x00\x00j\x05\x00\x00\x00.",
    "GLOBAL": b"ccollections\nOrderedDict\n.", "REDUCE": b"ccollections\nOrderedDict\n)R.",
    "NEWOBJ": b"ccollections\nOrderedDict\n)\x81.",
    "BUILD": b"ccollections\nOrderedDict\n)R}U\x01aK\x01sbU\x01a\x86.",
    "BINPERSID": b"K\x01Q.", "STOP": b".",
}
# Damaged or hostile programs: each ends in the same exception in both libraries.
_REFUSED_PROGRAMS = [
    b"\x80\x05K\x01.",                      # another protocol: a warning, then loads
    b"", b"\x80\x02", b"\x80\x02J\x01\x00", b"\x80\x02K", b"\x80\x02h\x05.",
    b"\x80\x02}(K\x01u.", b"\x80\x02K\x01K\x02a.", b"\x80\x02K\x01(K\x01e.",
    b"\x80\x02K\x01K\x01K\x02s.", b"\x80\x02K\x01(K\x01K\x02u.", b"\x80\x02e.", b"\x80\x02\x85.",
    b"\x80\x02K\x01\x86.", b"\x80\x02X\x05\x00\x00\x00ab.", b"\x80\x02U\x02\xff\xfe.",
    b"\x80\x02G\x00\x00.", b"\x80\x02\x8a\x05\x01.", b"\x80\x02cos\nsystem\n.",
    b"\x80\x02cbuiltins\neval\n.", b"\x80\x02c__builtin__\nset\n)R.",
    b"\x80\x02c__builtin__\nlong\n.", b"\x80\x02cabc", b"\x80\x02ccollections\ndefaultdict\n)R.",
    b"\x80\x02K\x01)R.", b"\x80\x02K\x01)\x81.", b"\x80\x02]}b.", b"\x80\x02U\x01aQ.",
    b"\x80\x02U\x06module\x85Q.", b"\x80\x02)Q.", b"\x80\x02U\x07storage\x85Q.",
    b"\x80\x02ccollections\nOrderedDict\n)RK\x01b.",
]


def _load_outcome(lib, data):
    """('ok', value) or (exception type, message), and the warnings raised on the way."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            outcome = ("ok", lib.load(io.BytesIO(data), weights_only=True))
        except Exception as error:  # noqa: BLE001 - the outcome is what is compared
            outcome = (type(error), str(error))
    return outcome, [(w.category, str(w.message)) for w in caught]


def _assert_same_outcome(torch, data):
    ours, our_warnings = _load_outcome(ember, data)
    theirs, their_warnings = _load_outcome(torch, data)
    assert ours[0] == theirs[0] or ours[0] == "ok" and theirs[0] == "ok", (data, ours, theirs)
    if ours[0] == "ok":
        assert type(ours[1]) is type(theirs[1]) and ours[1] == theirs[1], data
        assert getattr(ours[1], "__dict__", None) == getattr(theirs[1], "__dict__", None)
    else:
        assert ours[1] == theirs[1], data
    assert our_warnings == their_warnings, data
    return ours


@pytest.mark.parametrize("name", sorted(_ALLOWED_PROGRAMS))
def test_each_allowed_opcode_loads_as_in_torch(torch, name):
    program = _ALLOWED_PROGRAMS[name]
    assert getattr(pickle, name)[0] in program
    outcome = _assert_same_outcome(torch, _zip_with_pickle(b"\x80\x02" + program))
    assert outcome[0] == "ok" or name in ("BINPERSID", "STOP")


_OTHER_OPCODES = sorted({op.name for op in pickletools.opcodes} - set(_ALLOWED_PROGRAMS))


@pytest.mark.parametrize("name", _OTHER_OPCODES)
def test_every_other_opcode_is_refused_as_in_torch(torch, name):
    code = next(op.code for op in pickletools.opcodes if op.name == name).encode("latin-1")
    argument = struct.pack("<Q", 2 ** 62) if name == "FRAME" else b"\x00" * 8
    outcome = _assert_same_outcome(torch, _zip_with_pickle(b"\x80\x02K\x01" + code + argument
                                                           + b"."))
    assert outcome == (pickle.UnpicklingError, outcome[1])
    assert f"\n\nUnsupported operand {code[0]}\n\n" in outcome[1]


@pytest.mark.parametrize("program", _REFUSED_PROGRAMS, ids=repr)
def test_damaged_and_hostile_pickles_fail_as_in_torch(torch, program):
    _assert_same_outcome(torch, _zip_with_pickle(program))


def test_a_plain_pickle_fails_as_in_torch(torch):
    """pickle.dump output is not a checkpoint: both modes, both libraries, one answer."""
    for data in (pickle.dumps({"a": 1}), pickle.dumps({"a": 1}, protocol=2), pickle.dumps(7),
                 b"", b"hello world", b"\x80\x02K\x01Q.", b"\x80\x02(U\x07storageK\x01tQ."):
        for weights_only in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(Exception) as theirs:
                    torch.load(io.BytesIO(data), weights_only=weights_only)
                with pytest.raises(type(theirs.value)) as ours:
                    ember.load(io.BytesIO(data), weights_only=weights_only)
            assert str(ours.value) == str(theirs.value)


# ================================================================ errors
def test_not_a_checkpoint():
    cases = {"empty": (b"", EOFError), "text": (b"hello world", KeyError),
             "pickle": (pickle.dumps({"a": 1}), pickle.UnpicklingError)}
    for name, (data, error) in cases.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(error) as ours:
                ember.load(io.BytesIO(data))
        if name == "pickle":  # protocol 4's FRAME is not among torch's opcodes
            assert "Unsupported operand 149" in str(ours.value)
        with pytest.raises(RuntimeError, match="Invalid magic number; corrupt file"):
            ember.load(io.BytesIO(pickle.dumps(7, protocol=2)))


def test_truncated_and_resized_legacy_files_fail_as_in_torch(torch):
    """The pre-1.6 stream, cut anywhere or with a storage's size field changed."""
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(4.0), "v": torch.ones(2, dtype=torch.int64)}, buffer,
               _use_new_zipfile_serialization=False)
    data = buffer.getvalue()
    resized = bytearray(data)
    resized[-48:-40] = struct.pack("<q", -(2 ** 61) + 5)  # the first storage's element count
    cases = [data[:end] for end in range(0, len(data), 5)] + [bytes(resized)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            for weights_only in (True, False):
                outcomes = []
                for lib in (torch, ember):
                    try:
                        lib.load(io.BytesIO(case), weights_only=weights_only)
                        outcomes.append("loaded")
                    except Exception as error:  # noqa: BLE001 - compared below
                        outcomes.append((type(error), str(error)))
                assert outcomes[0] == outcomes[1], (len(case), weights_only)


def test_a_torchscript_archive_is_refused_with_torchs_warning_and_message(torch):
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), buffer)
    texts = []
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="looks like a TorchScript archive") as caught:
            with pytest.raises(RuntimeError) as info:
                lib.load(io.BytesIO(buffer.getvalue()))
        texts.append((str(info.value), str(caught[0].message)))
    assert texts[0] == texts[1]
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="cannot load TorchScript"):
        ember.load(io.BytesIO(buffer.getvalue()), weights_only=False)


def test_a_subsystem_global_asks_for_its_import():
    data = _zip_with_pickle(b"\x80\x02ctorch.distributed.tensor\nDTensor\n.")
    with pytest.raises(pickle.UnpicklingError) as ours:
        ember.load(io.BytesIO(data))
    assert str(ours.value) == ("Weights only load failed. ``torch.distributed.tensor`` must be "
                               "imported to load DTensors\n " + ember.serialization.UNSAFE_MESSAGE
                               + "\n")


def test_malformed_archives_fail_as_in_torch(torch):
    good = io.BytesIO()
    ember.save(ember.ones(2), good)
    no_data = io.BytesIO()
    with zipfile.ZipFile(no_data, "w") as archive:
        archive.writestr("archive/version", "3\n")
    flat = io.BytesIO()
    with zipfile.ZipFile(flat, "w") as archive:
        archive.writestr("version", "3\n")
    cases = [b"PK\x03\x04", good.getvalue()[:21], good.getvalue()[:22], good.getvalue()[:300],
             no_data.getvalue(), flat.getvalue()]
    for data in cases:
        for weights_only in (True, False):
            with pytest.raises(RuntimeError) as theirs:
                torch.load(io.BytesIO(data), weights_only=weights_only)
            with pytest.raises(RuntimeError) as ours:
                ember.load(io.BytesIO(data), weights_only=weights_only)
            assert str(ours.value) == str(theirs.value)


def test_truncated_archive_message_matches_torch(torch):
    buffer = io.BytesIO()
    ember.save(ember.ones(10), buffer)
    data = buffer.getvalue()[:200]
    with pytest.raises(RuntimeError) as ours:
        ember.load(io.BytesIO(data))
    with pytest.raises(RuntimeError) as theirs:
        torch.load(io.BytesIO(data))
    assert str(ours.value) == str(theirs.value)


def test_save_and_load_argument_errors_match_torch(torch, tmp_path):
    class NoCallableWrite:
        write = 3

    class NoSeek:
        def read(self, n=-1):
            return b""
    cases = [lambda lib: lib.save(lib.ones(1), 3),
             lambda lib: lib.save(lib.ones(1), NoCallableWrite()),
             lambda lib: lib.save(lib.ones(1), str(tmp_path / "missing" / "x.pt")),
             lambda lib: lib.load(NoSeek()),
             lambda lib: lib.load(str(tmp_path / "nothing.pt"))]
    for case in cases:
        with pytest.raises(Exception) as theirs:
            case(torch)
        with pytest.raises(type(theirs.value)) as ours:
            case(ember)
        assert str(ours.value) == str(theirs.value)


def _local_class_instance():
    class Local:
        pass
    return Local()


def _renamed_function():
    """A module-level function whose qualified name leads nowhere."""


_renamed_function.__qualname__ = "no_such_name"


def _impostor():
    """Found under its name, but a different object lives there."""


_impostor.__qualname__ = "_renamed_function"


@pytest.mark.parametrize("unpicklable", [
    lambda lib: lambda x: x, lambda lib: {"w": lib.ones(1), "f": [lambda: 0]},
    lambda lib: _local_class_instance(), lambda lib: _renamed_function,
    lambda lib: _impostor, lambda lib: (i for i in range(3))], ids=[
    "lambda", "nested_lambda", "local_class", "renamed", "impostor", "generator"])
def test_unpicklable_objects_fail_as_in_torch(torch, unpicklable):
    with pytest.raises(Exception) as theirs:
        torch.save(unpicklable(torch), io.BytesIO())
    with pytest.raises(type(theirs.value)) as ours:
        ember.save(unpicklable(ember), io.BytesIO())
    assert str(ours.value).replace(" at 0x", "@") .split("@")[0] == \
        str(theirs.value).replace(" at 0x", "@").split("@")[0]
    assert type(ours.value) is type(theirs.value)


def _text_mode_load(lib, path):
    with open(path) as file:
        return lib.load(file)


def _text_mode_save(lib, path):
    with open(path + ".new", "w") as file:
        lib.save(lib.ones(1), file)


def _read_only_save(lib, path):
    with open(path, "rb") as file:
        lib.save(lib.ones(1), file)


def _at_an_offset(lib, path):
    buffer = io.BytesIO()
    buffer.write(b"xx")
    lib.save({"w": lib.arange(3.0)}, buffer)
    buffer.seek(2)
    return lib.load(buffer)


class _ReadSeekTell:
    """A file object with only what torch.load documents for the zip format."""

    def __init__(self, path):
        with open(path, "rb") as file:
            self._buffer = io.BytesIO(file.read())

    def read(self, size=-1):
        return self._buffer.read(size)

    def seek(self, *args):
        return self._buffer.seek(*args)

    def tell(self):
        return self._buffer.tell()


class _WriteOnly:
    def __init__(self):
        self.parts = []

    def write(self, data):
        self.parts.append(bytes(data))


_ARGUMENT_CASES = {
    "read_seek_tell_only": lambda lib, path: lib.load(_ReadSeekTell(path)),
    "legacy_without_readline": lambda lib, path: lib.load(_ReadSeekTell(path + ".old")),
    "legacy_without_readline_full": lambda lib, path: lib.load(_ReadSeekTell(path + ".old"),
                                                               weights_only=False),
    "save_without_flush": lambda lib, path: lib.save(lib.ones(1), _WriteOnly()),
    "legacy_save_without_flush": lambda lib, path: lib.save(
        lib.ones(1), _WriteOnly(), _use_new_zipfile_serialization=False),
    "text_stream": lambda lib, path: lib.load(io.StringIO("abcdef")),
    "text_stream_full": lambda lib, path: lib.load(io.StringIO("abcdef"), weights_only=False),
    "pathlib": lambda lib, path: lib.load(pathlib.Path(path)),
    "save_pathlib": lambda lib, path: lib.save(lib.ones(1), pathlib.Path(path + ".2")),
    "bytesio_at_offset": _at_an_offset,
    "text_mode_load": _text_mode_load, "text_mode_save": _text_mode_save,
    "read_only_save": _read_only_save,
    "map_str": lambda lib, path: lib.load(path, map_location="cpu"),
    "map_bytes": lambda lib, path: lib.load(path, map_location=b"cpu"),
    "map_device": lambda lib, path: lib.load(path, map_location=lib.device("cpu")),
    "map_dict": lambda lib, path: lib.load(path, map_location={"cpu": "cpu"}),
    "map_dict_other_tag": lambda lib, path: lib.load(path, map_location={"cuda:0": "cpu"}),
    "map_dict_device": lambda lib, path: lib.load(path, map_location={"cpu": lib.device("cpu")}),
    "map_dict_int": lambda lib, path: lib.load(path, map_location={"cpu": 0}),
    "map_dict_unknown": lambda lib, path: lib.load(path, map_location={"cpu": "gpu"}),
    "map_identity": lambda lib, path: lib.load(path, map_location=lambda storage, tag: storage),
    "map_none": lambda lib, path: lib.load(path, map_location=lambda storage, tag: None),
    "map_returns_int": lambda lib, path: lib.load(path, map_location=lambda storage, tag: 5),
    "map_unknown": lambda lib, path: lib.load(path, map_location="gpu"),
    "pickle_module": lambda lib, path: lib.load(path, pickle_module=pickle),
    "pickle_module_weights_only": lambda lib, path: lib.load(path, pickle_module=pickle,
                                                            weights_only=True),
    "pickle_module_int": lambda lib, path: lib.load(path, pickle_module=5, weights_only=False),
    "save_pickle_module_int": lambda lib, path: lib.save(lib.ones(1), io.BytesIO(),
                                                         pickle_module=5),
    "save_protocol_9": lambda lib, path: lib.save(lib.ones(1), io.BytesIO(), pickle_protocol=9),
    "mmap": lambda lib, path: lib.load(path, mmap=True),
    "mmap_pathlib": lambda lib, path: lib.load(pathlib.Path(path), mmap=True),
    "load_none": lambda lib, path: lib.load(None),
    "load_bytes": lambda lib, path: lib.load(open(path, "rb").read()),
    "load_directory": lambda lib, path: lib.load(os.path.dirname(path)),
    "save_directory": lambda lib, path: lib.save(lib.ones(1), os.path.dirname(path)),
    "load_args": lambda lib, path: lib.load(path, weights_only=False, errors="strict"),
    "load_args_weights_only": lambda lib, path: lib.load(path, errors="strict"),
    "load_args_legacy_weights_only": lambda lib, path: lib.load(path + ".old", errors="strict"),
    "bad_load_arg": lambda lib, path: lib.load(path, weights_only=False, bogus=1),
    "encoding": lambda lib, path: lib.load(path, encoding="latin1"),
}


@pytest.mark.parametrize("case", sorted(_ARGUMENT_CASES))
def test_save_and_load_arguments_match_torch(torch, tmp_path, case):
    """Each form of each argument: the same result, or the same exception and message."""
    outcomes = []
    for lib in (torch, ember):
        path = str(tmp_path / f"{lib.__name__}.pt")
        lib.save({"w": lib.arange(3.0)}, path)
        lib.save({"w": lib.arange(3.0)}, path + ".old", _use_new_zipfile_serialization=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = _ARGUMENT_CASES[case](lib, path)
                outcomes.append(("ok", None if result is None else result["w"].tolist()))
            except Exception as error:  # noqa: BLE001 - compared below
                message = str(error).replace(str(tmp_path), "DIR").replace("ember", "torch")
                outcomes.append((type(error), message))
    assert outcomes[1] == outcomes[0]


def test_mmap_needs_a_path_and_a_zip_checkpoint(tmp_path):
    buffer = io.BytesIO()
    ember.save(ember.ones(1), buffer)
    buffer.seek(0)
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        ember.load(buffer, mmap=True)
    path = str(tmp_path / "old.pt")
    ember.save(ember.ones(1), path, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="mmap can only be used with files saved with"):
        ember.load(path, mmap=True)


def test_saving_one_storage_as_two_dtypes_is_refused(torch):
    base = ember.zeros(4)
    other = base.view(ember.int32)
    with pytest.raises(RuntimeError, match="Cannot save multiple tensors or storages that view "
                                           "the same data as different types"):
        ember.save([base, other], io.BytesIO())


def test_out_of_bounds_tensor_in_checkpoint_is_a_clean_error():
    buffer = io.BytesIO()
    ember.save(ember.ones(4), buffer)
    data = buffer.getvalue()
    pickle_bytes = zipfile.ZipFile(buffer).read("archive/data.pkl")
    damaged = _rezip(data, pickle_bytes.replace(b"K\x04\x85", b"K\x09\x85", 1))  # size 9
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 16"):
        ember.load(io.BytesIO(damaged))
    with pytest.raises(RuntimeError, match="Bad CRC-32"):  # the same damage, CRC unchanged
        ember.load(io.BytesIO(data.replace(b"K\x04\x85", b"K\x09\x85", 1)))


# ================================================================ fuzzing
def _timeout(signum, frame):
    raise TimeoutError("ember.load took too long on a damaged checkpoint")


def _mutations(data, pickle_bytes, rng, count):
    """Damaged versions of a checkpoint: raw byte damage, truncation, and a valid zip
    around a damaged pickle (which reaches the unpickler itself)."""
    for i in range(count):
        kind = i % 4
        if kind == 0:
            yield data[:rng.randrange(len(data))]
        elif kind == 1:
            damaged = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            yield bytes(damaged)
        else:
            damaged = bytearray(pickle_bytes)
            for _ in range(rng.randint(1, 3)):
                position = rng.randrange(len(damaged))
                if kind == 2:
                    damaged[position] = rng.randrange(256)
                else:
                    damaged[position:position + rng.randint(0, 3)] = bytes(
                        rng.randrange(256) for _ in range(rng.randint(0, 3)))
            yield _rezip(data, bytes(damaged))


def _rezip(data, pickle_bytes):
    source = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for info in source.infolist():
            content = pickle_bytes if info.filename.endswith("data.pkl") else source.read(info)
            archive.writestr(info.filename, content)
    return buffer.getvalue()


def _fuzz_cases(count):
    """(kind, damaged checkpoint) pairs, the same ones on every run."""
    base = ember.arange(12.0).reshape(3, 4)
    obj = collections.OrderedDict(w=base, t=base.t(), i=ember.tensor([1, 2], dtype=ember.int8),
                                  p=ember.nn.Parameter(ember.ones(2)),
                                  meta={"step": 3, "lr": 0.1, "name": "x", "d": ember.float16})
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    data = buffer.getvalue()
    pickle_bytes = zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    rng = random.Random(1234)
    return [(index % 4, damaged)
            for index, damaged in enumerate(_mutations(data, pickle_bytes, rng, count))]


def _fuzz_outcome(lib, data):
    try:
        lib.load(io.BytesIO(data))
        return "loaded"
    except Exception as error:  # noqa: BLE001 - the point of the test
        return type(error)


def test_fuzzed_checkpoints_fail_cleanly():
    previous = signal.signal(signal.SIGALRM, _timeout)
    outcomes = collections.Counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for index, (kind, damaged) in enumerate(_fuzz_cases(3000)):
                signal.setitimer(signal.ITIMER_REAL, 2.0)
                try:
                    outcome = _fuzz_outcome(ember, damaged)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if outcome != "loaded" and not issubclass(outcome, CLEAN_ERRORS):
                    pytest.fail(f"case {index}: {outcome.__name__}")
                outcomes[getattr(outcome, "__name__", outcome)] += 1
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert outcomes["UnpicklingError"] > 100 and outcomes["RuntimeError"] > 100


def test_fuzzed_pickles_fail_with_torchs_exception_types(torch):
    """A damaged pickle in an intact archive: the same exception type as torch.load, or
    ember's RuntimeError where its rebuild checks are stricter than torch's."""
    seen = collections.Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index, (kind, damaged) in enumerate(_fuzz_cases(1200)):
            if kind < 2:
                continue
            ours, theirs = _fuzz_outcome(ember, damaged), _fuzz_outcome(torch, damaged)
            assert ours == theirs or ours is RuntimeError, (index, ours, theirs)
            seen[ours == theirs] += 1
    assert seen[True] > 0.95 * sum(seen.values())


# ================================================================ devices
def test_roundtrip_keeps_each_device_and_map_location_moves_it(device, torch):
    base = ember.arange(6.0).reshape(2, 3).to(device)
    obj = {"base": base, "row": base[1], "i": ember.ones(2, dtype=ember.int64).to(device)}
    loaded = roundtrip(obj)
    for name in obj:
        assert loaded[name].device == obj[name].device
        np.testing.assert_array_equal(loaded[name].cpu().numpy(), obj[name].cpu().numpy())
    assert loaded["row"]._storage is loaded["base"]._storage
    on_cpu = roundtrip(obj, map_location="cpu")
    assert all(t.device == ember.device("cpu") for t in on_cpu.values())
    moved = roundtrip({"x": ember.ones(2)}, map_location={"cpu": device})
    assert moved["x"].device.type == device
    theirs = torch_roundtrip(torch, obj, map_location="cpu")
    np.testing.assert_array_equal(theirs["row"].numpy(), [3.0, 4.0, 5.0])
