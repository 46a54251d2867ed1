"""In-place writes: memory overlap, writing through views of tensors with history, and
the history every view of the written base gets afterwards, all against torch."""
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from oracle import assert_same

OVERLAP = ("unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.")
X = np.arange(12, dtype=np.float64).reshape(4, 3) / 5 - 1
Z = np.array([0.5, -1.0, 2.0])
W = np.linspace(-1, 1, 12).reshape(4, 3)


def _names(nodes):
    return [None if node is None else type(node).__name__ for node, _ in nodes]


# ---------------------------------------------------------------- internal overlap
REFUSED = {
    "add_": lambda lib, e: e.add_(1),
    "mul_": lambda lib, e: e.mul_(2),
    "neg_": lambda lib, e: e.neg_(),
    "clamp_": lambda lib, e: e.clamp_(0, 1),
    "copy_": lambda lib, e: e.copy_(lib.ones(2, 3)),
    "scatter_": lambda lib, e: e.scatter_(1, lib.tensor([[0], [1]]), 1.0),
    "setitem all": lambda lib, e: e.__setitem__(Ellipsis, 1.0),
    "setitem column": lambda lib, e: e.__setitem__((slice(None), 0), lib.ones(2)),
}
ALLOWED = {  # PyTorch lets these write into an expand (some with a deprecation warning)
    "fill_": lambda lib, e: e.fill_(1),
    "zero_": lambda lib, e: e.zero_(),
    "masked_fill_": lambda lib, e: e.masked_fill_(lib.ones(2, 3, dtype=lib.bool), 1.0),
    "index_put_": lambda lib, e: e.index_put_((lib.tensor([0]),), lib.tensor(1.0)),
    "index_fill_": lambda lib, e: e.index_fill_(1, lib.tensor([0]), 1.0),
    "tril_": lambda lib, e: e.tril_(),
    "setitem row": lambda lib, e: e.__setitem__(0, 1.0),
}


@pytest.mark.parametrize("name", REFUSED)
def test_inplace_into_expanded_tensor_refused(name, torch):
    with pytest.raises(RuntimeError, match="more than one element") as expected:
        REFUSED[name](torch, torch.zeros(3).expand(2, 3))
    assert str(expected.value) == OVERLAP
    base = ember.zeros(3)
    expanded = base.expand(2, 3)
    with pytest.raises(RuntimeError) as got:
        REFUSED[name](ember, expanded)
    assert str(got.value) == OVERLAP
    assert base._version == 0 and base.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ALLOWED)
def test_inplace_into_expanded_tensor_allowed_where_torch_allows(name, torch):
    ALLOWED[name](torch, torch.zeros(3).expand(2, 3))
    ALLOWED[name](ember, ember.zeros(3).expand(2, 3))


@pytest.mark.parametrize("make", [lambda lib: lib.zeros(0).expand(2, 0),
                                  lambda lib: lib.zeros(1, 3).expand(1, 3)],
                         ids=["empty", "size-1 dim"])
def test_inplace_without_shared_elements_allowed(make, torch):
    assert_same(make(ember).add_(1), make(torch).add_(1))


def test_inplace_without_grad_refuses_too():
    with ember.no_grad():
        with pytest.raises(RuntimeError, match="more than one element"):
            ember.ones(3, requires_grad=True).expand(2, 3).mul_(2)


