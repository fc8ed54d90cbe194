//===- TaskScheduler.cpp - Trials across a model's ops under a budget -----===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// The gradient of the objective f = sum_i w_i g_i with respect to task i's
// trials t_i is estimated as Ansor does:
//
//   df/dt_i ~ w_i * ( alpha * backward_i + (1 - alpha) * forward_i )
//   backward_i = (g_i(t_i - dt) - g_i(t_i)) / dt          (last rounds)
//   forward_i  = max( g_i(t_i) / t_i,                     (optimistic)
//                     g_i(t_i) - beta * C_i / max_k V_k )  (similar tasks)
//
// (signs flipped: these are gains, >= 0). Unlike Ansor, which spends trials,
// the budget here is time, so the gain per trial is divided by the task's
// measured seconds per trial: a round goes where it buys the most model time
// per second of tuning. Like TVM's implementation of it, a task that has
// stopped improving (no better time in its last few rounds) is set aside:
// it gets rounds only when no improving task's round fits.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Tuner/TaskScheduler.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdlib>

using namespace mlir::tiletune;

TaskScheduler::TaskScheduler(std::vector<SchedulerTask> tasks,
                             TaskSchedulerOptions options)
    : tasks(std::move(tasks)), options(options), state(this->tasks.size()) {}

void TaskScheduler::record(unsigned task, int64_t trials, double bestSeconds,
                           double roundSeconds) {
  assert(task < state.size() && "no such task");
  State &s = state[task];
  s.seconds += std::max(0.0, roundSeconds);
  s.trials = std::max(s.trials, trials);
  s.history.push_back(Point{s.trials, bestSeconds > 0 ? bestSeconds : 0});
}

void TaskScheduler::retire(unsigned task) {
  assert(task < state.size() && "no such task");
  state[task].retired = true;
}

double TaskScheduler::getBestSeconds(unsigned task) const {
  const State &s = state[task];
  return s.history.empty() ? 0 : s.history.back().best;
}

double TaskScheduler::getObjective() const {
  double f = 0;
  for (unsigned i = 0; i < tasks.size(); ++i)
    f += tasks[i].weight * getBestSeconds(i);
  return f;
}

double TaskScheduler::estimateRoundSeconds(unsigned task) const {
  const State &s = state[task];
  if (s.trials <= 0 || s.seconds <= 0)
    return 0;
  return s.seconds / double(s.trials) * double(options.roundTrials);
}

double TaskScheduler::getGain(unsigned task) const {
  const State &s = state[task];
  if (s.retired || s.history.empty())
    return 0;
  const Point &now = s.history.back();
  if (now.best <= 0 || now.trials <= 0)
    return 0; // Nothing ran correctly: nothing to improve on.

  // Backward: the improvement over the last `backwardWindow` rounds, per
  // trial.
  size_t back = s.history.size() - 1 >= options.backwardWindow
                    ? s.history.size() - 1 - options.backwardWindow
                    : 0;
  const Point &then = s.history[back];
  double backward = 0;
  if (now.trials > then.trials && then.best > 0)
    backward = std::max(0.0, then.best - now.best) /
               double(now.trials - then.trials);

  // Forward: optimistic (the time could reach 0 in as many trials again),
  // or what the best similar task's throughput says is left.
  double forward = now.best / double(now.trials);
  const SchedulerTask &self = tasks[task];
  if (self.flops > 0) {
    double bestRate = 0; // FLOP/s of the best similar task
    for (unsigned k = 0; k < tasks.size(); ++k) {
      double best = getBestSeconds(k);
      if (tasks[k].group == self.group && tasks[k].flops > 0 && best > 0)
        bestRate = std::max(bestRate, tasks[k].flops / best);
    }
    if (bestRate > 0)
      forward =
          std::max(forward, now.best - options.beta * self.flops / bestRate);
  }
  double perTrial = self.weight * (options.alpha * backward +
                                   (1 - options.alpha) * forward);
  double secondsPerTrial =
      s.seconds > 0 && s.trials > 0 ? s.seconds / double(s.trials) : 1;
  return perTrial / secondsPerTrial;
}

bool TaskScheduler::isStalled(unsigned task) const {
  const State &s = state[task];
  unsigned patience = options.patienceRounds;
  if (patience == 0 || s.history.size() <= patience)
    return false;
  double then = s.history[s.history.size() - 1 - patience].best;
  return then > 0 && s.history.back().best >= then;
}

std::optional<unsigned> TaskScheduler::next(double secondsLeft) const {
  if (secondsLeft <= 0)
    return std::nullopt;
  // Warm-up: every task gets a first round, in order.
  for (unsigned i = 0; i < tasks.size(); ++i)
    if (!state[i].retired && state[i].history.empty())
      return i;
  // The largest gain among improving tasks, else among stalled ones.
  for (bool stalled : {false, true}) {
    std::optional<unsigned> chosen;
    double chosenGain = -1;
    for (unsigned i = 0; i < tasks.size(); ++i) {
      if (state[i].retired || isStalled(i) != stalled ||
          estimateRoundSeconds(i) > secondsLeft)
        continue;
      double gain = getGain(i);
      if (gain > chosenGain) {
        chosen = i;
        chosenGain = gain;
      }
    }
    if (chosen)
      return chosen;
  }
  return std::nullopt;
}

std::optional<double> mlir::tiletune::parseDuration(const std::string &text,
                                                    std::string *error) {
  auto bad = [&](const std::string &why) -> std::optional<double> {
    if (error)
      *error = "'" + text + "' is not a duration: " + why +
               " (a number of seconds, or a number with the unit s, m or h, "
               "e.g. 90s, 10m, 1.5h)";
    return std::nullopt;
  };
  if (text.empty())
    return bad("it is empty");
  double scale = 1;
  std::string number = text;
  switch (text.back()) {
  case 's':
    number.pop_back();
    break;
  case 'm':
    scale = 60;
    number.pop_back();
    break;
  case 'h':
    scale = 3600;
    number.pop_back();
    break;
  default:
    break;
  }
  if (number.empty() ||
      !(std::isdigit(static_cast<unsigned char>(number.front())) ||
        number.front() == '.'))
    return bad("it does not start with a number");
  char *end = nullptr;
  double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size())
    return bad("unexpected '" + std::string(end) + "'");
  if (!std::isfinite(value))
    return bad("the number is not finite");
  return value * scale;
}
