"""Errors that teach: each learner mistake raises PyTorch's exception with PyTorch's text,
and ember adds a PEP 678 note that names the cause with the actual values and the fix.

Each case runs under torch and ember (same type, same str(e): the note must not change
it), then checks that ember's notes carry the facts.
"""
import pytest

import ember
from ember import _diagnose
from oracle import assert_same_error


def _sequential_linear(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(10, 20), lib.nn.ReLU(), lib.nn.Linear(30, 5))
    return model(lib.ones(4, 10))


def _conv_model(lib):
    nn = lib.nn
    model = nn.Sequential()
    model.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
                                   nn.Conv2d(4, 8, 3))
    return model(lib.ones(2, 3, 12, 12))


def _freed(lib):
    x = lib.ones(3, requires_grad=True)
    y = (x.exp() * 2).sum()
    y.backward()
    y.backward()


def _inplace_saved(lib):
    x = lib.ones(3, requires_grad=True)
    b = (x * 1).sigmoid()
    b.mul_(2)
    b.sum().backward()


def _leaf_inplace(lib):
    w = lib.ones(3, requires_grad=True)
    w -= 0.1


def _setter(lib):
    t = lib.arange(3)
    t.requires_grad = True


def _embedding(lib):
    return lib.nn.Embedding(10, 4)(lib.tensor([[1, 2], [10, 12]]))


def _batchnorm(lib):
    model = lib.nn.Sequential(lib.nn.Linear(4, 10), lib.nn.BatchNorm1d(10))
    return model(lib.ones(1, 4))


def _dtype_linear(dtype):
    return lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 3, dtype=getattr(lib, dtype)))


