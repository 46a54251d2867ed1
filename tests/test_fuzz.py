"""Differential fuzzer: every public name torch and ember share, called alike in both.

Each name gets its own derandomised hypothesis run; a drawn call is run in torch and in
ember and the outcomes compared by tests/fuzz/compare.py (its docstring lists what
counts as the same). Budget: EXAMPLES per name in CI (the whole file in well under two
minutes on two cores); `EMBER_FUZZ_EXAMPLES=500` raises it for a long local search, and
`EMBER_FUZZ_LOG=path` records every mismatch there (one JSON line each) instead of failing,
for grouping. A mismatch listed in KNOWN is skipped; every entry there has a regular
(strict xfail) test in tests/test_fuzz_regressions.py.
"""
import fnmatch
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings

pytest.importorskip("torch")

from fuzz import catalog, compare, draw, modules  # noqa: E402

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "8"))
LOG = os.environ.get("EMBER_FUZZ_LOG")

# Known mismatches: (fnmatch pattern over the entry id, mismatch kind, reason). The fuzzer
# skips a mismatch whose entry and kind match; the fix belongs to the helper named.
# Broad causes come first: whole groups other helpers are fixing in parallel.
KNOWN = [
    ("vmap", "result", "returns a new function, whose repr holds its address in both "
     "libraries (vmap's values and errors are compared in tests/test_func.py)"),
    ("*", "argument checking", "bad argument types/counts: PyTorch's argument-parser text "
     "(argcheck and scalars helpers)"),
    ("*", "dtype support", "which dtypes an op refuses, and with which message, before or "
     "after its shape checks (the op's owner)"),
    ("*", "huge sizes", "sizes near 2**40 exhaust NumPy (MemoryError) where torch refuses "
     "or never allocates"),
    # error precedence or text: both raise, with another type or message
    ("*pool*", "error precedence or text", "pooling checks run in another order"),
    ("nn.*Pool*", "error precedence or text", "pooling checks run in another order"),
    ("nn.*Pad*", "error precedence or text", "padding modules check rank in another order"),
    ("F.pad", "error precedence or text", "pad checks mode and length in another order"),
    ("*conv*", "error precedence or text", "convolution checks dtypes/shapes in another order"),
    ("nn.*Conv*", "error precedence or text", "convolution checks dtypes/shapes in another "
     "order"),
    ("F.*norm", "error precedence or text", "normalisation checks run in another order"),
    ("*mbedding", "error precedence or text", "embedding: 'weight must be 2-D' first; "
     "max_norm index message"),
    ("F.smooth_l1_loss", "error precedence or text", "loss checks in another order"),
    ("F.softshrink", "error precedence or text", "lambda range message names the dtype"),
    ("F.upsample", "error precedence or text", "interpolate checks in another order"),
    ("*baddbmm", "error precedence or text", "baddbmm checks rank before broadcasting"),
    ("*expand*", "error precedence or text", "torch prints CPUBoolType{[...]} in this message"),
    ("*broadcast_to", "error precedence or text", "torch prints CPUBoolType{[...]} here"),
    ("broadcast_shapes", "*", "a tensor argument: torch refuses with its own message"),
    ("*cummax", "error precedence or text", "0-dim dim message: 'Expected reduction dim'"),
    ("*cummin", "error precedence or text", "0-dim dim message: 'Expected reduction dim'"),
    ("*index_select", "error precedence or text", "index_select on 0-dim input"),
    ("*index_add*", "error precedence or text", "index_add checks in another order"),
    ("*scatter_add*", "*", "scatter_add: dim checked against index/src in another order"),
    ("*unflatten", "error precedence or text", "unflatten on 0-dim input"),
    ("slice_copy", "*", "a bool or float tensor as a bound trips PyTorch's internal assert "
     "(scalar.isIntegral); ember refuses it as a bound (pinned in test_fuzz_regressions)"),
    ("nn.Unflatten", "error precedence or text", "unflatten on 0-dim input"),
    ("Tensor.log_normal_", "error precedence or text", "'a view of a leaf Variable' text"),
    ("Tensor.masked_fill_", "error precedence or text", "'a view of a leaf Variable' text"),
    ("linspace", "*", "tensor start/end: torch's 0-dim check and message"),
    ("logspace", "*", "tensor start/end: torch's 0-dim check and message"),
    ("meshgrid", "*", "torch prints [ ember.DoubleTensor{...} ] in this message"),
    ("promote_types", "error precedence or text", "None dtype raises KeyError"),
    ("*std_mean", "*", "std_mean/var_mean name themselves; empty bfloat16; correction>n"),
    ("*var_mean", "*", "std_mean/var_mean name themselves; empty bfloat16; correction>n"),
    ("*neg*_", "error precedence or text", "bool negation checked before overlap"),
    # results
    ("*heaviside", "grad_fn", "heaviside records NotImplemented (ops12; as floor_divide)"),
    ("max_pool*d", "accepts what torch refuses", "a non-positive stride is not refused "
     "(pooling.py's checks; the torch.* door passes it through, ops12)"),
    ("Tensor.baddbmm_", "error precedence or text", "baddbmm_ checks rank, dtype and the "
     "in-place shape in another order for bool operands (ops12)"),
    ("*svd", "value", "singular vectors have a sign freedom (LAPACK paths differ), and inputs "
     "with inf/nan give different garbage; tests/test_linalg_decomp.py compares invariants"),
    ("result_type", "result", "NumPy scalars promote as Python numbers"),
    ("*fill_", "value", "fill_ with a negative int on a float tensor writes 2**64-7"),
    ("*bernoulli", "invariant", "0-dim result holds a NumPy scalar"),
    ("normal", "invariant", "0-dim result holds a NumPy scalar"),
    ("randint", "invariant", "0-dim result holds a NumPy scalar"),
    ("F.*loss*", "invariant", "reduced losses hold a NumPy scalar"),
    ("nn.*Loss", "invariant", "reduced losses hold a NumPy scalar"),
    ("F.normalize", "accepts what torch refuses", "0-dim input: dim -2 is not refused"),
    ("F.instance_norm", "accepts what torch refuses", "empty batch is not refused"),
    ("nn.AvgPool3d", "accepts what torch refuses", "ceil_mode: window larger than input"),
]

