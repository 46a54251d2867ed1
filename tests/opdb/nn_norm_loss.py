"""Catalog entries for nn.functional ops (nn_norm_loss)."""
OPS = []
