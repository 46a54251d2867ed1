# Dive into Deep Learning, "Builders' Guide" (chapter 6) style code, written for
# `import torch`; the test runs it with `torch` bound to ember and to PyTorch and
# compares everything it prints. The same seed gives the same weights in both.
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
X = torch.rand(size=(2, 4))
print(net(X).shape)
print(net)
print(net[2].state_dict())
print(type(net[2].bias), net[2].bias.data)
print(net[2].weight.grad is None)
print([(name, param.shape) for name, param in net.named_parameters()])


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
print(net[0].weight.data[0], net[0].bias.data[0])


def init_xavier(module):
    if type(module) == nn.Linear:
        nn.init.xavier_uniform_(module.weight)


net[0].apply(init_xavier)
print(net[0].weight.data[0])

shared = nn.LazyLinear(8)
net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(),
                    nn.LazyLinear(1))
net(X)
print(net[2].weight.data[0] == net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
print(net[2].weight.data[0] == net[4].weight.data[0])


class CenteredLayer(nn.Module):
    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(Y.mean().abs() < 1e-6)


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(20, 256)
        self.output = nn.Linear(256, 10)

    def forward(self, X):
        return self.output(F.relu(self.hidden(X)))


net = MLP()
print(net)
X = torch.randn(size=(2, 20))
print(net(X))
clone = MLP()
clone.load_state_dict(net.state_dict())
print((clone(X) == net(X)).all())
conv = nn.Conv2d(1, 2, kernel_size=3, padding=1, stride=2)
print(conv, conv(torch.rand(1, 1, 8, 8)).shape)
print(nn.BatchNorm2d(2), nn.Dropout(0.5), nn.MaxPool2d(3, stride=2, padding=1))
print(F.cross_entropy(torch.randn(3, 5), torch.tensor([1, 0, 4])))
