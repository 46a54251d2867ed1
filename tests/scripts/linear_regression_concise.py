# Dive into Deep Learning 3.3 / 3.5 style: synthetic data, DataLoader, nn.Linear,
# MSELoss, optim.SGD; run with `torch` bound to ember and to PyTorch.
from torch import nn
from torch.utils import data

torch.manual_seed(42)


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)
print('features:', features[0], '\nlabel:', labels[0])


def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)


data_iter = load_array((features, labels), 10)
X0, y0 = next(iter(data_iter))
print(X0[:2], y0[:2])
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(3):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:.4f}')
w = net[0].weight.data
print('error in estimating w:', (true_w - w.reshape(true_w.shape)).abs().max() < 0.01)
print(net.state_dict().keys(), trainer.state_dict()['param_groups'][0]['lr'])
