//===- ProblemSpace.h - Spaces of problems and config conversion -*- C++ -*-===//
//
// The bridge between the search core (spaces and configs, no MLIR) and the
// attribute the passes read: the space of a problem (built by the operator
// spaces of the Space library), a space point turned into a
// `#tiletune.config` through the dialect's buildConfig, and back: the one
// place a config changes between the tuner's and the compiler's form. (The
// database stores a config as its space's JSON, Space::toJSON.)
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_PROBLEM_PROBLEMSPACE_H
#define TILETUNE_PROBLEM_PROBLEMSPACE_H

#include "tiletune/Problem/Problem.h"
#include "tiletune/Space/OperatorSpaces.h"
#include "tiletune/Space/Space.h"

#include "llvm/Support/Error.h"

#include <string>

namespace mlir::tiletune {

/// The search core's description of a problem run by `threads` threads.
/// CPU matmul and batch_matmul loops without good divisors get their padded
/// sizes (getCPUPaddedSize, which takes the threads into account): spaces
/// then factorize the padded loops, and configs built from their points pad
/// the op (the `pad` option).
ProblemSpec toProblemSpec(const Problem &problem, unsigned threads = 1);

/// The dialect's description of a problem (element type in `ctx`).
TunableOp toTunableOp(MLIRContext *ctx, const Problem &problem);

/// The search space of `problem` on its target, run by `threads` threads
/// (CPU: its padded sizes depend on them, toProblemSpec).
llvm::Expected<Space> buildProblemSpace(const Problem &problem,
                                        unsigned threads = 1,
                                        const SpaceOptions &options = {});

/// Turns a point of `space` into the attribute. Errors when the config is
/// not valid in the space or the dialect rejects it.
llvm::Expected<TileConfigAttr> configToAttr(MLIRContext *ctx,
                                            const Problem &problem,
                                            const Space &space,
                                            const Config &config);

/// configToAttr without the check against the space's constraints (for
/// constraints that need the attribute themselves).
llvm::Expected<TileConfigAttr> buildConfigAttr(MLIRContext *ctx,
                                               const Problem &problem,
                                               const Space &space,
                                               const Config &config);

/// Turns an attribute into a point of `space` (options missing on the
/// attribute take the space's defaults). Errors when it does not fit.
llvm::Expected<Config> attrToConfig(const Problem &problem, const Space &space,
                                    TileConfigAttr attr);

/// Prints an attribute as text ("#tiletune.config<...>").
std::string printAttr(Attribute attr);

} // namespace mlir::tiletune

#endif // TILETUNE_PROBLEM_PROBLEMSPACE_H
