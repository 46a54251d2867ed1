"""Printing: `repr`/`str` of tensors must equal PyTorch's, character for character.

Every case builds the same tensor in ember and torch from one NumPy array and
compares `repr(ember_t)` with `repr(torch_t).replace("torch.", "ember.")`.
"""
import doctest
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
from ember import _tensor_str
from ember._tensor import make_tensor

# Until ember/__init__.py re-exports it, reach the function through its module.
set_printoptions = _tensor_str.set_printoptions

_RNG = np.random.default_rng(20240607)
_NAN, _INF = float("nan"), float("inf")


def _normal(shape, dtype=np.float32, scale=1.0):
    return (_RNG.standard_normal(shape) * scale).astype(dtype)


def _as_bfloat16_values(array):
    """float32 values that bfloat16 holds exactly, so both libraries convert without rounding."""
    return array.astype(ml_dtypes.bfloat16).astype(np.float32)


def _same_repr(torch, build):
    """build(lib) makes the tensor in either library; their reprs and strs must agree."""
    got = build(ember)
    expected = repr(build(torch)).replace("torch.", "ember.")
    assert repr(got) == expected
    assert str(got) == expected


def _from_array(array, dtype=None, requires_grad=False):
    def build(lib):
        kwargs = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        return lib.tensor(array, requires_grad=requires_grad, **kwargs)
    return build


