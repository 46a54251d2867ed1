"""What every kernel module shares: numba's options, the register reinterpretations
(a float's bits as an integer and back) that the NumPy code does with `.view`, and a
fused multiply-add for the kernels that replay PyTorch's own fused arithmetic."""
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = ["OPTIONS", "float_bits", "float_from_bits", "double_from_bits", "fma32"]

# Release the GIL (the elementwise threads run kernels side by side), keep the machine code
# on disk, and divide by zero as NumPy does (inf or NaN) instead of raising.
OPTIONS = dict(nogil=True, cache=True, error_model="numpy")


def _bitcast(source, target, llvm_type):
    """An intrinsic giving the `target` value whose bits are those of its `source` value."""
    def reinterpret(typingctx, value):
        def codegen(context, builder, signature, args):
            return builder.bitcast(args[0], llvm_type)
        return target(source), codegen
    return intrinsic(reinterpret)


float_bits = _bitcast(types.float32, types.int32, ir.IntType(32))
float_from_bits = _bitcast(types.int32, types.float32, ir.FloatType())
double_from_bits = _bitcast(types.int64, types.float64, ir.DoubleType())


@intrinsic
def fma32(typingctx, a, b, c):
    """a * b + c for float32 values, rounded once (LLVM's fma: one instruction on CPUs with
    FMA3). numba never fuses on its own; SLEEF's float32 routines, which PyTorch's
    vectorized kernels call, fuse at every step of their polynomials."""
    def codegen(context, builder, signature, args):
        return builder.fma(*args)
    return types.float32(types.float32, types.float32, types.float32), codegen
