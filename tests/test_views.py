"""Views and shape ops: memory sharing, strides, errors, multi-output grads, in-place views."""
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from conftest import shapes
from oracle import assert_same, to_numpy


def _pair(torch, shape=(2, 3, 4), dtype="float64"):
    array = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return torch.tensor(array), ember.tensor(array)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous()


def _same_error(torch, fn):
    """fn(lib) raises the same exception type with the same text in both libraries."""
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(type(expected.value)) as got:
        fn(ember)
    assert str(got.value) == str(expected.value).replace("torch.", "ember.")


# ---------------------------------------------------------------- memory semantics
VIEW_OPS = {
    "view": lambda lib, x: x.view(6, 4),
    "view_infer": lambda lib, x: x.view(-1),
    "reshape_viewable": lambda lib, x: x.transpose(0, 1).reshape(3, 2, 2, 2),
    "transpose": lambda lib, x: x.transpose(0, 2),
    "t": lambda lib, x: x[0].t(),
    "T": lambda lib, x: x[0].T,
    "mT": lambda lib, x: x.mT,
    "permute": lambda lib, x: x.permute(2, 0, 1),
    "movedim": lambda lib, x: lib.movedim(x, 0, -1),
    "squeeze": lambda lib, x: x[:, :1].squeeze(1),
    "unsqueeze": lambda lib, x: x.unsqueeze(1),
    "flatten": lambda lib, x: x.flatten(1),
    "unflatten": lambda lib, x: x.unflatten(2, (2, 2)),
    "expand": lambda lib, x: x[:, :1].expand(2, 5, 4),
    "narrow": lambda lib, x: x.narrow(2, 1, 2),
    "select": lambda lib, x: x.select(1, 2),
    "select_1d": lambda lib, x: x[0, 0].select(0, 3),
    "unbind": lambda lib, x: x.unbind(2)[1],
    "split": lambda lib, x: x.split(2, 2)[1],
    "split_sizes": lambda lib, x: x.split([1, 2], 1)[1],
    "chunk": lambda lib, x: x.chunk(2, 1)[1],
    "tensor_split": lambda lib, x: x.tensor_split([1, 3], 2)[1],
    "diagonal": lambda lib, x: x.diagonal(1, 1, 2),
    "diagonal_negative": lambda lib, x: x.diagonal(-1, -1, 0),
    "as_strided": lambda lib, x: x.as_strided((2, 2), (5, 2), 1),
    "as_strided_of_view": lambda lib, x: x[1].as_strided((2, 2), (3, 1)),
    "unfold": lambda lib, x: x.unfold(2, 2, 2),
    "view_of_view": lambda lib, x: x.transpose(0, 1)[1].unsqueeze(0).narrow(2, 1, 3),
}


@pytest.mark.parametrize("name", list(VIEW_OPS))
def test_views_share_memory_like_torch(name, torch):
    t_base, e_base = _pair(torch)
    t_view, e_view = VIEW_OPS[name](torch, t_base), VIEW_OPS[name](ember, e_base)
    assert _geometry(e_view) == _geometry(t_view)
    assert_same(e_view, t_view)
    assert e_view._base is e_base and t_view._base is t_base
    if name != "expand":
        t_view.mul_(-1)
        e_view.mul_(-1)
        assert_same(e_base, t_base)
        assert e_base._version == e_view._version == t_base._version


def test_version_counter_is_shared_both_ways(torch):
    _, base = _pair(torch)
    view = base.view(-1)
    base.add_(1)
    assert view._version == base._version == 1
    assert view[0].item() == 1.0


def test_reshape_copies_only_when_it_must(torch):
    t, e = _pair(torch)
    assert e.reshape(4, 6)._base is e
    t_copy, e_copy = t.transpose(0, 1).reshape(-1), e.transpose(0, 1).reshape(-1)
    assert e_copy._base is None and t_copy._base is None
    assert _geometry(e_copy) == _geometry(t_copy)
    e_copy.add_(1)
    assert e.sum().item() == t.sum().item()


@pytest.mark.parametrize("case", ["contiguous", "viewable", "copy"])
def test_reshape_grad_fn_chain(case, torch):
    def run(lib):
        x = lib.ones(2, 3, 4, dtype=lib.float64, requires_grad=True)
        source = x if case == "contiguous" else x.transpose(0, 1)
        out = source.reshape(3, 2, 2, 2) if case == "viewable" else source.reshape(-1)
        chain = [type(out.grad_fn).__name__]
        chain += [type(n).__name__ for n, _ in out.grad_fn.next_functions]
        return chain
    assert run(ember) == run(torch)


