"""Mismatches the differential fuzzer found in slice 2 of the op families (EMBER_FUZZ_SLICE=2/4),
each pinned as a plain call compared with torch after its fix.

Grouped by mechanism, most harmful first: silent wrong answers, then calls one library
refuses and the other answers, then exception types and texts.
"""
import numpy as np
import pytest

from oracle import assert_same, assert_same_error, assert_same_outcome


# ---------------------------------------------------------------- the leaf rules of in-place ops
def _view_leaf(lib):
    """A view made a leaf: `requires_grad_()` on a transpose of a plain tensor."""
    t = lib.ones(3, 2).transpose(-1, -2)
    t.requires_grad_()
    return t


IN_PLACE = [
    ("abs_", ()), ("negative_", ()), ("rsqrt_", ()), ("asin_", ()), ("floor_", ()),
    ("conj_physical_", ()), ("squeeze_", ()), ("t_", ()), ("zero_", ()), ("fill_", (1,)),
    ("copy_", (np.ones((2, 3)),)), ("as_strided_", ((2,), (1,))), ("clamp_", (0, 1)),
]


@pytest.mark.parametrize("name, args", IN_PLACE, ids=[c[0] for c in IN_PLACE])
@pytest.mark.parametrize("make", ["view made a leaf", "slice of a leaf", "slice of a view leaf",
                                  "leaf"])
def test_inplace_write_into_a_leaf_or_a_view_of_one(torch, name, args, make):
    """A view whose base is a leaf is refused in its own words even when the base does not
    require grad (the view was made a leaf by requires_grad_())."""
    def call(lib):
        if make == "view made a leaf":
            x = _view_leaf(lib)
        elif make == "slice of a leaf":
            x = lib.ones(2, 4, requires_grad=True)[:, 1:]
        elif make == "slice of a view leaf":
            x = _view_leaf(lib)[:, :]
        else:
            x = lib.ones(2, 3, requires_grad=True)
        values = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        return getattr(x, name)(*values)
    assert_same_error(call)


def test_view_of_a_non_leaf_may_be_written(torch):
    def call(lib):
        y = lib.ones(2, 3, requires_grad=True) * 2
        v = y.transpose(0, 1)
        v.abs_()
        return v
    assert_same_outcome(call)


SAMPLERS = [("cauchy_", (0, -1)), ("log_normal_", (1, 0)), ("exponential_", (-1,)),
            ("geometric_", (1,)), ("uniform_", (2, 1)), ("normal_", (0, -1)),
            ("random_", (5, 1)), ("bernoulli_", (2.0,)), ("log_normal_", ())]


@pytest.mark.parametrize("name, args", SAMPLERS, ids=[c[0] for c in SAMPLERS])
@pytest.mark.parametrize("shape", [(2, 3), (0, 3)])
def test_sampler_refuses_a_leaf_before_checking_its_arguments(torch, name, args, shape):
    """Autograd's refusal comes before the kernel's bounds checks and an empty tensor's
    early return."""
    assert_same_error(lambda lib: getattr(lib.ones(shape, requires_grad=True), name)(*args))
    assert_same_error(lambda lib: getattr(lib.ones(2, 4, requires_grad=True)[:, 1:],
                                          name)(*args))


@pytest.mark.parametrize("value", [2**64, 2**70, -2**63 - 1])
@pytest.mark.parametrize("name", ["add_", "fill_", "clamp_max_", "mul_"])
def test_int_past_64_bits_refused_before_the_leaf_rule(torch, name, value):
    """PyTorch's argument parser converts the number before autograd sees the tensor."""
    assert_same_error(lambda lib: getattr(lib.ones(2, requires_grad=True), name)(value))


# ---------------------------------------------------------------- in-place comparisons record
@pytest.mark.parametrize("name", ["eq_", "ne_", "lt_", "le_", "gt_", "ge_", "less_",
                                  "greater_", "less_equal_", "greater_equal_", "not_equal_"])
