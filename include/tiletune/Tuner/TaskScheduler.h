//===- TaskScheduler.h - Trials across a model's ops under a budget -*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// Which op of a model gets the next round of trials. The objective is the
// model's time, f = sum_i w_i * g_i (w_i: how many ops of the model share
// problem i, g_i: its best measured time so far); each round goes to the task
// whose estimated rate of decrease of f per second of tuning is largest. The
// estimate follows Ansor's gradient-based task scheduler (Zheng et al., OSDI
// 2020, section 6): a backward-window rate of improvement mixed with an
// optimistic forward guess, which uses the best throughput of similar tasks
// (same op family). Pure bookkeeping, no measuring: the driver runs the
// rounds and reports what they found. See docs/Tuning.md ("Whole-model
// tuning under a time budget").
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TUNER_TASKSCHEDULER_H
#define TILETUNE_TUNER_TASKSCHEDULER_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tiletune {

/// One task: a unique problem of the model.
struct SchedulerTask {
  /// Ops of the model that run this problem (w_i).
  double weight = 1;
  /// Floating-point operations of one execution (C_i); 0 when unknown.
  double flops = 0;
  /// Tasks of the same group are "similar" (the op family, e.g. "matmul").
  std::string group;
};

struct TaskSchedulerOptions {
  /// Trials of a round after the warm-up (the driver keeps it a multiple of
  /// its batch size).
  int64_t roundTrials = 8;
  /// Rounds the backward window looks back (Ansor's delta-t, in rounds).
  unsigned backwardWindow = 3;
  /// Weight of the backward rate against the forward guess (Ansor's alpha).
  double alpha = 0.2;
  /// How far beyond the best similar task's throughput a task may still get
  /// (Ansor's beta).
  double beta = 2;
  /// A task whose best time did not improve in its last `patienceRounds`
  /// rounds is stalled: it gets a round only when no improving task's round
  /// fits in the budget (0: never stalled).
  unsigned patienceRounds = 3;
};

/// The gradient-based task scheduler. Call record() after every round of a
/// task (the warm-up round included), then next() for the task of the
/// following round.
class TaskScheduler {
public:
  TaskScheduler(std::vector<SchedulerTask> tasks,
                TaskSchedulerOptions options = {});

  unsigned getNumTasks() const { return tasks.size(); }

  /// A round of `task` ended: `trials` is its total trial count now,
  /// `bestSeconds` its best time so far (<= 0: nothing ran correctly yet)
  /// and `roundSeconds` the wall time the round took.
  void record(unsigned task, int64_t trials, double bestSeconds,
              double roundSeconds);
  /// The task cannot get more trials (its search space is exhausted, or
  /// measuring it failed).
  void retire(unsigned task);
  bool isRetired(unsigned task) const { return state[task].retired; }
  /// No improvement in the last `patienceRounds` rounds.
  bool isStalled(unsigned task) const;

  /// The task whose next round is expected to lower the objective the most
  /// per second of tuning; tasks without a round yet come first, in order
  /// (the warm-up), stalled tasks last. None when every task is retired or a round of the chosen
  /// task would not fit in `secondsLeft` (its estimated cost).
  std::optional<unsigned> next(double secondsLeft) const;

  /// Estimated decrease of the objective per second of tuning of `task`'s
  /// next round (>= 0), as next() compares them.
  double getGain(unsigned task) const;
  /// The objective: sum of weight x best time over tasks with a result.
  double getObjective() const;
  /// Estimated wall time of `task`'s next round (the mean per trial so far
  /// times the round's trials), 0 before any round.
  double estimateRoundSeconds(unsigned task) const;
  int64_t getTrials(unsigned task) const { return state[task].trials; }
  double getBestSeconds(unsigned task) const;
  unsigned getRounds(unsigned task) const { return state[task].history.size(); }

private:
  struct Point {
    int64_t trials;
    double best;
  };
  struct State {
    std::vector<Point> history;
    int64_t trials = 0;
    double seconds = 0;
    bool retired = false;
  };
  std::vector<SchedulerTask> tasks;
  TaskSchedulerOptions options;
  std::vector<State> state;
};

/// Parses a duration: a number of seconds with an optional unit suffix s, m
/// or h ("90", "90s", "10m", "1.5h"). Errors name what was expected.
std::optional<double> parseDuration(const std::string &text,
                                    std::string *error = nullptr);

} // namespace mlir::tiletune

#endif // TILETUNE_TUNER_TASKSCHEDULER_H
