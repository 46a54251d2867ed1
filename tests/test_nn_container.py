"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against PyTorch.

Every container is built the same way in both libraries from test-local
modules (no layer from the layer files), then operated on and compared by
member names, order, reprs and error messages.
"""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import ember
from ember import nn
from oracle import assert_raises_alike


def _modules(lib):
    class Scale(lib.nn.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor
            self.weight = lib.nn.Parameter(lib.full((1,), float(factor)))

        def forward(self, x):
            return x * self.weight

        def extra_repr(self):
            return f"factor={self.factor}"

    class Pair(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = Scale(1)
            self.second = Scale(2)

        def forward(self, x):
            return self.second(self.first(x))

    return Scale, Pair


@pytest.fixture
def libs(torch):
    """(ember side, torch side), each a (lib, Scale, Pair) triple."""
    return (ember, *_modules(ember)), (torch, *_modules(torch))


def _same(ember_module, torch_module):
    assert repr(ember_module) == repr(torch_module).replace("torch", "ember")
    assert [n for n, _ in ember_module.named_parameters()] == \
        [n for n, _ in torch_module.named_parameters()]
    assert list(ember_module.state_dict()) == list(torch_module.state_dict())


def _both(libs, build):
    return [build(*side) for side in libs]


# ---------------------------------------------------------------- Sequential
def test_sequential_construction_and_repr(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential(Scale(1), Pair(), Scale(3)))
    _same(e, t)
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential(
        OrderedDict([("a", Scale(1)), ("b", Pair())])))
    _same(e, t)
    assert list(e._modules) == ["a", "b"]
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential())
    _same(e, t)
    assert repr(e) == "Sequential()"


def test_sequential_forward_chains():
    Scale, _ = _modules(ember)
    seq = nn.Sequential(Scale(2), Scale(3), nn.Sequential(Scale(5)))
    assert seq(ember.tensor([1.0])).tolist() == [30.0]
    assert nn.Sequential()(ember.tensor([4.0])).tolist() == [4.0]


@pytest.mark.parametrize("index", [0, 2, -1, -3, slice(1, None), slice(None, None, -1),
                                   slice(0, 3, 2), slice(5, 9)])
def test_sequential_indexing(libs, index):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential(Scale(1), Pair(), Scale(3)))
    got, expected = e[index], t[index]
    assert repr(got) == repr(expected)
    if isinstance(index, slice):
        assert type(got) is nn.Sequential
        assert list(got._modules) == list(expected._modules)
    else:
        assert got is list(e)[index]


def test_sequential_index_errors(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential(Scale(1), Scale(2)))
    assert_raises_alike(lambda: t[2], lambda: e[2])
    assert_raises_alike(lambda: t[-3], lambda: e[-3])
    assert_raises_alike(lambda: t["a"], lambda: e["a"])
    assert_raises_alike(lambda: t.insert(0, 3), lambda: e.insert(0, 3))
    assert_raises_alike(lambda: t.insert(5, type(t[0])(1)), lambda: e.insert(5, type(e[0])(1)))
    assert_raises_alike(lambda: t + 3, lambda: e + 3)
    assert_raises_alike(lambda: t * 0, lambda: e * 0)
    assert_raises_alike(lambda: t * 1.5, lambda: e * 1.5)


@pytest.mark.parametrize("operation", [
    lambda seq, Scale: seq.append(Scale(9)),
    lambda seq, Scale: seq.extend([Scale(7), Scale(8)]),
    lambda seq, Scale: seq.insert(1, Scale(5)),
    lambda seq, Scale: seq.insert(-1, Scale(5)),
    lambda seq, Scale: seq.insert(3, Scale(5)),
    lambda seq, Scale: seq.pop(1),
    lambda seq, Scale: seq.pop(slice(0, 2)),
    lambda seq, Scale: seq.__delitem__(0),
    lambda seq, Scale: seq.__delitem__(slice(None, None, 2)),
    lambda seq, Scale: seq.__setitem__(-1, Scale(6)),
    lambda seq, Scale: seq.__iadd__(type(seq)(Scale(4))),
    lambda seq, Scale: seq.__imul__(2),
])
def test_sequential_mutations(libs, operation):
    results = []
    for lib, Scale, Pair in libs:
        seq = lib.nn.Sequential(Scale(1), Pair(), Scale(3))
        returned = operation(seq, Scale)
        results.append((seq, returned))
    (e, e_returned), (t, t_returned) = results
    _same(e, t)
    assert list(e._modules) == list(t._modules)
    assert repr(e_returned) == repr(t_returned)


def test_sequential_named_delitem_renumbers(libs):
    sides = []
    for lib, Scale, Pair in libs:
        seq = lib.nn.Sequential(OrderedDict([("x", Scale(1)), ("y", Pair()), ("z", Scale(3))]))
        del seq[0]
        seq[-1] = Scale(7)
        sides.append(seq)
    _same(*sides)
    assert list(sides[0]._modules) == ["0", "1"]


def test_sequential_combinations(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.Sequential(Scale(1), Scale(2)))
    for build in (lambda s: s + s, lambda s: s * 2, lambda s: 3 * s):
        got, expected = build(e), build(t)
        _same(got, expected)
    doubled = e * 2
    assert doubled[0] is doubled[2]  # repetition shares the modules, as PyTorch
    assert len(list(doubled.parameters())) == 2


def test_sequential_len_iter_dir():
    Scale, _ = _modules(ember)
    layers = [Scale(1), Scale(2)]
    seq = nn.Sequential(*layers)
    assert len(seq) == 2 and list(seq) == layers
    assert "0" not in dir(seq) and "append" in dir(seq)


def test_sequential_deepcopy_and_state_dict_round_trip():
    Scale, Pair = _modules(ember)
    seq = nn.Sequential(Scale(1), Pair())
    clone = copy.deepcopy(seq)
    with ember.no_grad():
        for p in clone.parameters():
            p.fill_(7.0)
    assert seq[0].weight.item() == 1.0
    seq.load_state_dict(clone.state_dict())
    assert all(p.item() == 7.0 for p in seq.parameters())


# ---------------------------------------------------------------- ModuleList
def test_module_list_repr_collapses_repeats(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.ModuleList(
        [Scale(1), Scale(1), Scale(1), Pair(), Scale(2), Scale(2)]))
    _same(e, t)
    assert "(0-2): 3 x Scale(factor=1)" in repr(e)
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.ModuleList())
    _same(e, t)


@pytest.mark.parametrize("operation", [
    lambda ml, Scale: ml.append(Scale(9)),
    lambda ml, Scale: ml.extend([Scale(7), Scale(8)]),
    lambda ml, Scale: ml.insert(1, Scale(5)),
    lambda ml, Scale: ml.pop(0),
    lambda ml, Scale: ml.pop(-1),
    lambda ml, Scale: ml.__delitem__(slice(0, 2)),
    lambda ml, Scale: ml.__setitem__(-2, Scale(6)),
    lambda ml, Scale: ml.__iadd__([Scale(4)]),
    lambda ml, Scale: ml[1:],
    lambda ml, Scale: ml[::-1],
    lambda ml, Scale: ml + type(ml)([Scale(4)]),
])
def test_module_list_operations(libs, operation):
    results = []
    for lib, Scale, Pair in libs:
        ml = lib.nn.ModuleList([Scale(1), Pair(), Scale(3)])
        results.append((ml, operation(ml, Scale)))
    (e, e_out), (t, t_out) = results
    _same(e, t)
    assert repr(e_out) == repr(t_out)


def test_module_list_errors_and_protocol(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.ModuleList([Scale(1), Scale(2)]))
    assert_raises_alike(lambda: t[2], lambda: e[2])
    assert_raises_alike(lambda: t.extend(3), lambda: e.extend(3))
    assert len(e) == 2 and e[-1] is list(e)[1]
    assert type(e[0:1]) is nn.ModuleList
    with pytest.raises(NotImplementedError, match=r"Module \[ModuleList\] is missing"):
        e(ember.ones(1))


# ---------------------------------------------------------------- ModuleDict
def test_module_dict_operations(libs):
    e, t = _both(libs, lambda lib, Scale, Pair: lib.nn.ModuleDict(
        OrderedDict([("b", Scale(1)), ("a", Pair())])))
    _same(e, t)
    assert list(e) == ["b", "a"] and list(e.keys()) == ["b", "a"]
    assert "a" in e and "c" not in e and len(e) == 2
    assert [k for k, _ in e.items()] == ["b", "a"] and list(e.values())[0] is e["b"]
    for side, (lib, Scale, Pair) in zip((e, t), libs):
        side["c"] = Scale(3)
        side.update([("d", Scale(4))])
        side.update({"e": Scale(5)})
        popped = side.pop("b")
        assert popped.factor == 1
        del side["d"]
    _same(e, t)
    e.clear()
    assert len(e) == 0 and repr(e) == "ModuleDict()"
    assert_raises_alike(lambda: t.update(3), lambda: e.update(3))
    assert_raises_alike(lambda: t.update([(1, 2, 3)]), lambda: e.update([(1, 2, 3)]))
    assert_raises_alike(lambda: t.update([3]), lambda: e.update([3]))
    assert_raises_alike(lambda: t["x"], lambda: e["x"])


# ---------------------------------------------------------------- ParameterList
def test_parameter_list_repr_and_wrapping(torch):
    values = [np.ones(3, np.float32), np.zeros((2, 2), np.float64)]
    e = nn.ParameterList([ember.tensor(v) for v in values] + ["text"])
    t = torch.nn.ParameterList([torch.tensor(v) for v in values] + ["text"])
    _same(e, t)
    assert type(e[0]) is nn.Parameter and e[0].requires_grad
    assert e[2] == "text"
    one_e, one_t = nn.ParameterList([ember.ones(3)]), torch.nn.ParameterList([torch.ones(3)])
    _same(one_e, one_t)  # PyTorch's one-line quirk: "ParameterList(  (0): ...)"
    _same(nn.ParameterList(), torch.nn.ParameterList())


def test_parameter_list_operations(torch):
    sides = []
    for lib in (ember, torch):
        pl = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(1)), lib.zeros(2)])
        pl.append(lib.ones(3))
        pl.extend([lib.ones(4)])
        pl += [lib.ones(5)]
        pl[-1] = lib.zeros(6)
        sides.append(pl)
    e, t = sides
    _same(e, t)
    assert len(e) == 5 and [p.numel() for p in e] == [1, 2, 3, 4, 6]
    _same(e[1:3], t[1:3])
    _same(e[::-2], t[::-2])
    assert e[1:3][0] is e[1]
    assert_raises_alike(lambda: t[5], lambda: e[5])
    assert_raises_alike(lambda: t.extend(torch.ones(2)), lambda: e.extend(ember.ones(2)))
    assert_raises_alike(lambda: t(1), lambda: e(1))
    assert [n for n, _ in e.named_parameters()] == ["0", "1", "2", "3", "4"]


def test_parameter_list_in_module_state_dict(torch):
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.params = lib.nn.ParameterList([lib.ones(2), lib.ones(3)])
        assert list(m.state_dict()) == ["params.0", "params.1"]


# ---------------------------------------------------------------- ParameterDict
def test_parameter_dict_repr_and_order(torch):
    data = {"b": np.ones(2, np.float32), "a": np.zeros((1, 3), np.float64)}
    e = nn.ParameterDict({k: ember.tensor(v) for k, v in data.items()})
    t = torch.nn.ParameterDict({k: torch.tensor(v) for k, v in data.items()})
    _same(e, t)
    assert list(e) == ["a", "b"]  # a plain dict is sorted, as PyTorch
    ordered = OrderedDict([("z", ember.ones(1)), ("y", ember.ones(2))])
    assert list(nn.ParameterDict(ordered)) == ["z", "y"]
    assert list(nn.ParameterDict([("q", ember.ones(1)), ("p", ember.ones(1))])) == ["q", "p"]
    _same(nn.ParameterDict(), torch.nn.ParameterDict())


def test_parameter_dict_operations(torch):
    sides = []
    for lib in (ember, torch):
        pd = lib.nn.ParameterDict({"w": lib.ones(2)})
        pd["v"] = lib.zeros(3)
        pd.update([("u", lib.ones(1))])
        assert pd.setdefault("w") is pd["w"]
        pd.setdefault("s", lib.ones(4))
        assert pd.get("missing", 5) == 5
        pd.pop("v")
        key, value = pd.popitem()
        assert key == "s" and value.numel() == 4
        sides.append(pd)
    e, t = sides
    _same(e, t)
    assert list(e.keys()) == ["w", "u"] and list(reversed(e)) == ["u", "w"]
    assert [k for k, _ in e.items()] == ["w", "u"] and list(e.values())[0] is e["w"]
    assert "w" in e and len(e) == 2 and type(e["w"]) is nn.Parameter
    copied = e.copy()
    assert copied["w"] is e["w"] and copied is not e
    merged = e | nn.ParameterDict({"n": ember.ones(1)})
    assert list(merged) == ["w", "u", "n"]
    e |= nn.ParameterDict({"m": ember.ones(1)})
    assert list(e) == ["w", "u", "m"]
    assert list(e.fromkeys(["x", "y"], ember.ones(1))) == ["x", "y"]
    assert_raises_alike(lambda: t[3], lambda: e[3])
    assert_raises_alike(lambda: t.update(3), lambda: e.update(3))
    assert_raises_alike(lambda: t.update([(1, 2, 3)]), lambda: e.update([(1, 2, 3)]))
    assert_raises_alike(lambda: t(1), lambda: e(1))
    e.clear()
    assert len(e) == 0 and not list(e.parameters())


def test_containers_nested_repr(libs):
    def build(lib, Scale, Pair):
        return lib.nn.Sequential(
            lib.nn.ModuleList([Scale(1), Scale(1)]),
            lib.nn.ModuleDict({"p": Pair()}),
            lib.nn.ParameterList([lib.ones(2)]),
            lib.nn.ParameterDict({"k": lib.ones(1), "j": lib.ones(2)}))
    e, t = _both(libs, build)
    _same(e, t)


def test_deprecated_container(libs):
    sides = []
    for lib, Scale, _ in libs:
        with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
            sides.append(lib.nn.Container(a=Scale(1), b=Scale(2)))
    _same(*sides)
