//===- NA2C.h - Neighbourhood Actor Advantage Critic search -----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// N-A2C (Zhang et al., "Compiler-Level Matrix Multiplication Optimization for
// Deep Learning", papers 000/002, Algorithm 2) is registered as "na2c" in the
// strategy registry. This header exposes the fixed, labelled action set the
// actor network chooses from: every move of the space's neighbourhood
// topology gets a stable action index, so a policy over a fixed number of
// outputs can be learned.
//
// Action labels per parameter kind (the moves themselves come from
// Space::getNeighbors; this class only names them):
// - factorization with primes p_1..p_r and nu factors: "move one prime p
//   from slot i to slot j" (i != j), r * nu * (nu - 1) labels. For a power of
//   two this is exactly the paper's action set (slot j doubles, slot i
//   halves); for other sizes it generalises it to every prime factor.
// - permutation of n elements: "swap positions i < j", n(n-1)/2 labels.
// - discrete: "previous value" and "next value", 2 labels.
// - categorical with c choices: "set to choice k", c labels.
// An action is allowed in a state when the move exists there (e.g. slot i
// holds p) and the successor satisfies the space's constraints.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SEARCH_NA2C_H
#define TILETUNE_SEARCH_NA2C_H

#include "tiletune/Space/Space.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::tiletune {

/// The labelled neighbourhood moves of a space (see the file comment).
class NeighborActionSpace {
public:
  /// Builds the label layout of `space` (kept by reference: the space must
  /// outlive this object).
  explicit NeighborActionSpace(const Space &space);

  /// Total number of action labels (the actor's output width).
  unsigned getNumActions() const { return numActions; }

  /// Appends (action, successor) for every allowed action of `config`, in
  /// ascending action order: moves of Space::getNeighbors whose successor is
  /// valid in the space.
  void
  getActions(const Config &config,
             llvm::SmallVectorImpl<std::pair<unsigned, Config>> &out) const;

  /// The label of the single-parameter move `from` -> `to`, or std::nullopt
  /// when the two configs are not neighbours of the kinds above.
  std::optional<unsigned> labelMove(const Config &from, const Config &to) const;

  /// Human-readable description of an action, e.g. "m: move 2 from 0 to 3".
  std::string describe(unsigned action) const;

private:
  const Space &space;
  /// First label of each parameter, plus a final entry = numActions.
  llvm::SmallVector<unsigned> base;
  unsigned numActions = 0;
};

} // namespace mlir::tiletune

#endif // TILETUNE_SEARCH_NA2C_H
