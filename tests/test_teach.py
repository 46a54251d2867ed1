"""The learner's tools: explain, the graph-retention warning, draw_graph/print_graph, summary.

The texts are ember's own (PyTorch has no such tools); what can be compared with torch is
compared: node names in pictures and chains against torch's grad_fn names for the same
expression, and parameter counts and layer output shapes against the same model in torch.
"""
import io
import warnings
import xml.etree.ElementTree as ET
from collections import Counter

import numpy as np
import pytest

import ember
from ember.autograd import retention
from ember.autograd.explain import explain

SVG = "{http://www.w3.org/2000/svg}"


def _bare(name):
    return name.rpartition("::")[2]


def _torch_names(root):
    """Every node below torch's `root` grad_fn once, as bare names (a multiset)."""
    seen = {root}
    stack = [root]
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return Counter(_bare(node.name()) for node in seen)


def _svg_node_names(svg):
    """The first text line of every op/leaf box of an SVG that draw_graph made."""
    tree = ET.fromstring(svg)
    names = Counter()
    for group in tree.iter(SVG + "g"):
        if group.get("class") in ("op", "leaf"):
            names[group.find(SVG + "text").text] += 1
    return names


def _mlp(lib, seed=0):
    lib.manual_seed(seed)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


@pytest.fixture
def fresh_watch():
    """A retention watch with no roots left over from earlier tests."""
    retention._watch.reset()
    yield retention._watch
    retention._watch.reset()


# ---------------------------------------------------------------- explain
def test_explain_requires_grad_off():
    text = explain(ember.ones(3))
    assert ".grad is None" in text
    assert "requires_grad is False" in text and "requires_grad_()" in text


def test_explain_integer_tensor():
    text = explain(ember.arange(3))
    assert "only floating point tensors can require gradients" in text


def test_explain_non_leaf_without_retain_grad_then_with(torch):
    w = ember.ones(3, requires_grad=True)
    y = w * 2
    loss = y.sum()
    text = explain(y, loss)
    assert "not a leaf (it was computed by MulBackward0)" in text
    assert ".retain_grad()" in text
    wt = torch.ones(3, requires_grad=True)
    loss_t = (wt * 2).sum()
    chain = [_bare(loss_t.grad_fn.name()), _bare(loss_t.grad_fn.next_functions[0][0].name())]
    assert f"grad_fn chain from the loss: {' -> '.join(chain)} (this tensor)" in text
    y.retain_grad()
    loss.backward()
    text = explain(y, loss)
    assert ".retain_grad()" not in text and "One backward() pass wrote .grad" in text


def test_explain_parameter_rebound_by_an_update(torch):
    for lib in (ember, torch):  # the same node in both: a non-leaf each step
        w = lib.ones(3, requires_grad=True)
        (w * w).sum().backward()
        w = w - 0.1 * w.grad
        assert not w.is_leaf and w.grad_fn.name() == "SubBackward0"
    w = ember.ones(3, requires_grad=True)
    (w * w).sum().backward()
    text = explain(w - 0.1 * w.grad)
    assert "rebound by an update" in text and "w -= lr * w.grad" in text
    assert "rebound" not in explain(w * 2)


def test_explain_made_under_no_grad():
    w = ember.ones(3, requires_grad=True)
    with ember.no_grad():
        z = w * 2
        inside = explain(z)
    assert "no_grad()" in explain(z)
    assert "Grad mode is off right now" in inside
    with ember.no_grad():
        view = w[1:]
    assert "a view of a tensor that requires grad, taken under no_grad()" in explain(view)


def test_explain_made_under_inference_mode():
    w = ember.ones(3, requires_grad=True)
    with ember.inference_mode():
        q = w * 2
    assert "created under inference_mode()" in explain(q)


def test_explain_detached_given_the_loss():
    w = ember.ones(3, requires_grad=True)
    d = w.detach()
    loss = (w * d).sum()
    text = explain(d, loss)
    assert "made by .detach()" in text and "shares memory" in text


