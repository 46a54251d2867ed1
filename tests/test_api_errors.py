"""A bad argument to each op family of ember/ops raises torch's exception type and text.

One line per call: `lib` is ember or torch, and the two errors must match exactly
(torch. -> ember.). The families are reduction, sorting, cumulative, views, dims,
slicing, rearrange, joining, linalg, norms, diagonal, einsum, conv, pooling,
resizing, normalization, linear and random.
"""
import pytest

from test_api_pointwise import compare_error


def _x(lib, *shape):
    return lib.arange(float(max(1, _numel(shape)))).reshape(shape) if shape else lib.tensor(1.0)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


BAD_CALLS = {
    # reduction and sorting
    "sum_dim_out_of_range": lambda lib: _x(lib, 2, 3).sum(2),
    "sum_repeated_dim": lambda lib: _x(lib, 2, 3).sum((0, 0)),
    "mean_int": lambda lib: lib.ones(2, dtype=lib.int64).mean(),
    "amax_empty": lambda lib: lib.ones(0, 3).amax(0),
    "max_empty": lambda lib: lib.ones(0).max(),
    "argmax_empty": lambda lib: lib.ones(0).argmax(),
    "std_bad_dim": lambda lib: _x(lib, 2, 3).std(-3),
    "prod_two_dims": lambda lib: _x(lib, 2, 3).prod((0, 1)),
    "kthvalue_k_too_big": lambda lib: _x(lib, 3).kthvalue(4),
    "topk_k_too_big": lambda lib: _x(lib, 3).topk(4),
    "sort_bad_dim": lambda lib: _x(lib, 3).sort(1),
    "median_bad_dim": lambda lib: _x(lib, 2, 3).median(2),
    "logsumexp_int_dim_out": lambda lib: _x(lib, 2).logsumexp(1),
    # cumulative
    "cumsum_bad_dim": lambda lib: _x(lib, 2, 3).cumsum(2),
    "cumprod_no_dim": lambda lib: _x(lib, 2, 3).cumprod(),
    "cumsum_no_dim": lambda lib: lib.cumsum(_x(lib, 2, 3)),
    "cummax_bad_dim": lambda lib: _x(lib, 3).cummax(1),
    # views, dims, slicing, rearrange
    "view_bad_size": lambda lib: _x(lib, 2, 3).view(4),
    "view_two_minus_one": lambda lib: _x(lib, 2, 3).view(-1, -1),
    "view_non_contiguous": lambda lib: _x(lib, 2, 3).t().view(6),
    "reshape_bad_size": lambda lib: _x(lib, 2, 3).reshape(5),
    "expand_smaller": lambda lib: _x(lib, 2, 3).expand(3),
    "expand_mismatch": lambda lib: _x(lib, 2, 3).expand(3, 3),
    "permute_repeated": lambda lib: _x(lib, 2, 3).permute(0, 0),
    "permute_wrong_count": lambda lib: _x(lib, 2, 3).permute(0),
    "transpose_bad_dim": lambda lib: _x(lib, 2, 3).transpose(0, 2),
    "squeeze_bad_dim": lambda lib: _x(lib, 2, 3).squeeze(3),
    "unsqueeze_bad_dim": lambda lib: _x(lib, 2, 3).unsqueeze(4),
    "flatten_bad_order": lambda lib: _x(lib, 2, 3, 2).flatten(2, 1),
    "unflatten_bad_sizes": lambda lib: _x(lib, 2, 6).unflatten(1, (4, 2)),
    "movedim_repeated": lambda lib: _x(lib, 2, 3).movedim((0, 0), (0, 1)),
    "narrow_too_long": lambda lib: _x(lib, 4).narrow(0, 2, 3),
    "select_out_of_range": lambda lib: _x(lib, 2, 3).select(1, 3),
    "split_zero_size": lambda lib: _x(lib, 4).split(0),
    "split_sizes_wrong_sum": lambda lib: _x(lib, 4).split([1, 2]),
    "chunk_zero": lambda lib: _x(lib, 4).chunk(0),
    "unfold_too_big": lambda lib: _x(lib, 4).unfold(0, 5, 1),
    "flip_repeated": lambda lib: _x(lib, 2, 3).flip(0, 0),
    "roll_shifts_dims_mismatch": lambda lib: _x(lib, 2, 3).roll((1, 2), 0),
    "rot90_same_dims": lambda lib: _x(lib, 2, 3).rot90(1, (0, 0)),
    "repeat_fewer_dims": lambda lib: _x(lib, 2, 3).repeat(2),
    "t_3d": lambda lib: _x(lib, 2, 3, 2).t(),
    "movedim_bad_dim": lambda lib: lib.movedim(_x(lib, 2, 3), 2, 0),
    "swapdims_bad_dim": lambda lib: lib.swapdims(_x(lib, 2, 3), 0, 5),
    "diagonal_same_dims": lambda lib: _x(lib, 2, 3).diagonal(0, 1, 1),
    "diag_3d": lambda lib: _x(lib, 2, 3, 2).diag(),
    "diag_embed_same_dims": lambda lib: _x(lib, 3).diag_embed(0, 1, 1),
    "tril_1d": lambda lib: _x(lib, 3).tril(),
    "trace_3d": lambda lib: _x(lib, 2, 2, 2).trace(),
    # joining
    "cat_shape_mismatch": lambda lib: lib.cat([_x(lib, 2, 3), _x(lib, 2, 4)]),
    "cat_bad_dim": lambda lib: lib.cat([_x(lib, 2), _x(lib, 2)], 1),
    "stack_shape_mismatch": lambda lib: lib.stack([_x(lib, 2), _x(lib, 3)]),
    "stack_empty": lambda lib: lib.stack([]),
    "hstack_scalars": lambda lib: lib.hstack([lib.tensor(1.0), _x(lib, 2, 2)]),
    # linalg, norms, einsum
    "matmul_mismatch": lambda lib: _x(lib, 2, 3) @ _x(lib, 2, 3),
    "matmul_scalar": lambda lib: lib.matmul(lib.tensor(1.0), _x(lib, 2)),
    "mm_1d": lambda lib: lib.mm(_x(lib, 3), _x(lib, 3, 2)),
    "mm_dtype_mismatch": lambda lib: lib.mm(_x(lib, 2, 2), lib.ones(2, 2, dtype=lib.float64)),
    "bmm_batch_mismatch": lambda lib: lib.bmm(_x(lib, 2, 2, 3), _x(lib, 3, 3, 2)),
    "mv_mismatch": lambda lib: lib.mv(_x(lib, 2, 3), _x(lib, 2)),
    "dot_2d": lambda lib: lib.dot(_x(lib, 2, 2), _x(lib, 2, 2)),
    "dot_size_mismatch": lambda lib: lib.dot(_x(lib, 2), _x(lib, 3)),
    "outer_2d": lambda lib: lib.outer(_x(lib, 2, 2), _x(lib, 2)),
    "vector_norm_int": lambda lib: lib.linalg.vector_norm(lib.ones(2, dtype=lib.int64)),
    "matrix_norm_1d": lambda lib: lib.linalg.matrix_norm(_x(lib, 3)),
    "matrix_norm_bad_ord": lambda lib: lib.linalg.matrix_norm(_x(lib, 2, 2), ord=3),
    "norm_nuc_int_dim": lambda lib: _x(lib, 2, 2).norm(p="nuc", dim=0),
    "norm_fro_three_dims": lambda lib: _x(lib, 2, 2, 2).norm(p="fro", dim=(0, 1, 2)),
    "matrix_norm_three_dims": lambda lib: lib.linalg.matrix_norm(_x(lib, 2, 2, 2), dim=(0, 1, 2)),
    "einsum_bad_operands": lambda lib: lib.einsum("ij,jk->ik", _x(lib, 2, 3)),
    "einsum_size_mismatch": lambda lib: lib.einsum("ij,jk->ik", _x(lib, 2, 3), _x(lib, 2, 2)),
    "einsum_bad_output": lambda lib: lib.einsum("ij->k", _x(lib, 2, 3)),
    "tensordot_mismatch": lambda lib: lib.tensordot(_x(lib, 2, 3), _x(lib, 2, 3), dims=1),
    "tensordot_mismatch_two": lambda lib: lib.tensordot(_x(lib, 2, 3, 4), _x(lib, 3, 2), dims=2),
    "tensordot_mismatch_lists": lambda lib: lib.tensordot(_x(lib, 2, 3, 4), _x(lib, 3, 5),
                                                          dims=([2], [-1])),
    # conv, pooling, resizing
    "conv2d_channels": lambda lib: lib.nn.functional.conv2d(_x(lib, 1, 2, 4, 4),
                                                            _x(lib, 1, 3, 2, 2)),
    "conv1d_kernel_too_big": lambda lib: lib.nn.functional.conv1d(_x(lib, 1, 1, 2),
                                                                  _x(lib, 1, 1, 3)),
    "conv2d_bad_rank": lambda lib: lib.nn.functional.conv2d(_x(lib, 4, 4), _x(lib, 1, 1, 2, 2)),
    "conv_transpose2d_groups": lambda lib: lib.nn.functional.conv_transpose2d(
        _x(lib, 1, 3, 2, 2), _x(lib, 3, 1, 2, 2), groups=2),
    "max_pool2d_kernel_too_big": lambda lib: lib.nn.functional.max_pool2d(_x(lib, 1, 1, 2, 2), 3),
    "max_pool2d_pad_too_big": lambda lib: lib.nn.functional.max_pool2d(_x(lib, 1, 1, 4, 4), 2,
                                                                       padding=2),
    "avg_pool1d_bad_rank": lambda lib: lib.nn.functional.avg_pool1d(_x(lib, 4), 2),
    "adaptive_avg_pool2d_short_input": lambda lib: lib.nn.functional.adaptive_avg_pool2d(
        _x(lib, 1, 2, 2), (1, 2, 3)),
    "adaptive_max_pool2d_short_input": lambda lib: lib.nn.functional.adaptive_max_pool2d(
        _x(lib, 2, 2), (1, None)),
    "adaptive_avg_pool3d_short_input": lambda lib: lib.nn.functional.adaptive_avg_pool3d(
        _x(lib, 2, 2, 2), (1, 1, 1)),
    "adaptive_avg_pool2d_int_size": lambda lib: lib.nn.functional.adaptive_avg_pool2d(
        _x(lib, 2), 3),
    "adaptive_max_pool2d_size_length": lambda lib: lib.nn.functional.adaptive_max_pool2d(
        _x(lib, 1, 1, 2, 2), (1, 2, 3)),
    "adaptive_avg_pool1d_two_sizes": lambda lib: lib.nn.functional.adaptive_avg_pool1d(
        _x(lib, 1, 1, 2), (1, 2)),
    "adaptive_max_pool1d_no_size": lambda lib: lib.nn.functional.adaptive_max_pool1d(
        _x(lib, 1, 1, 2), []),
    "avg_pool2d_2d_input": lambda lib: lib.nn.functional.avg_pool2d(_x(lib, 4, 4), 2),
    "lp_pool2d_1d_input": lambda lib: lib.nn.functional.lp_pool2d(_x(lib, 4), 2, 2),
    "avg_pool3d_2d_input": lambda lib: lib.nn.functional.avg_pool3d(_x(lib, 4, 4), 2),
    "interpolate_no_size": lambda lib: lib.nn.functional.interpolate(_x(lib, 1, 1, 2)),
    "interpolate_both": lambda lib: lib.nn.functional.interpolate(_x(lib, 1, 1, 2), size=3,
                                                                  scale_factor=2),
    "interpolate_bad_mode": lambda lib: lib.nn.functional.interpolate(_x(lib, 1, 1, 2), size=3,
                                                                      mode="bilinear"),
    "pad_reflect_too_big": lambda lib: lib.nn.functional.pad(_x(lib, 1, 2, 2), (2, 2),
                                                             mode="reflect"),
    "pad_odd_length": lambda lib: lib.nn.functional.pad(_x(lib, 2, 2), (1,)),
    # normalization and linear
    "layer_norm_shape": lambda lib: lib.nn.functional.layer_norm(_x(lib, 2, 3), (2,)),
    "batch_norm_running_shape": lambda lib: lib.nn.functional.batch_norm(
        _x(lib, 2, 3), lib.zeros(2), lib.ones(2)),
    "batch_norm_one_value": lambda lib: lib.nn.functional.batch_norm(
        _x(lib, 1, 3), None, None, training=True),
    "group_norm_groups": lambda lib: lib.nn.functional.group_norm(_x(lib, 2, 3, 2), 2),
    "instance_norm_one_value": lambda lib: lib.nn.functional.instance_norm(_x(lib, 2, 3, 1)),
    "linear_mismatch": lambda lib: lib.nn.functional.linear(_x(lib, 2, 3), _x(lib, 4, 2)),
    "bilinear_mismatch": lambda lib: lib.nn.functional.bilinear(
        _x(lib, 2, 3), _x(lib, 2, 2), _x(lib, 1, 3, 3)),
    "embedding_out_of_range": lambda lib: lib.nn.functional.embedding(
        lib.tensor([3]), _x(lib, 3, 2)),
    "embedding_float_index": lambda lib: lib.nn.functional.embedding(
        lib.tensor([1.0]), _x(lib, 3, 2)),
    # random
    "multinomial_too_many": lambda lib: lib.multinomial(lib.ones(3), 4),
    "multinomial_negative": lambda lib: lib.multinomial(lib.tensor([1.0, -1.0]), 1),
    "normal_negative_std": lambda lib: lib.normal(lib.zeros(2), -1.0),
    "randint_empty_range": lambda lib: lib.randint(3, 3, (2,)),
    "bernoulli_bad_p": lambda lib: lib.bernoulli(lib.tensor([1.5])),
    "randperm_negative": lambda lib: lib.randperm(-1),
    "dropout_bad_p": lambda lib: lib.nn.functional.dropout(_x(lib, 2), 1.5),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_argument_raises_like_torch(torch, name):
    compare_error(torch, BAD_CALLS[name])
