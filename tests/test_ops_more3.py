"""ops13 against torch: what the catalog (tests/opdb/ops_more3.py) cannot express --
errors, the in-place memory methods (resize_, resize_as_, apply_, map_, map2_), storages,
pinning and sharing, frombuffer, empty_permuted, Tensor.new, histogramdd, the deprecated
resize's node and warning, detach_copy's unnamed node, fill_diagonal_'s CopySlices."""
import os
import warnings

import numpy as np
import pytest

import ember
from oracle import assert_same, assert_same_error, ember_names, to_lib

X = [[0., 1.], [1., 0.], [2., 0.], [2., 2.]]
BYTES = b"\x01\x02\x03\x04\x05\x06\x07\x08"


def _size(value):
    """Sizes compare as tuples (torch.Size and ember.Size are different types)."""
    if isinstance(value, tuple) and value.__class__.__name__ == "Size":
        return tuple(value)
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return type(value)(_size(v) for v in value)
    return value


def _run(lib, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call(lib)
    return _size(out), [str(w.message) for w in caught]


VALUES = [
    lambda lib: lib.unravel_index(lib.tensor([4, 1, 11, -1, 12]), (3, 4)),
    lambda lib: lib.unravel_index(lib.tensor([1]), ()),
    lambda lib: lib.unravel_index(lib.tensor([], dtype=lib.int64), (0, 2)),
    lambda lib: lib.nonzero_static(lib.tensor(3.), size=2),
    lambda lib: lib.empty_permuted((2, 3, 4), (0, 2, 1)).stride(),
    lambda lib: lib.empty_permuted((2, 0, 3), (2, 0, 1)).stride(),
    lambda lib: lib.empty_permuted((), ()).shape,
    lambda lib: str(lib.empty_permuted((2, 3), (1, 0), dtype=lib.int64).dtype)[6:],
    lambda lib: lib.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad,
    lambda lib: lib.frombuffer(bytearray(BYTES), dtype=lib.int16),
    lambda lib: lib.frombuffer(bytearray(BYTES), dtype=lib.int32, count=1, offset=4),
    lambda lib: lib.frombuffer(bytearray(BYTES), dtype=lib.uint8, offset=7),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new(2, 3).shape,
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new((2, 3)),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new([2, 3]),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new(),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new(lib.Size([2])).shape,
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).new(lib.tensor([1., 2])),
    lambda lib: lib.tensor([1, 2]).new([1.5, 2]),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).apply_(lambda v: v * 10),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).map_(lib.tensor([1., 2.]), lambda a, b: a - b),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).map2_(lib.tensor([1., 2.]),
                                                      lib.tensor([[1.], [2.]]),
                                                  lambda a, b, c: a + b * c),
    lambda lib: lib.tensor([1, 2]).apply_(lambda v: v * 2.7),
    lambda lib: lib.tensor([True, False]).apply_(lambda v: not v),
    lambda lib: lib.arange(6.).reshape(2, 3).t().apply_(lambda v: v + 1),
    lambda lib: lib.arange(6.).reshape(2, 3).t().apply_(lambda v: v + 1).stride(),
    lambda lib: (lambda z: (z.resize_(2, 2), z.stride(), z.storage_offset()))(lib.arange(6.)),
    lambda lib: (lambda z: (z.resize_([3, 3]).shape, z[:2]))(lib.arange(6.)),
    lambda lib: (lambda z: (z.resize_(3, 2), z.stride()))(lib.arange(6.).reshape(2, 3).t()),
    lambda lib: (lambda v: (v.resize_(2), v.storage_offset()))(lib.arange(6.)[1:4]),
    lambda lib: (lambda v: (v.resize_(9)[:5], v.storage_offset()))(lib.arange(6.)[1:4]),
    lambda lib: (lambda v: (v.resize_(0).shape, v.resize_(2, 2)))(lib.arange(6.)),
    lambda lib: lib.arange(6.).expand(2, 6).resize_(3),
    lambda lib: lib.arange(6.).resize_as_(lib.ones(2, 2)),
    lambda lib: lib.resize_as_(lib.arange(6.), lib.ones(2, 2)),
    lambda lib: lib.arange(6.).resize(2, 3),
    lambda lib: lib.arange(6.).resize_as(lib.ones(2, 3)),
    lambda lib: lib.arange(6.)[2:].untyped_storage().tolist(),
    lambda lib: (lambda s: (s.size(), s.nbytes(), len(s), s[0], s[-1], s.element_size(),
                          s.is_shared(), s.is_pinned()))(lib.arange(6.)[2:].untyped_storage()),
    lambda lib: (lambda s: (s.size(), s.nbytes(), len(s), s[1], str(s.dtype)[6:], s.tolist(),
                          s.element_size(), type(s.untyped()).__name__))(
        lib.arange(6.)[2:].storage()),
    lambda lib: lib.arange(3.).is_pinned(),
    lambda lib: lib.arange(3.).is_shared(),
    lambda lib: (lambda y: (y.share_memory_() is y, y.is_shared(), y,
                          y.untyped_storage().is_shared()))(lib.arange(3.)),
    lambda lib: (lambda y: (y.share_memory_(), y.is_shared(), y.stride(), y.storage_offset()))(
        lib.arange(6.).reshape(2, 3)[:, 1:]),
    lambda lib: (lambda x: (lib.index_put_(x, (lib.tensor([0, 1]),), lib.tensor(5.)), x))(
        lib.zeros(3)),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[3, 3], weight=lib.tensor([1., 2., 4., 8.])),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[2, 2], range=[0., 1., 0., 1.], density=True),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[3, 2], density=True,
                            weight=lib.tensor([1., 2., 4., 8.])),
    lambda lib: lib.histogramdd(lib.tensor(X).double(), bins=2),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[lib.tensor([0., 1, 2]), lib.tensor([0., 3])]),
    lambda lib: lib.histogramdd(lib.arange(12.).reshape(2, 3, 2).sin(), bins=(2, 3)),
    lambda lib: lib.histogramdd(lib.zeros(0, 2), bins=2),
    lambda lib: lib.histogramdd(lib.ones(3, 2), bins=2),
    lambda lib: lib.histogramdd(lib.arange(30.).reshape(10, 3).cos(), bins=(4, 3, 5),
                            range=[-1, 1, -.5, .5, 0, 1]),
]


