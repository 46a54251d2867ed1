"""The meta device against PyTorch: shapes and dtypes without data, its reprs and
refusals, models built on meta and brought to life with to_empty, and the
device-mismatch errors (with their notes) when meta meets cpu."""
import copy
import io
import resource
import warnings
import zipfile

import pytest

import ember
from ember import nn

from oracle import assert_same_error


def _both(torch, fn):
    """fn(lib) under ember and under torch; the results' reprs with ember/torch unified."""
    return fn(ember), fn(torch)


def _same_meta(a, b):
    assert a.device.type == "meta" == b.device.type
    assert tuple(a.shape) == tuple(b.shape)
    assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
    assert a.requires_grad == b.requires_grad
    assert repr(a).replace("ember.", "torch.") == repr(b)


FACTORIES = [
    lambda L: L.empty(2, 3, device="meta"),
    lambda L: L.zeros(2, 3, device="meta", dtype=L.int64),
    lambda L: L.ones((), device="meta"),
    lambda L: L.zeros(0, device="meta"),
    lambda L: L.randn(4, 5, device="meta", requires_grad=True),
    lambda L: L.rand(3, device="meta", dtype=L.float64),
    lambda L: L.full((2,), 7, device="meta"),
    lambda L: L.arange(5, device="meta"),
    lambda L: L.randint(0, 4, (3,), device="meta"),
    lambda L: L.tensor([1.0, 2.0], device="meta"),
    lambda L: L.ones(3).to("meta"),
    lambda L: L.empty_like(L.ones(2, dtype=L.float16), device="meta"),
    lambda L: L.ones(2, device=L.device("meta")).new_zeros(3),
]


@pytest.mark.parametrize("make", FACTORIES)
def test_factories_and_reprs(torch, make):
    ours, theirs = _both(torch, make)
    _same_meta(ours, theirs)
    assert ours.is_meta and not ours.is_cpu and ours.get_device() == theirs.get_device()
    assert ours.stride() == theirs.stride() and ours.data_ptr() == 0


def test_default_device_and_context(torch):
    with ember.device("meta"):
        ours = ember.ones(2), nn.Linear(2, 3).weight
    with torch.device("meta"):
        theirs = torch.ones(2), torch.nn.Linear(2, 3).weight
    for a, b in zip(ours, theirs):
        _same_meta(a, b)
    assert repr(ours[1]).replace("ember.", "torch.") == repr(theirs[1])
    assert ember.ones(1).device.type == "cpu"
    ember.set_default_device("meta")
    try:
        assert ember.zeros(1).is_meta and ember.get_default_device() == ember.device("meta")
    finally:
        ember.set_default_device(None)
    assert ember.zeros(1).is_cpu


@pytest.mark.parametrize("fn", [
    lambda L, x: x.item(), lambda L, x: x[0].item(), lambda L, x: x.tolist(),
    lambda L, x: x.numpy(), lambda L, x: float(x[0]), lambda L, x: bool(x[0]),
    lambda L, x: int(x[0]), lambda L, x: x.cpu(), lambda L, x: L.ones(2, 3).copy_(x),
    lambda L, x: L.nonzero(x), lambda L, x: x[x > 0],
])
def test_reading_values_raises_as_torch(torch, fn):
    assert_same_error(lambda L: fn(L, L.ones(2, 3, device="meta")))


OPS = [
    lambda L, x, y: x + y * 2,
    lambda L, x, y: (x @ y.T).exp(),
    lambda L, x, y: L.cat([x, y], 1),
    lambda L, x, y: L.stack([x, y]).sum(0, keepdim=True),
    lambda L, x, y: x.mean(-1),
    lambda L, x, y: x.argmax(1),
    lambda L, x, y: L.where(x > y, x, y),
    lambda L, x, y: x.T.contiguous().view(-1),
    lambda L, x, y: L.nn.functional.softmax(x, 1),
    lambda L, x, y: L.nn.functional.linear(x, y),
    lambda L, x, y: L.einsum("ij,kj->ik", x, y),
    lambda L, x, y: x.to(L.int32) // 2,
    lambda L, x, y: x[:, 1:][[0, 1]],
]


