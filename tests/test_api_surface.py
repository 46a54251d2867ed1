"""Surface names the table-driven tests/test_surface_*.py reach only through f-strings
(which the coverage scan cannot read), compared with torch by name: the legacy tensor
types, their metaclass, and the process-wide thread and autocast settings, which the
fuzzer leaves alone (tests/fuzz/catalog.py EXCLUDED) because a call changes them for
every later test. Each test that sets a setting restores it."""
import pytest

import ember
from test_surface_oracle import assert_same_outcome


def _legacy_types(lib):
    return [lib.HalfTensor, lib.BFloat16Tensor, lib.ByteTensor, lib.CharTensor,
            lib.ShortTensor, lib.BoolTensor]


def test_legacy_types_match_torch(torch):
    for index in range(6):
        assert_same_outcome(torch, lambda lib: _legacy_types(lib)[index]([1, 0, 2]))
        assert_same_outcome(torch, lambda lib: _legacy_types(lib)[index].dtype)
        assert_same_outcome(torch, lambda lib: isinstance(lib.zeros(1, dtype=_legacy_types(
            lib)[index].dtype), _legacy_types(lib)[index]))
        assert_same_outcome(torch, lambda lib: isinstance(lib.zeros(1), _legacy_types(lib)[
            index]))


def test_legacy_types_are_tensortype_instances_like_torch(torch):
    for lib in (ember, torch):
        assert all(type(kind).__name__ == "tensortype" for kind in _legacy_types(lib))
    assert all(type(kind) is ember.tensortype for kind in _legacy_types(ember))
    assert repr(type(torch.FloatTensor)) == "<class 'torch.tensortype'>"
    assert ember.tensortype.__name__ == type(torch.FloatTensor).__name__


@pytest.fixture
def restored_settings(torch):
    """Put back the settings these tests change, in both libraries."""
    saved = [(lib, lib.is_autocast_cache_enabled(), lib.get_autocast_dtype("cpu"),
              lib.is_autocast_enabled("cpu")) for lib in (ember, torch)]
    yield torch
    for lib, cache, dtype, enabled in saved:
        lib.set_autocast_cache_enabled(cache)
        lib.set_autocast_dtype("cpu", dtype)
        lib.set_autocast_enabled("cpu", enabled)


AUTOCAST_CALLS = [
    "set_autocast_cache_enabled(False)", "set_autocast_cache_enabled(True)",
    "set_autocast_cache_enabled(0)", "set_autocast_cache_enabled(None)",
    "set_autocast_cache_enabled(lib.tensor(True))",
    "set_autocast_dtype('cpu', lib.float16)", "set_autocast_dtype('cpu', lib.bfloat16)",
    "set_autocast_enabled('cpu', True)", "set_autocast_enabled('cpu', False)",
]


@pytest.mark.parametrize("call", AUTOCAST_CALLS)
def test_autocast_settings_match_torch(restored_settings, call):
    torch = restored_settings

    def run(lib):
        result = eval(f"lib.{call}")
        return (result, lib.is_autocast_cache_enabled(), lib.get_autocast_dtype("cpu"),
                lib.is_autocast_enabled("cpu"))
    assert_same_outcome(torch, run)


def test_autocast_setting_names_round_trip_like_torch(restored_settings):
    torch = restored_settings

    def run(lib):
        lib.set_autocast_cache_enabled(False)
        lib.set_autocast_dtype("cpu", lib.float16)
        lib.set_autocast_enabled("cpu", True)
        return (lib.is_autocast_cache_enabled(), lib.get_autocast_dtype("cpu"),
                lib.is_autocast_enabled("cpu"))
    assert_same_outcome(torch, run)


THREAD_CALLS = [
    "set_num_threads(lib.tensor(5))", "set_num_threads(lib.tensor(False))",
    "set_num_interop_threads(lib.tensor(5))", "set_num_interop_threads(0)",
    "set_num_interop_threads(-3)", "set_num_interop_threads(2.0)",
    "set_num_interop_threads('a')", "set_deterministic_debug_mode(lib.tensor(True))",
    "set_deterministic_debug_mode([1])",
]


@pytest.mark.parametrize("call", THREAD_CALLS)
def test_refused_thread_and_debug_settings_match_torch(torch, call):
    """Only refused calls: a successful one would change the process for later tests."""
    assert_same_outcome(torch, lambda lib: eval(f"lib.{call}"))


def test_interop_thread_count_is_an_int_like_torch(torch):
    counts = [lib.get_num_interop_threads() for lib in (ember, torch)]
    assert all(type(count) is int and count >= 1 for count in counts)
    assert ember.set_num_interop_threads is not None
