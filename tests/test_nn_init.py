"""nn.init against torch.nn.init: gains, fans, errors, the exact values of every
initialiser after manual_seed, and the statistics the initialisers promise."""
import math
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.nn import init
from oracle import assert_same_error

NONLINEARITIES = [("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None),
                  ("conv_transpose1d", None), ("conv_transpose2d", None),
                  ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                  ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3),
                  ("leaky_relu", math.sqrt(5)), ("selu", None)]


@pytest.mark.parametrize("nonlinearity, param", NONLINEARITIES)
def test_calculate_gain_matches_torch(nonlinearity, param, torch):
    expected = torch.nn.init.calculate_gain(nonlinearity, param)
    got = init.calculate_gain(nonlinearity, param)
    assert got == expected and type(got) is type(expected)


ERRORS = {
    "gain unknown": lambda init, lib: init.calculate_gain("softmax"),
    "gain bool slope": lambda init, lib: init.calculate_gain("leaky_relu", True),
    "gain string slope": lambda init, lib: init.calculate_gain("leaky_relu", "0.1"),
    "fan 1-d": lambda init, lib: init._calculate_fan_in_and_fan_out(lib.empty(3)),
    "fan 0-d": lambda init, lib: init.xavier_uniform_(lib.empty(())),
    "kaiming mode": lambda init, lib: init.kaiming_uniform_(lib.empty(2, 3), mode="fan_avg"),
    "kaiming nonlinearity": lambda init, lib: init.kaiming_normal_(lib.empty(2, 3),
                                                                   nonlinearity="softmax"),
    "eye 3-d": lambda init, lib: init.eye_(lib.empty(2, 2, 2)),
    "dirac 2-d": lambda init, lib: init.dirac_(lib.empty(2, 2)),
    "dirac groups": lambda init, lib: init.dirac_(lib.empty(3, 2, 3), groups=2),
    "orthogonal 1-d": lambda init, lib: init.orthogonal_(lib.empty(4)),
    "sparse 3-d": lambda init, lib: init.sparse_(lib.empty(2, 2, 2), 0.5),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_match_torch(case, torch):
    assert_same_error(lambda lib: ERRORS[case](lib.nn.init, lib))


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (6, 3, 2, 2), (2, 1, 1, 1, 4), (0, 3)])
def test_fans_match_torch(shape, torch):
    expected = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == expected


# ---------------------------------------------------------------- same values as torch
INITS = [
    ("uniform_", (4, 5), {}), ("uniform_", (3, 3), {"a": -2.0, "b": 0.5}),
    ("normal_", (4, 5), {"mean": 1.0, "std": 0.1}),
    ("xavier_uniform_", (6, 4), {}), ("xavier_uniform_", (3, 2, 3, 3), {"gain": 2.0}),
    ("xavier_normal_", (6, 4), {"gain": 0.5}),
    ("kaiming_uniform_", (5, 3), {}), ("kaiming_uniform_", (5, 3), {"a": math.sqrt(5)}),
    ("kaiming_uniform_", (4, 2, 3), {"mode": "fan_out", "nonlinearity": "relu"}),
    ("kaiming_normal_", (5, 3), {"nonlinearity": "tanh"}),
    ("kaiming_normal_", (4, 2, 3), {"mode": "FAN_OUT", "a": 0.1}),
    ("trunc_normal_", (30,), {}), ("trunc_normal_", (30,), {"mean": 1.0, "std": 0.5}),
    ("trunc_normal_", (40,), {"a": 1.0, "b": 1.5}),   # little mass: the uniform sampler
    ("constant_", (2, 3), {"val": 0.25}), ("ones_", (2, 3), {}), ("zeros_", (2, 3), {}),
    ("eye_", (3, 5), {}), ("eye_", (4, 2), {}),
    ("dirac_", (4, 2, 3), {}), ("dirac_", (4, 2, 3, 3), {"groups": 2}),
    ("dirac_", (2, 3, 1, 2, 3), {}),
    ("orthogonal_", (4, 3), {}), ("orthogonal_", (3, 5), {"gain": 2.0}),
    ("orthogonal_", (2, 3, 2), {}),
    ("sparse_", (6, 3), {"sparsity": 0.5}),
]


