"""`out=` against torch: every function in the table writes its result into a caller's
tensor as PyTorch does (values, dtype, resize and its warning, dtype refusals, autograd
refusal, aliasing, tuple outs), and a call that raises leaves `out` as it was."""
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same

_RNG = np.random.default_rng(12)
_A = _RNG.standard_normal((3, 4)).astype(np.float32)
_B = _RNG.standard_normal((3, 4)).astype(np.float32)
_SQ = (_RNG.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
_V = _RNG.standard_normal(4).astype(np.float32)
_I = _RNG.integers(-5, 6, (3, 4))
_POS = np.abs(_A) + 0.5


def _t(lib, array):
    return lib.tensor(array)


# (name, args builder, keyword args): the call is lib.name(*args(lib), **kwargs, out=...)
CASES = [
    ("add", lambda L: (_t(L, _A), _t(L, _B)), {"alpha": 2}),
    ("sub", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("mul", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("div", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("div", lambda L: (_t(L, _I), _t(L, _I * 0 + 3)), {"rounding_mode": "floor"}),
    ("pow", lambda L: (_t(L, _POS), 2.5), {}),
    ("atan2", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("maximum", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("fmod", lambda L: (_t(L, _I), 3), {}),
    ("remainder", lambda L: (_t(L, _A), 0.7), {}),
    ("bitwise_and", lambda L: (_t(L, _I), _t(L, _I + 2)), {}),
    ("eq", lambda L: (_t(L, _A), _t(L, _A)), {}),
    ("lt", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("logical_and", lambda L: (_t(L, _A), _t(L, _B)), {}),
    ("sin", lambda L: (_t(L, _A),), {}),
    ("exp", lambda L: (_t(L, _A),), {}),
    ("sqrt", lambda L: (_t(L, _POS),), {}),
    ("abs", lambda L: (_t(L, _I),), {}),
    ("neg", lambda L: (_t(L, _A),), {}),
    ("sigmoid", lambda L: (_t(L, _A),), {}),
    ("floor", lambda L: (_t(L, _A),), {}),
    ("clamp", lambda L: (_t(L, _A), -0.5, 0.5), {}),
    ("lerp", lambda L: (_t(L, _A), _t(L, _B), 0.3), {}),
    ("addcmul", lambda L: (_t(L, _A), _t(L, _B), _t(L, _B)), {"value": 0.5}),
    ("nan_to_num", lambda L: (_t(L, _A),), {}),
    ("sum", lambda L: (_t(L, _A), 1), {}),
    ("mean", lambda L: (_t(L, _A), 0), {"keepdim": True}),
    ("prod", lambda L: (_t(L, _A), 1), {}),
    ("cumsum", lambda L: (_t(L, _A), 1), {}),
    ("logsumexp", lambda L: (_t(L, _A), 1), {}),
    ("amax", lambda L: (_t(L, _A), 1), {}),
    ("argmax", lambda L: (_t(L, _A), 1), {}),
    ("std", lambda L: (_t(L, _A), 1), {}),
    ("all", lambda L: (_t(L, _A > 0), 1), {}),
    ("softmax", lambda L: (_t(L, _A), 1), {}),
    ("mm", lambda L: (_t(L, _A), _t(L, _B.T.copy())), {}),
    ("matmul", lambda L: (_t(L, _A), _t(L, _V)), {}),
    ("bmm", lambda L: (_t(L, _A[None]), _t(L, _B.T.copy()[None])), {}),
    ("addmm", lambda L: (_t(L, _SQ), _t(L, _A), _t(L, _B.T.copy())), {}),
    ("outer", lambda L: (_t(L, _V), _t(L, _V)), {}),
    ("dot", lambda L: (_t(L, _V), _t(L, _V)), {}),
    ("tril", lambda L: (_t(L, _A),), {}),
    ("cat", lambda L: ([_t(L, _A), _t(L, _B)],), {"dim": 1}),
    ("stack", lambda L: ([_t(L, _A), _t(L, _B)],), {}),
    ("take", lambda L: (_t(L, _A), _t(L, np.array([0, 5, 7]))), {}),
    ("inverse", lambda L: (_t(L, _SQ),), {}),
    ("det", lambda L: (_t(L, _SQ),), {}),
    ("diff", lambda L: (_t(L, _A),), {}),
]

TUPLE_CASES = [
    ("max", lambda L: (_t(L, _A), 1), {}),
    ("min", lambda L: (_t(L, _A), 0), {"keepdim": True}),
    ("sort", lambda L: (_t(L, _A),), {"descending": True}),
    ("topk", lambda L: (_t(L, _A), 2), {}),
    ("kthvalue", lambda L: (_t(L, _A), 2), {}),
    ("median", lambda L: (_t(L, _A), 1), {}),
    ("cummax", lambda L: (_t(L, _A), 1), {}),
    ("aminmax", lambda L: (_t(L, _A),), {"dim": 0}),
    ("slogdet", lambda L: (_t(L, _SQ),), {}),
]


def _ids(cases):
    return [f"{name}-{i}" for i, (name, _, _) in enumerate(cases)]


def _call(lib, case, out):
    name, args, kwargs = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = getattr(lib, name)(*args(lib), **kwargs, out=out)
        except Exception as error:  # noqa: BLE001 - compared with torch's
            return error, _messages(caught)
    return result, _messages(caught)


def _messages(caught):
    # PyTorch's C++ warnings end with where they were triggered
    return [str(w.message).split(" (Triggered internally at")[0] for w in caught]


def _compare(torch, case, make_out):
    """Run the case in both libraries with outs made by make_out(lib); same results, same
    warnings, same errors; a refused call leaves out untouched."""
    t_out, e_out = make_out(torch), make_out(ember)
    e_before = [o.detach().clone() for o in (e_out if isinstance(e_out, tuple) else (e_out,))]
    t_result, t_warnings = _call(torch, case, t_out)
    e_result, e_warnings = _call(ember, case, e_out)
    assert e_warnings == [w.replace("torch.", "ember.") for w in t_warnings]
    if isinstance(t_result, Exception):
        assert type(e_result) is type(t_result), e_result
        assert str(e_result) == str(t_result).replace("torch.", "ember.").replace(
            "ember.cat", "torch.cat")
        for before, now in zip(e_before, e_out if isinstance(e_out, tuple) else (e_out,)):
            assert_same(now.detach(), ember_to_torch(torch, before))
        return
    assert not isinstance(e_result, Exception), e_result
    # float32 math written into a float64 out: one float32 ulp apart at most
    assert_same(e_result, t_result, atol=1e-6, rtol=3e-7)
    assert_same(e_out, t_out, atol=1e-6, rtol=3e-7)
    if isinstance(t_result, tuple):
        assert type(e_result).__name__ == type(t_result).__name__
        assert all(a is b for a, b in zip(e_result, e_out))
    else:
        assert e_result is e_out


def ember_to_torch(torch, tensor):
    return torch.from_numpy(tensor.numpy().copy())


_DTYPES = ["float32", "float64", "int64", "bool"]


@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_out_dtype_and_resize(torch, case, dtype):
    """A zero-element out of each dtype: cast or refused as PyTorch."""
    _compare(torch, case, lambda L: L.empty(0, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("case", CASES, ids=_ids(CASES))
def test_out_resize_warns(torch, case):
    """A non-empty out of another shape is resized with PyTorch's deprecation warning;
    one of the right shape (here a transposed view) is written in place."""
    name, args, kwargs = case
    expected = getattr(torch, name)(*args(torch), **kwargs)
    dtype, shape = str(expected.dtype)[len("torch."):], tuple(expected.shape)
    _compare(torch, case, lambda L: L.full((5,), 7, dtype=getattr(L, dtype)))
    if len(shape) == 2:
        _compare(torch, case, lambda L: L.zeros(shape[::-1], dtype=getattr(L, dtype)).t())


@pytest.mark.parametrize("case", TUPLE_CASES, ids=_ids(TUPLE_CASES))
def test_tuple_out(torch, case):
    """Tuple-returning functions take a tuple out= and return return_types.<name>_out."""
    def make(L):
        result = getattr(L, case[0])(*case[1](L), **case[2])
        return tuple(L.empty(0, dtype=r.dtype) for r in result)
    _compare(torch, case, make)
    _compare(torch, case, lambda L: tuple(L.empty(0, dtype=L.float64) for _ in range(2)))
    _compare(torch, case, lambda L: (L.empty(0),))


@pytest.mark.parametrize("make_out", ["tensor", "tuple"])
def test_wrong_out_kind(torch, make_out):
    """A tuple where a tensor goes, or the reverse: the parser's TypeError."""
    def make(L):
        return (L.empty(0), L.empty(0, dtype=L.long)) if make_out == "tuple" else L.empty(0)
    _compare(torch, ("add" if make_out == "tuple" else "max", lambda L: (_t(L, _A), 1), {}),
             make)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in ("add", "mul", "sin", "sum", "mm",
                                                                 "cumsum", "eq")],
                         ids=lambda c: c[0])
def test_out_refuses_autograd(torch, case):
    """out= ops are not differentiable: an input or out that requires grad is refused
    (comparisons excepted: their result is never differentiable)."""
    name, args, kwargs = case

    def with_grad(L):
        values = args(L)
        floats = [v for v in values if isinstance(v, L.Tensor) and v.is_floating_point()]
        floats[0].requires_grad_()
        return values
    _compare(torch, (name, with_grad, kwargs), lambda L: L.empty(0))
    _compare(torch, (name, args, kwargs), lambda L: L.empty(0, requires_grad=True))
    with torch.no_grad(), ember.no_grad():
        _compare(torch, (name, with_grad, kwargs), lambda L: L.empty(0))


def test_out_aliases_input(torch):
    """out may be an input: the result is computed first, then written."""
    for lib in (torch, ember):
        x = lib.tensor(_A)
        lib.add(x, lib.tensor(_B), out=x)
        y = lib.tensor(_A)
        lib.cumsum(y, 1, out=y)
        z = lib.tensor(_A)
        lib.sort(z, out=(z, lib.empty(0, dtype=lib.long)))
        if lib is torch:
            expected = (x, y, z)
    assert_same((x, y, z), expected)


def test_out_bumps_version(torch):
    for lib in (torch, ember):
        out = lib.empty(3, 4)
        before = out._version
        lib.mul(lib.tensor(_A), 2, out=out)
        assert out._version == before + 1


FACTORIES = [
    ("zeros", lambda L: (3, 2), {}),
    ("ones", lambda L: ((4,),), {}),
    ("full", lambda L: ((2, 2), 1.5), {}),
    ("eye", lambda L: (3,), {}),
    ("arange", lambda L: (5,), {}),
    ("arange", lambda L: (0.5, 3), {}),
    ("range", lambda L: (0, 4), {}),
    ("linspace", lambda L: (0, 1, 5), {}),
    ("logspace", lambda L: (0, 2, 3), {}),
    ("zeros", lambda L: (3,), {"dtype": None}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
@pytest.mark.parametrize("case", FACTORIES, ids=_ids(FACTORIES))
def test_factory_out(torch, case, dtype):
    """Factories take their dtype from out."""
    _compare(torch, case, lambda L: L.empty(0, dtype=getattr(L, dtype)))


@pytest.mark.parametrize("shape", [(2,), (5, 1), (5,)])
@pytest.mark.parametrize("case", FACTORIES, ids=_ids(FACTORIES))
def test_factory_out_resized(torch, case, shape):
    """Factories resize a non-empty out silently; arange and range keep a shape of as many
    elements, arange warns in its own words about one of another size."""
    _compare(torch, case, lambda L: L.full(shape, 7.0))


def test_factory_dtype_mismatch(torch):
    _compare(torch, ("zeros", lambda L: (3,), {"dtype": None}), lambda L: L.empty(0))
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            lib.ones(3, dtype=lib.float32, out=lib.empty(2, dtype=lib.long))
        assert str(info.value) == "dtype Float does not match dtype of out parameter (Long)"
        with pytest.raises(RuntimeError) as info:
            lib.zeros(3, out=lib.empty(2, requires_grad=True))
        assert str(info.value).startswith("aten::zeros(): functions with out=... arguments")


@pytest.mark.parametrize("name,args", [("rand", (3, 2)), ("randn", (4,)),
                                       ("randint", (0, 9, (5,))), ("randperm", (6,))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_random_factory_out(torch, name, args, dtype):
    """Random factories with out= draw the same numbers as PyTorch after manual_seed."""
    def make(L):
        L.manual_seed(3)
        return L.empty(0, dtype=getattr(L, dtype))
    _compare(torch, (name, lambda L: args, {}), make)
