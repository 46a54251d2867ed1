# A PyTorch tensor tutorial, written for `import torch`; the test runs it with
# `torch` bound to ember and to PyTorch and compares everything it prints.
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X)
print(torch.zeros((2, 3, 4)))
print(torch.ones((2, 3, 4)).sum(), torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
print(X[-1], X[1:3])
X[1, 2] = 17
X[:2, :] = 12
print(X)
print(torch.exp(x))
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print(x + y, x - y, x * y, x / y, x ** y)
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a, b, a + b)
before = id(Y)
Y = Y + X
print(id(Y) == before)
Z = torch.zeros_like(Y)
before = id(Z)
Z[:] = X + Y
print(id(Z) == before)
before = id(X)
X += Y
print(id(X) == before)
A = X.numpy()
B = torch.from_numpy(A)
print(type(A).__name__, type(B).__name__ == "Tensor")
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
print(A, A.T, A.sum(axis=0), A.sum(axis=[0, 1]), A.mean(), A.mean(axis=0))
print(A.sum(axis=1, keepdims=True), A.cumsum(axis=0))
x = torch.arange(4, dtype=torch.float32)
print(torch.dot(x, torch.ones(4, dtype=torch.float32)), torch.mv(A, x), A @ torch.ones(4, 3))
u = torch.tensor([3.0, -4.0])
print(torch.norm(u), torch.abs(u).sum(), torch.norm(torch.ones((4, 9))))
v = A.view(4, 5)
v[0, 0] = 100.0
print(A[0, 0], v.is_contiguous(), A.t().is_contiguous(), A.t().stride())
try:
    A.t().view(20)
except RuntimeError as error:
    print("RuntimeError:", error)
try:
    torch.ones(2, 3) + torch.ones(3, 2)
except RuntimeError as error:
    print("RuntimeError:", error)
x = torch.arange(4.0)
x.requires_grad_(True)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad, x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2 + 2 * x + 1
print(y)
y.backward()
print(x.grad)
with torch.no_grad():
    print((x * 2).requires_grad)
# Hand-written linear regression on fixed, deterministic data.
features = torch.linspace(0, 1, 100).reshape(-1, 1)
labels = 2 * features + 1 + 0.01 * torch.sin(40 * features)
w = torch.zeros((1, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for epoch in range(200):
    loss = ((features @ w + b - labels) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.5 * w.grad
        b -= 0.5 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 50 == 0:
        print(f"epoch {epoch}, loss {loss.item():.6f}")
print(w, b)
