"""Tensor properties and methods, and grad-mode switches, that no other test compares with
torch: layout, device queries, retain_grad/retains_grad, detach_, cuda() without a GPU,
enable_grad and set_grad_enabled as context managers, decorators and plain calls."""
import pytest

import ember
from oracle import assert_same
from test_api_pointwise import compare_error


def test_layout_and_device_queries_match_torch(torch):
    for make in (lambda lib: lib.ones(2, 3), lambda lib: lib.ones(2, 3).t(),
                 lambda lib: lib.tensor(1.5), lambda lib: lib.zeros(0, dtype=lib.int64)):
        e, t = make(ember), make(torch)
        assert str(e.layout) == str(t.layout).replace("torch.", "ember.")
        assert (e.get_device(), e.is_cpu, e.is_cuda) == (t.get_device(), t.is_cpu, t.is_cuda)


_LAYOUTS = ("layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
            "sparse_bsc", "jagged")


def test_layout_is_a_layout_object_like_torch(torch):
    import copy
    assert ember.ones(2).layout is ember.strided
    assert repr(ember.layout) == repr(torch.layout).replace("torch.", "ember.")
    for name in _LAYOUTS[1:]:
        e, t = getattr(ember, name), getattr(torch, name)
        assert (repr(e), str(e)) == (repr(t).replace("torch.", "ember."),
                                     str(t).replace("torch.", "ember."))
        assert type(e) is ember.layout and ember.typename(e) == "ember.layout"
        assert copy.deepcopy(e) is e
        assert (e == ember.strided) == (t == torch.strided)


def test_retains_grad_matches_torch(torch):
    seen = []
    for lib in (ember, torch):
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        middle = leaf * 2
        before = middle.retains_grad
        middle.retain_grad()
        middle.retain_grad()    # twice: still one hook, one gradient
        leaf.retain_grad()      # a no-op on a leaf
        (middle * middle).sum().backward()
        seen.append((before, middle.retains_grad, leaf.retains_grad, middle.grad.tolist(),
                     leaf.grad.tolist(), middle.detach().retains_grad))
    assert seen[0] == seen[1]
    compare_error(torch, lambda lib: lib.ones(2).retain_grad())


def test_detach_in_place_matches_torch(torch):
    results = []
    for lib in (ember, torch):
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        middle = leaf * 3
        out = middle.detach_()
        results.append((out, out is middle, middle.requires_grad, middle.grad_fn, middle.is_leaf))
        plain = lib.ones(2)
        assert plain.detach_() is plain
    (e, *e_flags), (t, *t_flags) = results
    assert_same(e, t)
    assert e_flags == t_flags


def test_detach_in_place_of_a_plain_view_is_refused_like_torch(torch):
    compare_error(torch, lambda lib: lib.ones(3)[:1].detach_())
    compare_error(torch, lambda lib: lib.ones(3).detach()[:1].detach_())


def test_detach_and_data_of_a_view_are_not_views_like_torch(torch):
    """detach(), .data and Parameter(view) share memory with a view but are no views."""
    for make in (lambda lib: lib.ones(3, 2)[:1].detach(), lambda lib: lib.ones(3, 2)[:1].data,
                 lambda lib: lib.nn.Parameter(lib.ones(3, 2)[:1])):
        e, t = make(ember), make(torch)
        assert (e._base is None) == (t._base is None)
        assert e.detach_() is e and t.detach_() is t
    seen = []
    for lib in (ember, torch):
        leaf = lib.ones(3, requires_grad=True)
        middle = leaf * 2
        alias = middle[:1].detach()
        alias.add_(1)           # writes memory, not the graph
        middle.sum().backward()
        seen.append((middle.grad_fn.name(), middle.tolist(), leaf.grad.tolist()))
    assert seen[0] == seen[1]


def test_detach_in_place_of_a_view_in_a_graph_is_refused_like_torch(torch):
    compare_error(torch, lambda lib: (lib.ones(2, 3, requires_grad=True) * 2)[0].detach_())


def test_cuda_without_a_gpu_fails_like_torchs_cpu_build(torch):
    if ember.cuda.is_available():
        pytest.skip("a CUDA device is present")
    compare_error(torch, lambda lib: lib.ones(2).cuda())
    compare_error(torch, lambda lib: lib.ones(2).to("cuda"))
    compare_error(torch, lambda lib: lib.zeros(2, device="cuda"))


def test_cuda_without_a_gpu_raises(torch):
    if ember.cuda.is_available():
        x = ember.ones(2).cuda()
        assert x.is_cuda and not x.is_cpu and x.get_device() == 0
        return
    with pytest.raises(AssertionError) as info:
        ember.ones(2).cuda()
    assert str(info.value) == "Torch not compiled with CUDA enabled"


# ---------------------------------------------------------------- grad-mode switches
def _grad_mode_trace(lib):
    """requires_grad of results under each form of enable_grad / set_grad_enabled."""
    leaf = lib.ones(2, requires_grad=True)
    trace = []

    @lib.enable_grad()
    def enabled(x):
        return x * 2

    @lib.set_grad_enabled(False)
    def disabled(x):
        return x * 2

    with lib.no_grad():
        trace.append((enabled(leaf).requires_grad, (leaf * 1).requires_grad))
        with lib.enable_grad():
            trace.append(((leaf * 1).requires_grad, lib.is_grad_enabled()))
        with lib.set_grad_enabled(True):
            trace.append((leaf * 1).requires_grad)
    trace.append((disabled(leaf).requires_grad, lib.is_grad_enabled()))
    with lib.set_grad_enabled(False):
        trace.append(((leaf * 1).requires_grad, lib.is_grad_enabled()))
    lib.set_grad_enabled(False)     # a plain call switches until switched back
    trace.append(((leaf * 1).requires_grad, lib.is_grad_enabled()))
    lib.set_grad_enabled(True)
    trace.append(((leaf * 1).requires_grad, lib.is_grad_enabled()))
    trace.append(type(lib.set_grad_enabled(True)).__name__)
    return trace


def test_grad_mode_switches_match_torch(torch):
    assert _grad_mode_trace(ember) == _grad_mode_trace(torch)
    compare_error(torch, lambda lib: lib.set_grad_enabled())


def test_set_grad_enabled_repr_matches_torch(torch):
    try:
        got, expected = repr(ember.set_grad_enabled(False)), repr(torch.set_grad_enabled(False))
    finally:
        ember.set_grad_enabled(True)
        torch.set_grad_enabled(True)
    assert got == expected.replace("torch.", "ember.")
