"""Hand-written tests for indexing: what the catalog cannot express.

Views and their strides under random basic indices, advanced-index placement,
assignment semantics (values, casting, version counter, atomicity on error),
CopySlices gradients, and PyTorch's error types and messages.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from conftest import shapes
from oracle import assert_same

torch = pytest.importorskip("torch")  # hypothesis tests cannot take function-scoped fixtures


def _both(torch, array, requires_grad=False):
    return (ember.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def _chain(t):
    """grad_fn names from the output back to the leaf."""
    names, node = [], t.grad_fn
    while node is not None and type(node).__name__ != "AccumulateGrad":
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return names


def _same_error(torch, action, ember_action=None):
    """`action(lib)` raises the same exception type and message in both libraries."""
    with pytest.raises(Exception) as expected:
        action(torch)
    with pytest.raises(type(expected.value)) as got:
        (ember_action or action)(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember."), (
        f"{got.value!r} != {expected.value!r}")
    return got.value


# ---------------------------------------------------------------- random basic indices
@st.composite
def basic_indices(draw):
    """A shape and a basic index for it: ints, slices with steps, None, one Ellipsis."""
    shape = draw(shapes(0, 4, 0, 4))
    items, dim, used_ellipsis = [], 0, False
    while dim < len(shape) and draw(st.booleans()):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis"]))
        if kind == "int" and shape[dim] > 0:
            items.append(draw(st.integers(-shape[dim], shape[dim] - 1)))
            dim += 1
        elif kind == "slice":
            bound = st.one_of(st.none(), st.integers(-6, 6))
            items.append(slice(draw(bound), draw(bound), draw(st.one_of(st.none(),
                                                                       st.integers(1, 3)))))
            dim += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not used_ellipsis:
            items.append(Ellipsis)
            used_ellipsis = True
            dim = len(shape)
    if draw(st.booleans()):
        items.append(None)
    index = tuple(items) if len(items) != 1 or draw(st.booleans()) else items[0]
    return shape, index


@given(basic_indices())
def test_basic_index_views_match_torch(case):
    shape, index = case
    array = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    e, t = _both(torch, array, requires_grad=True)
    got, expected = e[index], t[index]
    assert_same(got, expected)
    if array.size:  # (empty sources already differ in strides: that is tensor()'s business)
        assert got.stride() == expected.stride()
    if expected.numel():
        assert got.storage_offset() == expected.storage_offset()
    assert got._base is e  # a view: shares memory and the version counter
    assert got._version == e._version
    assert _chain(got) == _chain(expected)
    grad = np.random.default_rng(0).standard_normal(tuple(expected.shape))
    got.backward(ember.tensor(grad))
    expected.backward(torch.tensor(grad))
    assert_same(e.grad, t.grad)


@given(basic_indices())
def test_basic_index_writes_through(case):
    shape, index = case
    results = []
    for lib in (ember, torch):
        x = lib.tensor(np.zeros(shape))
        view = x[index]
        view[...] = 1.0
        results.append((x, x._version, view._version))
    assert_same(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:] == (1, 1)


# ---------------------------------------------------------------- advanced indices
ADVANCED = [
    lambda: ([1, 0, 1],),
    lambda: (np.array([[0, 1], [1, 0]]),),
    lambda: (0, slice(None), [0]),           # PyTorch applies the int first: dims (3, 1)
    lambda: ([0], slice(None), 0),
    lambda: ([1, 0], slice(None), [3, 2]),   # separated: the index dims go first
    lambda: (slice(None), [1, 2], [0, 3]),
    lambda: (Ellipsis, [0, -1]),
    lambda: (None, [1], slice(1, None), None),
    lambda: (np.array([True, False]),),
    lambda: (slice(None), np.array([True, False, True]), 1),
    lambda: (np.ones((2, 3), dtype=bool), [0, 3, 1, 2, 0, 0]),
    lambda: (True,),
    lambda: (0, True, [2, 2]),
    lambda: ([[]],),
    lambda: (np.array([1, 0], dtype=np.int32),),
]


@pytest.mark.parametrize("make_index", ADVANCED)
def test_advanced_index_matches_torch(torch, make_index):
    array = np.random.default_rng(0).standard_normal((2, 3, 4))
    e, t = _both(torch, array, requires_grad=True)
    index = make_index()
    to = {ember: lambda i: ember.tensor(i) if isinstance(i, np.ndarray) else i,
          torch: lambda i: torch.tensor(i) if isinstance(i, np.ndarray) else i}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = e[tuple(to[ember](i) for i in index)]
        expected = t[tuple(to[torch](i) for i in index)]
    assert_same(got, expected)
    assert got.stride() == expected.stride()
    assert got._base is None  # advanced indexing copies
    assert _chain(got) == _chain(expected)
    grad = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    got.backward(ember.tensor(grad))
    expected.backward(torch.tensor(grad))
    assert_same(e.grad, t.grad)  # repeated indices accumulate


@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_random_masks_and_index_arrays(rows, cols, data):
    array = np.arange(rows * cols * 2, dtype=np.float32).reshape(rows, cols, 2)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=cols, max_size=cols)))
    picks = np.array(data.draw(st.lists(st.integers(-rows, rows - 1), max_size=5)),
                     dtype=np.int64)
    e, t = _both(torch, array)
    assert_same(e[:, ember.tensor(mask)], t[:, torch.tensor(mask)])
    assert_same(e[ember.tensor(picks), :, 1], t[torch.tensor(picks), :, 1])
    try:  # the mask's coordinates broadcast against picks, or both refuse alike
        expected = t[torch.tensor(picks), torch.tensor(mask)]
    except IndexError:
        _same_error(torch, lambda lib: _both(torch, array)[lib is torch][
            lib.tensor(picks), lib.tensor(mask)])
    else:
        assert_same(e[ember.tensor(picks), ember.tensor(mask)], expected)


def test_zero_dim_int_tensor_selects_a_view(torch):
    e, t = _both(torch, np.arange(6.0).reshape(2, 3), requires_grad=True)
    got = e[ember.tensor(1)]
    assert got._base is e
    assert got.grad_fn.name() == type(t[torch.tensor(1)].grad_fn).__name__ == "SelectBackward0"


def test_deprecated_index_forms_warn(torch):
    e = ember.tensor(np.arange(6.0).reshape(2, 3))
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        assert e[ember.tensor([1, 0], dtype=ember.uint8)].shape == (1, 3)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        assert e[[0, slice(None)]].shape == (3,)


# ---------------------------------------------------------------- assignment
SETITEM = [  # (index, value): value arrays become tensors of each library
    (0, 5.0), (-1, np.array([1.0, 2.0, 3.0, 4.0])), (slice(1, None), np.array([[7.0]])),
    ((slice(None), 0), np.array([1.0, 2.0, 3.0])), ((slice(None, None, 2), slice(1, 3)), 0.5),
    (Ellipsis, np.array([1.0, 2.0, 3.0, 4.0])), (None, 2.0), (True, 3.0), (False, 3.0),
    ([0, 0], np.array([[1.0], [2.0]])), ((slice(None), [3, 1]), np.array([1.0, 2.0])),
    ((1, [0, 2]), np.array([8.0, 9.0])), (np.array([True, False, True]), 4.0),
    ((slice(None), np.array([True, False, True, False])), np.array([1.0, 2.0])),
    (0, np.array(2, dtype=np.int64)), (slice(None), np.array([[[1.5]]])),
]


def _value(lib, value, requires_grad=False):
    if isinstance(value, np.ndarray):
        return lib.tensor(value, requires_grad=requires_grad and value.dtype.kind == "f")
    return value


def _index(lib, index):
    if isinstance(index, np.ndarray):
        return lib.tensor(index)
    if isinstance(index, tuple):
        return tuple(_index(lib, i) for i in index)
    return index


@pytest.mark.parametrize("index, value", SETITEM)
def test_setitem_matches_torch(torch, index, value):
    array = np.arange(12.0).reshape(3, 4)
    results = {}
    for lib in (ember, torch):
        x = lib.tensor(array)
        version = x._version
        x[_index(lib, index)] = _value(lib, value)
        results[lib] = (x, x._version - version)
    assert_same(results[ember][0], results[torch][0])
    assert results[ember][1] == results[torch][1]  # one bump (none for x[False])


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64", "bool", "float16",
                                   "bfloat16"])
@pytest.mark.parametrize("value", [-1, 7, 2.7, True, 1e40, float("nan"), -300])
def test_setitem_scalar_casting_matches_torch(torch, dtype, value):
    def assign(lib):
        x = lib.zeros(3, dtype=getattr(lib, dtype))
        x[1] = value
        return x
    try:
        expected = assign(torch)
    except Exception:
        _same_error(torch, assign)
        return
    assert_same(assign(ember), expected)


def test_setitem_tensor_value_casts_like_copy(torch):
    for lib in (ember, torch):
        x = lib.zeros(3, dtype=lib.uint8)
        x[:2] = lib.tensor([300, -1])
        x[2:] = lib.tensor([2.9])
        assert x.tolist() == [44, 255, 2]


def test_setitem_through_view_is_visible_in_base():
    x = ember.zeros(3, 4)
    row = x[1]
    row[1:3] = 5.0
    assert x.tolist()[1] == [0.0, 5.0, 5.0, 0.0]
    assert x._version == row._version == 1


BAD_SETITEM = [
    (0, np.ones(2)), ([0, 1], np.ones(3)), (slice(0, 2), np.ones((3, 4))),
    (0, np.ones((2, 1, 4))), (5, 1.0), ([0, 5], 1.0), ((0, 0, 0), 1.0),
    (slice(None, None, -1), 1.0), (np.array([True, False]), 1.0), (1.0, 1.0),
    ([0], np.ones(4, dtype=np.int64)), (0, [1.0, 2.0, 3.0, 4.0]), (0, "a"), (0, None),
    (np.array([5.0]), 1.0), (([0, 1], [0, 1, 2]), 1.0),
]


@pytest.mark.parametrize("index, value", BAD_SETITEM)
def test_failing_setitem_leaves_tensor_unchanged(torch, index, value):
    array = np.arange(12.0).reshape(3, 4)
    x = ember.tensor(array)
    value_of = {ember: _value(ember, value), torch: _value(torch, value)}

    def assign(lib):
        target = x if lib is ember else lib.tensor(array)
        target[_index(lib, index)] = value_of[lib]
    _same_error(torch, assign)
    assert x.tolist() == array.tolist()
    assert x._version == 0


def test_zero_dim_setitem_and_getitem_errors(torch):
    _same_error(torch, lambda lib: lib.tensor(2.0)[0])
    _same_error(torch, lambda lib: lib.tensor(2.0)[:])
    s = ember.tensor(2.0)
    s[...] = 3
    s[None] = ember.ones(1)
    assert s.item() == 1.0


# ---------------------------------------------------------------- autograd of assignment
GRAD_SETITEM = [
    (0, (4,)), (slice(1, None), (1, 4)), ((slice(None), 2), ()), (Ellipsis, (4,)),
    ([0, 0], (2, 4)), ((slice(None), [1, 3]), (3, 1)), ((slice(1, None), [0, 0]), (2,)),
    (None, (3, 4)), ((0, None, 1), ()),
]


@pytest.mark.parametrize("index, value_shape", GRAD_SETITEM)
def test_copyslices_gradients_match_torch(torch, index, value_shape):
    rng = np.random.default_rng(0)
    base, value = rng.standard_normal((3, 4)), rng.standard_normal(value_shape)
    grad = rng.standard_normal((3, 4))
    out = {}
    for lib in (ember, torch):
        x = lib.tensor(base, requires_grad=True)
        z = lib.tensor(value, requires_grad=True)
        y = x * 2
        y[index] = z
        name = type(y.grad_fn).__name__
        y.backward(lib.tensor(grad))
        out[lib] = (y, name, x.grad, z.grad)
    assert out[ember][1] == out[torch][1]
    for got, expected in zip(out[ember][::2] + out[ember][3:], out[torch][::2] + out[torch][3:]):
        assert_same(got, expected)


def test_setitem_into_untracked_tensor_with_tracked_value(torch):
    for lib in (ember, torch):
        a = lib.zeros(3, 4)
        z = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        a[1] = z
        assert type(a.grad_fn).__name__ == "CopySlices" and not a.is_leaf
        (a * a).sum().backward()
        assert z.grad.tolist() == [2.0, 4.0, 6.0, 8.0]


def test_setitem_value_gradient_keeps_the_value_dtype(torch):
    grads = []
    for lib in (ember, torch):
        y = lib.zeros(3, 4, dtype=lib.float64, requires_grad=True) * 1
        z = lib.ones(4, requires_grad=True)          # float32, cast by the write
        w = lib.tensor(2.0, requires_grad=True)
        y[0] = z
        y[lib.tensor([True, False, True])] = w      # a single mask takes any 0-dim value
        (y * y).sum().backward()
        grads.append((z.grad, w.grad))
    assert_same(grads[0], grads[1])


def test_setitem_second_order():
    def f(x, z):
        y = x * x
        y[1:, [0, 2]] = z * z
        return y
    x = ember.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    z = ember.tensor(np.random.default_rng(1).standard_normal((2,)), requires_grad=True)
    assert ember.autograd.gradcheck(f, (x, z))
    assert ember.autograd.gradgradcheck(f, (x, z))


def test_setitem_autograd_errors(torch):
    array = np.ones((3, 4))
    for index in [0, [0], Ellipsis, None]:
        def assign(lib, index=index):
            lib.tensor(array, requires_grad=True)[index] = 1.0
        _same_error(torch, assign)
    x = ember.tensor(array, requires_grad=True)
    x[False] = 1.0  # a no-op, even on a leaf
    with ember.no_grad():
        x[0] = 2.0
    assert x.is_leaf and x.tolist()[0] == [2.0] * 4


def test_saved_tensor_sees_the_write():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    w = y.exp()  # saves its output... and y is unaffected
    z = y * y    # saves y
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    del w


# ---------------------------------------------------------------- index_put and friends
def test_index_put_inplace_and_accumulate(torch):
    for accumulate in (False, True):
        results = []
        for lib in (ember, torch):
            x = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
            v = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
            y = x * 1
            y.index_put_((lib.tensor([2, 0]),), v, accumulate=accumulate)
            y.backward(lib.tensor(np.arange(12.0).reshape(3, 4)))
            results.append((y, type(y.grad_fn).__name__, x.grad, v.grad, y._version))
        (ey, en, ex, ev, ever), (ty, tn, tx, tv, tver) = results
        assert en == tn and ever == tver
        assert_same(ey, ty)
        assert_same(ex, tx)
        assert_same(ev, tv)


def test_inplace_index_ops_on_leaf_raise(torch):
    def masked(lib):
        x = lib.ones(3, requires_grad=True)
        x.masked_fill_(lib.tensor([True, False, True]), 0.0)
    _same_error(torch, masked)


def test_scatter_reduce_has_no_derivative(torch):
    x = ember.ones(2, 2, requires_grad=True)
    y = x.scatter(1, ember.tensor([[0], [1]]), ember.ones(2, 1), reduce="add")
    assert y.grad_fn.name() == "ember::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
        y.sum().backward()


def test_nonzero_returns_int64(torch):
    e, t = _both(torch, np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert_same(e.nonzero(), t.nonzero())
    assert_same(ember.nonzero(ember.tensor(3.0), as_tuple=True),
                torch.nonzero(torch.tensor(3.0), as_tuple=True))


# ---------------------------------------------------------------- error messages
X = np.arange(12.0).reshape(3, 4)
I = np.array([[0, 1], [2, 0]])


def _t(lib, array, dtype=None):
    return lib.tensor(array, dtype=getattr(lib, dtype) if dtype else None)


ERRORS = {
    "oob": lambda lib: _t(lib, X)[5],
    "oob_negative": lambda lib: _t(lib, X)[-4],
    "oob_second": lambda lib: _t(lib, X)[0, 4],
    "oob_after_none": lambda lib: _t(lib, X)[None, 5],
    "step_zero": lambda lib: _t(lib, X)[::0],
    "step_negative": lambda lib: _t(lib, X)[::-1],
    "too_many": lambda lib: _t(lib, X)[0, 0, 0],
    "float_index": lambda lib: _t(lib, X)[1.0],
    "float_tensor_index": lambda lib: _t(lib, X)[_t(lib, [0.0])],
    "int16_tensor_index": lambda lib: _t(lib, X)[_t(lib, [0], "int16")],
    "advanced_oob": lambda lib: _t(lib, X)[[0, 5]],
    "advanced_oob_second": lambda lib: _t(lib, X)[[0], [9]],
    "mask_shape": lambda lib: _t(lib, X)[_t(lib, [True, False])],
    "mask_shape_dim1": lambda lib: _t(lib, X)[:, _t(lib, [True, False])],
    "broadcast": lambda lib: _t(lib, X)[[0, 1], [0, 1, 2]],
    "gather_dims": lambda lib: lib.gather(_t(lib, X), 1, _t(lib, [0, 1])),
    "gather_dtype": lambda lib: lib.gather(_t(lib, X), 1, _t(lib, I).float()),
    "gather_size": lambda lib: lib.gather(_t(lib, X), 1, lib.zeros(4, 2, dtype=lib.long)),
    "gather_oob": lambda lib: lib.gather(_t(lib, X), 1, _t(lib, [[4]])),
    "gather_dim": lambda lib: lib.gather(_t(lib, X), 2, _t(lib, I)),
    "scatter_dims": lambda lib: lib.scatter(_t(lib, X), 1, _t(lib, [0]), 1.0),
    "scatter_src_dtype": lambda lib: lib.scatter(_t(lib, X), 1, _t(lib, I), lib.ones(2, 2).float()),
    "scatter_src_small": lambda lib: lib.scatter(_t(lib, X), 1, _t(lib, I), lib.ones(1, 2)),
    "scatter_size": lambda lib: lib.scatter(_t(lib, X), 1, lib.zeros(4, 2, dtype=lib.long), 1.0),
    "scatter_reduce": lambda lib: lib.scatter(_t(lib, X), 1, _t(lib, I), 2.0, reduce="mean"),
    "scatter_add_dtype": lambda lib: lib.scatter_add(_t(lib, X), 1, _t(lib, I).float(),
                                                    lib.ones(2, 2)),
    "index_select_dtype": lambda lib: lib.index_select(_t(lib, X), 1, _t(lib, [0.0])),
    "index_select_2d": lambda lib: lib.index_select(_t(lib, X), 1, _t(lib, [[0]])),
    "index_select_oob": lambda lib: lib.index_select(_t(lib, X), 1, _t(lib, [4])),
    "index_select_oob_1d": lambda lib: lib.index_select(_t(lib, [1.0, 2.0]), 0, _t(lib, [2])),
    "index_add_shape": lambda lib: lib.index_add(_t(lib, X), 0, _t(lib, [0, 0]), lib.ones(2, 3)),
    "index_add_count": lambda lib: lib.index_add(_t(lib, X), 0, _t(lib, [0, 0]), lib.ones(3, 4)),
    "index_add_dtype": lambda lib: lib.index_add(_t(lib, X), 0, _t(lib, [0]),
                                                lib.ones(1, 4).float()),
    "index_add_oob": lambda lib: lib.index_add(_t(lib, X), 0, _t(lib, [3]), lib.ones(1, 4)),
    "index_fill_dtype": lambda lib: _t(lib, X).index_fill_(1, _t(lib, [0], "int32"), 1.0),
    "index_fill_value": lambda lib: _t(lib, X).index_fill_(1, _t(lib, [0]), _t(lib, [1.0])),
    "index_fill_oob": lambda lib: _t(lib, X).index_fill_(1, _t(lib, [4]), 1.0),
    "index_put_dtype": lambda lib: _t(lib, X).index_put_((_t(lib, [0]),), lib.ones(4).long()),
    "index_put_shape": lambda lib: _t(lib, X).index_put_((_t(lib, [0]),), lib.ones(1, 1, 1, 4)),
    "index_put_too_many": lambda lib: _t(lib, X).index_put_((_t(lib, [0]),) * 3, lib.ones(())),
    "index_put_not_tensor": lambda lib: _t(lib, X).index_put_((0,), lib.ones(())),
    "index_put_scalar_value": lambda lib: _t(lib, X).index_put_((_t(lib, [0]),), 1.0),
    "masked_fill_mask_dtype": lambda lib: _t(lib, X).masked_fill(_t(lib, [1, 0, 0, 1], "uint8"),
                                                                 1.0),
    "masked_fill_value_dim": lambda lib: _t(lib, X).masked_fill(_t(lib, X) > 3, _t(lib, [1.0])),
    "masked_fill_broadcast": lambda lib: _t(lib, X).masked_fill(_t(lib, [True, False, True]), 1.0),
    "masked_fill_inplace_broadcast": lambda lib: _t(lib, X).masked_fill_(
        lib.ones(2, 3, 4, dtype=lib.bool), 1.0),
    "masked_fill_overflow": lambda lib: lib.zeros(3, dtype=lib.uint8).masked_fill_(
        _t(lib, [True, False, True]), 300),
    "masked_select_mask": lambda lib: lib.masked_select(_t(lib, X), _t(lib, [1, 0, 0, 1])),
    "masked_scatter_dtype": lambda lib: _t(lib, X).masked_scatter_(_t(lib, X) > 3,
                                                                  _t(lib, np.arange(20))),
    "masked_scatter_small": lambda lib: _t(lib, X).masked_scatter_(_t(lib, X) > 3, lib.ones(2)),
    "masked_scatter_mask": lambda lib: _t(lib, X).masked_scatter_(_t(lib, [1, 0, 0, 1]),
                                                                 lib.ones(20)),
    "take_dtype": lambda lib: lib.take(_t(lib, X), _t(lib, [0], "int32")),
    "take_oob": lambda lib: lib.take(_t(lib, X), _t(lib, [12])),
    "take_empty": lambda lib: lib.take(lib.ones(0), _t(lib, [0])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(torch, ERRORS[name])


def test_failing_inplace_ops_leave_tensor_unchanged():
    x = ember.tensor(X)
    calls = [lambda: x.index_put_((ember.tensor([0, 7]),), ember.ones(4)),
             lambda: x.scatter_(1, ember.tensor([[0, 9]]), 1.0),
             lambda: x.index_add_(0, ember.tensor([5]), ember.ones(1, 4)),
             lambda: x.index_fill_(1, ember.tensor([4]), 1.0),
             lambda: x.masked_scatter_(ember.tensor(X) > 3, ember.ones(2))]
    for call in calls:
        with pytest.raises((RuntimeError, IndexError)):
            call()
        assert x.tolist() == X.tolist() and x._version == 0
