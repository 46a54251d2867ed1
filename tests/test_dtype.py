"""dtypes against torch: names and aliases, finfo/iinfo, the promotion lattice,
result_type over tensors and scalars, can_cast, and the default dtype."""
import itertools

import numpy as np
import pytest

import ember

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
           "int": "int32", "long": "int64"}


@pytest.mark.parametrize("name", NAMES)
def test_dtype_repr_and_properties_match_torch(torch, name):
    e, t = getattr(ember, name), getattr(torch, name)
    assert repr(e) == repr(t).replace("torch.", "ember.") == f"ember.{name}"
    assert str(e) == f"ember.{name}"
    assert e.is_floating_point == t.is_floating_point
    assert e.is_signed == t.is_signed
    assert e.is_complex == t.is_complex
    assert e.itemsize == t.itemsize


@pytest.mark.parametrize("alias, name", sorted(ALIASES.items()))
def test_dtype_aliases(alias, name):
    assert getattr(ember, alias) is getattr(ember, name)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_matches_torch(torch, name):
    e, t = ember.finfo(getattr(ember, name)), torch.finfo(getattr(torch, name))
    assert repr(e) == repr(t)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(e, field) == getattr(t, field), field


def test_finfo_default_is_the_default_dtype(torch):
    assert repr(ember.finfo()) == repr(torch.finfo())


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(torch, name):
    e, t = ember.iinfo(getattr(ember, name)), torch.iinfo(getattr(torch, name))
    assert repr(e) == repr(t)
    assert (e.bits, e.min, e.max) == (t.bits, t.min, t.max)


def test_finfo_and_iinfo_refuse_the_wrong_kind(torch):
    with pytest.raises(TypeError):
        torch.finfo(torch.int32)
    with pytest.raises(TypeError):
        ember.finfo(ember.int32)
    with pytest.raises(TypeError):
        torch.iinfo(torch.float32)
    with pytest.raises(TypeError):
        ember.iinfo(ember.float32)


def test_promote_types_matches_torch_for_every_pair(torch):
    for a, b in itertools.product(NAMES, repeat=2):
        expected = torch.promote_types(getattr(torch, a), getattr(torch, b))
        got = ember.promote_types(getattr(ember, a), getattr(ember, b))
        assert repr(got) == repr(expected).replace("torch.", "ember."), (a, b)


def test_can_cast_matches_torch_for_every_pair(torch):
    for a, b in itertools.product(NAMES, repeat=2):
        assert ember.can_cast(getattr(ember, a), getattr(ember, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


def _operand(lib, kind, name):
    """A 1-dim tensor, a 0-dim tensor, or a Python scalar standing for `name`."""
    if kind == "scalar":
        return {"bool": True, "int64": 3, "float32": 2.5}[name]
    value = np.array([1] if kind == "tensor" else 1).astype(
        "float32" if name == "bfloat16" else name)
    return lib.tensor(value, dtype=getattr(lib, name))


@pytest.mark.parametrize("kinds", [("tensor", "tensor"), ("tensor", "zero-dim"),
                                   ("zero-dim", "tensor"), ("zero-dim", "zero-dim"),
                                   ("tensor", "scalar"), ("zero-dim", "scalar")])
def test_result_type_matches_torch(torch, kinds):
    for a, b in itertools.product(NAMES, repeat=2):
        if kinds[1] == "scalar" and b not in ("bool", "int64", "float32"):
            continue
        expected = torch.result_type(_operand(torch, kinds[0], a), _operand(torch, kinds[1], b))
        got = ember.result_type(_operand(ember, kinds[0], a), _operand(ember, kinds[1], b))
        assert repr(got) == repr(expected).replace("torch.", "ember."), (kinds, a, b)


def test_result_type_of_two_scalars(torch):
    for a, b in itertools.product([True, 2, 2.5], repeat=2):
        assert repr(ember.result_type(a, b)) == repr(torch.result_type(a, b)).replace(
            "torch.", "ember."), (a, b)


def test_set_default_dtype_changes_float_results_and_is_restored(torch):
    previous = ember.get_default_dtype()
    assert previous is ember.float32
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.get_default_dtype() is ember.float64
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.tensor([1, 2]).dtype is ember.int64
        assert (ember.tensor([1, 2]) / 2).dtype is ember.float64
        assert ember.result_type(ember.tensor([1]), 2.5) is ember.float64
        assert ember.result_type(ember.tensor([1.], dtype=ember.float32), 2.5) is ember.float32
        ember.set_default_dtype(ember.float16)
        assert ember.sqrt(ember.tensor([4])).dtype is ember.float16
    finally:
        ember.set_default_dtype(previous)
    assert ember.get_default_dtype() is ember.float32
    assert (ember.tensor([1, 2]) / 2).dtype is ember.float32


def test_set_default_dtype_refuses_non_float_types(torch):
    for name in ("int64", "bool"):
        with pytest.raises(TypeError) as expected:
            torch.set_default_dtype(getattr(torch, name))
        with pytest.raises(TypeError) as got:
            ember.set_default_dtype(getattr(ember, name))
        assert str(got.value) == str(expected.value)
    assert ember.get_default_dtype() is ember.float32


def test_dtypes_pickle_to_themselves():
    import pickle  # noqa: PLC0415
    for name in NAMES:
        dtype = getattr(ember, name)
        assert pickle.loads(pickle.dumps(dtype)) is dtype


def test_ops_ask_ember_whether_a_dtype_is_floating():
    """bfloat16 arrays have NumPy kind 'V' (ml_dtypes), so `dtype.kind == "f"` silently
    treats them as integers: floor returned its input, isnan missed NaN. Ops ask
    `_dtype.is_floating` instead; this scan keeps the old test from coming back."""
    import pathlib
    import re
    pattern = re.compile(r'\.kind\s*(==|!=)\s*"f"|\.kind\s+(not\s+)?in\s+"fc?"')
    root = pathlib.Path(ember.__file__).parent / "ops"
    offenders = [f"{path.name}:{n}" for path in sorted(root.rglob("*.py"))
                 for n, line in enumerate(path.read_text().splitlines(), 1)
                 if pattern.search(line)]
    assert not offenders, offenders
