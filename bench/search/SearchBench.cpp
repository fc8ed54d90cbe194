//===- SearchBench.cpp - Sample efficiency of the search strategies ------===//
//
// Runs every registered strategy (or a chosen subset) for several seeds and
// a trial budget on synthetic landscapes or on a replayed table of real
// measurements (config key -> time), and prints the mean and standard
// deviation of the best cost found plus the fraction of the space visited,
// laid out like Table 1 of the OpEvo paper.
//
// Examples:
//   tiletune-search-bench --space=paper:64,64,64 --budget=200 --seeds=5
//   tiletune-search-bench --space=cpu:matmul:64,64,64 --table=times.csv
//   tiletune-search-bench --space=cpu:matmul:64,64,64 \
//       --fix='order=[n,k,m];pack=ab;vectorize=true;unroll=1;m=[1,*,*,*]' \
//       --table=export.jsonl      (a `tiletune export` of a dense grid run)
//   tiletune-search-bench --space=paper:16,16,16 --write-table=t.jsonl
//
//===----------------------------------------------------------------------===//

#include "tiletune/Search/Strategy.h"
#include "tiletune/Search/Testing/Landscapes.h"
#include "tiletune/Space/OperatorSpaces.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

using namespace llvm;
using namespace mlir::tiletune;
using namespace mlir::tiletune::testing;

static cl::OptionCategory BenchCategory("tiletune-search-bench options");

static cl::opt<std::string>
    SpaceSpec("space",
              cl::desc("space: paper:M,K,N (G-BFS matmul space) or "
                       "<target>:<op>:<sizes> (e.g. cpu:matmul:64,64,64)"),
              cl::cat(BenchCategory), cl::init("paper:64,64,64"));
static cl::opt<std::string>
    Strategies("strategies",
               cl::desc("comma-separated strategy names (default: all "
                        "registered)"),
               cl::cat(BenchCategory), cl::init(""));
static cl::opt<std::string> StrategyOpts(
    "options", cl::desc("per-strategy options, e.g. 'gbfs:rho=3;opevo:q=0.3'"),
    cl::cat(BenchCategory), cl::init(""));
static cl::opt<unsigned> NumSeeds("seeds", cl::desc("seeds per strategy"),
                                  cl::cat(BenchCategory), cl::init(5));
static cl::opt<unsigned> Budget("budget", cl::desc("trials per run"),
                                cl::cat(BenchCategory), cl::init(200));
static cl::opt<unsigned> Batch("batch", cl::desc("trials per propose()"),
                               cl::cat(BenchCategory), cl::init(8));
static cl::opt<std::string>
    Landscapes("landscapes",
               cl::desc("comma-separated synthetic landscapes: smooth, noisy, "
                        "multimodal, invalid"),
               cl::cat(BenchCategory),
               cl::init("smooth,noisy,multimodal,invalid"));
static cl::opt<std::string>
    Table("table",
          cl::desc("replay a table of measurements instead: CSV lines "
                   "'<key>,<time>' (the last comma separates; an empty or "
                   "non-numeric time is a failure) or JSONL objects "
                   "{\"key\":..., \"time\":...[, \"status\":...]} "
                   "(`tiletune export` output is read as is; a key measured "
                   "twice keeps its best time)"),
          cl::cat(BenchCategory), cl::init(""));
static cl::opt<std::string>
    Fix("fix",
        cl::desc("pin parameters of the space ('name=value;...', '*' for "
                 "free factor slots), as `tiletune tune --fix`"),
        cl::cat(BenchCategory), cl::init(""));
static cl::opt<std::string>
    WriteTable("write-table",
               cl::desc("write the 'noisy' landscape of the space as a JSONL "
                        "table (for testing the replay path) and exit"),
               cl::cat(BenchCategory), cl::init(""));