def test_explain_loss_does_not_depend_on_it():
    w = ember.ones(3, requires_grad=True)
    other = ember.ones(3, requires_grad=True)
    text = explain(other, (w * 3).sum())
    assert "The loss does not depend on it" in text
    assert "grad_fn chain" not in text
    assert "does not require grad" in explain(w, (w * 3).sum().detach())


def test_explain_backward_not_called_yet(monkeypatch):
    w = ember.ones(3, requires_grad=True)
    loss = (w * w).sum()
    assert "backward() has not been called on this loss yet" in explain(w, loss)
    monkeypatch.setattr(retention._watch, "calls", 0)
    assert "backward() has not been called yet (none has run in this process)" in explain(w)


def test_explain_grad_reset_after_backward():
    w = ember.ones(3, requires_grad=True)
    loss = (w * w).sum()
    loss.backward()
    w.grad = None
    assert "did run through this loss, but .grad was reset since" in explain(w, loss)
    assert "none reached it since its .grad was last reset" in explain(w)


def test_explain_counts_accumulated_backward_passes(torch):
    for lib in (ember, torch):
        w = lib.ones(3, requires_grad=True)
        for _ in range(3):
            (w * w).sum().backward()
        if lib is ember:
            text = explain(w)
        else:
            expected = w.grad
    assert "it holds the sum over 3 backward() passes" in text
    assert "updated in place 2 time(s)" in text
    np.testing.assert_array_equal(w.grad.numpy(), expected.numpy())


def test_explain_chain_names_match_torch(torch):
    names = {}
    for lib in (ember, torch):
        model = _mlp(lib)
        x = lib.randn(5, 3)
        loss = lib.nn.functional.mse_loss(model(x), lib.zeros(5, 2))
        if lib is ember:
            text = explain(model[0].weight, loss)
            names[lib] = text.split("grad_fn chain from the loss: ")[1].split(" (this")[0]
        else:
            node, chain = loss.grad_fn, []
            target = model[0].weight
            # torch's path to the first layer's weight: the first edge that leads there
            while True:
                chain.append(_bare(node.name()))
                if getattr(node, "variable", None) is target:
                    break
                node = next(child for child, _ in node.next_functions
                            if child is not None and _reaches(child, target))
            names[lib] = " -> ".join(chain)
    assert names[ember] == names[torch]


def _reaches(node, target):
    stack, seen = [node], set()
    while stack:
        node = stack.pop()
        if getattr(node, "variable", None) is target:
            return True
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return False


def test_explain_refuses_a_non_tensor():
    with pytest.raises(TypeError, match="expects a Tensor"):
        explain(3.0)


# ---------------------------------------------------------------- the retention warning
def _train(kind, steps, torch_like=ember):
    model = _mlp(torch_like)
    # torch's optimizers load its compiler on first use (seconds): step by hand there
    optimizer = torch_like.optim.SGD(model.parameters(), lr=0.01) if torch_like is ember \
        else _HandSGD(model.parameters(), torch_like)
    x, y = torch_like.randn(16, 3), torch_like.randn(16, 2)
    total, history = 0, []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(steps):
            optimizer.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            optimizer.step()
            if kind == "sum":
                total = total + loss
            elif kind == "append":
                history.append(loss)
            elif kind == "item":
                total += loss.item()
                history.append(loss.detach())
            mine = [w for w in caught if "backward() calls are still alive" in str(w.message)]
            if mine:
                return step, mine[0]
    return None, None


class _HandSGD:
    def __init__(self, parameters, lib):
        self.parameters, self.lib = list(parameters), lib

    def zero_grad(self):
        for p in self.parameters:
            p.grad = None

    def step(self):
        with self.lib.no_grad():
            for p in self.parameters:
                p -= 0.01 * p.grad


@pytest.mark.parametrize("kind", ["sum", "append"])
def test_retention_warning_for_a_loop_that_keeps_the_loss(fresh_watch, kind):
    step, warning = _train(kind, 100)
    assert step is not None and step < 100
    assert warning.category is UserWarning
    text = str(warning.message)
    assert "loss.item()" in text and "loss.detach()" in text
    assert warning.filename == __file__  # it names the user's backward() line


