//===- Progress.cpp - Progress bar and summary of the tuning loop ---------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The progress bar (trials against the budget, best result, variants per
// second, time against the budget, replayed results), the closing summary
// of a run, and their duration formats.
//
//===----------------------------------------------------------------------===//

#include "Progress.h"

#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;

//===----------------------------------------------------------------------===//
// Formats
//===----------------------------------------------------------------------===//

std::string mlir::tiletune::detail::formatClock(double seconds) {
  int64_t total = static_cast<int64_t>(seconds);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (total >= 3600)
    os << total / 3600 << ':' << llvm::format("%02d", int((total / 60) % 60));
  else
    os << total / 60;
  os << ':' << llvm::format("%02d", int(total % 60));
  return text;
}

std::string mlir::tiletune::detail::formatSeconds(double seconds) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (seconds >= 1)
    os << llvm::format("%.3g s", seconds);
  else if (seconds >= 1e-3)
    os << llvm::format("%.3g ms", seconds * 1e3);
  else
    os << llvm::format("%.3g us", seconds * 1e6);
  return text;
}

//===----------------------------------------------------------------------===//
// TunerProgress
//===----------------------------------------------------------------------===//

void TunerProgress::update(const ProgressState &state, bool final) {
  bool terminal = out.is_displayed();
  auto now = Clock::now();
  double sincePrint = std::chrono::duration<double>(now - lastPrint).count();
  if (!final && printedAny && sincePrint < (terminal ? 0.1 : 5.0))
    return;
  lastPrint = now;
  printedAny = true;

  // The bar shows the larger of the trial and the time budget's fraction.
  double fraction = 0;
  if (state.maxTrials > 0)
    fraction = double(state.trialsDone) / double(state.maxTrials);
  if (state.maxSeconds > 0)
    fraction = std::max(fraction, state.elapsedSeconds / state.maxSeconds);
  fraction = std::min(1.0, std::max(0.0, fraction));
  constexpr int kWidth = 20;
  int filled = static_cast<int>(fraction * kWidth);

  std::string line;
  llvm::raw_string_ostream os(line);
  os << "tiletune [" << std::string(filled, '#')
     << std::string(kWidth - filled, '.') << "] " << state.trialsDone;
  if (state.maxTrials > 0)
    os << '/' << state.maxTrials;
  os << " trials";
  if (state.best) {
    os << " | best ";
    if (state.best->gflops > 0)
      os << llvm::format("%.1f GFLOP/s ", state.best->gflops);
    os << formatSeconds(state.best->time.seconds());
  }
  os << " | " << llvm::format("%.1f", state.variantsPerSecond)
     << " variants/s | " << formatClock(state.elapsedSeconds);
  if (state.maxSeconds > 0)
    os << '/' << formatClock(state.maxSeconds);
  if (state.replayed > 0)
    os << " | " << state.replayed << " replayed";

  if (terminal)
    out << '\r' << line << "\x1b[K" << (final ? "\n" : "");
  else
    out << line << '\n';
  out.flush();
}

void TunerProgress::summarize(const TuneResult &result) {
  out << "tiletune: run " << result.runId << " "
      << stringifyRunStatus(result.status) << " (" << result.stopReason
      << "): " << result.trials << " trials";
  if (result.stopReason == "time") {
    out << llvm::format("; the time budget ended the search at %.1f s",
                        result.searchEndSeconds);
    if (result.unmeasuredAtDeadline > 0)
      out << " (" << result.unmeasuredAtDeadline << " proposed candidate"
          << (result.unmeasuredAtDeadline == 1 ? "" : "s") << " not measured)";
    if (result.elapsedSeconds > result.searchEndSeconds + 0.05)
      out << llvm::format(", confirming the winner took %.1f s",
                          result.elapsedSeconds - result.searchEndSeconds);
  }
  if (result.best) {
    out << ", best " << formatSeconds(result.bestResult.time.seconds());
    if (result.bestResult.gflops > 0)
      out << llvm::format(" (%.1f GFLOP/s)", result.bestResult.gflops);
    if (result.bestIsDefault)
      out << ", the default config is kept (no variant was faster)";
    else if (result.defaultResult.ok() && result.bestResult.time.seconds() > 0)
      out << llvm::format(", %.2fx over the default",
                          result.defaultResult.time.seconds() /
                              result.bestResult.time.seconds());
  }
  out << "\n";
  out.flush();
}
