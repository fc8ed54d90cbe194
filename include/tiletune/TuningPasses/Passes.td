//===- Passes.td - TileTune tuning passes ------------------*- tablegen -*-===//
//
// The passes that connect a compile to the tuner: applying tuned configs from
// a database, and tuning the ops of a module inside a pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_TUNINGPASSES_PASSES_TD
#define TILETUNE_TUNINGPASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileTuneApplyDB : Pass<"tiletune-apply-db", "ModuleOp"> {
  let summary = "Annotate tunable ops with their best config from a tuning "
                "database";
  let description = [{
    Looks up every tunable op of the module (by its problem key: op kind,
    element type, loop sizes, strides and dilations) in a TileTune tuning
    database and sets the best configuration measured on this machine (same
    CPU, features, thread count and toolchain) as its `tiletune.config`.
    Ops without a result in the database are left alone, each with a remark
    saying why (no result for its problem, or results only at another thread
    count, CPU or toolchain), and a summary remark counts what was applied;
    there is no fallback to the default config (run
    `tiletune-default-config` after this pass for that). Ops that already
    carry a config keep it unless `override` is set. A missing database file
    or one that is not a TileTune database is an error.

    ```mlir
    // before
    %0 = linalg.matmul ins(%A, %B : ...) outs(%C : ...) -> tensor<64x256xf32>
    // after (tuned on this machine)
    %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
        parallel = {m = 64, n = 128}, cache = {...}, register = {...}, ...>}
        ins(%A, %B : ...) outs(%C : ...) -> tensor<64x256xf32>
    ```
  }];
  let options = [
    Option<"database", "db", "std::string", /*default=*/"\"\"",
           "Tuning database file (default: ~/.cache/tiletune/tuning.db)">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Thread count the results must have been tuned with (0: all "
           "cores)">,
    Option<"overrideConfigs", "override", "bool", /*default=*/"false",
           "Replace configs already present on ops">,
  ];
}

def TileTuneAutotune : Pass<"tiletune-autotune", "ModuleOp"> {
  let summary = "Tune every tunable op of the module and annotate it";
  let description = [{
    The tuner as a pass: every unique tunable op of the module becomes a
    problem that is tuned on this machine's CPU (its kernel is measured in a
    worker process with the same lowering passes a compile uses), the
    results are recorded in the tuning database, and each op is annotated
    with the best configuration found (never slower than the default
    config, which is measured first). Ops with an explicit config are tuned
    too and get the tuned config. Use `tiletune-apply-db` to reuse results
    without tuning again.

    Example: `tiletune-opt --tiletune-autotune="algorithm=random trials=20
    db=/tmp/t.db" in.mlir`
  }];
  // The standalone kernel of each op (buildKernelModule) is built in the
  // pass's context.
  let dependentDialects = [
    "bufferization::BufferizationDialect",
    "func::FuncDialect",
    "memref::MemRefDialect",
  ];
  let options = [
    Option<"algorithm", "algorithm", "std::string",
           /*default=*/"::mlir::tiletune::TuneOptions().algorithm",
           "Search algorithm (`tiletune algorithms` lists them)">,
    Option<"trials", "trials", "int64_t",
           /*default=*/"::mlir::tiletune::TuneOptions().trials",
           "Measurements per problem (0: no limit; then set seconds)">,
    Option<"seconds", "seconds", "double", /*default=*/"0",
           "Wall-clock budget per problem in seconds (0: no limit)">,
    Option<"database", "db", "std::string", /*default=*/"\"\"",
           "Tuning database file (default: ~/.cache/tiletune/tuning.db)">,
    Option<"seed", "seed", "uint64_t", /*default=*/"0",
           "Seed of the search and of the generated inputs">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Threads of the tuned kernels (0: all cores)">,
    Option<"paired", "paired", "bool",
           /*default=*/"::mlir::tiletune::TuneOptions().pairedTiming",
           "Time each variant interleaved with the default config and rank "
           "by the ratio (false: time variants alone, like tiletune tune "
           "--unpaired)">,
    Option<"weights", "weights", "std::string",
           /*default=*/"::mlir::tiletune::TuneOptions().weights",
           "Where a variant's weights are when it is timed: model (the "
           "default: out of the caches, as in a run of the module) or warm "
           "(where the previous call left them); like tiletune tune "
           "--weights">,
  ];
}

#endif // TILETUNE_TUNINGPASSES_PASSES_TD
