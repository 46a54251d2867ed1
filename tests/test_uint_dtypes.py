"""uint16 / uint32 / uint64 as PyTorch 2.13's CPU build has them ('limited support'), and
hash_tensor: every case runs in torch and in ember, and both must agree on the value
(dtype, shape, repr) or on the exception type and text."""
import io
import pickle

import numpy as np
import pytest

import ember
from oracle import assert_same_outcome, ember_names

UINTS = ("uint16", "uint32", "uint64")
ALL = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64") + UINTS


def check(torch, call):  # the torch fixture skips without the oracle
    assert_same_outcome(call)


def _t(lib, values, name):
    return lib.tensor(values, dtype=getattr(lib, name))


# ---------------------------------------------------------------- the dtype objects
@pytest.mark.parametrize("name", UINTS)
def test_dtype_attributes_and_iinfo(torch, name):
    for call in (lambda lib: repr(getattr(lib, name)),
                 lambda lib: (getattr(lib, name).is_signed, getattr(lib, name).itemsize,
                              getattr(lib, name).is_floating_point),
                 lambda lib: repr(lib.iinfo(getattr(lib, name))),
                 lambda lib: (lib.iinfo(getattr(lib, name)).max, lib.iinfo(getattr(lib, name)).bits),
                 lambda lib: _t(lib, [1], name).element_size(),
                 lambda lib: _t(lib, [1], name).is_signed(),
                 lambda lib: _t(lib, [1], name).type(),
                 lambda lib: lib.finfo(getattr(lib, name))):
        check(torch, call)


@pytest.mark.parametrize("name", UINTS)
def test_promotion_table(torch, name):
    for other in ALL:
        check(torch, lambda lib: lib.promote_types(getattr(lib, name), getattr(lib, other)))
        check(torch, lambda lib: lib.promote_types(getattr(lib, other), getattr(lib, name)))
        check(torch, lambda lib: lib.can_cast(getattr(lib, name), getattr(lib, other)))
        check(torch, lambda lib: lib.can_cast(getattr(lib, other), getattr(lib, name)))


MIXED = [
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), 1),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), 1.5),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), True),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), lib.tensor(1)),
    lambda lib: lib.result_type(lib.tensor([1, 2]), _t(lib, 1, "uint32")),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), lib.tensor([True])),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), _t(lib, [1, 2], "uint32")),
    lambda lib: lib.result_type(_t(lib, [1, 2], "uint16"), _t(lib, 2, "uint32")),
    lambda lib: _t(lib, [1, 2], "uint16") * lib.tensor([1.5, 2.0]),
    lambda lib: _t(lib, [1, 2], "uint16") * lib.tensor([1, 2], dtype=lib.uint8),
    lambda lib: _t(lib, [1, 2], "uint64") == lib.tensor([1, 2]),
    lambda lib: lib.tensor([True, False]) * _t(lib, 2, "uint16"),
    lambda lib: _t(lib, [60000], "uint16") * 2,
    lambda lib: _t(lib, [6], "uint16") * -2,
    lambda lib: _t(lib, [6], "uint32") * 2.5,
    lambda lib: _t(lib, [1, 1], "uint64") * (2 ** 64 - 1),
    lambda lib: _t(lib, [6], "uint64") / 4,
    lambda lib: _t(lib, [1, 5], "uint64") | -1,
    lambda lib: _t(lib, [1, 5], "uint64") == 2 ** 64 - 1,
]


@pytest.mark.parametrize("index", range(len(MIXED)))
def test_mixing_with_other_dtypes_and_scalars(torch, index):
    check(torch, MIXED[index])


