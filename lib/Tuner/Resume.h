//===- Resume.h - Start, resume and checkpoint a tuning run -----*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// RunJournal (private to lib/Tuner) is the tuning loop's view of its run in
// the database: it starts a new run, or resumes an unfinished one (same
// settings, owner process gone, strategy checkpoint loaded), holds the
// recorded results still to be replayed, and writes strategy checkpoints in
// the format that a resume reads.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_LIB_TUNER_RESUME_H
#define TILETUNE_LIB_TUNER_RESUME_H

#include "tiletune/Tuner/Tuner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <deque>
#include <optional>
#include <string>

namespace mlir {
namespace tiletune {
namespace detail {

/// Compact JSON text, as the database stores it.
std::string jsonText(const llvm::json::Value &value);

/// The tuning loop's run record: starting or resuming it, replaying what it
/// recorded, and checkpointing the strategy.
class RunJournal {
public:
  RunJournal(TileTuneDatabase &db, Strategy &strategy, const TunerOptions &opts,
             llvm::raw_ostream &out)
      : db(db), strategy(strategy), opts(opts), out(out) {}

  /// The settings a run is resumed with only when they are unchanged (its
  /// "trajectory": strategy, its options, space, batch size, default
  /// config, ...), as recorded in the run's options.
  static llvm::json::Object settingsOf(const Space &space,
                                       const Strategy &strategy,
                                       const TunerOptions &opts,
                                       const Config &defaultConfig);

  /// Starts a new run with \p settings, or with TunerOptions::resume
  /// continues the most recent unfinished run of this problem, target,
  /// strategy and seed if there is one: checks that it was recorded with
  /// \p settings and that no live process tunes it, takes it over, loads its
  /// strategy checkpoint and reads its results back. Each recorded result
  /// goes to Measurer::replayed of \p measurer, then to \p replayed when the
  /// checkpoint covers it (the strategy has observed it), otherwise to the
  /// replay queue. Returns whether a run was resumed; errors say why it
  /// cannot be.
  llvm::Expected<bool>
  startOrResume(const llvm::json::Object &settings, Measurer &measurer,
                llvm::function_ref<void(MeasurementRecord record)> replayed);

  /// The run being tuned (id 0 before startOrResume()).
  const RunInfo &getRun() const { return run; }
  /// Tuning time of the run before this session (0 for a new run).
  double getPriorElapsed() const { return run.elapsedSeconds; }

  /// Whether recorded results remain to be replayed.
  bool isReplaying() const { return !replayQueue.empty(); }
  /// Whether the next recorded result to replay is a final re-measurement
  /// (the recorded run ended its search there).
  bool isReplayingFinal() const {
    return !replayQueue.empty() &&
           replayQueue.front().role == MeasurementRole::Final;
  }

  /// Replays the queued results that answer the configs of a batch (config
  /// keys \p keys, all of role \p role) that are not \p have yet: they come
  /// next in the queue, in the order they completed. Calls \p replayed with
  /// the batch index and the record of each, and sets \p have. Fails when
  /// configs remain unanswered while the queue holds a result for another
  /// config: the search no longer follows the recorded run. With
  /// \p searchMayEnd (the time budget is over), a search batch followed by
  /// the final re-measurement is where the recorded run's time budget ended
  /// its search: the configs after its last result were never measured, and
  /// this is no error.
  llvm::Error replay(
      llvm::ArrayRef<std::string> keys, MeasurementRole role,
      llvm::MutableArrayRef<bool> have,
      llvm::function_ref<void(size_t index, MeasurementRecord record)> replayed,
      bool searchMayEnd = false);

  /// Saves the strategy's state as the run's checkpoint, covering the first
  /// \p consumed recorded results.
  llvm::Error saveCheckpoint(size_t consumed);

private:
  /// Records a new run with \p settings and the tuner's options.
  llvm::Error start(llvm::json::Object settings);
  /// Continues \p previous (see startOrResume).
  llvm::Error
  resume(RunInfo previous, const llvm::json::Object &settings,
         Measurer &measurer,
         llvm::function_ref<void(MeasurementRecord record)> replayed);

  /// Why no run can be resumed: the problem, algorithm, seed and target
  /// looked for, and how the most recent unfinished run of the problem
  /// differs (algorithm, seed, threads, target) when there is one.
  std::string describeNoRunToResume();
  /// The error for a run that cannot be resumed, and why.
  llvm::Error cannotResume(const RunInfo &previous, const llvm::Twine &why);
  /// Checks that \p previous was recorded with \p settings.
  llvm::Error checkSettings(const RunInfo &previous,
                            const llvm::json::Object &settings);
  /// Makes this process the owner of \p previous unless a live process
  /// tunes it.
  llvm::Error claim(RunInfo &previous);
  /// The measurements of \p previous, checked to be contiguous.
  llvm::Expected<llvm::SmallVector<MeasurementRecord, 0>>
  readResults(const RunInfo &previous);
  /// Loads the checkpoint of \p previous into the strategy; returns how many
  /// of \p results it covers (0 without a checkpoint).
  llvm::Expected<size_t>
  loadCheckpoint(const RunInfo &previous,
                 llvm::ArrayRef<MeasurementRecord> results);

  TileTuneDatabase &db;
  Strategy &strategy;
  const TunerOptions &opts;
  llvm::raw_ostream &out;

  RunInfo run;
  /// Recorded measurements still to be replayed (resume).
  std::deque<MeasurementRecord> replayQueue;
};

} // namespace detail
} // namespace tiletune
} // namespace mlir

#endif // TILETUNE_LIB_TUNER_RESUME_H
