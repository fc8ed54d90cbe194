//===- Progress.h - Progress bar and summary of the tuning loop -*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// What the tuning loop prints while it runs (private to lib/Tuner): the
// one-line progress bar, the closing summary of a run, and the two duration
// formats they use.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_TUNER_PROGRESS_H
#define TILETUNE_LIB_TUNER_PROGRESS_H

#include "tiletune/Tuner/Tuner.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace mlir {
namespace tiletune {
namespace detail {

/// A duration as a clock reading, hours only when needed: "1:02:03" or
/// "2:03".
std::string formatClock(double seconds);

/// A time with three significant digits in s, ms or us: "1.23 ms". (Not
/// Measure/Timing.h's formatDuration, which prints three decimals: "1.230
/// ms".)
std::string formatSeconds(double seconds);

/// The state of the loop that a progress line shows.
struct ProgressState {
  /// Default and search measurements so far, and the trial budget (0: none).
  int64_t trialsDone = 0;
  int64_t maxTrials = 0;
  /// Tuning time of the run so far, and the time budget (0: none).
  double elapsedSeconds = 0;
  double maxSeconds = 0;
  /// The best Ok result so far; null before there is one.
  const MeasureResult *best = nullptr;
  double variantsPerSecond = 0;
  /// Results read back from the database on resume.
  int64_t replayed = 0;
};

/// Prints the progress bar: on a terminal one line redrawn in place (at most
/// every 0.1 s), elsewhere one line per update (at most every 5 s), e.g.
/// (one line, wrapped here)
///   tiletune [####................] 12/64 trials | best 81.2 GFLOP/s
///   1.23 ms | 3.4 variants/s | 0:42/5:00 | 8 replayed
class TunerProgress {
public:
  explicit TunerProgress(llvm::raw_ostream &out) : out(out) {}

  /// Prints \p state unless a line was printed too recently; a \p final
  /// update always prints and ends the line on a terminal.
  void update(const ProgressState &state, bool final);

  /// Prints the closing line of a run: its status, why it stopped, the
  /// trials, and the best time with its speed-up over the default.
  void summarize(const TuneResult &result);

private:
  using Clock = std::chrono::steady_clock;

  llvm::raw_ostream &out;
  Clock::time_point lastPrint;
  bool printedAny = false;
};

} // namespace detail
} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_LIB_TUNER_PROGRESS_H
