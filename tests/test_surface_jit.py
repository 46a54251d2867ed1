"""ember.jit, ember.compile, ember.onnx, ember.nn.parallel and ember.distributed: what a
CPU script touches, compared with PyTorch's CPU build."""
import pytest

import ember
from oracle import assert_same
from test_surface_oracle import outcome


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def _double(x):
    return x * 2 + 1


@pytest.mark.parametrize("how", ["script", "trace"])
def test_scripted_and_traced_modules_run_eagerly_with_identical_outputs(torch, how):
    results = {}
    for lib in (torch, ember):
        model = _model(lib)
        x = lib.linspace(-1, 1, 6).reshape(2, 3)
        wrapped = lib.jit.script(model) if how == "script" else lib.jit.trace(model, x)
        out = wrapped(x)
        out.sum().backward()
        results[lib] = (out, [p.grad for p in wrapped.parameters()],
                        list(wrapped.state_dict()),
                        next(wrapped.parameters()) is next(model.parameters()))
    assert_same(results[ember][:2], results[torch][:2])
    assert results[ember][2:] == results[torch][2:]


def test_scripted_and_traced_functions_give_the_eager_values(torch):
    for lib in (torch, ember):
        x = lib.tensor([1.0, -2.0])
        assert lib.jit.script(_double)(x).tolist() == [3.0, -3.0]
        assert lib.jit.trace(_double, x)(x).tolist() == [3.0, -3.0]
        assert lib.jit.trace(_double, (x,))(x).tolist() == [3.0, -3.0]


def _warnings_once(result):
    value, caught = result
    # torch.compile imports dynamo, whose own script_method warnings are not the call's
    return value if value.startswith("!!") else "ok", sorted(set(
        w for w in caught if "script_method" not in w))


JIT_CALLS = [
    lambda lib: lib.jit.trace(_double, 3),
    lambda lib: lib.jit.ignore(_double) is _double,
    lambda lib: lib.jit.unused(_double) is _double,
    lambda lib: lib.jit.export(_double) is _double,
    lambda lib: lib.jit.annotate(int, 3),
    lambda lib: lib.jit.isinstance(3, int),
    lambda lib: lib.jit.is_scripting(),
    lambda lib: lib.jit.is_tracing(),
    lambda lib: lib.jit.Final,
    lambda lib: lib.jit.load("/nonexistent/model.pt"),
    lambda lib: lib.jit.script(lib.nn.Linear(1, 1)).weight.shape,
    lambda lib: lib.compile(_double, mode="foo"),
    lambda lib: lib.compile(_double, mode="max-autotune", options={}),
    lambda lib: lib.compile(3),
    lambda lib: lib.onnx.is_in_onnx_export(),
    lambda lib: lib.onnx.OnnxExporterError.__mro__[1:],
    lambda lib: lib.distributed.is_initialized(),
    lambda lib: lib.distributed.get_rank(),
    lambda lib: lib.distributed.get_world_size(),
    lambda lib: lib.distributed.all_reduce(lib.ones(1)),
    lambda lib: lib.nn.parallel.DistributedDataParallel(lib.nn.Linear(1, 1)),
    lambda lib: lib.nn.parallel.DataParallel(lib.nn.Linear(1, 1)),
    lambda lib: lib.nn.parallel.DataParallel(lib.nn.Linear(1, 1), device_ids=[0]).device_ids,
    lambda lib: lib.nn.parallel.data_parallel(lib.nn.Linear(1, 1), lib.ones(1, 1)),
]


@pytest.mark.parametrize("case", range(len(JIT_CALLS)))
def test_jit_onnx_parallel_calls_match_torch(torch, case):
    call = JIT_CALLS[case]
    assert _warnings_once(outcome(ember, call)) == _warnings_once(outcome(torch, call))


def test_compile_returns_the_model_itself():
    """Running torch's compiled model would cost an inductor build; ember's is the model."""
    model = _model(ember)
    assert ember.compile(model) is model
    assert ember.compile(mode="reduce-overhead")(_double) is _double


def test_onnx_export_raises_the_exporter_error_with_a_way_out(tmp_path):
    with pytest.raises(ember.onnx.OnnxExporterError, match="cannot export ONNX"):
        ember.onnx.export(ember.nn.Linear(1, 1), (ember.ones(1, 1),), str(tmp_path / "m.onnx"))
    assert isinstance(ember.onnx.OnnxExporterError(), RuntimeError)


def test_data_parallel_runs_the_module_and_prefixes_its_state(torch):
    results = {}
    for lib in (torch, ember):
        wrapped = lib.nn.parallel.DataParallel(_model(lib))
        results[lib] = (wrapped(lib.ones(2, 3)), list(wrapped.state_dict()), repr(wrapped),
                        type(wrapped.module).__name__)
    assert_same(results[ember][0], results[torch][0])
    assert results[ember][1:] == results[torch][1:]
    assert ember.nn.DataParallel is ember.nn.parallel.DataParallel


def test_distributed_is_available_only_with_mpi4py():
    import importlib.util  # noqa: PLC0415
    assert ember.distributed.is_available() == (importlib.util.find_spec("mpi4py") is not None)