# ---------------------------------------------------------------- creation
CREATION = [
    lambda lib, u: _t(lib, [1, 2, 3], u),
    lambda lib, u: _t(lib, [[1, 2], [3, 4]], u),
    lambda lib, u: _t(lib, [], u),
    lambda lib, u: _t(lib, 5, u),
    lambda lib, u: _t(lib, [-1], u),
    lambda lib, u: _t(lib, [-70000], u),
    lambda lib, u: _t(lib, [65536], u),
    lambda lib, u: _t(lib, [2 ** 32], u),
    lambda lib, u: _t(lib, [2 ** 63], u),
    lambda lib, u: _t(lib, [2 ** 64 - 1, 0], u),
    lambda lib, u: _t(lib, [2 ** 64], u),
    lambda lib, u: _t(lib, [1.5], u),
    lambda lib, u: _t(lib, [-1.5], u),
    lambda lib, u: _t(lib, [float("nan")], u),
    lambda lib, u: _t(lib, [1, 2.5], u),
    lambda lib, u: _t(lib, [-1, 2, True], u),
    lambda lib, u: _t(lib, [1.5, 2], u),
    lambda lib, u: _t(lib, [-1, 2.5] if u == "uint64" else [-1, 2], u),  # the first offender
    lambda lib, u: _t(lib, [True, 2], u),
    lambda lib, u: _t(lib, np.float64(1.5), u),
    lambda lib, u: _t(lib, np.int64(-1), u),
    lambda lib, u: _t(lib, np.float32(2.5), u),
    lambda lib, u: _t(lib, np.array([1.5, -1.0]), u),
    lambda lib, u: lib.tensor(np.array([1, 2], dtype=u)),
    lambda lib, u: lib.tensor(getattr(np, u)(3)),
    lambda lib, u: lib.tensor([getattr(np, u)(3), getattr(np, u)(4)]),
    lambda lib, u: lib.from_numpy(np.array([1, 2], dtype=u)),
    lambda lib, u: lib.as_tensor([1, 2], dtype=getattr(lib, u)),
    lambda lib, u: lib.zeros(2, 3, dtype=getattr(lib, u)),
    lambda lib, u: lib.ones(2, dtype=getattr(lib, u)),
    lambda lib, u: lib.empty(2, dtype=getattr(lib, u)).shape,
    lambda lib, u: lib.full((2,), 5, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), -1, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), 1.5, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), -1.5, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), 1e10, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), 2 ** 63, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), -2 ** 63, dtype=getattr(lib, u)),
    lambda lib, u: lib.full((2,), float("nan"), dtype=getattr(lib, u)),
    lambda lib, u: lib.zeros(2, dtype=getattr(lib, u)).fill_(-1),
    lambda lib, u: lib.zeros(2, dtype=getattr(lib, u)).fill_(2 ** 64 - 1),
    lambda lib, u: lib.zeros(2).new_full((2,), 7, dtype=getattr(lib, u)),
    lambda lib, u: lib.full_like(lib.zeros(2, dtype=getattr(lib, u)), 7),
    lambda lib, u: lib.arange(5, dtype=getattr(lib, u)),
    lambda lib, u: lib.linspace(0, 5, 3, dtype=getattr(lib, u)),
    lambda lib, u: lib.eye(2, dtype=getattr(lib, u)),
    lambda lib, u: lib.randint(-5, 3, (2,), dtype=getattr(lib, u)),
    lambda lib, u: lib.randint(0, 2 ** 40, (2,), dtype=getattr(lib, u)).shape,
    lambda lib, u: lib.rand(2, dtype=getattr(lib, u)),
    lambda lib, u: lib.tensor([1], dtype=getattr(lib, u), requires_grad=True),
]


@pytest.mark.parametrize("name", UINTS)
@pytest.mark.parametrize("index", range(len(CREATION)))
def test_creation(torch, name, index):
    check(torch, lambda lib: CREATION[index](lib, name))


@pytest.mark.parametrize("name", UINTS)
def test_randint_follows_the_seed(torch, name):
    high = 2 ** 31 if name != "uint16" else 60000
    for lib in (torch, ember):
        lib.manual_seed(3)
    assert ember.randint(0, high, (7,), dtype=getattr(ember, name)).tolist() == \
        torch.randint(0, high, (7,), dtype=getattr(torch, name)).tolist()


# ---------------------------------------------------------------- casts
FLOATS = [-1.0, -1.5, -0.5, 0.7, 255.9, 65535.0, 65536.0, 70000.5, 2.0 ** 31, 2.0 ** 32,
          2.0 ** 32 + 5, 5e9, 2.0 ** 63, 2.0 ** 63 + 4096, 2.0 ** 64, 1e20, -2.0 ** 31,
          -2.0 ** 40, -1e20, float("nan"), float("inf"), -float("inf"), 3.0, 0.0]
