"""Catalog entries for nn.functional ops (nn_activation)."""
OPS = []