@pytest.mark.parametrize("other", ["number", "tensor"])
def test_inplace_comparison_records_a_zero_gradient_node(torch, name, other):
    """`x.gt_(y)` has a node (GtBackward0 for a number, GtBackward1 for a tensor) where `gt`
    has none; its gradient is zero for both inputs."""
    def call(lib):
        leaf = lib.tensor([0.5, 1.5, -2.0], requires_grad=True)
        y = lib.tensor([1.0], requires_grad=True)
        x = leaf * 1
        out = getattr(x, name)(1.0 if other == "number" else y)
        assert out is x
        out.sum().backward()
        return (out.grad_fn.name(), out.requires_grad, leaf.grad,
                y.grad if other == "tensor" else None)
    assert_same_outcome(call)
    assert_same_outcome(lambda lib: call(lib)[2])


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_inplace_comparison_with_an_operand_that_requires_grad(torch, dtype):
    """A plain x compared in place with a y that requires grad takes a node, integer x too."""
    def call(lib):
        x = lib.zeros(2, 3, dtype=getattr(lib, dtype))
        out = x.gt_(lib.ones(3, dtype=lib.float64, requires_grad=True))
        return out.requires_grad, out.grad_fn.name()
    assert_same_outcome(call)


# ---------------------------------------------------------------- calls torch refuses
@pytest.mark.parametrize("source", ["leaf", "non-leaf", "int"])
@pytest.mark.parametrize("kwargs", [{}, {"dtype": "int8"}, {"dtype": "float64"}, {"copy": True},
                                    {"requires_grad": True}, {"copy": False},
                                    {"dtype": "float64", "requires_grad": True},
                                    {"copy": True, "requires_grad": True}])
def test_asarray_passes_on_requires_grad(torch, source, kwargs):
    """A source that requires grad keeps its history through a conversion (ToCopyBackward0)
    or copy (CloneBackward0), and an integer result of it is refused."""
    def call(lib):
        x = lib.tensor([0.5, -1.0], requires_grad=source != "int")
        x = x * 2 if source == "non-leaf" else x
        x = x.long() if source == "int" else x
        args = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        out = lib.asarray(x, **args)
        return out, out.requires_grad, out.is_leaf, out is x
    assert_same_outcome(call)


def test_asarray_marks_the_view_itself(torch):
    def call(lib):
        v = lib.zeros(3)[1:]
        out = lib.asarray(v, requires_grad=True)
        return out is v, v.requires_grad, v._base is not None
    assert_same_outcome(call)


@pytest.mark.parametrize("value", [2**64, -2**63 - 1, 10**30])
def test_float_power_refuses_an_int_past_64_bits(torch, value):
    assert_same_error(lambda lib: lib.float_power(lib.tensor([0, 3], dtype=lib.uint8), value))
    assert_same_error(lambda lib: lib.float_power(value, lib.tensor([0, 3], dtype=lib.uint8)))
    assert_same_error(lambda lib: lib.tensor([0, 3], dtype=lib.uint8).float_power_(value))
    assert_same_error(lambda lib: lib.tensor([0.0, 3.0]).float_power_(value))


@pytest.mark.parametrize("dtype", ["bool", "int64", "uint8"])
@pytest.mark.parametrize("p, train", [(1, None), (0.5, True), (0.0, True), (0.5, False)])
def test_native_dropout_of_integers_in_training(torch, dtype, p, train):
    """Training scales by a double in place: PyTorch refuses an integer or bool input."""
    assert_same_outcome(lambda lib: lib.native_dropout(
        lib.tensor([1, 0, 1], dtype=getattr(lib, dtype)), p, train)[0].shape)


def test_native_dropout_refusal_draws_the_mask_first(torch):
    def call(lib):
        lib.manual_seed(0)
        with pytest.raises(RuntimeError):
            lib.native_dropout(lib.tensor([1, 2, 3]), 0.5, True)
        return lib.rand(3)
    assert_same(call(__import__("ember")), call(torch))


CHOLESKY_SHAPES = [((0, 2), (2, 2)), ((3, 2), (2, 2)), ((2, 3), (3, 2, 2)), ((2, 0), (0, 0)),
                   ((4, 3, 2), (2, 2)), ((2, 2), (2, 3)), ((0, 2), (0, 0))]


@pytest.mark.parametrize("b_shape, a_shape", CHOLESKY_SHAPES)
@pytest.mark.parametrize("b_dtype, a_dtype", [("float32", "float32"), ("float32", "float64"),
                                              ("int64", "int64"), ("float16", "float16"),
                                              ("bool", "float32"), ("int64", "float32")])