@pytest.mark.parametrize("op", OPS)
def test_ops_give_meta_results(torch, op):
    ours, theirs = _both(torch, lambda L: op(L, L.ones(2, 3, device="meta"),
                                           L.ones(2, 3, device="meta")))
    _same_meta(ours, theirs)


def test_autograd_on_meta(torch):
    def run(L):
        x = L.ones(4, 3, device="meta", requires_grad=True)
        layer = L.nn.Linear(3, 2, device="meta")
        loss = L.nn.functional.cross_entropy(layer(x), L.zeros(4, dtype=L.long, device="meta"))
        loss.backward()
        return loss, x.grad, layer.weight.grad
    for a, b in zip(*_both(torch, run)):
        _same_meta(a, b)
    assert run(ember)[0].grad_fn.name() == run(torch)[0].grad_fn.name()


@pytest.mark.parametrize("layer", [
    lambda L: L.nn.Conv2d(1, 2, 3, device="meta"), lambda L: L.nn.BatchNorm2d(2, device="meta"),
    lambda L: L.nn.Embedding(5, 3, device="meta"), lambda L: L.nn.LSTM(3, 4, device="meta"),
    lambda L: L.nn.MultiheadAttention(4, 2, device="meta"),
    lambda L: L.nn.LayerNorm(3, device="meta"), lambda L: L.nn.Linear(2, 2).to("meta"),
])
def test_module_device_kwarg(torch, layer):
    ours, theirs = _both(torch, layer)
    for (name, a), (_, b) in zip(ours.state_dict(keep_vars=True).items(),
                                 theirs.state_dict(keep_vars=True).items()):
        _same_meta(a, b)


def test_to_empty_then_reset_parameters_gives_seeded_values(torch):
    def run(L):
        L.manual_seed(0)
        model = L.nn.Sequential(L.nn.Linear(4, 3), L.nn.ReLU(), L.nn.Linear(3, 2)).to("meta")
        L.manual_seed(0)  # building on meta draws nothing: the seed's sequence is intact
        on_meta = L.nn.Sequential(L.nn.Linear(4, 3, device="meta"), L.nn.ReLU(),
                                  L.nn.Linear(3, 2, device="meta"))
        on_meta.to_empty(device="cpu")
        for module in on_meta.modules():
            if hasattr(module, "reset_parameters"):
                module.reset_parameters()
        return on_meta(L.ones(1, 4)), model
    (ours, _), (theirs, _) = _both(torch, run)
    assert ours.tolist()[0] == pytest.approx(theirs.tolist()[0], abs=1e-6)


def test_load_state_dict_onto_meta(torch):
    def run(L, assign):
        L.manual_seed(1)
        state = L.nn.Linear(2, 2).state_dict()
        model = L.nn.Linear(2, 2, device="meta")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.load_state_dict(state, assign=assign)
        return model.weight, [str(w.message) for w in caught]
    for assign in (False, True):
        (ours, our_warnings), (theirs, their_warnings) = (run(ember, assign), run(torch, assign))
        assert our_warnings == their_warnings
        assert ours.is_meta == theirs.is_meta
        if not assign:
            _same_meta(ours, theirs)
        else:
            assert ours.tolist() == theirs.tolist()


MIXED = [
    lambda L, m, c: m + c, lambda L, m, c: c + m, lambda L, m, c: c * m,
    lambda L, m, c: L.cat([m, c]), lambda L, m, c: L.cat([c, m]),
    lambda L, m, c: L.nn.functional.mse_loss(c, m), lambda L, m, c: L.nn.functional.l1_loss(c, m),
    lambda L, m, c: L.where(c > 0, m, c),
    lambda L, m, c: L.nn.functional.linear(m, c, c[0]),
    lambda L, m, c: L.nn.Linear(3, 3, device="meta")(c),
    lambda L, m, c: L.nn.Linear(3, 3)(m),
]