@pytest.mark.parametrize("name, shape, kwargs", INITS,
                         ids=[f"{n}{s}{k}" for n, s, k in INITS])
def test_initialisers_give_torchs_values_after_manual_seed(name, shape, kwargs, torch):
    ember.manual_seed(5)
    torch.manual_seed(5)
    tensor = ember.empty(shape)
    expected = getattr(torch.nn.init, name)(torch.empty(shape), **kwargs)
    result = getattr(init, name)(tensor, **kwargs)
    assert result is tensor
    # QR factorisations differ in the last bits between LAPACK builds
    tolerance = 1e-6 if name == "orthogonal_" else 0
    np.testing.assert_allclose(tensor.numpy(), expected.numpy(), rtol=tolerance, atol=tolerance)
    # the random stream was consumed exactly as much as torch's
    np.testing.assert_array_equal(ember.rand(4).numpy(), torch.rand(4).numpy())


def test_initialisers_accept_a_generator(torch):
    generator, expected_generator = ember.Generator().manual_seed(9), torch.Generator()
    expected_generator.manual_seed(9)
    got = init.kaiming_uniform_(ember.empty(3, 4), generator=generator)
    expected = torch.nn.init.kaiming_uniform_(torch.empty(3, 4), generator=expected_generator)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


# ---------------------------------------------------------------- behaviour
def test_initialisers_do_not_record_history_on_parameters():
    layer = nn.Linear(4, 3)
    for fill in (init.xavier_uniform_, init.kaiming_normal_, init.orthogonal_, init.zeros_,
                 init.trunc_normal_, lambda t: init.constant_(t, 2.0), init.eye_):
        out = fill(layer.weight)
        assert out is layer.weight
        assert layer.weight.grad_fn is None and layer.weight.requires_grad
        assert layer.weight.is_leaf


def test_kaiming_and_xavier_statistics():
    ember.manual_seed(0)
    weight = ember.empty(400, 300)
    init.kaiming_normal_(weight, nonlinearity="relu")
    assert abs(weight.std().item() - math.sqrt(2 / 300)) < 0.002
    init.kaiming_uniform_(weight, mode="fan_out", nonlinearity="relu")
    bound = math.sqrt(3) * math.sqrt(2 / 400)
    assert weight.abs().max().item() <= bound and weight.abs().max().item() > 0.99 * bound
    init.xavier_normal_(weight)
    assert abs(weight.std().item() - math.sqrt(2 / 700)) < 0.002


def test_trunc_normal_stays_in_bounds():
    ember.manual_seed(0)
    for a, b in [(-2.0, 2.0), (-0.5, 0.1), (2.0, 2.5)]:
        values = init.trunc_normal_(ember.empty(5000), a=a, b=b).numpy()
        assert values.min() >= a and values.max() <= b


def test_trunc_normal_warns_when_mean_is_far_from_the_interval():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(ember.empty(10), mean=10.0, a=-1.0, b=1.0)


@pytest.mark.parametrize("shape, gain", [((5, 3), 1.0), ((3, 5), 1.0), ((4, 2, 3), 2.0)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, gain):
    matrix = init.orthogonal_(ember.empty(shape), gain=gain).numpy().reshape(shape[0], -1)
    small = matrix.T @ matrix if matrix.shape[0] >= matrix.shape[1] else matrix @ matrix.T
    np.testing.assert_allclose(small, gain ** 2 * np.eye(len(small)), atol=1e-5)


def test_sparse_zeroes_the_requested_fraction_of_each_column():
    weight = init.sparse_(ember.empty(10, 4), sparsity=0.3)
    assert ((weight.numpy() == 0).sum(axis=0) == 3).all()


def test_zero_element_kaiming_warns_and_is_a_no_op():
    tensor = ember.empty(0, 3)
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        assert init.kaiming_uniform_(tensor) is tensor
    assert init.orthogonal_(tensor) is tensor


def test_deprecated_aliases_warn_and_still_initialise():
    tensor = ember.empty(2, 3)
    with pytest.warns(FutureWarning, match="`nn.init.constant` is now deprecated in favor of "
                                           "`nn.init.constant_`"):
        init.constant(tensor, 3.0)
    assert tensor.tolist() == [[3.0] * 3] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.constant_(tensor, 1.0)