# ---------------------------------------------------------------- the table
ARRAYS = {
    # shapes 0..4 dims, default float
    "scalar": np.array(3.0, np.float32),
    "scalar_frac": np.array(-2.5, np.float32),
    "scalar_zero": np.array(0.0, np.float32),
    "scalar_negzero": np.array(-0.0, np.float32),
    "scalar_nan": np.array(_NAN, np.float32),
    "scalar_tiny": np.array(1e-7, np.float32),
    "scalar_huge": np.array(3e12, np.float32),
    "vector_whole": np.array([1.0, 2.0, 3.0], np.float32),
    "vector_frac": np.array([1.5, -2.25, 3.125], np.float32),
    "vector_one": np.array([7.0], np.float32),
    "matrix": _normal((3, 4)),
    "cube": _normal((2, 3, 4)),
    "four_dims": _normal((2, 2, 3, 2)),
    "size_one_dims": _normal((1, 1, 3)),
    # empty
    "empty_1d": np.zeros((0,), np.float32),
    "empty_2d": np.zeros((0, 3), np.float32),
    "empty_2d_late": np.zeros((2, 0), np.float32),
    "empty_3d": np.zeros((2, 0, 4), np.float32),
    "empty_float64": np.zeros((0,), np.float64),
    "empty_int": np.zeros((0, 2), np.int64),
    "empty_bool": np.zeros((0,), np.bool_),
    # magnitudes: the sci-mode rules
    "large": np.array([1e9, 2e9, 3.5e9], np.float32),
    "just_under_1e8": np.array([99999999.0, 1.0e7], np.float64),
    "tiny": np.array([1e-5, 2e-5, 3e-6], np.float32),
    "ratio_over_1000": np.array([0.5, 600.0], np.float32),
    "ratio_1000": np.array([1.0, 1000.0], np.float32),
    "ratio_just_over": np.array([1.0, 1000.5], np.float32),
    "whole_large_ratio": np.array([1.0, 1e6], np.float32),
    "min_1e-4": np.array([1e-4, 0.5], np.float64),
    "min_exactly_1e-4": np.array([1e-4, 2.5e-4], np.float64),
    "max_exactly_1e8": np.array([1e8, 5e7], np.float64),
    "max_over_1e8": np.array([1.5e8, 5e7], np.float64),
    "mixed_signs": np.array([-1.5, 0.0, 2.25, -300.0], np.float32),
    "negative_zero": np.array([-0.0, 1.0], np.float32),
    "all_zero": np.zeros((2, 3), np.float32),
    "negative_zero_only": np.array([-0.0, 0.0], np.float32),
    # nan / inf
    "nan_whole": np.array([_NAN, 1.0, 2.0], np.float32),
    "nan_frac": np.array([1.5, _NAN], np.float32),
    "inf_frac": np.array([1.5, _INF, -_INF], np.float32),
    "only_nonfinite": np.array([_NAN, _INF, -_INF], np.float32),
    "nonfinite_sci": np.array([1e-8, _NAN, -_INF, 1.0], np.float32),
    "nan_matrix": np.array([[_NAN, 0.5], [1e3, -_INF]], np.float64),
    # other float widths
    "float64": _normal((2, 3), np.float64),
    "float64_whole": np.array([1.0, 2.0], np.float64),
    "float64_scalar": np.array(1.0 / 3.0, np.float64),
    "float16": _normal((3, 3), np.float16),
    "float16_large": np.array([60000.0, -1.0, 0.001], np.float16),
    "float16_scalar": np.array(3.0, np.float16),
    # integers and bool
    "int64": np.array([1, -20, 300], np.int64),
    "int64_scalar": np.array(3, np.int64),
    "int64_matrix": np.arange(-6, 6).reshape(3, 4).astype(np.int64),
    "int64_extremes": np.array([np.iinfo(np.int64).min, 0, np.iinfo(np.int64).max], np.int64),
    "int32": np.array([1, -2, 30], np.int32),
    "int16": np.array([[1, -2], [300, 4]], np.int16),
    "int8": np.array([-128, 0, 127], np.int8),
    "uint8": np.array([0, 7, 255], np.uint8),
    "uint8_scalar": np.array(200, np.uint8),
    "bool": np.array([True, False], np.bool_),
    "bool_scalar": np.array(True),
    "bool_matrix": np.array([[True, False, True], [False, False, True]]),
    # summarised (past 1000 elements) and wrapped
    "summarised_1d": np.arange(1200, dtype=np.float32),
    "summarised_2000x3": np.arange(6000, dtype=np.float32).reshape(2000, 3),
    "summarised_3x2000": _normal((3, 2000)),
    "summarised_3d": _normal((12, 11, 10)),
    "summarised_4d": np.arange(4 * 5 * 7 * 9).reshape(4, 5, 7, 9).astype(np.int64),
    "summarised_int": np.arange(2000, dtype=np.int32),
    "summarised_bool": _RNG.standard_normal(1500) > 0,
    "summarised_sci": np.logspace(-10, 10, 1001).astype(np.float64),
    "summarised_exactly_1000": np.arange(1000, dtype=np.float32),
    "summarised_hidden_width": np.concatenate(
        [np.ones(3), np.full(1000, 123456.0), np.ones(3)]).astype(np.float32),
    "wide_row": _normal((40,)),
    "wide_matrix": _normal((3, 25), scale=100.0),
    "wide_int_row": np.arange(100, dtype=np.int64) * 1000,
    "wide_sci_row": np.logspace(-9, 9, 30).astype(np.float32),
    "wide_bool_row": np.tile([True, False], 30),
}

DTYPED = {  # built with dtype= in both libraries
    "bfloat16": (_as_bfloat16_values(_normal((2, 4))), "bfloat16"),
    "bfloat16_whole": (np.array([1.0, 256.0, -3.0], np.float32), "bfloat16"),
    "bfloat16_scalar": (np.array(0.5, np.float32), "bfloat16"),
    "float64_from_float32": (np.array([0.1, 0.2], np.float32), "float64"),
}


@pytest.mark.parametrize("name", list(ARRAYS))
def test_repr_matches_torch(torch, name):
    _same_repr(torch, _from_array(ARRAYS[name]))


@pytest.mark.parametrize("name", list(DTYPED))
def test_repr_matches_torch_with_dtype(torch, name):
    array, dtype = DTYPED[name]
    _same_repr(torch, _from_array(array, dtype))


