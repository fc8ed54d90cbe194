//===- Export.cpp - JSON Lines export of the tuning database --------------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// exportJSONL(): every measurement as one self-contained JSON object per
// line, with its run, problem and target, ordered by run and trial (what
// importJSONL() in Import.cpp reads back). A row
// with text that is not JSON is exported as a string rather than failing the
// export; values JSON cannot express (inf, NaN) become null.
//
//===----------------------------------------------------------------------===//

#include "DatabaseImpl.h"
#include "SQLite.h"

#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir::tiletune;
using namespace mlir::tiletune::detail;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
/// The JSON value of stored JSON text; the text as a string when it does not
/// parse (so that an export never fails on one bad row), null when empty.
llvm::json::Value jsonOrString(StringRef text) {
  if (text.empty())
    return nullptr;
  Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    return std::move(*parsed);
  llvm::consumeError(parsed.takeError());
  return text.str();
}

/// A JSON number, or null for a value JSON cannot express (inf, NaN).
llvm::json::Value number(double value) {
  if (!std::isfinite(value))
    return nullptr;
  return value;
}
} // namespace

Error TileTuneDatabase::exportJSONL(llvm::raw_ostream &os) {
  Statement stmt(*this, std::string("SELECT ") + kRunColumns + ", " +
                            kMeasurementColumns + pairedColumns().str() +
                            kRunJoins +
                            "JOIN measurements m ON m.run_id = r.id "
                            "ORDER BY r.id, m.trial");
  if (Error err = stmt.status())
    return err;
  while (true) {
    Expected<bool> row = stmt.step();
    if (!row)
      return row.takeError();
    if (!*row)
      return Error::success();
    Expected<RunInfo> run = readRunRow(stmt);
    if (!run)
      return run.takeError();
    // The measurement columns follow the run's.
    auto column = [](MeasurementColumn c) {
      return columnOf(kNumRunColumns, c);
    };
    using C = MeasurementColumn;
    llvm::json::Object line{
        {"run", run->id},
        {"problem", run->problemKey},
        {"target", run->target.toJSON()},
        {"algorithm", run->algorithm},
        {"seed", run->seed},
        {"run_status", stringifyRunStatus(run->status)},
        {"tool_version", run->toolVersion},
        {"trial", stmt.getInt(column(C::Trial))},
        {"role", stmt.getText(column(C::Role))},
        {"config_key", stmt.getText(column(C::ConfigKey))},
        {"config", jsonOrString(stmt.getText(column(C::Config)))},
        {"status", stmt.getText(column(C::Status))},
        {"message", stmt.getText(column(C::Message))},
        {"cost_seconds", number(stmt.getDouble(column(C::CostSeconds)))},
        {"timestamp", isoTime(stmt.getDouble(column(C::CreatedAt)))},
        // Exact values and the rest of the run, so that importJSONL() can
        // rebuild the run (and tell an already imported one) from any line.
        {"created_at", number(stmt.getDouble(column(C::CreatedAt)))},
        {"problem_description", jsonOrString(run->problemDescription)},
        {"run_started_at", number(run->startedAt)},
        {"run_finished_at", number(run->finishedAt)},
        {"run_elapsed_seconds", number(run->elapsedSeconds)},
        {"run_result_config_key", run->resultConfigKey},
        {"run_options", jsonOrString(run->options)},
        {"budget_trials", run->budgetTrials},
        {"budget_seconds", number(run->budgetSeconds)},
    };
    if (!stmt.isNull(column(C::Median))) {
      line["time"] = llvm::json::Object{
          {"mean", number(stmt.getDouble(column(C::Mean)))},
          {"median", number(stmt.getDouble(column(C::Median)))},
          {"min", number(stmt.getDouble(column(C::Min)))},
          {"max", number(stmt.getDouble(column(C::Max)))},
          {"stddev", number(stmt.getDouble(column(C::Stddev)))},
          {"repeats", stmt.getInt(column(C::Repeats))}};
      line["gflops"] = number(stmt.getDouble(column(C::Gflops)));
      if (!stmt.isNull(column(C::Relative)))
        line["paired"] = llvm::json::Object{
            {"relative", number(stmt.getDouble(column(C::Relative)))}};
    } else {
      line["time"] = nullptr;
      line["gflops"] = nullptr;
    }
    os << llvm::json::Value(std::move(line)) << '\n';
  }
}