# (id, call(lib), fragments every one of which must appear in ember's notes)
CASES = [
    ("broadcast", lambda lib: lib.ones(8, 1, 5) * lib.ones(7, 3),
     ["  a: [8, 1, 5]\n  b: [   7, 3]\n            ^", "Dim 2", "5 against 3", "unsqueeze"]),
    ("broadcast_add", lambda lib: lib.ones(4, 3) + lib.ones(4, 2),
     ["  a: [4, 3]\n  b: [4, 2]\n         ^", "3 against 2"]),
    ("mm_transposed", lambda lib: lib.ones(4, 3).mm(lib.ones(5, 3)),
     ["mat1: [4, 3]", "mat2: [5, 3]", "mat1 @ mat2.T would fit"]),
    ("matmul", lambda lib: lib.ones(4, 3) @ lib.ones(4, 5),
     ["inner dims", "3", "mat1.T @ mat2 would fit"]),
    ("bmm", lambda lib: lib.ones(2, 4, 3) @ lib.ones(2, 4, 5),
     ["batch1: [2, 4, 3]", "batch2: [2, 4, 5]", "batch1.mT @ batch2 would fit"]),
    ("bmm_batch", lambda lib: lib.bmm(lib.ones(2, 4, 3), lib.ones(3, 3, 5)),
     ["batch1 has 2 matrices, batch2 has 3", "batch1: [2, 4, 3]\n  batch2: [3, 3, 5]\n"
      "           ^\n"]),
    ("mv", lambda lib: lib.ones(4, 3) @ lib.ones(4), ["mat: [4, 3]", "mat.T @ vec would fit"]),
    ("dot", lambda lib: lib.ones(3) @ lib.ones(4), ["input (3)", "of other (4)"]),
    ("linear_functional", lambda lib: lib.nn.functional.linear(lib.ones(4, 20),
                                                               lib.ones(5, 30)),
     ["mat1: [ 4, 20]", "transposed weight [in_features, out_features]"]),
    ("linear_in_features", _sequential_linear,
     ["Raised in layer '2' (Linear(in_features=30, out_features=5, bias=True)) of Sequential",
      "in_features=30", "[4, 20]", "Linear(20, ...)"]),
    ("view_noncontiguous", lambda lib: lib.ones(3, 4).t().view(12),
     ["shape [4, 3] and strides [1, 4]", "not contiguous", ".reshape(12)",
      ".contiguous().view(12)"]),
    ("view_numel", lambda lib: lib.ones(3, 4).view(5, 2),
     ["12 elements", "[5, 2] holds 10"]),
    ("reshape_numel", lambda lib: lib.ones(3, 4).reshape(-1, 5),
     ["12 is not a multiple of 5"]),
    ("cat", lambda lib: lib.cat([lib.ones(2, 3), lib.ones(2, 4)], dim=0),
     ["tensor 1 differs at dim 1 (4 vs 3)", "tensor 0: [2, 3]\n  tensor 1: [2, 4]\n"
      "                ^"]),
    ("stack", lambda lib: lib.stack([lib.ones(2, 3), lib.ones(2, 3), lib.ones(3, 3)]),
     ["tensor 2 is [3, 3]", "tensor 2: [3, 3]\n             ^", "torch.cat"]),
    ("dtype_float64", _dtype_linear("float64"),
     ["input is float64", "float32", "x.float()", "dtype=torch.float32",
      "Raised in Linear(in_features=3"]),
    ("dtype_int64", _dtype_linear("int64"),
     ["input is int64", "x.float()", "nn.Embedding"]),
    ("mean_int", lambda lib: lib.arange(5).mean(), ["int64", "x.float().mean()",
                                                    "dtype=torch.float32"]),
    ("mean_bool", lambda lib: (lib.arange(5) > 2).mean(), ["bool input", "x.float().mean()"]),
    ("std_int", lambda lib: lib.arange(5).std(), ["std()", "int64", "x.float().std()"]),
    ("target_float", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4, 3), lib.tensor([0., 1., 2., 1.])), ["float32", "target.long()"]),
    ("target_int32", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4, 3), lib.tensor([0, 1, 2, 1], dtype=lib.int32)), ["int32", "target.long()"]),
    ("target_out_of_range", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4, 3), lib.tensor([0, 1, 3, 1])), ["[0, 2]", "3 classes", "holds 3",
                                                      "target - 1"]),
    ("nll_out_of_range", lambda lib: lib.nn.functional.nll_loss(
        lib.zeros(4, 3), lib.tensor([0, 1, -2, 1])), ["holds -2", "never negative"]),
    ("target_one_hot_shape", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4, 3), lib.eye(4)), ["[4, 4]", "one-hot", "argmax(dim=1)", "[4, 3]"]),
    ("target_one_hot_long", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4, 3), lib.eye(3, dtype=lib.long)[[0, 1, 2, 1]]),
     ["probabilities", "int64", "target.float()", "argmax(dim=1)"]),
    ("input_1d", lambda lib: lib.nn.functional.cross_entropy(
        lib.zeros(4), lib.tensor([0, 1, 2, 1])), ["1-D [4]", "(N, C)", "unsqueeze(0)"]),
    ("backward_twice", _freed, ["MulBackward0", "retain_graph=True", "recompute"]),
    ("backward_non_scalar", lambda lib: (lib.ones(3, requires_grad=True) * 2).backward(),
     ["shape [3]", "out.sum().backward()", "gradient=torch.ones_like(out)"]),
    ("inplace_saved", _inplace_saved,
     ["SigmoidBackward0", "version 0", "now version 1", "set_detect_anomaly(True)",
      ".clone()"]),
    ("leaf_inplace", _leaf_inplace, ["shape [3]", "leaf", "torch.no_grad()"]),
    ("requires_grad_int", lambda lib: lib.arange(3).requires_grad_(),
     ["int64", "float"]),
    ("requires_grad_factory", lambda lib: lib.tensor([1, 2], requires_grad=True),
     ["int64", "torch.tensor([1., 2.])"]),
    ("requires_grad_setter", _setter, ["int64"]),
    ("numpy_requires_grad", lambda lib: lib.ones(3, requires_grad=True).numpy(),
     ["x.detach().numpy()"]),
    ("item_many", lambda lib: lib.ones(2, 3).item(),
     ["shape [2, 3], 6 elements", "x.sum().item()", "x.tolist()"]),
    ("index_dim0", lambda lib: lib.ones(3, 4)[3], ["Dim 0 has size 3", "0..2", "-3..-1"]),
    ("index_dim1", lambda lib: lib.ones(3, 4)[:, 4], ["Dim 1 has size 4", "0..3"]),
    ("index_tensor", lambda lib: lib.ones(3, 4)[lib.tensor([0, 5])], ["5 is outside"]),
    ("embedding", _embedding,
     ["num_embeddings=10", "largest index in the input is 12", "at least 13",
      "Raised in Embedding(10, 4)"]),
    ("conv_channels", _conv_model,
     ["Raised in layer 'features.3' (Conv2d(4, 8", "expects in_channels=4",
      "the input [2, 8, 5, 5] has 8 at dim 1", "expects C = 4"]),
    ("conv_dims", lambda lib: lib.nn.Conv2d(1, 8, 3)(lib.ones(28, 28)),
     ["[28, 28] has 2", "x.unsqueeze(0).unsqueeze(0)", "Raised in Conv2d(1, 8"]),
    ("batchnorm_batch_1", _batchnorm,
     ["Raised in layer '1' (BatchNorm1d(10", "[1, 10]", "model.eval()", "drop_last=True"]),
]


