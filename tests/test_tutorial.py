"""A tensor tutorial written for PyTorch runs unchanged on ember and prints the same."""
import contextlib
import io
import pathlib
import re

import numpy as np
import pytest

import ember

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def run_tutorial(lib, name="tensor_tutorial.py"):
    script = SCRIPTS / name
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(script.read_text(), str(script), "exec"), {"torch": lib})
    return output.getvalue()


@pytest.mark.parametrize("name", ["tensor_tutorial.py", "builders_guide.py",
                                  "linear_regression_concise.py"])
def test_tutorial_prints_what_torch_prints(torch, name):
    import sys  # noqa: PLC0415 - the scripts do `from torch import nn`
    names = ("torch", "torch.nn", "torch.utils", "torch.utils.data")
    saved = {n: sys.modules.get(n) for n in names}
    sys.modules.update({"torch": ember, "torch.nn": ember.nn, "torch.utils": ember.utils,
                        "torch.utils.data": ember.utils.data})
    try:
        got = run_tutorial(ember, name)
    finally:
        sys.modules.update(saved)
    expected = run_tutorial(torch, name).replace("torch.", "ember.")
    assert_prints_alike(got, expected)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?inf|nan")
_FLOAT32_ROUNDING = 8 * 2.0 ** -24  # a few float32 ulps of a sum's scale


def _statements(text):
    """Lines grouped so that one printed tensor (balanced brackets) is one group."""
    groups, current, depth = [], [], 0
    for line in text.splitlines():
        current.append(line)
        depth += line.count("(") + line.count("[") - line.count(")") - line.count("]")
        if depth <= 0:
            groups.append("\n".join(current))
            current, depth = [], 0
    if current:
        groups.append("\n".join(current))
    return groups


def _last_digit(token):
    """One unit in the last printed digit of a number token."""
    mantissa, _, exponent = token.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def _integers(*tokens):
    return {t for t in tokens if not set(t.lower()) & set(".e")}


def assert_prints_alike(got, expected):
    """The same text, except that numbers may differ by float32 rounding of their tensor's
    scale: BLAS libraries (PyTorch's and NumPy's) sum matrix products in different orders,
    so a value that cancels to far below its neighbours can differ in the printed digits.
    Everything else -- words, shapes, dtypes, layout, grad_fn names -- must be identical."""
    got_groups, expected_groups = _statements(got), _statements(expected)
    assert len(got_groups) == len(expected_groups), (got, expected)
    for mine, theirs in zip(got_groups, expected_groups):
        if mine == theirs:
            continue
        assert _NUMBER.sub("#", mine) == _NUMBER.sub("#", theirs), (mine, theirs)
        numbers_mine, numbers_theirs = _NUMBER.findall(mine), _NUMBER.findall(theirs)
        scale = max(abs(float(t)) for t in numbers_theirs if np.isfinite(float(t)))
        for a, b in zip(numbers_mine, numbers_theirs):
            if a == b:
                continue
            assert not {a, b} & _integers(a, b), (a, b, mine, theirs)  # sizes, counts: exact
            allowed = _FLOAT32_ROUNDING * scale + _last_digit(a) / 2 + _last_digit(b) / 2
            assert abs(float(a) - float(b)) <= allowed, (a, b, mine, theirs)


def test_hand_written_linear_regression_converges():
    ember.manual_seed(0)
    features = ember.linspace(0, 1, 100).reshape(-1, 1)
    labels = 2 * features + 1 + 0.01 * ember.randn_like(features)
    w = ember.zeros((1, 1), requires_grad=True)
    b = ember.zeros(1, requires_grad=True)
    for _ in range(500):
        loss = ((features @ w + b - labels) ** 2).mean()
        loss.backward()
        with ember.no_grad():
            w -= 0.5 * w.grad
            b -= 0.5 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    assert abs(w.item() - 2) < 0.05 and abs(b.item() - 1) < 0.05
    assert loss.item() < 1e-3


def test_prints_alike_allows_only_rounding_of_a_sum():
    assert_prints_alike("tensor([0.1100, 3.0891e-04])", "tensor([0.1100, 3.0889e-04])")
    for changed in ("tensor([0.1100, 3.1891e-04])", "tensor([0.1100, 3.0891e-04], dtype=x)",
                    "tensor([0.1100, 3.0891e-04])\nextra",
                    "Linear(in_features=21) tensor([0.1100, 3.0889e-04])"):
        with pytest.raises(AssertionError):
            assert_prints_alike(changed, "tensor([0.1100, 3.0889e-04])")
    with pytest.raises(AssertionError):
        assert_prints_alike("Linear(in_features=21) tensor([256.0])",
                            "Linear(in_features=20) tensor([256.0])")
