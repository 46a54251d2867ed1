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

EXAMPLES = int(os.environ.get("EMBER_FUZZ_EXAMPLES", "12"))
LOG = os.environ.get("EMBER_FUZZ_LOG")

# Known mismatches: (fnmatch pattern over the entry id, mismatch kind, reason). The fuzzer
# skips a mismatch whose entry and kind match; the fix belongs to the helper named.
KNOWN = [
]

FUZZ_SETTINGS = settings(derandomize=True, max_examples=EXAMPLES, deadline=None, database=None,
                         suppress_health_check=list(HealthCheck), print_blob=False)

ENTRIES = catalog.entries()


def _known(entry, mismatch):
    for pattern, kind, _reason in KNOWN:
        if kind in (mismatch.kind, mismatch.cause) and fnmatch.fnmatchcase(entry.id, pattern):
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
