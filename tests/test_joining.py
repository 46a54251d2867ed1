"""cat/stack and friends: errors with torch's text, dtype promotion, legacy empties, grads."""
import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, ember_names, to_numpy


def _cat_names(text):
    """`torch.` reads `ember.` in type names, but the text naming `torch.cat()` itself is
    kept word for word, as the project's spec asks."""
    return text if text.startswith("torch.cat()") else ember_names(text)


def _t(lib, shape, dtype="float32"):
    return lib.tensor(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))


ERRORS = [
    lambda lib: lib.cat([]),
    lambda lib: lib.cat(()),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (2, 2))]),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (3, 3))], 1),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (3,))]),
    lambda lib: lib.cat([_t(lib, ()), _t(lib, ())]),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, ())]),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (1, 0))]),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (2, 3))], 2),
    lambda lib: lib.cat([_t(lib, (2, 3)), _t(lib, (2, 3))], -3),
    lambda lib: lib.cat([_t(lib, (0, 2)), _t(lib, (0,))], 2),
    lambda lib: lib.cat(_t(lib, (2, 3))),
    lambda lib: lib.cat([_t(lib, (2, 3)), 1]),
    lambda lib: lib.stack([]),
    lambda lib: lib.stack([_t(lib, (2,)), _t(lib, (3,))]),
    lambda lib: lib.stack([_t(lib, (2, 3)), _t(lib, (3, 2))]),
    lambda lib: lib.stack([_t(lib, (2, 3)), _t(lib, (2, 3))], 3),
    lambda lib: lib.stack([_t(lib, (2, 3)), _t(lib, (2, 3))], -4),
    lambda lib: lib.hstack([]),
    lambda lib: lib.vstack([]),
    lambda lib: lib.dstack([]),
    lambda lib: lib.column_stack([]),
    lambda lib: lib.hstack([_t(lib, (3,)), _t(lib, (2, 3))]),
    lambda lib: lib.dstack([_t(lib, ()), _t(lib, (3,))]),
    lambda lib: lib.column_stack([_t(lib, (2, 3)), _t(lib, (3,))]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, torch):
    assert_same_error(ERRORS[index], rename=_cat_names)


@pytest.mark.parametrize("dtypes", [
    ("int64", "float32"), ("int64", "bool"), ("uint8", "int8"), ("float16", "float64"),
    ("bool", "bool"), ("int32", "float16"),
])
@pytest.mark.parametrize("op", ["cat", "stack"])
def test_promotion(dtypes, op, torch):
    def run(lib):
        return getattr(lib, op)([_t(lib, (2, 3), dtypes[0]), _t(lib, (2, 3), dtypes[1])])
    assert_same(run(ember), run(torch))


def test_legacy_empty_1d_tensors_are_skipped(torch):
    def run(lib, *shapes, dim=0, dtypes=None):
        dtypes = dtypes or ["float32"] * len(shapes)
        return lib.cat([_t(lib, s, d) for s, d in zip(shapes, dtypes)], dim)
    for shapes, kwargs in [(((2, 3), (0,)), {}), (((0,), (2, 3)), {"dim": 1}),
                           (((0,), (0,)), {"dim": 5}), (((0,), (0, 3)), {}),
                           (((0,), (2, 3)), {"dtypes": ["float64", "float32"]}),
                           (((0,), (0,)), {"dtypes": ["int32", "float32"]})]:
        assert_same(run(ember, *shapes, **kwargs), run(torch, *shapes, **kwargs))


def test_cat_grads_come_back_in_each_input_dtype(torch):
    def run(lib):
        a = lib.ones(2, 2, dtype=lib.float32, requires_grad=True)
        b = lib.ones(1, 2, dtype=lib.float64, requires_grad=True)
        empty = lib.ones(0, requires_grad=True)
        out = lib.cat([a, empty, b])
        assert out.dtype == lib.float64
        (out * lib.tensor([[1.0], [2.0], [3.0]], dtype=lib.float64)).sum().backward()
        return a.grad, b.grad, empty.grad, type(out.grad_fn).__name__
    got, expected = run(ember), run(torch)
    for g, e in zip(got[:3], expected[:3]):
        assert_same(g, e)
    assert got[3] == expected[3]


def test_stack_grads_and_integer_inputs(torch):
    def run(lib):
        a = lib.ones(3, dtype=lib.float32, requires_grad=True)
        n = lib.tensor([1, 2, 3])
        out = lib.stack([a, n], 1)
        (out * out).sum().backward()
        return out, a.grad
    for g, e in zip(run(ember), run(torch)):
        assert_same(g, e)


def test_integer_cat_has_no_grad_fn():
    out = ember.cat([ember.tensor([1, 2]), ember.tensor([3])])
    assert out.grad_fn is None and not out.requires_grad


def test_cat_copies(torch):
    a = ember.ones(2)
    out = ember.cat([a])
    out.add_(1)
    assert to_numpy(a).tolist() == [1.0, 1.0] and out._base is None


def test_out_argument(torch):
    out = ember.zeros(4)
    result = ember.cat([ember.ones(2), ember.ones(2) * 2], out=out)
    assert result is out and to_numpy(out).tolist() == [1.0, 1.0, 2.0, 2.0]