def test_cholesky_solve_checks_in_pytorch_order(torch, b_shape, a_shape, b_dtype, a_dtype):
    """Same dtype, square A, matching rows, then the kernel's dtypes: an empty b of the
    wrong height is refused, not answered."""
    def call(lib):
        a = lib.zeros(a_shape, dtype=getattr(lib, a_dtype))
        if len(a_shape) > 1 and a_shape[-1] == a_shape[-2]:
            a = a + lib.eye(a_shape[-1], dtype=getattr(lib, a_dtype))
        return lib.cholesky_solve(lib.ones(b_shape, dtype=getattr(lib, b_dtype)), a)
    assert_same_outcome(call)


SORT_CALLS = [
    lambda lib, x: lib.argsort(x, -1, stable=True), lambda lib, x: x.argsort(0, stable=True),
    lambda lib, x: x.argsort(0, True, stable=True), lambda lib, x: lib.sort(x, 0, stable=True),
    lambda lib, x: x.sort(0, True, stable=False), lambda lib, x: x.sort(stable=None, dim=0),
    lambda lib, x: lib.argsort(x, stable=True, dim=0, descending=True),
]


@pytest.mark.parametrize("index", range(len(SORT_CALLS)))
def test_sort_with_stable_takes_no_positional_dim(torch, index):
    """`stable` selects the overload whose dim is keyword-only: PyTorch's parser refuses a
    positional dim beside it."""
    assert_same_outcome(lambda lib: SORT_CALLS[index](lib, lib.tensor([3.0, 1.0, 2.0])))


# ---------------------------------------------------------------- half types round every step
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("weights", [(), ("weight",), ("pos_weight",), ("weight", "pos_weight")])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_with_logits_in_half_types_rounds_like_pytorch(torch, dtype, weights, reduction):
    """Each of PyTorch's steps stores a half-type tensor; a mean of terms that nearly cancel
    magnifies a single-rounding answer (0.0195 where PyTorch gives 0.0364)."""
    rng = np.random.default_rng(7)
    x, t = rng.uniform(-5, 5, 12), rng.uniform(-1, 2, 12)
    w, pw = rng.uniform(0, 2, 12), rng.uniform(0, 3, 12)

    def call(lib):
        def half(a):
            return lib.tensor(a, dtype=lib.float64).to(getattr(lib, dtype))
        extra = {name: half(w if name == "weight" else pw) for name in weights}
        return lib.nn.functional.binary_cross_entropy_with_logits(half(x), half(t),
                                                                  reduction=reduction, **extra)
    assert_same(call(__import__("ember")), call(torch), atol=0, rtol=0)
    case = [-3.21875, 2.46875, -2.34375], [-0.84765625] * 3
    assert_same(*(lib.nn.functional.binary_cross_entropy_with_logits(
        lib.tensor(case[0]).to(getattr(lib, dtype)), lib.tensor(case[1]).to(getattr(lib, dtype)))
        for lib in (__import__("ember"), torch)), atol=0, rtol=0)


@pytest.mark.parametrize("training", [False, True])
@pytest.mark.parametrize("call", ["F.rrelu", "F.rrelu_", "rrelu", "rrelu_", "module"])
def test_rrelu_of_integers_names_the_kernel_used(torch, training, call):
    """Out of training PyTorch's rrelu is leaky_relu, whose kernel refuses the dtype."""
    def run(lib):
        x = lib.tensor([1, -2], dtype=lib.int32)
        if call == "module":
            return lib.nn.RReLU().train(training)(x)
        f = getattr(lib.nn.functional, call[2:]) if call.startswith("F.") else getattr(lib, call)
        return f(x, training=training)
    assert_same_error(run)


# ---------------------------------------------------------------- writes into an expanded tensor
def _expanded(lib, values, dtype):
    return lib.tensor(values[:1], dtype=getattr(lib, dtype)).expand(len(values))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "bool"])
@pytest.mark.parametrize("threshold", [2, 0.5])
def test_threshold_inplace_writes_into_an_expand(torch, dtype, threshold):
    """PyTorch's threshold kernel skips the overlap check (bool is refused by its dtype)."""
    assert_same_outcome(lambda lib: lib.nn.functional.threshold_(
        _expanded(lib, [1.6, 1, 2], dtype), threshold, 1.0))
    assert_same_outcome(lambda lib: lib.nn.functional.threshold(
        _expanded(lib, [1.6, 1, 2], dtype), threshold, 1.0, inplace=True))


@pytest.mark.parametrize("dtype", ["int32", "bool", "float32"])
def test_nan_to_num_inplace_of_an_expand(torch, dtype):
    """Integers and bools are copied onto themselves (allowed); floats are refused."""
    assert_same_outcome(lambda lib: _expanded(lib, [5, 1, 2], dtype).nan_to_num_(posinf=3))