def test_no_retention_warning_for_a_correct_loop(fresh_watch):
    assert _train("item", 150) == (None, None)


def test_no_retention_warning_for_a_long_unrolled_graph(fresh_watch):
    ember.manual_seed(0)
    layer = ember.nn.Linear(6, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for epoch in range(3):
            h = ember.zeros(1, 4)
            outputs = []
            for t in range(200):  # an RNN cell unrolled 200 steps, one backward at the end
                h = ember.tanh(layer(ember.cat([ember.randn(1, 2), h], 1)))
                outputs.append(h)
            ember.stack(outputs).pow(2).mean().backward()


def test_retention_warning_when_one_of_two_losses_per_step_is_kept(fresh_watch):
    w = ember.ones(3, requires_grad=True)
    history = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(16):  # 32 backward calls: one window
            first, second = (w * w).sum(), (w * 3).mean()
            first.backward()
            second.backward()
            history.append(second)
    # the 16 kept and this step's first loss, still bound to `first`
    assert [str(c.message)[:50] for c in caught] == [
        "The graphs of 17 of the last 32 backward() calls a"]


def test_a_few_long_lived_graphs_do_not_add_up_to_a_warning(fresh_watch):
    w = ember.ones(3, requires_grad=True)
    kept = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for step in range(400):  # one graph in 40 kept for good: 10 alive in the end
            loss = (w + 1).sum()
            loss.backward()
            if step % 40 == 0:
                kept.append(loss)
        for _ in range(20):  # the same root backpropagated again and again
            kept[0].backward()


def test_no_retention_warning_when_the_graph_is_retained_on_purpose(fresh_watch):
    w = ember.ones(3, requires_grad=True)
    kept = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(60):
            loss = (w * w).sum()
            loss.backward(retain_graph=True)
            kept.append(loss)


def test_the_bad_loop_runs_the_same_in_torch(torch, fresh_watch):
    """The warned loop is legal PyTorch: same values, torch silent, ember one warning."""
    assert _train("sum", 40, torch) == (None, None)
    step, _ = _train("sum", 40)
    assert step == retention.WINDOW - 1


# ---------------------------------------------------------------- draw_graph / print_graph
EXPRESSIONS = {
    "mlp": lambda lib, x, w: lib.nn.functional.mse_loss(_mlp(lib)(x), lib.zeros(4, 2)),
    "shared": lambda lib, x, w: (x * x + x.exp()).sum() + (w @ x.t()).mean(),
    "views": lambda lib, x, w: (x.t()[0] * 2).sum() + x.reshape(-1).sigmoid().prod()
    + lib.cat([x, x[:, :1]], 1).tanh().max(),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_draw_graph_names_the_nodes_torch_names(torch, name):
    results = {}
    for lib in (ember, torch):
        lib.manual_seed(0)
        x = lib.randn(4, 3, requires_grad=True)
        w = lib.randn(2, 3, requires_grad=True)
        results[lib] = EXPRESSIONS[name](lib, x, w)
    svg = ember.autograd.draw_graph(results[ember])
    assert _svg_node_names(svg) == _torch_names(results[torch].grad_fn)


def test_draw_graph_svg_layout_names_and_saved_tensors():
    model = _mlp(ember)
    loss = model(ember.randn(5, 3)).pow(2).mean()
    svg = ember.autograd.draw_graph(loss, params=model, show_saved=True)
    tree = ET.fromstring(svg)
    texts = [t.text for t in tree.iter(SVG + "text")]
    assert "0.weight (4, 3)" in texts and "2.bias (2,)" in texts and "tensor ()" in texts
    saved = [g for g in tree.iter(SVG + "g") if g.get("class") == "saved"]
    assert len(saved) == 6  # pow: self; each addmm: mat1, mat2; relu: result
    for line in tree.iter(SVG + "line"):  # gradients flow down: every edge points down
        assert float(line.get("y2")) > float(line.get("y1"))
    boxes = [(float(r.get("x")), float(r.get("y")), float(r.get("width")))
             for r in tree.iter(SVG + "rect")]
    for i, (x1, y1, w1) in enumerate(boxes):  # boxes of a row never overlap
        for x2, y2, w2 in boxes[i + 1:]:
            assert y1 != y2 or x1 + w1 <= x2 or x2 + w2 <= x1
    loss.backward()
    after = ember.autograd.draw_graph(loss, show_saved=True)
    freed = [g for g in ET.fromstring(after).iter(SVG + "g") if g.get("class") == "saved"]
    assert [g.find(SVG + "title").text for g in freed] == ["saved tensors freed by backward()"] * 4
    named = ember.autograd.draw_graph(loss, params=dict(model.named_parameters()))
    assert "0.bias (4,)" in named


def test_draw_graph_of_a_deep_chain_does_not_recurse():
    x = ember.ones(2, requires_grad=True)
    y = x
    for _ in range(1500):
        y = y * 1.0
    svg = ember.autograd.draw_graph(y.sum())
    assert _svg_node_names(svg)["MulBackward0"] == 1500


def test_draw_graph_of_a_leaf_and_of_a_constant():
    for t in (ember.ones(2, requires_grad=True), ember.ones(2)):
        tree = ET.fromstring(ember.autograd.draw_graph(t))
        assert [t.text for t in tree.iter(SVG + "text")][0] == "tensor (2,)"


def test_print_graph_tree(torch, capsys):
    x = ember.ones(2, 3, requires_grad=True)
    loss = (x * x).sum() + x.exp().mean()
    ember.autograd.print_graph(loss, params={"x": x})
    assert capsys.readouterr().out == (
        "tensor ()\n"
        "└─ AddBackward0\n"
        "   ├─ SumBackward0\n"
        "   │  └─ MulBackward0\n"
        "   │     ├─ AccumulateGrad  x (2, 3)\n"
        "   │     └─ AccumulateGrad  x (2, 3)\n"
        "   └─ MeanBackward0\n"
        "      └─ ExpBackward0\n"
        "         └─ AccumulateGrad  x (2, 3)\n")
    xt = torch.ones(2, 3, requires_grad=True)
    assert _torch_names(((xt * xt).sum() + xt.exp().mean()).grad_fn) == Counter(
        ["AddBackward0", "SumBackward0", "MulBackward0", "MeanBackward0", "ExpBackward0",
         "AccumulateGrad"])
    shared = x * 2
    buffer = io.StringIO()
    ember.autograd.print_graph(shared + shared, file=buffer)
    assert "(shown above)" in buffer.getvalue()


def test_digits_demo_saves_its_graph(tmp_path):
    from ember.examples import digits
    ember.manual_seed(0)
    data = ember.utils.data.TensorDataset(ember.randn(8, 1, 8, 8), ember.randint(0, 10, (8,)))
    loader = ember.utils.data.DataLoader(data, batch_size=8)
    model = digits.make_model()
    path = tmp_path / "graph.svg"
    digits.save_graph(model, loader, "cpu", str(path))
    names = _svg_node_names(path.read_text())
    assert names["ConvolutionBackward0"] == 2 and names["AccumulateGrad"] == 10
    assert all(p.grad is None for p in model.parameters())


# ---------------------------------------------------------------- summary
def _convnet(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2))
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(6 * 12 * 12, 10))
            self.norm = nn.BatchNorm1d(10)

        def forward(self, x):
            return self.norm(self.head(self.features(x)))
    return Net()


