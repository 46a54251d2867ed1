"""ember.backends flags and the global settings (threads, determinism, matmul precision,
default device) read and fail as PyTorch's CPU build's do."""
import pytest

import ember
from test_surface_oracle import assert_same_outcome

BACKEND_READS = [
    "cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
    "cuda.matmul.allow_bf16_reduced_precision_reduction", "cuda.matmul.allow_fp16_accumulation",
    "cuda.matmul.foo", "cuda.is_built()", "cuda.flash_sdp_enabled()", "cuda.math_sdp_enabled()",
    "cudnn.enabled", "cudnn.benchmark", "cudnn.deterministic", "cudnn.allow_tf32",
    "cudnn.is_available()", "cudnn.version()", "cudnn.benchmark_limit", "mps.is_available()",
    "mps.is_built()", "cpu.get_cpu_capability()", "opt_einsum.is_available()",
    "opt_einsum.enabled", "opt_einsum.strategy", "opt_einsum.get_opt_einsum()",
]


@pytest.mark.parametrize("read", BACKEND_READS)
def test_backend_flag_reads_as_in_the_cpu_build(torch, read):
    assert_same_outcome(torch, lambda lib: eval(f"lib.backends.{read}"))


BACKEND_WRITES = [
    ("cuda.matmul", "allow_tf32", 1), ("cuda.matmul", "foo", True),
    ("cuda.matmul", "allow_fp16_reduced_precision_reduction", 1),
    ("cuda.matmul", "allow_fp16_reduced_precision_reduction", ()),
    ("cuda.matmul", "allow_fp16_reduced_precision_reduction", (True, 1)),
    ("cuda.matmul", "allow_fp16_reduced_precision_reduction", (True, True, True)),
    ("cuda.matmul", "allow_bf16_reduced_precision_reduction", [True, False]),
    ("cudnn", "benchmark", 1), ("cudnn", "deterministic", None), ("cudnn", "enabled", "x"),
]


@pytest.mark.parametrize("owner,name,value", BACKEND_WRITES)
def test_bad_backend_flag_writes_fail_as_in_the_cpu_build(torch, owner, name, value):
    assert_same_outcome(torch, lambda lib: setattr(eval(f"lib.backends.{owner}"), name, value))


def test_flags_round_trip_and_tf32_follows_matmul_precision(torch):
    def run(lib):
        seen = []
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
        seen += [lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic,
                 lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction]
        lib.backends.cudnn.benchmark = False
        lib.backends.cudnn.deterministic = False
        lib.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
        lib.set_float32_matmul_precision("high")
        seen += [lib.backends.cuda.matmul.allow_tf32, lib.get_float32_matmul_precision()]
        lib.set_float32_matmul_precision("highest")
        seen += [lib.backends.cuda.matmul.allow_tf32, lib.get_float32_matmul_precision()]
        return seen
    assert run(ember) == run(torch)


SETTINGS_CALLS = [
    "set_num_threads(0)", "set_num_threads(-1)", "set_num_threads(1.5)", "set_num_threads('a')",
    "set_num_threads(True)", "set_num_threads(None)", "set_num_threads(2**70)", "set_num_threads(2**40)",
    "set_num_interop_threads(0)", "set_num_interop_threads(1.0)",
    "are_deterministic_algorithms_enabled()", "is_deterministic_algorithms_warn_only_enabled()",
    "use_deterministic_algorithms(1)", "use_deterministic_algorithms(True, warn_only=1)",
    "get_deterministic_debug_mode()", "set_deterministic_debug_mode('foo')",
    "set_deterministic_debug_mode(5)", "set_deterministic_debug_mode(1.0)",
    "get_float32_matmul_precision()", "set_float32_matmul_precision('foo')",
    "set_float32_matmul_precision(1)", "get_default_device()", "set_default_device('foo')",
]


@pytest.mark.parametrize("call", SETTINGS_CALLS)
def test_setting_call_matches_the_cpu_build(torch, call):
    assert_same_outcome(torch, lambda lib: eval(f"lib.{call}"))


def test_deterministic_modes_round_trip(torch):
    def run(lib):
        seen = []
        for action in (lambda: lib.use_deterministic_algorithms(True),
                       lambda: lib.use_deterministic_algorithms(True, warn_only=True),
                       lambda: lib.set_deterministic_debug_mode("error"),
                       lambda: lib.set_deterministic_debug_mode(1),
                       lambda: lib.set_deterministic_debug_mode("default"),
                       lambda: lib.use_deterministic_algorithms(False)):
            action()
            seen.append((lib.are_deterministic_algorithms_enabled(),
                         lib.is_deterministic_algorithms_warn_only_enabled(),
                         lib.get_deterministic_debug_mode()))
        return seen
    assert run(ember) == run(torch)


def test_num_threads_reaches_blas():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        assert ember.get_num_threads() == 1
        blas = [p["num_threads"] for p in threadpoolctl.threadpool_info()
                if p["user_api"] == "blas"]
        assert blas and set(blas) == {1}
    finally:
        ember.set_num_threads(before)
    assert ember.get_num_threads() == before


def test_default_device_cpu_and_cuda_as_the_cpu_build(torch):
    def run(lib):
        seen = []
        for device in ("cpu", None, "cuda"):
            lib.set_default_device(device)
            try:
                seen.append(str(lib.get_default_device()))
            except AssertionError as error:
                seen.append(str(error))
        lib.set_default_device(None)
        return seen
    assert run(ember) == [s.replace("torch", "ember") for s in run(torch)]