INTS = [0, 1, 65535, 32768, 2049, 2 ** 32 - 1, 2 ** 31, 16777217, 2 ** 63, 2 ** 64 - 1,
        2 ** 63 - 1, 12345678901234567890]


def _source(lib, name):
    """64 values of `name` (a vector's worth: PyTorch's scalar tail loop casts some
    out-of-range floats differently, see ember/ops/_cast.py)."""
    if name in UINTS:
        top = {"uint16": 2 ** 16, "uint32": 2 ** 32, "uint64": 2 ** 64}[name]
        values = [v % top for v in INTS]
        return lib.tensor((values * 6)[:64], dtype=getattr(lib, name))
    return lib.tensor((FLOATS * 3)[:64], dtype=lib.float64).to(getattr(lib, name))


@pytest.mark.parametrize("source", ALL)
@pytest.mark.parametrize("target", UINTS)
def test_casts_into_the_unsigned_types(torch, source, target):
    expected = _source(torch, source).to(getattr(torch, target))
    got = _source(ember, source).to(getattr(ember, target))
    assert str(got.dtype) == ember_names(str(expected.dtype))
    assert got.tolist() == expected.tolist()


@pytest.mark.parametrize("source", UINTS)
@pytest.mark.parametrize("target", ALL)
def test_casts_out_of_the_unsigned_types(torch, source, target):
    expected = _source(torch, source).to(getattr(torch, target))
    got = _source(ember, source).to(getattr(ember, target))
    assert str(got.dtype) == ember_names(str(expected.dtype))
    np.testing.assert_array_equal(np.array(got.tolist()), np.array(expected.tolist()))


# ---------------------------------------------------------------- ops: computed or refused
def _pair(lib, u):
    return _t(lib, [1, 2, 3], u), _t(lib, [3, 1, 2], u)