# ---------------------------------------------------------------- autograd suffixes
GRAD_CASES = {
    "leaf_scalar": lambda lib: lib.tensor(np.array(2.0, np.float32), requires_grad=True),
    "leaf_vector": lambda lib: lib.tensor(np.array([1.0, 2.5], np.float32), requires_grad=True),
    "leaf_float64": lambda lib: lib.tensor(np.array([1.0, 2.5]), requires_grad=True),
    "leaf_empty": lambda lib: lib.tensor(np.zeros((0, 2), np.float32), requires_grad=True),
    "leaf_matrix": lambda lib: lib.tensor(ARRAYS["matrix"], requires_grad=True),
    "mul": lambda lib: lib.tensor(ARRAYS["matrix"], requires_grad=True) * 2,
    "add": lambda lib: lib.tensor(ARRAYS["vector_frac"], requires_grad=True) + 1,
    "add_scalar": lambda lib: lib.tensor(np.array(2.0, np.float32), requires_grad=True) + 1,
    "mul_float64": lambda lib: lib.tensor(np.array([1.0, 2.5]), requires_grad=True) * 3,
    # the suffix no longer fits on the last line and moves to a line of its own
    "leaf_suffix_wraps": lambda lib: lib.tensor(
        np.array([1.5] * 9 + [2.5], np.float32)[:9], requires_grad=True),
    "grad_fn_wraps": lambda lib: lib.tensor(
        np.linspace(0.5, 9.5, 9).astype(np.float64), requires_grad=True) * 2,
    "summarised_leaf": lambda lib: lib.tensor(ARRAYS["summarised_2000x3"], requires_grad=True),
    "detached": lambda lib: (lib.tensor(ARRAYS["vector_frac"], requires_grad=True) * 2).detach(),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_repr_autograd_suffixes_match_torch(torch, name):
    _same_repr(torch, GRAD_CASES[name])


def test_suffix_arithmetic_edges(torch):
    """Lines near 80 columns: PyTorch's own off-by-two decides where suffixes break."""
    for count in range(1, 14):
        for decimals in (1.5, 12.5, 123.5):
            array = np.full(count, decimals, np.float64)
            _same_repr(torch, _from_array(array))
            _same_repr(torch, _from_array(array, requires_grad=True))
            _same_repr(torch, lambda lib: lib.tensor(array, requires_grad=True) + 1)


# ---------------------------------------------------------------- print options
OPTIONS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 0},
    {"edgeitems": 1, "threshold": 10},
    {"edgeitems": 0},
    {"edgeitems": 0, "threshold": 5},
    {"linewidth": 20},
    {"linewidth": 200},
    {"linewidth": 1},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "short", "precision": 6},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 1},
]

OPTION_ARRAYS = ["scalar_frac", "vector_whole", "vector_frac", "matrix", "cube", "large", "tiny",
                 "nan_matrix", "int64_matrix", "bool_matrix", "empty_2d", "summarised_1d",
                 "summarised_3d", "summarised_4d", "wide_row", "wide_sci_row", "all_zero"]


@pytest.fixture
def restore_options(torch):
    """Put both libraries back on PyTorch's defaults, whatever the test did."""
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")


def _options_id(options):
    return ",".join(f"{key}={value}" for key, value in options.items())


@pytest.mark.parametrize("options", OPTIONS, ids=_options_id)
def test_set_printoptions_matches_torch(torch, restore_options, options):
    torch.set_printoptions(**options)
    set_printoptions(**options)
    for name in OPTION_ARRAYS:
        _same_repr(torch, _from_array(ARRAYS[name]))
    _same_repr(torch, GRAD_CASES["mul"])