def test_ravel_of_noncontiguous_copies_then_views(torch):
    def chain(lib):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        out = x.t().ravel()
        return type(out.grad_fn).__name__, type(out.grad_fn.next_functions[0][0]).__name__
    assert chain(ember) == chain(torch) == ("ViewBackward0", "CloneBackward0")


def test_ops_that_return_their_input(torch):
    _, x = _pair(torch)
    vector = x[0, 0]
    assert vector.flatten() is vector
    assert ember.atleast_1d(x) is x and ember.atleast_3d(x) is x
    y = ember.tensor(np.ones((3, 1)))
    assert ember.broadcast_tensors(x, y)[0] is x


def test_view_dtype_reinterprets_memory(torch):
    t, e = _pair(torch, (2, 4), "float32")
    for dtype in ("int32", "int16", "float64", "uint8", "bool", "float16"):
        if dtype == "bool":
            continue
        t_view = t.view(getattr(torch, dtype))
        e_view = e.view(getattr(ember, dtype))
        assert _geometry(e_view) == _geometry(t_view)
        assert_same(e_view, t_view)
        assert e_view._base is None and e_view.data_ptr() == e.data_ptr()
    x = ember.ones(3, requires_grad=True)
    view = x.view(ember.float32)
    assert view.grad_fn is None and not view.requires_grad


@pytest.mark.parametrize("expr", [
    lambda lib, x: x.view(lib.int64),
    lambda lib, x: x.t().view(lib.int16),
    lambda lib, x: x[:, 1:].view(lib.float64),
    lambda lib, x: x[:, ::3].view(lib.float64),
    lambda lib, x: x[0, 0].view(lib.int16),
    lambda lib, x: x[1:, :2].view(lib.float64),
])
def test_view_dtype_errors(expr, torch):
    _same_error(torch, lambda lib: expr(lib, lib.ones(3, 3) if lib is torch
                                        else ember.ones(3, 3)))