OPS = {
    "repr_big": lambda lib, u: _t(lib, [2 ** 16 - 1, 0, 7], u),
    "scalar_repr": lambda lib, u: _t(lib, 5, u),
    "item": lambda lib, u: _t(lib, [3, 4], u)[1].item(),
    "tolist": lambda lib, u: _t(lib, [3, 4], u).tolist(),
    "numpy": lambda lib, u: _t(lib, [3, 4], u).numpy().dtype.name,
    "index": lambda lib, u: _pair(lib, u)[0][lib.tensor([0, 2])],
    "setitem": lambda lib, u: (lambda a: (a.__setitem__(0, 7), a)[1])(_pair(lib, u)[0]),
    "setitem_mask": lambda lib, u: _pair(lib, u)[0].__setitem__(lib.tensor([True, False, True]), 0),
    "cat": lambda lib, u: lib.cat(_pair(lib, u)),
    "stack": lambda lib, u: lib.stack(_pair(lib, u)),
    "view": lambda lib, u: _pair(lib, u)[0].view(3, 1),
    "contiguous": lambda lib, u: lib.stack(_pair(lib, u)).t().contiguous(),
    "clone": lambda lib, u: _pair(lib, u)[0].clone(),
    "copy_": lambda lib, u: _pair(lib, u)[0].copy_(_pair(lib, u)[1]),
    "zero_": lambda lib, u: _pair(lib, u)[0].zero_(),
    "eq": lambda lib, u: _pair(lib, u)[0] == _pair(lib, u)[1],
    "ne_scalar": lambda lib, u: _pair(lib, u)[0] != 2,
    "lt_float": lambda lib, u: _pair(lib, u)[0] < 2.5,
    "equal": lambda lib, u: lib.equal(*_pair(lib, u)),
    "mul": lambda lib, u: _pair(lib, u)[0] * _pair(lib, u)[1],
    "div": lambda lib, u: _pair(lib, u)[0] / _pair(lib, u)[1],
    "and": lambda lib, u: _pair(lib, u)[0] & _pair(lib, u)[1],
    "or": lambda lib, u: _pair(lib, u)[0] | _pair(lib, u)[1],
    "xor": lambda lib, u: _pair(lib, u)[0] ^ _pair(lib, u)[1],
    "sum": lambda lib, u: _pair(lib, u)[0].sum(),
    "sum_dim": lambda lib, u: lib.stack(_pair(lib, u)).sum(1),
    "sum_float": lambda lib, u: _pair(lib, u)[0].sum(dtype=lib.float32),
    "prod": lambda lib, u: _pair(lib, u)[0].prod(),
    "cumsum": lambda lib, u: _pair(lib, u)[0].cumsum(0),
    "sort": lambda lib, u: _pair(lib, u)[1].sort(),
    "sort_desc": lambda lib, u: _pair(lib, u)[1].sort(descending=True),
    "argsort": lambda lib, u: _pair(lib, u)[1].argsort(),
    "unique": lambda lib, u: _t(lib, [1, 5, 1], u).unique(return_counts=True),
    "any": lambda lib, u: _pair(lib, u)[0].any(),
    "all": lambda lib, u: _pair(lib, u)[0].all(),
    "float": lambda lib, u: _pair(lib, u)[0].float(),
    "sqrt": lambda lib, u: _pair(lib, u)[0].sqrt(),
    "isnan": lambda lib, u: _pair(lib, u)[0].isnan(),
    "repeat": lambda lib, u: _pair(lib, u)[0].repeat(2),
    "roll": lambda lib, u: _pair(lib, u)[0].roll(1),
    "mean": lambda lib, u: _pair(lib, u)[0].mean(),
    "std": lambda lib, u: _pair(lib, u)[0].std(),
    "add": lambda lib, u: _pair(lib, u)[0] + _pair(lib, u)[1],
    "add_scalar": lambda lib, u: _pair(lib, u)[0] + 1,
    "add_": lambda lib, u: _pair(lib, u)[0].add_(1),
    "sub": lambda lib, u: _pair(lib, u)[0] - _pair(lib, u)[1],
    "rsub": lambda lib, u: 5 - _pair(lib, u)[0],
    "diff": lambda lib, u: _pair(lib, u)[0].diff(),
    "floordiv": lambda lib, u: _pair(lib, u)[0] // _pair(lib, u)[1],
    "remainder": lambda lib, u: _pair(lib, u)[0] % 2,
    "fmod": lambda lib, u: lib.fmod(*_pair(lib, u)),
    "neg": lambda lib, u: -_pair(lib, u)[0],
    "abs": lambda lib, u: _pair(lib, u)[0].abs(),
    "sign": lambda lib, u: _pair(lib, u)[0].sign(),
    "pow": lambda lib, u: _pair(lib, u)[0] ** 2,
    "square": lambda lib, u: _pair(lib, u)[0].square(),
    "lt": lambda lib, u: _pair(lib, u)[0] < _pair(lib, u)[1],
    "le": lambda lib, u: _pair(lib, u)[0] <= 2,
    "gt": lambda lib, u: _pair(lib, u)[0] > 1,
    "ge": lambda lib, u: _pair(lib, u)[0] >= _pair(lib, u)[1],
    "not": lambda lib, u: ~_pair(lib, u)[0],
    "lshift": lambda lib, u: _pair(lib, u)[0] << 1,
    "rshift": lambda lib, u: lib.bitwise_right_shift(*_pair(lib, u)),
    "logical_and": lambda lib, u: lib.logical_and(*_pair(lib, u)),
    "logical_not": lambda lib, u: lib.logical_not(_pair(lib, u)[0]),
    "maximum": lambda lib, u: lib.maximum(*_pair(lib, u)),
    "minimum": lambda lib, u: lib.minimum(*_pair(lib, u)),
    "clamp": lambda lib, u: _pair(lib, u)[0].clamp(1, 2),
    "clamp_min": lambda lib, u: _pair(lib, u)[0].clamp_min(2),
    "clamp_max": lambda lib, u: _pair(lib, u)[0].clamp_max(2),
    "clamp_tensors": lambda lib, u: _pair(lib, u)[0].clamp(*_pair(lib, u)),
    "clamp_tensor_min": lambda lib, u: _pair(lib, u)[0].clamp(min=_pair(lib, u)[1]),
    "max": lambda lib, u: _pair(lib, u)[0].max(),
    "min": lambda lib, u: _pair(lib, u)[0].min(),
    "max_dim": lambda lib, u: _pair(lib, u)[0].max(0),
    "min_dim": lambda lib, u: _pair(lib, u)[0].min(0),
    "max_other": lambda lib, u: lib.max(*_pair(lib, u)),
    "amax": lambda lib, u: _pair(lib, u)[0].amax(),
    "amin": lambda lib, u: _pair(lib, u)[0].amin(),
    "aminmax": lambda lib, u: lib.aminmax(_pair(lib, u)[0]),
    "argmax": lambda lib, u: _pair(lib, u)[0].argmax(),
    "argmin": lambda lib, u: _pair(lib, u)[0].argmin(),
    "topk": lambda lib, u: _pair(lib, u)[0].topk(2),
    "median": lambda lib, u: _pair(lib, u)[0].median(),
    "kthvalue": lambda lib, u: _pair(lib, u)[0].kthvalue(1),
    "flip": lambda lib, u: _pair(lib, u)[0].flip(0),
    "nonzero": lambda lib, u: _pair(lib, u)[0].nonzero(),
    "count_nonzero": lambda lib, u: _pair(lib, u)[0].count_nonzero(),
    "masked_select_mask": lambda lib, u: _pair(lib, u)[0][_pair(lib, u)[0] > 1],
    "masked_fill": lambda lib, u: _pair(lib, u)[0].masked_fill(lib.tensor([True, False, True]), 0),
    "setitem_index": lambda lib, u: _pair(lib, u)[0].__setitem__(lib.tensor([0, 1]), 0),
    "setitem_slice": lambda lib, u: (lambda a: (a.__setitem__(slice(0, 2), 9), a)[1])(
        _pair(lib, u)[0]),
    "gather": lambda lib, u: _pair(lib, u)[0].gather(0, lib.tensor([0])),
    "scatter": lambda lib, u: _pair(lib, u)[0].scatter(0, lib.tensor([0]), _pair(lib, u)[1]),
    "scatter_value": lambda lib, u: _pair(lib, u)[0].scatter(0, lib.tensor([0]), 5),
    "scatter_add": lambda lib, u: _pair(lib, u)[0].scatter_add(0, lib.tensor([0]), _pair(lib, u)[1]),
    "index_select": lambda lib, u: _pair(lib, u)[0].index_select(0, lib.tensor([0])),
    "tril": lambda lib, u: lib.stack(_pair(lib, u)).tril(),
    "triu": lambda lib, u: lib.stack(_pair(lib, u)).triu(),
    "cummax": lambda lib, u: _pair(lib, u)[0].cummax(0),
    "cummin": lambda lib, u: _pair(lib, u)[0].cummin(0),
    "mode": lambda lib, u: _pair(lib, u)[0].mode(),
    "mm": lambda lib, u: lib.stack(_pair(lib, u)) @ lib.stack(_pair(lib, u)).t(),
    "dot": lambda lib, u: lib.dot(*_pair(lib, u)),
    "mv": lambda lib, u: lib.stack(_pair(lib, u)) @ _pair(lib, u)[0],
    "bmm": lambda lib, u: lib.stack(_pair(lib, u))[None].bmm(lib.stack(_pair(lib, u)).t()[None]),
    "median_dim": lambda lib, u: _pair(lib, u)[0].median(0),
}