def test_get_printoptions_and_profiles(torch, restore_options):
    assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    for profile in ("short", "full", "default"):
        torch.set_printoptions(profile=profile)
        set_printoptions(profile=profile)
        assert _tensor_str.get_printoptions() == torch._tensor_str.get_printoptions()
    # sci_mode is reset by any call that does not pass it, as in PyTorch
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert _tensor_str.get_printoptions()["sci_mode"] is None


def test_printoptions_context_restores(restore_options):
    x = ember.tensor(np.array([1.23456, 2.0], np.float32))
    with _tensor_str.printoptions(precision=1, sci_mode=True):
        assert repr(x) == "tensor([1.2e+00, 2.0e+00])"
    assert repr(x) == "tensor([1.2346, 2.0000])"


def test_default_dtype_decides_dtype_suffix(torch):
    arrays = [np.array([1.5, 2.0], np.float32), np.array([1.5, 2.0], np.float64),
              np.zeros((0,), np.float32), np.zeros((0,), np.float64), np.array([1, 2])]
    try:
        for default in ("float64", "float32", "float16"):
            torch.set_default_dtype(getattr(torch, default))
            ember.set_default_dtype(getattr(ember, default))
            for array in arrays:
                _same_repr(torch, _from_array(array))
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


def test_set_printoptions_is_exported():
    # Needs `from ._tensor_str import set_printoptions` in ember/__init__.py (the lead adds it).
    assert ember.set_printoptions is _tensor_str.set_printoptions


# ---------------------------------------------------------------- hypothesis
_DTYPES = ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"]