@pytest.mark.parametrize("call", VALUES, ids=range(len(VALUES)))
def test_values_match_torch(call, torch):
    expected, torch_warnings = _run(torch, call)
    got, ember_warnings = _run(ember, call)
    assert_same(got, expected)
    assert ember_warnings == [ember_names(w) for w in torch_warnings]


ERRORS = [
    lambda lib: lib.unravel_index(lib.tensor([1.]), (3, 4)),
    lambda lib: lib.unravel_index(lib.tensor([True]), (3, 4)),
    lambda lib: lib.unravel_index(lib.tensor([1]), (3, -4)),
    lambda lib: lib.unravel_index(lib.tensor([1]), 2.5),
    lambda lib: lib.unravel_index(lib.tensor([1]), (2, 2.5)),
    lambda lib: lib.unravel_index(lib.tensor([0]), (0,)),
    lambda lib: lib.nonzero_static(lib.tensor([1, 2]), size=-1),
    lambda lib: lib.empty_permuted((2, 3, 4), (0, 2)),
    lambda lib: lib.empty_permuted((2, 3, 4), (0, 2, 2)),
    lambda lib: lib.empty_permuted((2, 3), (0, -1)),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, count=3),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, offset=9),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.uint8, offset=-1),
    lambda lib: lib.frombuffer(bytearray(3), dtype=lib.int16),
    lambda lib: lib.frombuffer(bytearray(0), dtype=lib.int16),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, count=0),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, count=-1, offset=1),
    lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int32, requires_grad=True),
    lambda lib: lib.frombuffer([1, 2], dtype=lib.uint8),
    lambda lib: lib.tensor([1.]).new(5.),
    lambda lib: lib.tensor([1.]).new(-1),
    lambda lib: lib.tensor([1.]).new(lib.tensor([1, 2])),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).map_(lib.ones(3), lambda a, b: a - b),
    lambda lib: lib.tensor([[1., 2.], [3., 4.]]).map_(lib.ones(2, dtype=lib.int64), lambda a, b: a),
    lambda lib: lib.ones(2).map2_(lib.ones(2, dtype=lib.int64), lib.ones(2), lambda a, b, c: a),
    lambda lib: lib.ones(2).map2_(lib.ones(2), lib.ones(2, dtype=lib.int64), lambda a, b, c: a),
    lambda lib: lib.ones(2, requires_grad=True).apply_(lambda v: v),
    lambda lib: lib.ones(2).map_(lib.ones(2, requires_grad=True), lambda a, b: a),
    lambda lib: lib.ones(2).map2_(lib.ones(2), lib.ones(2, requires_grad=True), lambda a, b, c: a),
    lambda lib: lib.ones(2).apply_(lambda v: "a"),
    lambda lib: lib.arange(6.).resize_(-1),
    lambda lib: lib.arange(6.).requires_grad_().resize_(2),
    lambda lib: (lib.arange(6.).requires_grad_() * 1).resize_(6),
    lambda lib: lib.arange(6.).resize(2, 2),
    lambda lib: lib.arange(6.).resize_as(lib.ones(3, 3)),
    lambda lib: lib.arange(3.).untyped_storage()[50],
    lambda lib: lib.arange(3.).storage()[-4],
    lambda lib: lib.arange(3.).pin_memory(),
    lambda lib: lib.histogramdd(lib.tensor(X)[:, 0], bins=2),
    lambda lib: lib.histogramdd(lib.tensor(X).long(), bins=2),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[2, 2, 2]),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=[0, 2]),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=2, range=[1., 0., 0., 1.]),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=2, range=[0., 1.]),
    lambda lib: lib.histogramdd(lib.tensor(X), bins=2, weight=lib.ones(3)),
    lambda lib: lib.histogramdd(lib.tensor(X),
                                bins=[lib.tensor([0., 1, 2]), lib.tensor([[0., 3]])]),
    lambda lib: lib.gradient(lib.ones(3, 4), edge_order=3),
    lambda lib: lib.gradient(lib.ones(1, 4)),
    lambda lib: lib.gradient(lib.ones(2, 4), edge_order=2),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1., 2., 3.]),
    lambda lib: lib.gradient(lib.ones(3, 4), spacing=[1., 2.], dim=1),
    lambda lib: lib.gradient(lib.ones(3, 4), dim=2),
    lambda lib: lib.gradient(lib.ones(3, 4), dim=(0, 0)),
    lambda lib: lib.view_copy(lib.ones(3, 4), (5, 3)),
    lambda lib: lib.view_copy(lib.ones(3, 4), (-1, -1)),
    lambda lib: lib.slice_copy(lib.ones(3, 4), 1, 0, 2, 0),
    lambda lib: lib.slice_copy(lib.ones(3, 4), 2),
    lambda lib: lib.select_copy(lib.ones(3, 4), 1, 4),
    lambda lib: lib.narrow_copy(lib.ones(3, 4), 1, 3, 2),
    lambda lib: lib.split_with_sizes_copy(lib.ones(3, 4), [1, 2], 1),
    lambda lib: lib.values_copy(lib.ones(3)),
    lambda lib: lib.indices_copy(lib.ones(3)),
    lambda lib: lib.detach_copy(lib.ones(3, requires_grad=True)).sum().backward(),
    lambda lib: lib.ones(3, 3, requires_grad=True).fill_diagonal_(1.),
    lambda lib: lib.ones(3).fill_diagonal_(1.),
]


