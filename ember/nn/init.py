"""nn.init: parameter initialisation (PyTorch's torch.nn.init)."""