# ---------------------------------------------------------------- writing through views
WRITES = {
    "y[...] = z": lambda lib, y, z: y.__setitem__(Ellipsis, z),
    "y[:] = z": lambda lib, y, z: y.__setitem__(slice(None), z),
    "y[0] = z": lambda lib, y, z: y.__setitem__(0, z),
    "y[0:2] = z": lambda lib, y, z: y.__setitem__(slice(0, 2), z),
    "y[0:2] = 5": lambda lib, y, z: y.__setitem__(slice(0, 2), 5.0),
    "y[1, 1] = z.sum()": lambda lib, y, z: y.__setitem__((1, 1), z.sum()),
    "y[0:1] = z[None]": lambda lib, y, z: y.__setitem__(slice(0, 1), z[None]),
    "y[::2, 1] = z[:2]": lambda lib, y, z: y.__setitem__((slice(None, None, 2), 1), z[:2]),
    "y[None, 1:3] = z": lambda lib, y, z: y.__setitem__((None, slice(1, 3)), z),
    "y[[0, 2]] = z": lambda lib, y, z: y.__setitem__(lib.tensor([0, 2]), z),
    "y[1, [0, 2]] = z[:2]": lambda lib, y, z: y.__setitem__((1, lib.tensor([0, 2])), z[:2]),
    "v = y[1:3]; v[0] = z": lambda lib, y, z: y[1:3].__setitem__(0, z),
    "v = y[1:3]; v[:, 1] = 3 z[:2]": lambda lib, y, z: y[1:3].__setitem__(
        (slice(None), 1), z[:2] * 3),
    "y[1:3].mul_(z)": lambda lib, y, z: y[1:3].mul_(z),
    "y.t()[1].add_(z[:1])": lambda lib, y, z: y.t()[1].add_(z[:1]),
    "y[1:3].copy_(z)": lambda lib, y, z: y[1:3].copy_(z),
    "y[0].fill_(z.sum())": lambda lib, y, z: y[0].fill_(z.sum()),
    "y.diagonal().zero_()": lambda lib, y, z: y.diagonal().zero_(),
}


def _write(lib, write):
    x = lib.tensor(X, requires_grad=True)
    z = lib.tensor(Z, requires_grad=True)
    y = x * 2
    write(lib, y, z)
    (y * lib.tensor(W)).sum().backward()
    return x, y, z


@pytest.mark.parametrize("name", WRITES)
def test_write_through_view_matches_torch(name, torch):
    t_x, t_y, t_z = _write(torch, WRITES[name])
    e_x, e_y, e_z = _write(ember, WRITES[name])
    assert e_y.grad_fn.name() == t_y.grad_fn.name().replace("torch::", "ember::")
    assert _names(e_y.grad_fn.next_functions) == _names(t_y.grad_fn.next_functions)
    assert_same(e_y.detach(), t_y.detach())
    assert_same(e_x.grad, t_x.grad)
    assert (e_z.grad is None) == (t_z.grad is None)
    if t_z.grad is not None:
        assert_same(e_z.grad, t_z.grad)


def test_assignment_into_view_of_leaf_refused(torch):
    for lib in (torch, ember):
        x = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
            x[0] = 1.0
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x[...] = 1.0
        assert x._version == 0


# ---------------------------------------------------------------- other views of the base
VIEWS_THEN_WRITE = {
    "a = y[0]; y[1].mul_(2)": (lambda y: y[0], lambda y: y[1].mul_(2)),
    "a = y[0:2]; y[1:3].mul_(2)": (lambda y: y[0:2], lambda y: y[1:3].mul_(2)),
    "a = y[:, 1]; y[1] = 7": (lambda y: y[:, 1], lambda y: y.__setitem__(1, 7.0)),
    "a = y[0]; y.mul_(2)": (lambda y: y[0], lambda y: y.mul_(2)),
    "a = y.t(); y.diagonal().add_(1)": (lambda y: y.t(), lambda y: y.diagonal().add_(1)),
}


@pytest.mark.parametrize("name", VIEWS_THEN_WRITE)
def test_earlier_views_get_fresh_history(name, torch):
    """PyTorch regenerates a view's grad_fn after its base changed: its values changed too."""
    make_view, write = VIEWS_THEN_WRITE[name]
    results = []
    for lib in (torch, ember):
        x = lib.tensor(X, requires_grad=True)
        y = x * 2
        a = make_view(y)
        write(y)
        (a * lib.tensor(np.linspace(1, 2, a.numel())).reshape(a.shape)).sum().backward()
        results.append((a, x.grad))
    (t_a, t_grad), (e_a, e_grad) = results
    assert e_a.grad_fn.name() == type(t_a.grad_fn).__name__ == "AsStridedBackward0"
    assert_same(e_a.detach(), t_a.detach())
    assert_same(e_grad, t_grad)


@st.composite
def _region(draw):
    """A 2-D shape and a basic index into it (ints and stepped slices)."""
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    index = []
    for size in shape:
        if draw(st.booleans()):
            index.append(draw(st.integers(-size, size - 1)))
        else:
            start = draw(st.integers(0, size))
            index.append(slice(start, draw(st.integers(start, size)), draw(st.integers(1, 2))))
    return shape, tuple(index)


