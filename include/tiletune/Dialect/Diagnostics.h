//===- Diagnostics.h - Diagnostics captured per thread ----------*- C++ -*-===//
//
// Every thread that works on an MLIRContext reports to the same diagnostic
// engine: a pass manager runs a function pass on several functions at once,
// and each handler registered on the engine sees the diagnostics of every
// thread. A ScopedDiagnosticHandler that captures the messages of a check
// (a config verified to get its reason, a pipeline whose errors become an
// llvm::Error) would therefore also take the diagnostics that the other
// threads emit meanwhile, and drop them: remarks of a parallel tile-cpu run
// went missing that way. ThreadScopedDiagnosticHandler is how the
// libraries capture diagnostics for a while on a context others may be
// using: it takes only those of the thread that registered it, and lets the
// others pass on to the handlers registered before it (the pass manager's
// per-function ordering handler, the tool's printer). A handler that is the
// whole output of a context it owns (the Python session's) takes every
// thread's, as a plain ScopedDiagnosticHandler.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_DIALECT_DIAGNOSTICS_H
#define TILETUNE_DIALECT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>

namespace mlir::tiletune {

/// A ScopedDiagnosticHandler for the diagnostics that the thread that
/// constructs it emits on `ctx` while it lives. `handler` has the signature
/// of a ScopedDiagnosticHandler's (LogicalResult(Diagnostic &); success
/// consumes the diagnostic). Diagnostics of other threads are not shown to
/// it.
class ThreadScopedDiagnosticHandler : public ScopedDiagnosticHandler {
public:
  template <typename FuncTy>
  ThreadScopedDiagnosticHandler(MLIRContext *ctx, FuncTy &&handler)
      : ScopedDiagnosticHandler(ctx) {
    uint64_t owner = llvm::get_threadid();
    setHandler([owner, handler = std::forward<FuncTy>(handler)](
                   Diagnostic &diag) mutable -> LogicalResult {
      if (llvm::get_threadid() != owner)
        return failure();
      return handler(diag);
    });
  }
};

/// Takes the diagnostics that the constructing thread emits on `ctx` while
/// it lives (ThreadScopedDiagnosticHandler) and keeps those of the kinds
/// asked for as text, one "<location>: <message>" line each followed by its
/// notes ("  note: ..."): how a library turns the diagnostics of a pipeline
/// it runs into the message of an llvm::Error. The others are dropped.
class DiagnosticCapture {
public:
  enum class Kinds { Errors, ErrorsAndWarnings, All };

  explicit DiagnosticCapture(MLIRContext *ctx, Kinds kinds = Kinds::Errors)
      : handler(ctx, [this, kinds](Diagnostic &diag) {
          if (keeps(kinds, diag.getSeverity())) {
            llvm::raw_string_ostream os(buffer);
            os << diag.getLocation() << ": " << diag << "\n";
            for (const Diagnostic &note : diag.getNotes())
              os << "  note: " << note << "\n";
          }
          return success();
        }) {}

  /// The captured lines, without the last newline ("" when none).
  std::string text() const { return llvm::StringRef(buffer).rtrim().str(); }
  bool empty() const { return buffer.empty(); }

private:
  static bool keeps(Kinds kinds, DiagnosticSeverity severity) {
    switch (kinds) {
    case Kinds::Errors:
      return severity == DiagnosticSeverity::Error;
    case Kinds::ErrorsAndWarnings:
      return severity == DiagnosticSeverity::Error ||
             severity == DiagnosticSeverity::Warning;
    case Kinds::All:
      return true;
    }
    return true;
  }

  std::string buffer;
  ThreadScopedDiagnosticHandler handler;
};

} // namespace mlir::tiletune

#endif // TILETUNE_DIALECT_DIAGNOSTICS_H