static Expected<Space> parseSpace(StringRef spec) {
  SmallVector<StringRef> parts;
  spec.split(parts, ':');
  auto sizesOf = [](StringRef text) -> Expected<SmallVector<int64_t>> {
    SmallVector<StringRef> items;
    text.split(items, ',');
    SmallVector<int64_t> sizes;
    for (StringRef i : items) {
      int64_t v;
      if (i.trim().getAsInteger(10, v) || v < 1)
        return createStringError(inconvertibleErrorCode(),
                                 "bad size '" + i + "'");
      sizes.push_back(v);
    }
    return sizes;
  };
  if (parts.size() == 2 && parts[0] == "paper") {
    auto sizes = sizesOf(parts[1]);
    if (!sizes)
      return sizes.takeError();
    if (sizes->size() != 3)
      return createStringError(inconvertibleErrorCode(),
                               "paper space needs M,K,N");
    return buildPaperMatmulSpace((*sizes)[0], (*sizes)[1], (*sizes)[2]);
  }
  if (parts.size() == 3) {
    auto sizes = sizesOf(parts[2]);
    if (!sizes)
      return sizes.takeError();
    auto problem = makeProblemSpec(parts[1], parts[0], *sizes);
    if (!problem)
      return problem.takeError();
    return buildSpace(*problem);
  }
  return createStringError(inconvertibleErrorCode(),
                           "bad --space '" + spec + "'");
}

/// A deterministic "optimum" for the synthetic landscapes: a valid config
/// drawn with a fixed seed (so it is not the default start state).
static Config pickOptimum(const Space &s) {
  std::mt19937_64 rng(20240601);
  auto c = s.sampleValidIf(rng, [](const Config &) { return true; });
  return c ? *c : s.getDefault();
}

static SmallVector<Config> pickDecoys(const Space &s, unsigned n) {
  std::mt19937_64 rng(77);
  SmallVector<Config> out;
  for (unsigned i = 0; i < n; ++i)
    if (auto c = s.sampleValidIf(rng, [](const Config &) { return true; }))
      out.push_back(*c);
  return out;
}

/// A landscape replaying a table; the space is restricted to the keys in it.
static Expected<Landscape> loadTable(const Space &base, StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf)
    return createStringError(buf.getError(), "cannot read '" + path + "'");
  auto entries =
      std::make_shared<std::unordered_map<std::string, TrialResult>>();
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n');
  unsigned lineNo = 0;
  for (StringRef line : lines) {
    ++lineNo;
    line = line.trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    std::string key;
    TrialResult r;
    if (line.starts_with("{")) {
      auto v = json::parse(line);
      if (!v)
        return createStringError(inconvertibleErrorCode(),
                                 path + ":" + Twine(lineNo) + ": " +
                                     toString(v.takeError()));
      const json::Object *o = v->getAsObject();
      auto k = o ? o->getString("key") : std::nullopt;
      if (!k && o)
        k = o->getString("config_key"); // `tiletune export`
      if (!k)
        return createStringError(inconvertibleErrorCode(),
                                 path + ":" + Twine(lineNo) + ": no \"key\"");
      key = k->str();
      // A number, or `tiletune export`'s statistics object, of which the
      // median is what the tuner ranks by. ("cost_seconds" there is the
      // cost of measuring, not the kernel's time.)
      auto t = o->getNumber("time");
      if (const json::Object *stats = o->getObject("time"))
        t = stats->getNumber("median");
      if (!t)
        t = o->getNumber("cost");
      auto st = o->getString("status");
      if (st) {
        auto s = parseMeasureStatus(*st);
        if (!s)
          return createStringError(inconvertibleErrorCode(),
                                   path + ":" + Twine(lineNo) +
                                       ": unknown status");
        r.status = *s;
      }
      if (r.isOk()) {
        if (!t)
          r.status = TrialStatus::RuntimeError;
        else
          r.cost = *t;
      }
    } else {
      auto [k, t] = line.rsplit(',');
      if (k.trim() == "key")
        continue; // header
      key = k.trim().str();
      double d;
      if (t.trim().getAsDouble(d) || !std::isfinite(d))
        r.status = TrialStatus::RuntimeError;
      else
        r.cost = d;
    }
    auto cfg = base.parseKey(key);
    if (!cfg)
      return createStringError(inconvertibleErrorCode(),
                               path + ":" + Twine(lineNo) + ": " +
                                   toString(cfg.takeError()));
    std::string canon = base.getKey(*cfg);
    auto [it, inserted] = entries->try_emplace(canon, r);
    if (!inserted && r.isOk() &&
        (!it->second.isOk() || r.cost < it->second.cost))
      it->second = r;
  }
  if (entries->empty())
    return createStringError(inconvertibleErrorCode(),
                             "table '" + path + "' has no entries");
  Space restricted = base.withConstraint(
      {"in-table",
       [entries](const Space &s,
                 const Config &c) -> std::optional<std::string> {
         if (entries->count(s.getKey(c)))
           return std::nullopt;
         return std::string("not in the replayed table");
       }});
  Landscape l;
  l.name = "real table";
  l.space = restricted;
  double best = INFINITY;
  for (auto &[k, r] : *entries)
    if (r.isOk() && r.cost < best) {
      best = r.cost;
      l.optimum = *base.parseKey(k);
    }
  l.optimumCost = best;
  l.evaluate = [entries, restricted](const Config &c) {
    TrialResult r = entries->at(restricted.getKey(c));
    r.cfg = c;
    return r;
  };
  return l;
}