# ---------------------------------------------------------------- hypothesis view chains
@st.composite
def view_chains(draw):
    """A base shape and a list of view ops, each valid for the shape it receives."""
    base_shape = draw(shapes(1, 4, 0, 4))
    shape = list(base_shape)
    steps = []
    for _ in range(draw(st.integers(1, 5))):
        ndim = len(shape)
        choices = ["unsqueeze", "reshape_flat"]
        if ndim:
            choices += ["transpose", "permute", "narrow", "movedim", "flip_dims", "split",
                        "view_merge", "unflatten", "reshape_any", "expand", "unfold"]
            if any(s > 0 for s in shape):
                choices.append("select")
            if 1 in shape:
                choices.append("squeeze")
        if ndim >= 2:
            choices += ["diagonal", "mT"]
        op = draw(st.sampled_from(choices))
        dim = draw(st.integers(-ndim, ndim - 1)) if ndim else 0
        d = dim % ndim if ndim else 0
        if op == "transpose":
            steps.append(("transpose", dim, draw(st.integers(-ndim, ndim - 1))))
            shape[d], shape[steps[-1][2] % ndim] = shape[steps[-1][2] % ndim], shape[d]
        elif op == "permute":
            perm = draw(st.permutations(range(ndim)))
            steps.append(("permute", tuple(perm)))
            shape = [shape[p] for p in perm]
        elif op == "movedim":
            target = draw(st.integers(0, ndim - 1))
            steps.append(("movedim", d, target))
            size = shape.pop(d)
            shape.insert(target, size)
        elif op == "flip_dims":
            steps.append(("mT",) if ndim >= 2 else ("t",))
            shape[-2:] = shape[-2:][::-1]
        elif op == "mT":
            steps.append(("mT",))
            shape[-2], shape[-1] = shape[-1], shape[-2]
        elif op == "unsqueeze":
            at = draw(st.integers(-ndim - 1, ndim))
            steps.append(("unsqueeze", at))
            shape.insert(at % (ndim + 1), 1)
        elif op == "squeeze":
            at = shape.index(1)
            steps.append(("squeeze", at))
            shape.pop(at)
        elif op == "narrow":
            start = draw(st.integers(0, shape[d]))
            length = draw(st.integers(0, shape[d] - start))
            steps.append(("narrow", dim, start, length))
            shape[d] = length
        elif op == "select":
            d = next(i for i, s in enumerate(shape) if s > 0)
            index = draw(st.integers(-shape[d], shape[d] - 1))
            steps.append(("select", d, index))
            shape.pop(d)
        elif op == "split":
            size = draw(st.integers(1, 3))
            pieces = max(-(-shape[d] // size), 1)
            which = draw(st.integers(0, pieces - 1))
            steps.append(("split", size, dim, which))
            shape[d] = min(size, shape[d] - which * size) if shape[d] else 0
        elif op == "diagonal":
            d1, d2 = draw(st.permutations(range(ndim)))[:2]
            offset = draw(st.integers(-2, 2))
            steps.append(("diagonal", offset, d1, d2))
            n1, n2 = shape[d1], shape[d2]
            length = max(min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2), 0)
            shape = [s for i, s in enumerate(shape) if i not in (d1, d2)] + [length]
        elif op in ("view_merge", "reshape_flat", "reshape_any"):
            if op == "reshape_flat" or ndim < 2:
                steps.append(("reshape", (-1,)))
                shape = [int(np.prod(shape))]
            else:
                a = draw(st.integers(0, ndim - 2))
                merged = shape[:a] + [shape[a] * shape[a + 1]] + shape[a + 2:]
                steps.append(("view" if op == "view_merge" else "reshape", tuple(merged)))
                shape = merged
        elif op == "unflatten":
            steps.append(("unflatten", dim, (1, shape[d])))
            shape[d:d + 1] = [1, shape[d]]
        elif op == "expand":
            target = [draw(st.integers(0, 3)) if s == 1 else s for s in shape]
            steps.append(("expand", tuple(target)))
            shape = target
        elif op == "unfold":
            size = draw(st.integers(0, shape[d]))
            step = draw(st.integers(1, 3))
            steps.append(("unfold", d, size, step))
            shape[d] = (shape[d] - size) // step + 1
            shape.append(size)
    return base_shape, steps


def _apply(x, step):
    name, *args = step
    if name == "split":
        size, dim, which = args
        return x.split(size, dim)[which]
    if name == "mT":
        return x.mT
    return getattr(x, name)(*args)


@given(view_chains())
def test_random_view_chains_match_torch(chain):
    torch = pytest.importorskip("torch")
    shape, steps = chain
    t_base, e_base = _pair(torch, shape)
    t, e = t_base, e_base
    for step in steps:
        try:
            t_next = _apply(t, step)
        except RuntimeError as torch_error:
            # view() of memory it cannot describe: ember must refuse with the same text
            with pytest.raises(RuntimeError) as error:
                _apply(e, step)
            assert str(error.value) == str(torch_error)
            return
        t, e = t_next, _apply(e, step)
        where = f"{shape} {steps} at {step}"
        assert tuple(e.shape) == tuple(t.shape), where
        if t.numel():
            assert e.stride() == t.stride(), where
            assert e.storage_offset() == t.storage_offset(), where
            assert e.is_contiguous() == t.is_contiguous(), where
        assert (e._base is not None) == (t._base is not None), where
        np.testing.assert_array_equal(to_numpy(e), to_numpy(t), err_msg=where)
    if t.numel() == 0 or any(step[0] == "unfold" and step[3] < step[2] for step in steps):
        return  # nothing to write, or overlapping windows where a write is unspecified
    try:
        t.add_(1000)
    except RuntimeError:
        return  # memory repeated by expand: torch refuses to write (the in-place op's check)
    e.add_(1000)
    np.testing.assert_array_equal(to_numpy(e_base), to_numpy(t_base))


# ---------------------------------------------------------------- errors, text as torch's
ERRORS = [
    lambda lib, x: x.view(5), lambda lib, x: x.view(-1, -1), lambda lib, x: x.view(-2, 12),
    lambda lib, x: x.transpose(0, 1).view(-1), lambda lib, x: x[:0].view(-1, 0),
    lambda lib, x: x.expand(3), lambda lib, x: x.expand(3, 3, 4),
    lambda lib, x: x.expand(-1, -1, -1, -1), lambda lib, x: lib.broadcast_to(x, (2, 3, 5)),
    lambda lib, x: lib.broadcast_shapes((2, 3), (4, 3)),
    lambda lib, x: lib.broadcast_shapes((-1, 3), (4, 3)),
    lambda lib, x: lib.broadcast_tensors(x, x[0, 0, :3]),
    lambda lib, x: x.flatten(2, 1), lambda lib, x: x.flatten(5),
    lambda lib, x: x[0, 0, 0].flatten(1),
    lambda lib, x: x.unflatten(2, ()), lambda lib, x: x.unflatten(2, (3, 2)),
    lambda lib, x: x.unflatten(5, (2, 2)),
    lambda lib, x: x.permute(0, 1), lambda lib, x: x.permute(0, 1, 1),
    lambda lib, x: x.permute(0, 1, 3),
    lambda lib, x: x.movedim((0, 1), (0,)), lambda lib, x: x.movedim((0, 0), (1, 2)),
    lambda lib, x: x.movedim((0, 1), (1, 1)), lambda lib, x: x.movedim(3, 0),
    lambda lib, x: x.t(), lambda lib, x: x[0, 0].mT, lambda lib, x: x.H, lambda lib, x: x[0, 0].H,
    lambda lib, x: x[0, 0].mH, lambda lib, x: x[0, 0].adjoint(),
    lambda lib, x: x.transpose(0, 3), lambda lib, x: x.squeeze(5), lambda lib, x: x.squeeze((0, 0)),
    lambda lib, x: x.unsqueeze(4), lambda lib, x: x.unsqueeze(-5),
    lambda lib, x: x.narrow(1, 2, 2), lambda lib, x: x.narrow(1, 4, 0),
    lambda lib, x: x.narrow(1, -4, 1), lambda lib, x: x[0, 0, 0].narrow(0, 0, 1),
    lambda lib, x: x.narrow(1, 0, -1),
    lambda lib, x: x.select(1, 3), lambda lib, x: x.select(1, -4), lambda lib, x: x.select(3, 0),
    lambda lib, x: x[0, 0, 0].select(0, 0), lambda lib, x: x[0, 0, 0].unbind(),
    lambda lib, x: x.unbind(3),
    lambda lib, x: x.split(0, 1), lambda lib, x: x.split(-1, 1), lambda lib, x: x.split([1, 1], 1),
    lambda lib, x: x.split([2, -1], 1), lambda lib, x: x[0, 0, 0].split(1),
    lambda lib, x: x[0, 0, 0].chunk(1), lambda lib, x: x.chunk(0), lambda lib, x: x.chunk(-1),
    lambda lib, x: x[0, 0, 0].tensor_split(1), lambda lib, x: x.tensor_split(0),
    lambda lib, x: x.tensor_split(lib.tensor([[1]]), 2),
    lambda lib, x: x.tensor_split(lib.tensor([1.0]), 2),
    lambda lib, x: x.diagonal(0, 0, 0), lambda lib, x: x.diagonal(0, -3, 0),
    lambda lib, x: x[0, 0, 0].diagonal(),
    lambda lib, x: x.as_strided((5, 5), (5, 1)), lambda lib, x: x.as_strided((2,), (1,), 30),
    lambda lib, x: x.as_strided((2,), (-1,)), lambda lib, x: x.as_strided((2, 3), (1,)),
    lambda lib, x: x.unfold(2, 5, 1), lambda lib, x: x.unfold(2, 2, 0),
    lambda lib, x: x.unfold(2, -1, 1), lambda lib, x: x.unfold(3, 1, 1),
    lambda lib, x: x[0, 0, 0].unfold(0, 2, 1),
    lambda lib, x: x.repeat(2, 2), lambda lib, x: x.repeat(-1, 1, 1), lambda lib, x: x.repeat(()),
    lambda lib, x: x.tile(-1),
    lambda lib, x: x.flip(0, 0), lambda lib, x: x.flip(3), lambda lib, x: x.flip(),
    lambda lib, x: x[0, 0, 0].fliplr(), lambda lib, x: x[0, 0].fliplr(),
    lambda lib, x: x[0, 0, 0].flipud(),
    lambda lib, x: x.roll((1, 2), (0,)), lambda lib, x: x.roll((1, 2)), lambda lib, x: x.roll(1, 3),
    lambda lib, x: x.roll((), ()), lambda lib, x: x[0, 0, 0].roll(1, 0),
    lambda lib, x: x.rot90(1, (0, 1, 2)), lambda lib, x: x[0, 0].rot90(),
    lambda lib, x: x.rot90(1, (0, 0)), lambda lib, x: x.rot90(1, (0, 3)),
    lambda lib, x: x.rot90(1, (0, -3)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, torch):
    _same_error(torch, lambda lib: ERRORS[index](lib, _pair(torch)[lib is ember]))


def test_failed_inplace_view_leaves_tensor_unchanged(torch):
    _, x = _pair(torch)
    before = _geometry(x), x._version
    with pytest.raises(IndexError):
        x.squeeze_(5)
    with pytest.raises(IndexError):
        x.transpose_(0, 3)
    assert (_geometry(x), x._version) == before


# ---------------------------------------------------------------- T and friends
@pytest.mark.parametrize("shape, message", [
    ((), "Tensor.T is deprecated on 0-D tensors"),
    ((3,), "The use of `x.T` on tensors of dimension other than 2"),
    ((2, 3, 4), "The use of `x.T` on tensors of dimension other than 2"),
])
def test_T_warns_off_matrices(shape, message, torch):
    x = ember.ones(*shape)
    with pytest.warns(UserWarning, match=message.replace("(", r"\(")):
        out = x.T
    assert tuple(out.shape) == shape[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tuple(ember.ones(2, 3).T.shape) == (3, 2)


# ---------------------------------------------------------------- in-place view ops
@pytest.mark.parametrize("call", [
    lambda x: x.squeeze_(1).t_(), lambda x: x.transpose_(0, -1), lambda x: x.unsqueeze_(1),
    lambda x: x.squeeze_(), lambda x: x.squeeze_(1), lambda x: x.squeeze_((1,)),
])
def test_inplace_view_ops(call, torch):
    def run(lib):
        leaf = lib.tensor(np.arange(4.0).reshape(2, 1, 2), requires_grad=True)
        y = leaf * 1
        before = y._version
        out = call(y)
        assert out is y
        weights = lib.tensor(np.arange(float(y.numel())).reshape(tuple(y.shape)))
        (y * weights).sum().backward()
        return (tuple(y.shape), y.stride(), y._version - before, type(y.grad_fn).__name__,
                to_numpy(leaf.grad).tolist())
    assert run(ember) == run(torch)


def test_inplace_view_op_on_leaf_that_requires_grad(torch):
    _same_error(torch, lambda lib: lib.ones(2, 1, requires_grad=True).t_())


# ---------------------------------------------------------------- multi-output gradients
@pytest.mark.parametrize("pick", [
    lambda lib, x: [x.split(2, 1)[1]],
    lambda lib, x: [x.split([1, 2, 1], 1)[0], x.split([1, 2, 1], 1)[2]],
    lambda lib, x: [x.chunk(3, 1)[-1]],
    lambda lib, x: [x.unbind(2)[1]],
    lambda lib, x: list(x.unbind(0))[:1],
    lambda lib, x: [x.tensor_split(3, 1)[2]],
])
def test_partly_used_multi_output_grads(pick, torch):
    def run(lib):
        x = lib.tensor(np.arange(24.0).reshape(2, 4, 3), requires_grad=True)
        outs = pick(lib, x)
        loss = sum((o * o).sum() for o in outs)
        (grad,) = lib.autograd.grad(loss, x, create_graph=True)
        (grad * grad).sum().backward()
        return to_numpy(grad), to_numpy(x.grad)
    for got, expected in zip(run(ember), run(torch)):
        np.testing.assert_allclose(got, expected)


def test_split_outputs_share_one_node(torch):
    x = ember.ones(4, 2, requires_grad=True)
    a, b = x.split(2)
    assert a.grad_fn is b.grad_fn and (a._output_nr, b._output_nr) == (0, 1)
    assert a.grad_fn.name() == "SplitBackward0"
    assert x.split([1, 3])[0].grad_fn.name() == "SplitWithSizesBackward0"


def test_as_strided_and_unfold_overlapping_grads(torch):
    def run(lib):
        x = lib.tensor(np.arange(6.0), requires_grad=True)
        windows = x.unfold(0, 3, 1)
        strided = x.as_strided((3, 3), (1, 1))
        (windows * windows).sum().backward(retain_graph=True)
        (strided * 2).sum().backward()
        return to_numpy(x.grad)
    np.testing.assert_allclose(run(ember), run(torch))