@pytest.mark.parametrize("op", MIXED)
def test_meta_meets_cpu_as_torch(torch, op):
    assert_same_error(lambda L: op(L, L.ones(3, 3, device="meta"), L.ones(3, 3)))


def test_meta_leaves_where_torch_gives_meta(torch):
    """PyTorch's meta kernels take CPU operands after a meta input, and 0-dim CPU tensors."""
    cases = [lambda L: L.ones(2, 3, device="meta") @ L.ones(3, 2),
             lambda L: L.nn.functional.conv2d(L.ones(1, 1, 4, 4, device="meta"),
                                              L.ones(1, 1, 2, 2)),
             lambda L: L.nn.Embedding(5, 3, device="meta")(L.tensor([1, 2])),
             lambda L: L.ones(3, device="meta") + L.tensor(2.0)]
    for case in cases:
        _same_meta(*_both(torch, case))


def test_note_names_the_parameters_and_the_fix():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model[2].to("meta")
    with pytest.raises(RuntimeError) as info:
        model(ember.ones(3, 4))
    assert str(info.value) == "Tensor on device meta is not on the expected device cpu!"
    notes = "\n".join(info.value.__notes__)
    assert "Raised in layer '2'" in notes
    assert "2.weight on meta, 2.bias on meta" in notes and "input is on cpu" in notes
    assert "model.to_empty(device='cpu')" in notes and "reset_parameters()" in notes
    assert notes.count("Fix:") == 1
    with pytest.raises(RuntimeError) as info:
        nn.Linear(4, 2)(ember.ones(3, 4, device="meta"))
    notes = "\n".join(info.value.__notes__)
    assert "input is on meta" in notes and "weight on cpu" in notes


def test_a_billion_element_meta_linear_takes_no_memory(torch):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    layer = nn.Linear(100_000, 10_000, device="meta")     # 1e9 weights: 4 GB if real
    x = ember.ones(8, 100_000, device="meta", requires_grad=True)
    out = layer(x)
    out.sum().backward()
    assert layer.weight.grad.shape == (10_000, 100_000) and out.shape == (8, 10_000)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 50