def _torch_output_shapes(model, torch, size):
    shapes = {}
    names = {module: name for name, module in model.named_modules()}

    def hook(module, args, out):
        shapes[names[module]] = list(out.shape)
    hooks = [module.register_forward_hook(hook) for module in names]
    model(torch.randn(*size))
    for hook in hooks:
        hook.remove()
    return shapes


def test_summary_rows_and_totals_against_hand_counts_and_torch(torch, capsys):
    model = _convnet(ember)
    result = ember.utils.summary(model, (2, 1, 28, 28))
    printed = capsys.readouterr().out
    conv, linear, norm = 6 * 1 * 5 * 5 + 6, 864 * 10 + 10, 2 * 10
    assert result.total_params == conv + linear + norm == 8826
    torch_model = _convnet(torch)
    assert result.total_params == sum(p.numel() for p in torch_model.parameters())
    assert result.trainable_params == 8826 and result.non_trainable_params == 0
    assert [(row.name, row.type, row.depth) for row in result.rows] == [
        ("", "Net", 0), ("features", "Sequential", 1), ("features.0", "Conv2d", 2),
        ("features.1", "ReLU", 2), ("features.2", "MaxPool2d", 2), ("head", "Sequential", 1),
        ("head.0", "Flatten", 2), ("head.1", "Linear", 2), ("norm", "BatchNorm1d", 1)]
    assert [row.num_params for row in result.rows] == [0, 0, conv, 0, 0, 0, 0, linear, norm]
    expected = _torch_output_shapes(torch_model, torch, (2, 1, 28, 28))
    assert {row.name: row.output_shape for row in result.rows} == expected
    assert result.params_bytes == 8826 * 4 and result.input_bytes == 2 * 28 * 28 * 4
    leaf_outputs = 2 * (3456 + 3456 + 864 + 864 + 10 + 10)
    assert result.forward_backward_bytes == 2 * 4 * leaf_outputs
    assert "    features.0 (Conv2d)" in printed and "[2, 6, 24, 24]" in printed
    assert "Total params: 8,826" in printed and "Params size (MB): 0.04" in printed
    assert "Non-trainable params: 0" in printed