@given(_region(), st.sampled_from(["assign", "mul_", "view then assign"]))
def test_writes_into_any_region_match_torch(region, how):
    torch = pytest.importorskip("torch")  # hypothesis and function fixtures do not mix
    shape, index = region
    x_np = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) - 1.5
    results = []
    for lib in (torch, ember):
        x = lib.tensor(x_np, requires_grad=True)
        y = x * 3
        target = tuple(y[index].shape)
        z = lib.tensor(np.linspace(-2, 2, int(np.prod(target))).reshape(target),
                       requires_grad=True)
        if how == "assign":
            y[index] = z
        elif how == "mul_":
            y[index].mul_(z)
        else:
            v = y[:, :]
            v[index] = z
        (y * y).sum().backward()
        results.append((y, x.grad, z.grad))
    for got, expected in zip(results[1], results[0]):
        if expected is None:
            assert got is None
        else:
            assert_same(got.detach(), expected.detach())


# ---------------------------------------------------------------- fresh empty tensors
FACTORIES = {
    "zeros": lambda lib: lib.zeros(0, 4),
    "ones": lambda lib: lib.ones(3, 0, 2),
    "empty": lambda lib: lib.empty(2, 0),
    "full": lambda lib: lib.full((0, 3), 1.0),
    "tensor list": lambda lib: lib.tensor([[], []]),
    "tensor ndarray": lambda lib: lib.tensor(np.zeros((0, 4))),  # keeps NumPy's strides
    "as_tensor ndarray": lambda lib: lib.as_tensor(np.zeros((0, 4)), dtype=lib.float32),
    "zeros_like transposed": lambda lib: lib.zeros_like(lib.zeros(0, 4).t()),
    "new_zeros": lambda lib: lib.zeros(1).new_zeros(0, 3),
    "empty_strided": lambda lib: lib.empty_strided((0, 3), (7, 2)),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_empty_factory_strides(name, torch):
    assert FACTORIES[name](ember).stride() == FACTORIES[name](torch).stride()


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
def test_direct_in_place_path_keeps_every_rule(torch, op):
    """x.op_(y) written straight into memory still bumps the version once, writes
    through views, and leaves x untouched when the shapes don't broadcast."""
    base = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    view = base[1]
    same = getattr(view, op)(ember.tensor([2.0, 4.0, 8.0]))
    assert same is view and base._version == 1
    expected = getattr(torch.tensor([4.0, 5.0, 6.0]), op)(torch.tensor([2.0, 4.0, 8.0]))
    assert base[1].tolist() == expected.tolist()
    getattr(base, op)(2)
    assert base._version == 2
    before = base.tolist()
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        getattr(view, op)(ember.ones(2, 3))
    assert base.tolist() == before and base._version == 2
    with pytest.raises(RuntimeError, match="can't be cast"):
        getattr(ember.tensor([1, 2]), op)(1.5)


@pytest.mark.parametrize("write", [
    lambda lib, x: x[1:].add_(x[:-1]),
    lambda lib, x: x[1:].mul_(x[:-1]),
    lambda lib, x: x[1:4].copy_(x[:3]),
    lambda lib, x: x.__setitem__(slice(1, 4), x[:3]),
    lambda lib, x: x.view(2, 3).add_(x.view(3, 2).t()),
])
def test_partially_overlapping_operand_is_refused_like_torch(torch, write):
    """`x[1:] += x[:-1]` would read values it has already written: PyTorch refuses."""
    messages = []
    for lib in (ember, torch):
        x = lib.arange(6.0)
        with pytest.raises(RuntimeError) as info:
            write(lib, x)
        assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_the_same_memory_and_disjoint_regions_are_fine(torch):
    for lib in (ember, torch):
        y = lib.arange(6.0)
        y.view(2, 3)[:, :2].sub_(y.view(2, 3)[:, 1:])  # interleaved: PyTorch doesn't judge
        assert y.tolist() == [-1.0, -1.0, 2.0, -1.0, -1.0, 5.0]
        x = lib.arange(6.0)
        x += x
        x[:3].copy_(x[3:])
        x[3:] = x[:3] * 1
        assert x.tolist() == [6.0, 8.0, 10.0, 6.0, 8.0, 10.0]
