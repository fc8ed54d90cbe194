//===- Epilogue.h - The elementwise epilogue of a tunable op ----*- C++ -*-===//
//
// The epilogue of a tunable op is the chain of elementwise linalg ops that
// frontends put after a matmul or convolution (bias add, ReLU, clamp,
// residual add, scaling, GELU in tanh form, ...). One definition serves the
// three places that must agree on it: the CPU tiling that fuses the chain
// into the op's loop nest (`fuse-epilogues`), the tuning problem whose key
// and standalone kernel include it, and the reference that verifies the
// fused kernel (it evaluates exactly the scalar ops isEpilogueBodyOp
// accepts).
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_EPILOGUE_H
#define TILETUNE_DIALECT_EPILOGUE_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::tiletune {

/// Whether `op` may appear in the body of an epilogue op: the float
/// arithmetic of arith (add, sub, mul, div, neg, min/max, compare, select,
/// constants) and the math ops our CPU lowering turns into code (tanh, exp,
/// absf, sqrt, fma).
bool isEpilogueBodyOp(Operation *op);

/// The epilogue chain of a tunable op on tensors: starting at the op's
/// result, each value has a single user, an all-parallel linalg op on
/// tensors without a config, with one result of the value's type written
/// through the identity map, that reads the value through the identity map
/// and its other operands through projections (broadcasts), and whose body
/// holds only isEpilogueBodyOp ops; the chain ends at the first value that
/// does not (or at a value with no user). Fails with `reason` when the op's
/// result itself does not qualify (several uses, a reduction, a transposed
/// read, ...); the reason is empty when there is no epilogue at all (an op
/// on buffers, no user, or a single user that is no linalg op, e.g. a
/// return).
FailureOr<SmallVector<Operation *>> findEpilogueChain(Operation *op,
                                                      std::string *reason);

/// Merges into one linalg.generic each elementwise DAG that follows a
/// tunable op on tensors under `root`: where the op's result or the end of
/// its epilogue chain has several users that are elementwise ops of the
/// chain's kind, reading it and each other's results (through the identity
/// map) and ending in one value -- a GELU written out, x * sigmoid(c (x +
/// a x^3)), reads x four times -- the merged op computes their bodies in
/// order and reads the value once, so that the chain goes on through it
/// (findEpilogueChain) and the whole DAG is fused with the op. Users that
/// are no such DAG (a reduction, as a layer norm's mean) are left as they
/// are. Returns how many DAGs were merged. Run where epilogues are found
/// (collectProblems, tiletune-tile-cpu), so that the tuner's problems and
/// the lowering see the same chains.
unsigned mergeEpilogueDAGs(Operation *root);

/// A short, stable description of `op`'s epilogue `chain` for the tuning
/// problem's key:
/// per op, its scalar body ops and, per extra operand, the loops it varies
/// over, e.g. "addf(1:d1)+maximumf" (a bias along d1, then a ReLU). Chains
/// that differ only in constants get the same description: they compile to
/// the same code.
std::string describeEpilogueChain(Operation *op,
                                  ArrayRef<Operation *> chain);

/// The op that sets the tunable op `op`'s init and is fused with the op and
/// its epilogue (frontends start the output from a fill of zero, or, TOSA,
/// from the bias broadcast over it): a linalg.fill, a linalg.broadcast or a
/// linalg.generic that is a fill or a broadcast, on tensors, whose only
/// user is `op`. Null when the init has no such producer.
Operation *getFusableInitProducer(Operation *op);

/// The value every element of the init gets when `producer`
/// (getFusableInitProducer) sets it to one constant: a fill of a constant
/// scalar, or a broadcast of a splat constant. nullopt for any other init
/// (a bias of several values, an argument).
std::optional<double> getSplatInitValue(Operation *producer);

} // namespace mlir::tiletune

#endif // TILETUNE_DIALECT_EPILOGUE_H