@pytest.mark.parametrize("name", UINTS)
@pytest.mark.parametrize("op", sorted(OPS))
def test_ops_compute_or_refuse_as_torch(torch, name, op):
    check(torch, lambda lib: OPS[op](lib, name))


# ---------------------------------------------------------------- interchange
@pytest.mark.parametrize("name", UINTS)
def test_checkpoints_both_ways(torch, name):
    values = [0, 7, 2 ** 16 - 1]
    if name == "uint64":
        values.append(2 ** 64 - 1)
    buffer = io.BytesIO()
    torch.save({"t": torch.tensor(values, dtype=getattr(torch, name))[1:]}, buffer)
    buffer.seek(0)
    loaded = ember.load(buffer)["t"]
    assert loaded.dtype is getattr(ember, name) and loaded.tolist() == values[1:]
    buffer = io.BytesIO()
    ember.save({"t": ember.tensor(values, dtype=getattr(ember, name))}, buffer)
    buffer.seek(0)
    back = torch.load(buffer)["t"]
    assert back.dtype == getattr(torch, name) and back.tolist() == values
    buffer.seek(0)
    assert ember.load(buffer)["t"].tolist() == values
    assert pickle.loads(pickle.dumps(getattr(ember, name))) is getattr(ember, name)


def test_safetensors_bytes_match_the_reference_writer(torch):
    safetensors_torch = pytest.importorskip("safetensors.torch")
    from ember.utils import safetensors as ember_safetensors
    tensors = {"a": [1, 2], "b": [2 ** 64 - 1], "c": [5], "d": [1.5]}
    dtypes = {"a": "uint16", "b": "uint64", "c": "uint32", "d": "float32"}
    reference = safetensors_torch.save(
        {k: torch.tensor(v, dtype=getattr(torch, dtypes[k])) for k, v in tensors.items()})
    mine = ember_safetensors.save(
        {k: ember.tensor(v, dtype=getattr(ember, dtypes[k])) for k, v in tensors.items()})
    assert mine == reference
    loaded = ember_safetensors.load(reference)
    assert {k: (str(t.dtype), t.tolist()) for k, t in loaded.items()} == \
        {k: (f"ember.{dtypes[k]}", v) for k, v in tensors.items()}