namespace {
struct Stats {
  double MeanBest = 0, StdBest = 0, MeanVisited = 0, FoundOptimum = 0;
  unsigned Failed = 0;
};
} // namespace

static Stats runMany(StringRef name, const StrategyOptions &opts,
                     const Landscape &l, double spaceSize) {
  Stats st;
  SmallVector<double> bests;
  double visited = 0;
  for (unsigned seed = 1; seed <= NumSeeds; ++seed) {
    auto s = createStrategy(name, l.space, opts, seed);
    if (!s) {
      errs() << "error: " << toString(s.takeError()) << "\n";
      exit(1);
    }
    uint64_t trials = 0;
    std::optional<double> best;
    while (trials < Budget) {
      auto batch = (*s)->propose(std::min<unsigned>(Batch, Budget - trials));
      if (batch.empty())
        break;
      SmallVector<TrialResult> results;
      for (const Trial &t : batch) {
        TrialResult r = l.evaluate(t.cfg);
        r.id = t.id;
        if (r.isOk() && (!best || r.cost < *best))
          best = r.cost;
        results.push_back(std::move(r));
      }
      trials += batch.size();
      if (Error e = (*s)->observe(results)) {
        errs() << "error: " << toString(std::move(e)) << "\n";
        exit(1);
      }
    }
    if (!best) {
      ++st.Failed;
      continue;
    }
    // Relative to the optimum (1.0 = found it); the synthetic landscapes'
    // optimum costs 1.0 already.
    bests.push_back(*best / l.optimumCost);
    st.FoundOptimum += *best <= l.optimumCost; // compared unscaled
    visited += trials / spaceSize;
  }
  unsigned n = bests.size();
  if (n) {
    for (double b : bests)
      st.MeanBest += b / n;
    for (double b : bests)
      st.StdBest += (b - st.MeanBest) * (b - st.MeanBest) / n;
    st.StdBest = std::sqrt(st.StdBest);
    st.MeanVisited = visited / n;
    st.FoundOptimum /= n;
  }
  return st;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(BenchCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "TileTune search strategy sample-efficiency "
                              "benchmark\n");
  auto space = parseSpace(SpaceSpec);
  if (space && !Fix.empty())
    space = space->withPinned(Fix);
  if (!space) {
    errs() << "error: " << toString(space.takeError()) << "\n";
    return 1;
  }

  if (!WriteTable.empty()) {
    if (space->countProduct() > 2000000) {
      errs() << "error: space too large to tabulate\n";
      return 1;
    }
    std::error_code ec;
    raw_fd_ostream os(WriteTable, ec);
    if (ec) {
      errs() << "error: cannot write '" << WriteTable << "': " << ec.message()
             << "\n";
      return 1;
    }
    Landscape l = makeNoisyLandscape(*space, pickOptimum(*space));
    for (uint64_t r = 0; r < space->countProduct(); ++r) {
      Config c = space->unrank(r);
      if (!space->isValid(c))
        continue;
      TrialResult t = l.evaluate(c);
      os << json::Value(json::Object{{"key", space->getKey(c)},
                                     {"time", t.cost * 1e-3}})
         << "\n";
    }
    return 0;
  }

  // Strategies and their options.
  SmallVector<std::string> names;
  if (Strategies.empty()) {
    for (const StrategyInfo *i : StrategyRegistry::get().getAll())
      names.push_back(i->name);
  } else {
    SmallVector<StringRef> parts;
    StringRef(Strategies).split(parts, ',', -1, false);
    for (StringRef p : parts)
      names.push_back(p.trim().str());
  }
  std::map<std::string, StrategyOptions> options;
  SmallVector<StringRef> groups;
  StringRef(StrategyOpts).split(groups, ';', -1, false);
  for (StringRef g : groups) {
    auto [name, text] = g.split(':');
    auto o = parseStrategyOptions(text);
    if (!o) {
      errs() << "error: " << toString(o.takeError()) << "\n";
      return 1;
    }
    options[name.trim().str()] = *o;
  }

  std::vector<Landscape> landscapes;
  if (!Table.empty()) {
    auto l = loadTable(*space, Table);
    if (!l) {
      errs() << "error: " << toString(l.takeError()) << "\n";
      return 1;
    }
    landscapes.push_back(std::move(*l));
  } else {
    Config opt = pickOptimum(*space);
    SmallVector<StringRef> kinds;
    StringRef(Landscapes).split(kinds, ',', -1, false);
    for (StringRef k : kinds) {
      k = k.trim();
      if (k == "smooth")
        landscapes.push_back(makeSmoothLandscape(*space, opt));
      else if (k == "noisy")
        landscapes.push_back(makeNoisyLandscape(*space, opt));
      else if (k == "multimodal")
        landscapes.push_back(
            makeMultimodalLandscape(*space, opt, pickDecoys(*space, 3)));
      else if (k == "invalid")
        landscapes.push_back(makeInvalidRegionLandscape(*space, opt));
      else {
        errs() << "error: unknown landscape '" << k << "'\n";
        return 1;
      }
    }
  }

  outs() << "space: " << space->getName() << " (" << space->countProduct()
         << " points in the product space)\n"
         << "budget " << Budget << " trials, batch " << Batch << ", "
         << NumSeeds << " seeds; best cost found / optimum (1 = optimum)\n";
  for (const Landscape &l : landscapes)
    if (!Table.empty())
      outs() << "table optimum: " << format("%.4g", l.optimumCost) << " ("
             << l.space.getKey(l.optimum) << ")\n";
  outs() << "\n";
  // Table 1 layout: one row per landscape, mean/std column pairs per
  // strategy of the best cost found divided by the landscape's optimum
  // (lower is better, 1.0 = optimum).
  outs() << format("%-18s", "Landscape");
  for (const std::string &n : names)
    outs() << format("%-27s", n.c_str());
  outs() << "\n" << format("%-18s", "");
  for (size_t i = 0; i < names.size(); ++i)
    outs() << format("%-8s %-8s %-8s ", "mean", "std", "visit%");
  outs() << "\n";
  for (const Landscape &l : landscapes) {
    double size = double(space->countProduct());
    if (l.space.isConstrained()) {
      auto valid = l.space.countValid(5000000);
      if (valid)
        size = double(*valid);
      else
        consumeError(valid.takeError());
    }
    outs() << format("%-18s", l.name.substr(0, 17).c_str());
    SmallVector<Stats> all;
    for (const std::string &n : names) {
      Stats st = runMany(n, options[n], l, size);
      all.push_back(st);
      outs() << format("%-8.4g %-8.3g %-8.3g ", st.MeanBest, st.StdBest,
                       100 * st.MeanVisited);
      outs().flush();
    }
    outs() << "\n" << format("%-18s", "  optimum found");
    for (const Stats &st : all)
      outs() << format(
          "%-27s",
          (std::to_string(int(std::round(st.FoundOptimum * NumSeeds))) + "/" +
           std::to_string(NumSeeds))
              .c_str());
    outs() << "\n";
  }
  return 0;
}