if os.environ.get("EMBER_FUZZ_KNOWN") == "none":  # see every mismatch (vmap's repr aside)
    KNOWN = KNOWN[:1]

FUZZ_SETTINGS = settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck), print_blob=False)

ENTRIES = catalog.entries()


def _known(entry, mismatch):
    for pattern, kind, _reason in KNOWN:
        if kind in ("*", mismatch.kind, mismatch.cause) and fnmatch.fnmatchcase(entry.id,
                                                                                 pattern):
            return True
    return False


def _check(entry, case, run):
    try:
        run(entry, case)
    except compare.Mismatch as mismatch:
        if _known(entry, mismatch):
            return
        if LOG:
            with open(LOG, "a") as log:
                log.write(json.dumps({"id": entry.id, "kind": mismatch.kind,
                                      "cause": mismatch.cause,
                                      "detail": mismatch.detail[:600],
                                      "case": repr(case)[:600]}) + "\n")
            return
        raise AssertionError(f"{entry.id}{case!r}\n{mismatch}") from None


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.kind != "module"], ids=lambda e: e.id)
def test_call(entry):
    @FUZZ_SETTINGS
    @given(case=draw.calls(entry))
    def fuzz(case):
        _check(entry, case, compare.run_case)
    fuzz()


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.kind == "module"], ids=lambda e: e.id)
def test_module(entry):
    @FUZZ_SETTINGS
    @given(case=modules.module_cases(entry))
    def fuzz(case):
        _check(entry, case, modules.run_module_case)
    fuzz()


def test_missing_names_are_counted():
    """Names torch has and ember lacks are reported (another issue adds them), not failed."""
    missing = catalog.missing_names()
    print({namespace: len(names) for namespace, names in missing.items()})
    assert all(isinstance(names, list) for names in missing.values())


def test_known_list_is_documented():
    for pattern, kind, reason in KNOWN:
        assert pattern and kind and len(reason) > 10