EXPANDED_CALLS = [("neg_", "bool", ()), ("negative_", "bool", ()), ("relu_", "bool", ()),
                  ("clamp_", "float32", ()), ("cumsum_", "float32", (1,)),
                  ("cumprod_", "int64", (1,)), ("clip_", "int64", ()),
                  ("abs_", "bool", ()), ("floor_", "bool", ()), ("frac_", "int64", ()),
                  ("bitwise_and_", "float32", (1,)), ("sin_", "float32", ()),
                  ("normal_", "float32", ())]


@pytest.mark.parametrize("name, dtype, args", EXPANDED_CALLS, ids=[c[0] for c in EXPANDED_CALLS])
def test_inplace_into_an_expand_checks_arguments_first(torch, name, dtype, args):
    """An op's own argument checks come before the refusal to write into an expand; a
    kernel's dtype refusal comes after it."""
    assert_same_error(lambda lib: getattr(_expanded(lib, [1, 0, 1], dtype), name)(*args))


def test_hardtanh_inplace_of_an_expanded_bool(torch):
    assert_same_error(lambda lib: lib.nn.functional.hardtanh_(_expanded(lib, [1, 0], "bool")))


def test_refused_expand_draws_nothing(torch):
    def call(lib):
        lib.manual_seed(0)
        with pytest.raises(RuntimeError):
            _expanded(lib, [1.0, 2.0], "float32").uniform_()
        return lib.rand(2)
    assert_same(call(__import__("ember")), call(torch))


# ---------------------------------------------------------------- dims and k before the dtype
@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("shape, dim", [((), -2), ((2,), 99), ((0, 3), 4), ((2,), 0)])
def test_logcumsumexp_wraps_the_dim_before_the_dtype(torch, dtype, shape, dim):
    assert_same_outcome(lambda lib: lib.logcumsumexp(lib.zeros(shape, dtype=getattr(lib, dtype)),
                                                     dim).shape)


@pytest.mark.parametrize("dtype", ["bool", "int64", "float32"])
@pytest.mark.parametrize("shape, args", [((), (1, 1)), ((1,), (4,)), ((0,), (1,)),
                                         ((2, 3), (1, 5)), ((2, 0), (1, 1))])
def test_kthvalue_and_nanmedian_check_dim_and_k_before_the_dtype(torch, dtype, shape, args):
    def kth(lib):
        return lib.kthvalue(lib.zeros(shape, dtype=getattr(lib, dtype)), *args)[0].shape
    assert_same_outcome(kth)
    assert_same_outcome(lambda lib: lib.nanmedian(lib.zeros(shape, dtype=getattr(lib, dtype)),
                                                  args[-1])[0].shape)


@pytest.mark.parametrize("dtype, lowest", [("int8", -128), ("int16", -2**15), ("int32", -2**31),
                                           ("int64", -2**63)])
def test_gcd_with_the_dtype_minimum_follows_pytorch(torch, dtype, lowest):
    """abs() of the minimum wraps and % truncates in PyTorch's Euclid: gcd(-2**31, 5) = -1."""
    a = [lowest, lowest, 0, 5, -4, lowest, 6]
    b = [5, lowest, lowest, lowest, 6, -3, 4]
    for shape in ((7,), (7, 1)):
        assert_same_outcome(lambda lib: lib.gcd(lib.tensor(a, dtype=getattr(lib, dtype)),
                                                lib.tensor(b, dtype=getattr(lib, dtype))
                                                .reshape(shape)))
    assert_same_outcome(lambda lib: lib.tensor(a, dtype=getattr(lib, dtype)).gcd_(
        lib.tensor(b, dtype=getattr(lib, dtype))))


def test_leaf_rule_precedes_the_op_checks_on_an_expand(torch):
    """Autograd refuses the write before the op's own checks, also on an expanded view."""
    assert_same_error(lambda lib: lib.ones(1, requires_grad=True).expand(2).masked_scatter_(
        lib.tensor([True, True]), lib.tensor(1.0)))


def test_masked_scatter_refuses_an_expand_before_counting_the_source(torch):
    assert_same_error(lambda lib: lib.ones(1).expand(2).masked_scatter_(
        lib.tensor([True, True]), lib.tensor(1.0)))