def test_summary_depth_folds_rows_and_counts_frozen_parameters(torch):
    model = _convnet(ember)
    model.features.requires_grad_(False)
    result = ember.utils.summary(model, (2, 1, 28, 28), depth=1, verbose=0)
    assert [(row.name, row.num_params) for row in result.rows] == [
        ("", 0), ("features", 156), ("head", 8650), ("norm", 20)]
    assert result.non_trainable_params == 156 and result.trainable_params == 8670
    torch_model = _convnet(torch)
    torch_model.features.requires_grad_(False)
    assert result.trainable_params == sum(p.numel() for p in torch_model.parameters()
                                          if p.requires_grad)


def test_summary_integer_inputs_and_input_data(torch):
    model = ember.nn.Embedding(10, 3)
    result = ember.utils.summary(model, (4, 5), dtypes=[ember.long], verbose=0)
    assert result.rows[0].output_shape == [4, 5, 3] and result.total_params == 30
    assert result.total_params == sum(p.numel() for p in torch.nn.Embedding(10, 3).parameters())
    lstm_like = ember.nn.Sequential(ember.nn.Linear(3, 3))
    result = ember.utils.summary(lstm_like, input_data=[ember.randn(2, 3)], verbose=0)
    assert result.rows[-1].output_shape == [2, 3]
    with pytest.raises(ValueError, match="input_size or input_data"):
        ember.utils.summary(lstm_like)


def test_the_docs_page_shows_what_the_tools_print(capsys):
    """docs/teaching_tools.md's examples, run: their printed output is on the page."""
    import pathlib
    page = (pathlib.Path(__file__).resolve().parent.parent / "docs" /
            "teaching_tools.md").read_text()
    nn = ember.nn
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    loss = nn.functional.mse_loss(model(ember.randn(8, 3)), ember.zeros(8, 1))
    assert explain(model[0].weight, loss) + "\n" in page
    ember.autograd.print_graph(loss, params=model)
    ember.utils.summary(model, (8, 3))
    out = capsys.readouterr().out
    tree, table = out.split("=" * 80, 1)
    assert "```\n" + tree + "```" in page
    assert "=" * 80 + table in page
