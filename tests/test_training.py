"""End to end: data, model, optimizer, scheduler and checkpoints, against PyTorch."""
import numpy as np

import ember


def build(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))


def train(lib, model, steps_from, epochs, data):
    x, y = data
    dataset = lib.utils.data.TensorDataset(lib.tensor(x), lib.tensor(y))
    generator = lib.Generator().manual_seed(steps_from)
    loader = lib.utils.data.DataLoader(dataset, batch_size=8, shuffle=True, generator=generator)
    optimizer = lib.optim.Adam(model.parameters(), lr=0.01)
    scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    losses = []
    for _ in range(epochs):
        for xb, yb in loader:
            loss = lib.nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        scheduler.step()
    return losses


def test_trained_in_ember_loads_in_torch_and_back(torch, tmp_path):
    rng = np.random.default_rng(0)
    data = (rng.standard_normal((40, 4)).astype(np.float32), rng.integers(0, 3, 40))
    torch.manual_seed(1)
    ember.manual_seed(1)
    t_model, e_model = build(torch), build(ember)
    for (_, v_t), (_, v_e) in zip(t_model.state_dict().items(), e_model.state_dict().items()):
        np.testing.assert_array_equal(v_e.numpy(), v_t.numpy())  # same seed, same init
    e_losses = train(ember, e_model, 7, 3, data)
    t_losses = train(torch, t_model, 7, 3, data)
    np.testing.assert_allclose(e_losses, t_losses, rtol=1e-5)  # same batches, same updates

    ember.save(e_model.state_dict(), tmp_path / "ember.pt")
    reloaded_in_torch = build(torch)
    reloaded_in_torch.load_state_dict(torch.load(tmp_path / "ember.pt"))
    for (k, v_t), (_, v_e) in zip(reloaded_in_torch.state_dict().items(),
                                  e_model.state_dict().items()):
        np.testing.assert_array_equal(v_t.numpy(), v_e.numpy(), err_msg=k)

    train(torch, reloaded_in_torch, 11, 1, data)
    torch.save(reloaded_in_torch.state_dict(), tmp_path / "torch.pt")
    back_in_ember = build(ember)
    back_in_ember.load_state_dict(ember.load(tmp_path / "torch.pt"))
    for (k, v_t), (_, v_e) in zip(reloaded_in_torch.state_dict().items(),
                                  back_in_ember.state_dict().items()):
        np.testing.assert_array_equal(v_e.numpy(), v_t.numpy(), err_msg=k)
    x = data[0]  # identical weights; the matmuls may round differently in the last bit
    np.testing.assert_allclose(back_in_ember(ember.tensor(x)).detach().numpy(),
                               reloaded_in_torch(torch.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-7)
