"""Catalog entries for nn.functional ops (nn_conv)."""
OPS = []