@st.composite
def _arrays(draw):
    """Arrays over many magnitudes and shapes, with zeros, nan and inf mixed in."""
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=0, max_size=4)))
    dtype = draw(st.sampled_from(_DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    low = draw(st.integers(-12, 12))
    high = low + draw(st.integers(0, 14))
    magnitudes = 10.0 ** rng.uniform(low, high, shape)
    values = rng.standard_normal(shape) * magnitudes
    if draw(st.booleans()):
        values = np.round(values)
    # np.asarray: 0-dim results stay arrays, never NumPy scalars
    if dtype == "bool":
        return np.asarray(values > 0)
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        low, high = max(info.min, -2.0**62), min(info.max, 2.0**62)  # exact in float64
        return np.asarray(np.clip(np.nan_to_num(values), low, high).astype(dtype))
    special = rng.uniform(size=shape)
    values = np.where(special < 0.05, 0.0, values)
    if draw(st.booleans()):
        values = np.where(special > 0.97, _NAN, values)
        values = np.where((special > 0.94) & (special <= 0.97), -_INF, values)
    with np.errstate(over="ignore"):
        return np.asarray(values.astype(dtype))


# the `torch` fixture only hands back the module, so sharing it across examples is safe
_shared_fixture = settings(suppress_health_check=[HealthCheck.function_scoped_fixture],
                           max_examples=150)


@_shared_fixture
@given(_arrays())
def test_repr_random_arrays_match_torch(torch, array):
    _same_repr(torch, _from_array(array))


@_shared_fixture
@given(_arrays(),
       st.fixed_dictionaries({}, optional={
           "precision": st.integers(0, 8),
           "threshold": st.integers(0, 60),
           "edgeitems": st.integers(0, 4),
           "linewidth": st.integers(10, 120),
           "sci_mode": st.sampled_from([True, False]),
       }))
def test_repr_random_arrays_and_options_match_torch(torch, array, options):
    try:
        torch.set_printoptions(**options)
        set_printoptions(**options)
        _same_repr(torch, _from_array(array))
    finally:
        torch.set_printoptions(profile="default")
        set_printoptions(profile="default")


# ---------------------------------------------------------------- beyond the table
def test_non_contiguous_views_print_their_own_values(torch):
    base = np.arange(24, dtype=np.float32).reshape(4, 6) / 4
    _same_repr(torch, lambda lib: lib.tensor(base).unbind(1)[2])
    _same_repr(torch, lambda lib: lib.tensor(base[0]).expand(3, 6))
    _same_repr(torch, lambda lib: lib.tensor(np.arange(3000, dtype=np.int64)).view(30, 100)
               .expand(2, 30, 100).unbind(2)[5])


def test_subclass_prints_its_class_name(torch):
    class Sub(torch.Tensor):
        pass

    expected = repr(torch.tensor(ARRAYS["vector_frac"]).as_subclass(Sub))

    class Sub(ember.Tensor):  # noqa: F811 - the same name on purpose
        __slots__ = ()

    x = ember.tensor(ARRAYS["vector_frac"])
    x.__class__ = Sub
    assert repr(x) == expected


def test_tensor_contents_replaces_the_body(torch):
    array = ARRAYS["matrix"]
    expected = torch.tensor(array, dtype=torch.float64).__repr__(tensor_contents="[...]")
    got = ember.tensor(array, dtype=ember.float64).__repr__(tensor_contents="[...]")
    assert got == expected.replace("torch.", "ember.")


def test_device_suffix_comes_before_dtype():
    """A tensor off the CPU names its device first (built without a GPU: only the label matters)."""
    cuda = ember.device("cuda", 0)
    x = make_tensor(np.array([1.0, 2.0]), cuda)
    assert repr(x) == "tensor([1., 2.], device='cuda:0', dtype=ember.float64)"
    y = make_tensor(np.zeros((0, 2), np.int64), cuda)
    assert repr(y) == "tensor([], device='cuda:0', size=(0, 2), dtype=ember.int64)"


def test_cuda_tensor_repr(device):
    if device == "cpu":
        pytest.skip("the device suffix only appears off the CPU")
    x = ember.tensor(np.array([[1.5, 2.0]]), dtype=ember.float32, device=device)
    assert repr(x) == "tensor([[1.5000, 2.0000]], device='cuda:0')"
    big = ember.tensor(np.arange(3000, dtype=np.int64), device=device)
    assert repr(big) == ("tensor([   0,    1,    2,  ..., 2997, 2998, 2999], device='cuda:0')")


def test_format_of_zero_dim_tensors(torch):
    for array in (np.array(3.14159, np.float32), np.array(7), np.array(True)):
        for spec in ("", ".2f", ">10", "e"):
            if spec in (".2f", "e") and array.dtype == np.bool_:
                continue
            t = torch.tensor(array)
            assert format(ember.tensor(array), spec) == format(t, spec)
    leaf = ember.tensor(np.array(2.5, np.float32), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f"{leaf:.3f}" == "2.500"


def test_format_of_other_tensors(torch):
    array = ARRAYS["vector_frac"]
    assert f"{ember.tensor(array)}" == repr(ember.tensor(array))
    with pytest.raises(TypeError) as expected:
        format(torch.tensor(array), ".2f")
    with pytest.raises(TypeError) as got:
        format(ember.tensor(array), ".2f")
    assert str(got.value) == str(expected.value)


def test_size_repr(torch):
    for name in ("cube", "scalar", "empty_2d"):
        expected = repr(torch.tensor(ARRAYS[name]).shape).replace("torch.", "ember.")
        assert repr(ember.tensor(ARRAYS[name]).shape) == expected
        assert str(ember.tensor(ARRAYS[name]).shape) == expected


def test_large_tensor_is_summarised():
    """Summarised printing formats only the edges (its speed is measured, not tested)."""
    x = ember.tensor(_normal((1000, 1000)))
    text = repr(x)
    assert text.count("...") == 7  # one per printed row, one for the rows


def test_full_profile_prints_everything(restore_options):
    set_printoptions(profile="full")
    x = ember.tensor(np.arange(1001, dtype=np.int64))
    assert "..." not in repr(x)
    assert repr(x).count(",") == 1000


def test_module_docstring_examples():
    result = doctest.testmod(_tensor_str)
    assert result.failed == 0 and result.attempted >= 3