# ---------------------------------------------------------------- sweeps
# Data-dependent checks run on a meta array's zeros (linalg.inv's singularity, multinomial's
# probabilities) and refuse where PyTorch's meta kernels skip them: not swept.
SWEEP = {
    'abs': lambda L,x: x.abs(),
    'sigmoid': lambda L,x: x.sigmoid(),
    'tanh': lambda L,x: L.tanh(x),
    'relu': lambda L,x: L.nn.functional.relu(x),
    'gelu': lambda L,x: L.nn.functional.gelu(x),
    'log_softmax': lambda L,x: L.log_softmax(x,1),
    'max_dim': lambda L,x: x.max(1)[0],
    'max_dim_i': lambda L,x: x.max(1)[1],
    'sort': lambda L,x: L.sort(x,1)[1],
    'topk': lambda L,x: x.topk(2,1)[0],
    'cumsum': lambda L,x: x.cumsum(0),
    'var': lambda L,x: x.var(1),
    'std': lambda L,x: x.std(),
    'norm': lambda L,x: x.norm(),
    'lnorm': lambda L,x: L.linalg.vector_norm(x, dim=1),
    'layer_norm': lambda L,x: L.nn.functional.layer_norm(x,(4,)),
    'dropout': lambda L,x: L.nn.functional.dropout(x, 0.5),
    'pad': lambda L,x: L.nn.functional.pad(x,(1,1)),
    'unsqueeze': lambda L,x: x.unsqueeze(0).expand(2,3,4),
    'permute': lambda L,x: x.permute(1,0),
    'flip': lambda L,x: x.flip(0),
    'roll': lambda L,x: x.roll(1),
    'repeat': lambda L,x: x.repeat(2,1),
    'tril': lambda L,x: x.tril(),
    'clamp': lambda L,x: x.clamp(0,1),
    'pow': lambda L,x: x**2,
    'masked_fill': lambda L,x: x.masked_fill(x>0, 0.),
    'gather': lambda L,x: x.gather(1, L.zeros(3,2,dtype=L.long,device='meta')),
    'scatter_add': lambda L,x: x.scatter_add(1, L.zeros(3,2,dtype=L.long,device='meta'), x[:, :2]),
    'index_select': lambda L,x: x.index_select(0, L.tensor([0,2],device='meta')),
    'bmm': lambda L,x: L.bmm(x.expand(2,3,4), x.T.expand(2,4,3)),
    'outer': lambda L,x: L.outer(x[0], x[1]),
    'chunk': lambda L,x: x.chunk(2,1)[1],
    'split': lambda L,x: x.split(1)[2],
    'reshape': lambda L,x: x.reshape(-1),
    'sdpa': lambda L,x: L.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None]),
    'max_pool': lambda L,x: L.nn.functional.max_pool2d(x[None,None], 2),
    'avg_pool': lambda L,x: L.nn.functional.avg_pool2d(x[None,None], 2),
    'interp': lambda L,x: L.nn.functional.interpolate(x[None,None], scale_factor=2),
    'one_hot_like': lambda L,x:
        L.nn.functional.embedding(L.zeros(2,dtype=L.long,device='meta'), x),
    'softmax_bwd': lambda L,x: L.autograd.grad(x.requires_grad_().softmax(1).sum(), x)[0],
    'matmul_bwd': lambda L,x: L.autograd.grad((x.requires_grad_() @ x.T).sum(), x)[0],
    'mse': lambda L,x: L.nn.functional.mse_loss(x, x),
    'bce_logits': lambda L,x: L.nn.functional.binary_cross_entropy_with_logits(x, x),
    'sum_dtype': lambda L,x: x.sum(dtype=L.float64),
    'int_div': lambda L,x: x.long() // 2,
    'bool_any': lambda L,x: (x>0).any(1),
    'argsort': lambda L,x: x.argsort(),
    'cross_entropy_probs': lambda L,x: L.nn.functional.cross_entropy(x, x.softmax(1)),
    'einsum_bmm': lambda L,x: L.einsum('bij,bjk->bik', x[None], x.T[None]),
    'linspace': lambda L,x: L.linspace(0,1,5,device='meta'),
    'full_like': lambda L,x: L.full_like(x, 3),
    'zeros_like': lambda L,x: L.zeros_like(x),
    'rand_like': lambda L,x: L.rand_like(x),
    'normal_': lambda L,x: x.clone().normal_(),
    'uniform_': lambda L,x: x.clone().uniform_(),
    'fill_': lambda L,x: x.clone().fill_(2),
    'zero_': lambda L,x: x.clone().zero_(),
    'mul_': lambda L,x: x.clone().mul_(2),
    'setitem': lambda L,x: x.clone().__setitem__(0, 1),
    'lstm_cell': lambda L,x: L.nn.LSTMCell(4,5,device='meta')(x)[0],
    'gru': lambda L,x: L.nn.GRU(4,5,device='meta')(x)[0],
    'conv1d': lambda L,x: L.nn.functional.conv1d(x[None], L.ones(2,3,2,device='meta')),
    'bn_eval': lambda L,x: L.nn.BatchNorm1d(4,device='meta').eval()(x),
    'svd': lambda L,x: L.linalg.svd(x)[1],
    'det': lambda L,x: L.linalg.det(x[:, :3]),
    'bernoulli': lambda L,x: L.bernoulli(x.sigmoid()),
}


def _summary(result):
    return tuple(result.shape), str(result.dtype).split(".")[-1], result.device.type


@pytest.mark.parametrize("name", sorted(SWEEP))
def test_op_sweep_on_meta(torch, name):
    def run(L):
        try:
            result = SWEEP[name](L, L.ones(3, 4, device="meta"))
        except Exception as error:  # noqa: BLE001 - compared with the oracle's
            return type(error).__name__, str(error)
        return None if result is None else _summary(result)
    assert run(ember) == run(torch)


