"""The surface tests' oracle: run one expression under torch and ember, compare what happens.

What happens is the result's repr (or the exception's type and text) and the
warnings raised, with torch's `torch.` spelled `ember.` and object addresses
dropped, so that a test is a table of expressions.
"""
import re
import warnings

import ember

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")
_INTERNAL = re.compile(r" \(Triggered internally at [^)]*\.\)$")


def _normal(text):
    return _INTERNAL.sub("", _ADDRESS.sub("", str(text))).replace("torch.", "ember.").replace("'torch'", "'ember'")


def outcome(lib, expression):
    """(result or exception, warnings) of `expression(lib)`, as comparable text."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # ember silences NumPy's floating-point warnings inside its own modules (see _backend)
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.")
        try:
            result = "-> " + _normal(repr(expression(lib)))
        except Exception as error:  # noqa: BLE001 - the exception is the outcome
            result = f"!! {type(error).__name__}: {_normal(error)}"
    return result, [f"{w.category.__name__}: {_normal(w.message)}" for w in caught]


def assert_same_outcome(torch, expression):
    expected = outcome(torch, expression)
    assert outcome(ember, expression) == expected


def test_outcome_tells_results_errors_and_warnings_apart(torch):
    def warn(lib):
        warnings.warn("torch.x", FutureWarning)
        return 1
    assert outcome(torch, warn) == ("-> 1", ["FutureWarning: ember.x"])
    assert outcome(torch, lambda lib: 1 / 0) == ("!! ZeroDivisionError: division by zero", [])
    assert outcome(torch, lambda lib: lib.cuda.is_available()) != outcome(torch, lambda lib: 0)