@pytest.mark.parametrize("name", UINTS)
def test_dlpack_and_numpy(torch, name):
    mine = ember.tensor([1, 2, 3], dtype=getattr(ember, name))
    theirs = torch.from_dlpack(mine)
    assert theirs.dtype == getattr(torch, name) and theirs.tolist() == [1, 2, 3]
    back = ember.from_dlpack(torch.tensor([4, 5], dtype=getattr(torch, name)))
    assert back.dtype is getattr(ember, name) and back.tolist() == [4, 5]
    assert mine.numpy().dtype == np.dtype(name)


# ---------------------------------------------------------------- hash_tensor
HASHES = [
    lambda lib: lib.hash_tensor(lib.tensor([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]])),
    lambda lib: lib.hash_tensor(lib.tensor([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]]), 1),
    lambda lib: lib.hash_tensor(lib.tensor([[1.5, 2.0, -3.0], [4.0, 5.0, 6.0]]), (0,),
                                keepdim=True),
    lambda lib: lib.tensor([[1.5, 2.0], [4.0, 5.0]]).t().hash_tensor(0, keepdim=True),
    lambda lib: lib.hash_tensor(lib.tensor([1.5, -2.0]).half()),
    lambda lib: lib.hash_tensor(lib.tensor([1.5, -2.0]).bfloat16()),
    lambda lib: lib.hash_tensor(lib.tensor([1.5, -2.0], dtype=lib.float64)),
    lambda lib: lib.hash_tensor(lib.tensor([1, -2, 3], dtype=lib.int8)),
    lambda lib: lib.hash_tensor(lib.tensor([1, -2, 3])),
    lambda lib: lib.hash_tensor(lib.tensor([1, 2, 3], dtype=lib.uint8)),
    lambda lib: lib.hash_tensor(lib.tensor([True, False, True])),
    lambda lib: lib.hash_tensor(lib.tensor([float("nan"), -0.0])),
    lambda lib: lib.hash_tensor(lib.tensor(2.5), 0),
    lambda lib: lib.hash_tensor(lib.zeros(0, 3)),
    lambda lib: lib.hash_tensor(lib.zeros(0, 3), 0),
    lambda lib: lib.hash_tensor(lib.zeros(0, 3), 1),
    lambda lib: lib.hash_tensor(lib.zeros(3, dtype=lib.uint16)),
    lambda lib: lib.hash_tensor(lib.zeros(3), mode=1),
    lambda lib: lib.hash_tensor(lib.zeros(3), mode=True),
    lambda lib: lib.hash_tensor(lib.zeros(2, 3), 2),
    lambda lib: lib.hash_tensor(lib.zeros(2, 3), (0, 0)),
    lambda lib: lib.hash_tensor(lib.ones(2, 3), 1, out=lib.empty(0, dtype=lib.uint64)),
    lambda lib: lib.hash_tensor(lib.ones(2, 3), 1, out=lib.empty(0, dtype=lib.int64)),
]


@pytest.mark.parametrize("index", range(len(HASHES)))
def test_hash_tensor(torch, index):
    check(torch, HASHES[index])