@pytest.mark.parametrize("call, fragments", [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_note_explains_without_changing_the_message(torch, call, fragments):
    error = assert_same_error(call)
    notes = "\n".join(getattr(error, "__notes__", ()))
    missing = [fragment for fragment in fragments if fragment not in notes]
    assert not missing, f"{missing} not in notes:\n{notes}"


def test_anomaly_mode_names_the_line_of_the_inplace_change(torch):
    def call(lib):
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            _inplace_saved(lib)

    with pytest.warns(UserWarning):
        error = assert_same_error(call)
    notes = "\n".join(error.__notes__)
    assert "Changed by:\n  mul_ (MulBackward0) at " in notes and "test_diagnose.py" in notes
    assert "b.mul_(2)" in notes


def test_nested_layer_paths_and_custom_modules(torch):
    """The note names the innermost layer by its path from the outermost module called."""
    def call(lib):
        class Block(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = lib.nn.Parameter(lib.ones(5))

            def forward(self, x):
                return x * self.scale

        model = lib.nn.Sequential()
        model.encoder = lib.nn.Sequential()
        model.encoder.block = Block()
        return model(lib.ones(2, 3))

    error = assert_same_error(call)
    notes = error.__notes__
    assert notes[0].startswith("Broadcasting aligns the shapes from the right")
    assert notes[1].startswith("Raised in layer 'encoder.block' (Block()) of Sequential.")
    assert len(notes) == 2


def test_a_note_is_added_once_per_error_and_successful_calls_add_nothing():
    model = ember.nn.Sequential(ember.nn.Linear(3, 3))
    out = model(ember.ones(2, 3))
    assert out.shape == (2, 3)
    with pytest.raises(RuntimeError) as info:
        model(ember.ones(2, 4))
    assert len(info.value.__notes__) == 2


def test_device_note_names_both_devices():
    error = _diagnose.noted(RuntimeError("x"), "device", first="cpu", second="meta",
                            names=("the input", "the layer's weight"))
    note = error.__notes__[0]
    assert "the input is on cpu" in note and "the layer's weight is on meta" in note
    assert "meta tensor has a shape" in note and "model.to_empty(device='cpu')" in note
    assert str(error) == "x"
    other = _diagnose.noted(RuntimeError("y"), "device", first="cpu", second="cuda:0")
    assert ".to('cpu')" in other.__notes__[0] and "model.to(device)" in other.__notes__[0]


def test_a_note_that_cannot_be_built_is_left_out():
    error = RuntimeError("unchanged")
    assert _diagnose.noted(error, "broadcast", a=None, b=(2,)) is error
    assert not hasattr(error, "__notes__") and str(error) == "unchanged"


def test_aligned_picture():
    assert _diagnose.aligned([("a", (8, 1, 5)), ("b", (7, 3))], marked=0) == (
        "  a: [8, 1, 5]\n  b: [   7, 3]\n            ^")
    assert _diagnose.aligned([("x", (10, 2)), ("yy", (3,))], marked=1) == (
        "   x: [10,  2]\n  yy: [     3]\n        ^")


def test_meta_model_fed_a_cpu_tensor_as_documented():
    """The example of docs/when_things_go_wrong.md, note for note."""
    with ember.device("meta"):
        model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(),
                                    ember.nn.Linear(8, 2))
    with pytest.raises(RuntimeError) as info:
        model(ember.ones(3, 4))
    assert str(info.value) == "Tensor on device meta is not on the expected device cpu!"
    notes = info.value.__notes__
    assert len(notes) == 2
    assert "the first tensor is on cpu, the second tensor is on meta" in notes[0]
    assert "model.to_empty(device='cpu')" in notes[0]
    assert notes[1].startswith("Raised in layer '0' (Linear(in_features=4, out_features=8")
    assert "The input is on cpu; 0.weight on meta, 0.bias on meta." in notes[1]


_CONV_DTYPES = ("float32", "float64", "int64", "float16", "bfloat16")


@pytest.mark.parametrize("layer", ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d",
                                   "ConvTranspose2d", "ConvTranspose3d"])
def test_conv_input_and_weight_dtypes_as_torch(torch, layer):
    """Every pairing of input and layer dtype: PyTorch's message (oneDNN's, the slow
    kernels', the transposed ones') or its result dtype."""
    dims = int(layer[-2])
    for bias in (False, True):
        for weight_dtype in _CONV_DTYPES[:2] + _CONV_DTYPES[3:]:
            for input_dtype in _CONV_DTYPES:
                def run(lib):
                    model = getattr(lib.nn, layer)(2, 3, 3, bias=bias)
                    model = model.to(getattr(lib, weight_dtype))
                    return model(lib.ones((1, 2) + (5,) * dims, dtype=getattr(lib, input_dtype)))
                try:
                    expected = run(torch)
                except Exception:  # noqa: BLE001 - the oracle's refusal is the expectation
                    assert_same_error(run)
                else:
                    assert str(run(ember).dtype) == str(expected.dtype).replace("torch", "ember")


@pytest.mark.parametrize("dims", [1, 2, 3])
@pytest.mark.parametrize("bias_dtype", ["float64", "float16", "bfloat16", "int64"])
def test_transposed_conv_bias_of_another_dtype(torch, dims, bias_dtype):
    """The 1-d and 2-d transposed kernels add any bias cast to the output's dtype (its
    gradient in the bias's own); the 3-d one refuses it."""
    def run(lib):
        x = lib.ones((1, 2) + (3,) * dims, requires_grad=True)
        w = lib.ones((2, 1) + (2,) * dims)
        b = lib.full((1,), 0.5, dtype=getattr(lib, bias_dtype),
                     requires_grad=bias_dtype != "int64")
        y = getattr(lib.nn.functional, f"conv_transpose{dims}d")(x, w, b)
        y.sum().backward()
        return y, b.grad
    if dims == 3:
        assert_same_error(run)
        return
    (y, grad), (y_torch, grad_torch) = run(ember), run(torch)
    assert y.tolist() == y_torch.tolist() and str(y.dtype)[6:] == str(y_torch.dtype)[6:]
    assert (grad is None) == (grad_torch is None)
    if grad is not None:
        assert grad.tolist() == grad_torch.float().tolist()
        assert str(grad.dtype)[6:] == str(grad_torch.dtype)[6:]


def test_explain_recognises_a_detached_tensor_without_the_loss():
    from ember.autograd.explain import explain  # noqa: PLC0415 - the learner's tool under test
    w = ember.ones(3, requires_grad=True)
    hidden = w * 2
    text = explain(hidden.detach())
    assert "made by .detach()" in text and "computed by MulBackward0" in text
    assert "data_ptr()" in text and ".requires_grad_()" in text
    assert "a leaf that requires grad" in explain(w.detach())
    assert "a leaf that requires grad" in explain(w.data)
    orphan = (w * 3).detach()  # the tensor it came from is gone: the text can only guess
    assert "It was made by .detach()" not in explain(orphan)
    assert "or it was made by .detach()" in explain(orphan)
    assert "It was made by .detach()" not in explain(ember.ones(3))
