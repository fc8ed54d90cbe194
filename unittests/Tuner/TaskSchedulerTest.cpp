//===- TaskSchedulerTest.cpp - The whole-model task scheduler -------------===//
//
// Synthetic tasks with known improvement curves, run against a simulated
// clock: the scheduler must give rounds to the task with the largest
// weighted gain and stop at the budget.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuner/TaskScheduler.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>

using namespace mlir::tiletune;

namespace {

/// A synthetic task: its best time after t trials, and seconds per trial.
struct Curve {
  std::function<double(int64_t)> best;
  double secondsPerTrial;
};

/// Decays from `start` to `floor` with time constant `tau` trials.
std::function<double(int64_t)> decay(double start, double floor, double tau) {
  return [=](int64_t t) {
    return floor + (start - floor) * std::exp(-double(t) / tau);
  };
}
std::function<double(int64_t)> flat(double value) {
  return [=](int64_t) { return value; };
}

struct Simulation {
  std::vector<int64_t> trials;
  std::vector<unsigned> order; // the task of each round
  double spent = 0;
};

Simulation simulate(TaskScheduler &scheduler, const std::vector<Curve> &curves,
                    double budget, int64_t warmupTrials = 9) {
  Simulation sim;
  sim.trials.assign(curves.size(), 0);
  while (std::optional<unsigned> task = scheduler.next(budget - sim.spent)) {
    int64_t n = scheduler.getRounds(*task) == 0 ? warmupTrials : 8;
    sim.trials[*task] += n;
    double seconds = n * curves[*task].secondsPerTrial;
    sim.spent += seconds;
    scheduler.record(*task, sim.trials[*task],
                     curves[*task].best(sim.trials[*task]), seconds);
    sim.order.push_back(*task);
    if (sim.order.size() > 10000)
      break;
  }
  return sim;
}

TEST(TaskSchedulerTest, WarmUpGivesEveryTaskARoundFirstInOrder) {
  std::vector<Curve> curves = {{flat(1e-3), 0.1},
                               {decay(5e-3, 1e-3, 40), 0.1},
                               {flat(2e-3), 0.1}};
  TaskScheduler scheduler({{1, 0, "matmul"}, {1, 0, "matmul"}, {1, 0, "conv"}});
  Simulation sim = simulate(scheduler, curves, /*budget=*/20);
  ASSERT_GE(sim.order.size(), 3u);
  EXPECT_EQ(sim.order[0], 0u);
  EXPECT_EQ(sim.order[1], 1u);
  EXPECT_EQ(sim.order[2], 2u);
}

TEST(TaskSchedulerTest, RoundsGoToTheTaskThatIsStillImproving) {
  // Task 0 has converged at the warm-up, task 1 keeps improving for a long
  // time: after the warm-up nearly every round goes to task 1.
  std::vector<Curve> curves = {{flat(4e-3), 0.1},
                               {decay(4e-3, 0.5e-3, 60), 0.1}};
  TaskScheduler scheduler({{1, 0, "a"}, {1, 0, "b"}});
  Simulation sim = simulate(scheduler, curves, /*budget=*/30);
  EXPECT_GT(sim.trials[1], 4 * sim.trials[0]);
}

TEST(TaskSchedulerTest, TheWeightedGainDecides) {
  // Identical curves; task 1 runs three times per model call, so its rounds
  // lower the objective three times as much.
  std::vector<Curve> curves = {{decay(4e-3, 1e-3, 50), 0.1},
                               {decay(4e-3, 1e-3, 50), 0.1}};
  TaskScheduler scheduler({{1, 0, "a"}, {3, 0, "a"}});
  Simulation sim = simulate(scheduler, curves, /*budget=*/20);
  EXPECT_GT(sim.trials[1], sim.trials[0]);
  // The first round after the warm-up goes to the heavier task.
  ASSERT_GE(sim.order.size(), 3u);
  EXPECT_EQ(sim.order[2], 1u);
  // And the gain the scheduler reports is larger for it at equal progress.
  TaskScheduler fresh({{1, 0, "a"}, {3, 0, "a"}});
  fresh.record(0, 9, 3e-3, 0.9);
  fresh.record(1, 9, 3e-3, 0.9);
  EXPECT_NEAR(fresh.getGain(1), 3 * fresh.getGain(0), 1e-12);
}

TEST(TaskSchedulerTest, CheaperTrialsWinAtEqualGainPerTrial) {
  // Same curves and weights, but task 0's trials take four times as long.
  TaskScheduler scheduler({{1, 0, "a"}, {1, 0, "a"}});
  scheduler.record(0, 9, 3e-3, 9 * 0.4);
  scheduler.record(1, 9, 3e-3, 9 * 0.1);
  EXPECT_EQ(scheduler.next(100), 1u);
}

TEST(TaskSchedulerTest, SimilarTasksMakeASlowTaskLookPromising) {
  // Both tasks are matmuls of the same FLOPs; task 1 runs 10x slower than
  // task 0, so the similarity term says it has much left to gain.
  TaskScheduler scheduler({{1, 1e9, "matmul"}, {1, 1e9, "matmul"}});
  scheduler.record(0, 100, 1e-2, 10);
  scheduler.record(1, 100, 1e-1, 10);
  double optimistic = 1e-1 / 100; // g/t
  double similar = 1e-1 - 2 * 1e9 / (1e9 / 1e-2); // g - beta*C/V
  EXPECT_NEAR(scheduler.getGain(1), 0.8 * std::max(optimistic, similar) / 0.1,
              1e-12);
  EXPECT_EQ(scheduler.next(100), 1u);
}

TEST(TaskSchedulerTest, StalledTasksComeLast) {
  TaskScheduler scheduler({{1, 0, "a"}, {1, 0, "a"}});
  // Task 0 is slow but has not improved in four rounds; task 1 improves.
  for (int64_t round = 1; round <= 4; ++round) {
    scheduler.record(0, 8 * round, 9e-3, 0.8);
    scheduler.record(1, 8 * round, 1e-3 / double(round), 0.8);
  }
  EXPECT_TRUE(scheduler.isStalled(0));
  EXPECT_FALSE(scheduler.isStalled(1));
  EXPECT_GT(scheduler.getGain(0), scheduler.getGain(1));
  EXPECT_EQ(scheduler.next(100), 1u);
  // Only a stalled task left: it still gets the remaining budget.
  scheduler.retire(1);
  EXPECT_EQ(scheduler.next(100), 0u);
}

TEST(TaskSchedulerTest, StopsAtTheBudget) {
  std::vector<Curve> curves = {{decay(4e-3, 1e-3, 50), 0.25},
                               {decay(8e-3, 1e-3, 50), 0.5}};
  TaskScheduler scheduler({{1, 0, "a"}, {1, 0, "a"}});
  Simulation sim = simulate(scheduler, curves, /*budget=*/60);
  // Warm-up rounds are 9 trials (2.25 s and 4.5 s), later ones 8 trials
  // (2 s and 4 s): the rounds stop within one round of the budget and never
  // start one whose estimated cost exceeds what is left.
  EXPECT_LE(sim.spent, 60 + 0.5);
  EXPECT_GT(sim.spent, 60 - 4.5);
  EXPECT_FALSE(scheduler.next(0).has_value());
}

TEST(TaskSchedulerTest, RetiredTasksGetNoRounds) {
  TaskScheduler scheduler({{1, 0, "a"}, {5, 0, "a"}});
  scheduler.record(0, 9, 1e-3, 1);
  scheduler.record(1, 9, 1e-3, 1);
  scheduler.retire(1);
  EXPECT_EQ(scheduler.next(100), 0u);
  scheduler.retire(0);
  EXPECT_FALSE(scheduler.next(100).has_value());
}

TEST(TaskSchedulerTest, ATaskWithoutAResultHasNoGain) {
  TaskScheduler scheduler({{1, 0, "a"}});
  scheduler.record(0, 9, /*bestSeconds=*/0, 1);
  EXPECT_EQ(scheduler.getGain(0), 0);
  EXPECT_EQ(scheduler.getObjective(), 0);
}

TEST(TaskSchedulerTest, ParsesDurations) {
  EXPECT_EQ(parseDuration("90"), 90);
  EXPECT_EQ(parseDuration("90s"), 90);
  EXPECT_EQ(parseDuration("10m"), 600);
  EXPECT_EQ(parseDuration("1.5h"), 5400);
  EXPECT_EQ(parseDuration("0.5s"), 0.5);
  std::string error;
  EXPECT_FALSE(parseDuration("10x", &error));
  EXPECT_NE(error.find("'10x' is not a duration"), std::string::npos);
  EXPECT_FALSE(parseDuration("", &error));
  EXPECT_FALSE(parseDuration("m", &error));
  EXPECT_FALSE(parseDuration("-5m", &error));
  EXPECT_FALSE(parseDuration("inf", &error));
}

} // namespace