LAYERS = {
    'Linear': (3,4),
    'Bilinear': (2,3,4),
    'LazyLinear': (4,),
    'Conv1d': (2,3,2),
    'Conv2d': (2,3,2),
    'Conv3d': (2,3,2),
    'ConvTranspose1d': (2,3,2),
    'ConvTranspose2d': (2,3,2),
    'ConvTranspose3d': (2,3,2),
    'BatchNorm1d': (3,),
    'BatchNorm2d': (3,),
    'BatchNorm3d': (3,),
    'InstanceNorm1d': (3,),
    'InstanceNorm2d': (3,),
    'LayerNorm': (3,),
    'GroupNorm': (1,3),
    'RMSNorm': (3,),
    'Embedding': (5,3),
    'EmbeddingBag': (5,3),
    'RNN': (3,4),
    'LSTM': (3,4),
    'GRU': (3,4),
    'RNNCell': (3,4),
    'LSTMCell': (3,4),
    'GRUCell': (3,4),
    'MultiheadAttention': (4,2),
    'Transformer': (),
    'TransformerEncoderLayer': (4,2,8),
    'TransformerDecoderLayer': (4,2,8),
    'PReLU': (),
    'AdaptiveLogSoftmaxWithLoss': (8,10,[4]),
    'SyncBatchNorm': (3,),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_every_layer_takes_device_meta(torch, name):
    def run(L):
        kwargs = {"device": "meta"}
        if name == "Transformer":
            kwargs.update(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                          dim_feedforward=8)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = getattr(L.nn, name)(*LAYERS[name], **kwargs)
        return sorted((key, *_summary(value)) for key, value in
                      list(layer.named_parameters()) + list(layer.named_buffers())
                      if not type(value).__name__.startswith("Uninit"))
    assert run(ember) == run(torch)


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.Linear(2, 2, device="meta").to("cpu"),
    lambda L: L.tensor(L.ones(2, device="meta")),
    lambda L: L.ones(2, device="meta").type(),
    lambda L: copy.deepcopy(L.nn.Linear(2, 2, device="meta")).weight,
])
def test_conversions(torch, fn):
    def run(L):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                result = fn(L)
            except Exception as error:  # noqa: BLE001 - compared with the oracle's
                return type(error).__name__, str(error).replace("torch.", "ember.")
        return result.replace("torch.", "ember.") if isinstance(result, str) else \
            _summary(result) + (result.requires_grad,)
    assert run(ember) == run(torch)


def test_checkpoints_with_meta_tensors_both_ways(torch):
    """A meta tensor is saved as its geometry alone (no storage record), and
    map_location='meta' loads a checkpoint's shapes without reading its bytes."""
    def save(L):
        buffer = io.BytesIO()
        L.save({"w": L.ones(2, 3, device="meta", requires_grad=True), "c": L.arange(2),
                "p": L.nn.Linear(2, 2, device="meta").weight}, buffer)
        return buffer.getvalue()
    for saved_by, loaded_by in ((ember, torch), (torch, ember)):
        loaded = loaded_by.load(io.BytesIO(save(saved_by)))
        assert _summary(loaded["w"]) == ((2, 3), "float32", "meta") and loaded["w"].requires_grad
        assert type(loaded["p"]).__name__ == "Parameter" and loaded["p"].is_meta
        assert loaded["c"].tolist() == [0, 1]
        names = zipfile.ZipFile(io.BytesIO(save(saved_by))).namelist()
        assert len([name for name in names if "/data/" in name]) == 1  # only the CPU tensor's
    state = io.BytesIO()
    torch.save(torch.nn.Linear(3, 2).state_dict(), state)
    for where in ("meta", ember.device("meta")):
        loaded = ember.load(io.BytesIO(state.getvalue()), map_location=where)
        assert [_summary(t) for t in loaded.values()] == [((2, 3), "float32", "meta"),
                                                          ((2,), "float32", "meta")]
