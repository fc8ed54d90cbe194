//===- Deadline.h - A point in time slow work stops at ----------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// A wall-clock deadline on the steady clock, or none. The tuning loop hands
// the end of its time budget to the search strategies; their slow work (a
// cost model's fit, simulated annealing, N-A2C's training) polls it and stops
// early with what it has. Header-only, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_DEADLINE_H
#define TILETUNE_SUPPORT_DEADLINE_H

#include <algorithm>
#include <chrono>
#include <optional>

namespace mlir::tiletune {

/// A point in time on the steady clock after which work should stop, or
/// none (the default: never passes).
class Deadline {
public:
  using Clock = std::chrono::steady_clock;

  /// No deadline.
  Deadline() = default;
  /// The deadline \p at.
  explicit Deadline(Clock::time_point at) : at(at) {}
  /// The deadline \p seconds from now (may be negative: already passed).
  static Deadline in(double seconds) {
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds)));
  }

  /// Whether there is a deadline.
  bool isSet() const { return at.has_value(); }
  /// The point in time, if any.
  std::optional<Clock::time_point> get() const { return at; }
  /// Whether the deadline is set and has passed.
  bool passed() const { return at && Clock::now() >= *at; }
  /// Seconds until the deadline (negative once passed); none without one.
  std::optional<double> secondsLeft() const {
    if (!at)
      return std::nullopt;
    return std::chrono::duration<double>(*at - Clock::now()).count();
  }
  /// The earlier of two deadlines (a deadline is earlier than none).
  static Deadline earliest(const Deadline &a, const Deadline &b) {
    if (!a.at)
      return b;
    if (!b.at)
      return a;
    return Deadline(std::min(*a.at, *b.at));
  }

private:
  std::optional<Clock::time_point> at;
};

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_DEADLINE_H
