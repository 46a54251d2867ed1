"""What every kernel module shares: numba's options, and the register reinterpretations
(a float's bits as an integer and back) that the NumPy code does with `.view`."""
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = ["OPTIONS", "float_bits", "float_from_bits", "double_from_bits"]

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