@pytest.mark.parametrize("call", ERRORS, ids=range(len(ERRORS)))
def test_errors_match_torch(call, torch):
    assert_same_error(call)


# ---------------------------------------------------------------- reprs, warnings, nodes
REPRS = [
    lambda lib: lib.tensor([1, 2], dtype=lib.uint8).untyped_storage(),
    lambda lib: lib.tensor([], dtype=lib.float64).untyped_storage(),
    lambda lib: lib.arange(3).storage(),
    lambda lib: lib.tensor([1.5, -2.]).storage(),
]


@pytest.mark.parametrize("call", REPRS, ids=range(len(REPRS)))
def test_storage_reprs_match_torch(call, torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert repr(call(ember)) == ember_names(repr(call(torch)))


def test_typed_storage_warns_once_as_torch(torch):
    texts = []
    for lib, flag in ((torch, None), (ember, ember._storage._warned_typed)):
        if flag is None:
            torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = False
        else:
            flag[0] = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.arange(3.).storage()
            lib.arange(3.).storage()
        texts.append([str(w.message) for w in caught])
    assert len(texts[0]) == 1 and texts[1] == texts[0]


def test_frombuffer_shares_memory_and_warns_on_read_only(torch):
    buffer = bytearray(BYTES)
    for lib in (torch, ember):
        t = lib.frombuffer(buffer, dtype=lib.uint8)
        t[0] = 9
    assert buffer[0] == 9
    ember.ops.creation_more._warned_not_writable[0] = False
    with pytest.warns(UserWarning, match="The given buffer is not writable"):
        out = ember.frombuffer(b"abc", dtype=ember.uint8)
    assert out.tolist() == torch.frombuffer(bytearray(b"abc"), dtype=torch.uint8).tolist()


@pytest.mark.parametrize("method", ["resize", "resize_as"])
def test_deprecated_resize_records_resize_backward(method, torch):
    results = []
    for lib in (torch, ember):
        x = lib.tensor(np.arange(6.), requires_grad=True)
        with pytest.warns(UserWarning, match=f"non-inplace {method} is deprecated"):
            y = x.resize(2, 3) if method == "resize" else x.resize_as(lib.ones(3, 2))
        (y * lib.arange(6.).reshape(y.shape)).sum().backward()
        results.append((y, x.grad, y.grad_fn.name()))
    assert_same(results[1], results[0])


def test_detach_copy_is_recorded_but_not_differentiable(torch):
    for lib in (torch, ember):
        out = lib.detach_copy(lib.ones(2, 3, requires_grad=True).t())
        assert out.requires_grad and out.is_contiguous()
        assert out.grad_fn.name() == lib.__name__ + "::autograd::NotImplemented"
        assert not lib.detach_copy(lib.ones(2)).requires_grad


def test_copy_ops_own_their_memory_and_double_backward(torch):
    results = []
    for lib in (torch, ember):
        x = lib.tensor(np.arange(12.).reshape(3, 4), requires_grad=True)
        y = lib.transpose_copy(x * x, 0, 1)
        assert y._base is None and y.data_ptr() != x.data_ptr()
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        results.append((g, gg))
    assert_same(results[1], results[0])


@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("shape", [(4, 4), (7, 3), (3, 3, 3)])
def test_fill_diagonal_records_copy_slices(shape, wrap, torch):
    results = []
    for lib in (torch, ember):
        x = lib.tensor(np.arange(np.prod(shape), dtype=float).reshape(shape), requires_grad=True)
        y = x * 2
        y.fill_diagonal_(-1., wrap=wrap)
        (y * y).sum().backward()
        results.append((y, x.grad, type(y.grad_fn).__name__,
                        type(y.grad_fn.next_functions[0][0]).__name__))
    assert_same(results[1], results[0])


def test_fill_diagonal_on_a_view_rebases_its_base(torch):
    results = []
    for lib in (torch, ember):
        x = lib.tensor(np.arange(12.).reshape(3, 4), requires_grad=True)
        base = x * 1
        view = base[:, 1:]
        view.fill_diagonal_(0.)
        (base * base).sum().backward()
        results.append((base, x.grad, view.grad_fn.name(), type(base.grad_fn).__name__))
    assert_same(results[1], results[0])


def test_failed_map_leaves_the_tensor_unchanged():
    x = ember.tensor([[1., 2.], [3., 4.]])
    version = x._version
    with pytest.raises(RuntimeError):
        x.map_(ember.ones(3), lambda a, b: a + b)
    with pytest.raises(TypeError):
        x.apply_(lambda v: "not a number")
    assert x.tolist() == [[1., 2.], [3., 4.]] and x._version == version


def test_resize_grows_the_storage_its_views_read(torch):
    for lib in (torch, ember):
        x = lib.arange(4.)
        x.resize_(2, 3)
        assert x.untyped_storage().nbytes() == 24
        assert x.flatten()[:4].tolist() == [0., 1., 2., 3.]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_share_memory_is_seen_by_a_forked_child():
    x = ember.zeros(4).share_memory_()
    pid = os.fork()
    if pid == 0:  # the child writes, then leaves at once
        x[1] = 7.
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [0., 7., 0., 0.]


def test_tensor_methods_reach_the_same_ops(torch):
    for lib in (torch, ember):
        x = to_lib(lib, np.array([[0., 1.], [2., 0.]]))
        assert x.nonzero_static(size=3).tolist() == [[0, 1], [1, 0], [-1, -1]]
        assert x._typed_storage().size() == 4
