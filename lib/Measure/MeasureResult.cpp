//===- MeasureResult.cpp - Typed results of measuring one variant ---------===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Measure/MeasureResult.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace mlir::tiletune;

llvm::StringRef mlir::tiletune::stringifyMeasureStatus(MeasureStatus status) {
  switch (status) {
  case MeasureStatus::Ok:
    return "ok";
  case MeasureStatus::Invalid:
    return "invalid";
  case MeasureStatus::CompileError:
    return "compile_error";
  case MeasureStatus::RuntimeError:
    return "runtime_error";
  case MeasureStatus::WrongResult:
    return "wrong_result";
  case MeasureStatus::Timeout:
    return "timeout";
  }
  return "unknown";
}

std::optional<MeasureStatus>
mlir::tiletune::parseMeasureStatus(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<MeasureStatus>>(name)
      .Case("ok", MeasureStatus::Ok)
      .Case("invalid", MeasureStatus::Invalid)
      .Case("compile_error", MeasureStatus::CompileError)
      .Case("runtime_error", MeasureStatus::RuntimeError)
      .Case("wrong_result", MeasureStatus::WrongResult)
      .Case("timeout", MeasureStatus::Timeout)
      .Default(std::nullopt);
}

llvm::StringRef mlir::tiletune::stringifyMeasurementRole(MeasurementRole role) {
  switch (role) {
  case MeasurementRole::Default:
    return "default";
  case MeasurementRole::Search:
    return "search";
  case MeasurementRole::Final:
    return "final";
  }
  return "unknown";
}

std::optional<MeasurementRole>
mlir::tiletune::parseMeasurementRole(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<MeasurementRole>>(name)
      .Case("default", MeasurementRole::Default)
      .Case("search", MeasurementRole::Search)
      .Case("final", MeasurementRole::Final)
      .Default(std::nullopt);
}

MeasureResult MeasureResult::success(const TimeStats &time, double gflops) {
  MeasureResult result;
  result.status = MeasureStatus::Ok;
  result.time = time;
  result.gflops = gflops;
  return result;
}

MeasureResult MeasureResult::failure(MeasureStatus status,
                                     llvm::StringRef message) {
  assert(status != MeasureStatus::Ok && "a failure needs a failing status");
  MeasureResult result;
  result.status = status;
  result.message = message.str();
  return result;
}

//===----------------------------------------------------------------------===//
// Worker protocol
//===----------------------------------------------------------------------===//

std::string mlir::tiletune::encodeMeasureResult(const MeasureResult &r) {
  llvm::json::Object obj{
      {"status", stringifyMeasureStatus(r.status)},
      {"mean", r.time.mean},
      {"median", r.time.median},
      {"min", r.time.min},
      {"max", r.time.max},
      {"stddev", r.time.stddev},
      {"repeats", int64_t(r.time.repeats)},
      {"gflops", r.gflops},
      {"message", r.message},
      {"cost", r.costSeconds},
      {"relative", r.relative},
      {"reference", r.referenceSeconds},
      {"early", r.time.stoppedEarly},
      {"phases",
       llvm::json::Object{{"pass", r.phases.passSeconds},
                          {"codegen", r.phases.codegenSeconds},
                          {"verify", r.phases.verifySeconds},
                          {"timing", r.phases.timingSeconds},
                          {"hit", r.phases.cacheHit},
                          {"compile_wait", r.phases.compileWaitSeconds},
                          {"run_wait", r.phases.runWaitSeconds}}},
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(obj));
  return text;
}

llvm::Expected<MeasureResult>
mlir::tiletune::decodeMeasureResult(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return value.takeError();
  const llvm::json::Object *obj = value->getAsObject();
  if (!obj)
    return llvm::createStringError("worker answer is not an object");
  std::optional<llvm::StringRef> status = obj->getString("status");
  std::optional<MeasureStatus> parsed =
      status ? parseMeasureStatus(*status) : std::nullopt;
  if (!parsed)
    return llvm::createStringError("worker answer has no valid status");
  MeasureResult r;
  r.status = *parsed;
  r.time.mean = obj->getNumber("mean").value_or(0);
  r.time.median = obj->getNumber("median").value_or(0);
  r.time.min = obj->getNumber("min").value_or(0);
  r.time.max = obj->getNumber("max").value_or(0);
  r.time.stddev = obj->getNumber("stddev").value_or(0);
  r.time.repeats = unsigned(obj->getInteger("repeats").value_or(0));
  r.gflops = obj->getNumber("gflops").value_or(0);
  r.message = obj->getString("message").value_or("").str();
  r.costSeconds = obj->getNumber("cost").value_or(0);
  r.relative = obj->getNumber("relative").value_or(0);
  r.referenceSeconds = obj->getNumber("reference").value_or(0);
  r.time.stoppedEarly = obj->getBoolean("early").value_or(false);
  if (const llvm::json::Object *phases = obj->getObject("phases")) {
    r.phases.passSeconds = phases->getNumber("pass").value_or(0);
    r.phases.codegenSeconds = phases->getNumber("codegen").value_or(0);
    r.phases.verifySeconds = phases->getNumber("verify").value_or(0);
    r.phases.timingSeconds = phases->getNumber("timing").value_or(0);
    r.phases.cacheHit = phases->getBoolean("hit").value_or(false);
    r.phases.compileWaitSeconds = phases->getNumber("compile_wait").value_or(0);
    r.phases.runWaitSeconds = phases->getNumber("run_wait").value_or(0);
  }
  return r;
}
