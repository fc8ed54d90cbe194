//===- CPUExecutionTest.cpp - JIT-run tiled variants against references ---===//
//
// Builds kernels of every op kind of TilingTemplates.def (the plain ops, the
// transposed matmuls/batch_matmuls, conv_2d_nhwc_fhwc and the grouped convs;
// tensors and memrefs, primes, 1, non-divisible sizes, group counts > 1,
// strides, dilations, padded convs), attaches random legal CPU configs
// (random factorizations, loop orders, packing, unroll, vectorize, layout)
// or the default config, lowers them with buildCPULoweringPipeline, JIT-runs
// them and compares the output with the same kernel lowered untiled.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Execution/Buffer.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/Execution/Lowering.h"
#include "tiletune/InitAll.h"
#include "tiletune/Support/TilingTemplates.h"
#include "tiletune/Transforms/DefaultConfig.h"
#include "tiletune/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <optional>
#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::tiletune;

namespace {

/// Every op kind of TilingTemplates.def.
constexpr OpKind kAllOpKinds[] = {
#define TILETUNE_OP_KIND(Enumerator, Name, OpName, IsConv) OpKind::Enumerator,
#include "tiletune/Support/TilingTemplates.def"
};

//===----------------------------------------------------------------------===//
// Kernel text
//===----------------------------------------------------------------------===//

std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + "f32";
}

std::string typeStr(bool tensors, llvm::ArrayRef<int64_t> shape) {
  return (tensors ? "tensor<" : "memref<") + shapeStr(shape) + ">";
}

/// A kernel `@kernel(%a, %b, %c)` around one named op.
std::string singleOpKernel(bool tensors, llvm::StringRef op,
                           llvm::StringRef attrs, llvm::ArrayRef<int64_t> a,
                           llvm::ArrayRef<int64_t> b,
                           llvm::ArrayRef<int64_t> c) {
  std::string ta = typeStr(tensors, a), tb = typeStr(tensors, b),
              tc = typeStr(tensors, c);
  std::ostringstream os;
  os << "func.func @kernel(%a: " << ta << ", %b: " << tb << ", %c: " << tc
     << ")";
  if (tensors)
    os << " -> " << tc;
  os << " {\n  ";
  if (tensors)
    os << "%r = ";
  os << op.str() << " " << attrs.str() << " ins(%a, %b : " << ta << ", " << tb
     << ") outs(%c : " << tc << ")";
  if (tensors)
    os << " -> " << tc << "\n  return %r : " << tc << "\n}\n";
  else
    os << "\n  return\n}\n";
  return os.str();
}

std::string convAttrs(int64_t sh, int64_t sw, int64_t dh, int64_t dw) {
  std::ostringstream os;
  os << "{dilations = dense<[" << dh << ", " << dw
     << "]> : tensor<2xi64>, strides = dense<[" << sh << ", " << sw
     << "]> : tensor<2xi64>}";
  return os.str();
}

int64_t convOut(int64_t in, int64_t k, int64_t stride, int64_t dilation) {
  return (in - dilation * (k - 1) - 1) / stride + 1;
}

/// Conv kernel; `pad` > 0 pads the image with zeros the way frontends do:
/// a tensor.pad, or (with `fillInsert`) a linalg.fill of an empty tensor
/// plus a tensor.insert_slice of the image. Tensors only.
std::string convKernel(bool tensors, bool nhwc, int64_t n, int64_t h, int64_t w,
                       int64_t c, int64_t f, int64_t kh, int64_t kw, int64_t sh,
                       int64_t sw, int64_t dh, int64_t dw, int64_t pad = 0,
                       bool fillInsert = false) {
  int64_t ph = h + 2 * pad, pw = w + 2 * pad;
  int64_t oh = convOut(ph, kh, sh, dh), ow = convOut(pw, kw, sw, dw);
  llvm::SmallVector<int64_t> in, padded, filter, out;
  if (nhwc) {
    in = {n, h, w, c};
    padded = {n, ph, pw, c};
    filter = {kh, kw, c, f};
    out = {n, oh, ow, f};
  } else {
    in = {n, c, h, w};
    padded = {n, c, ph, pw};
    filter = {f, c, kh, kw};
    out = {n, f, oh, ow};
  }
  llvm::StringRef op =
      nhwc ? "linalg.conv_2d_nhwc_hwcf" : "linalg.conv_2d_nchw_fchw";
  if (pad == 0)
    return singleOpKernel(tensors, op, convAttrs(sh, sw, dh, dw), in, filter,
                          out);
  std::string ti = typeStr(true, in), tp = typeStr(true, padded),
              tf = typeStr(true, filter), to = typeStr(true, out);
  std::ostringstream os;
  std::string low =
      nhwc ? "[0, " + std::to_string(pad) + ", " + std::to_string(pad) + ", 0]"
           : "[0, 0, " + std::to_string(pad) + ", " + std::to_string(pad) + "]";
  os << "func.func @kernel(%a: " << ti << ", %b: " << tf << ", %c: " << to
     << ") -> " << to << " {\n"
     << "  %zero = arith.constant 0.0 : f32\n";
  if (fillInsert) {
    std::string offsets = nhwc ? "[0, " + std::to_string(pad) + ", " +
                                     std::to_string(pad) + ", 0]"
                               : "[0, 0, " + std::to_string(pad) + ", " +
                                     std::to_string(pad) + "]";
    std::string sizes;
    for (int64_t d : in)
      sizes += (sizes.empty() ? "[" : ", ") + std::to_string(d);
    sizes += "]";
    os << "  %e = tensor.empty() : " << tp << "\n"
       << "  %z = linalg.fill ins(%zero : f32) outs(%e : " << tp << ") -> "
       << tp << "\n"
       << "  %p = tensor.insert_slice %a into %z" << offsets << " " << sizes
       << " [1, 1, 1, 1] : " << ti << " into " << tp << "\n";
  } else {
    os << "  %p = tensor.pad %a low" << low << " high" << low << " {\n"
       << "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
       << "    tensor.yield %zero : f32\n  } : " << ti << " to " << tp << "\n";
  }
  os << "  %r = " << op.str() << " " << convAttrs(sh, sw, dh, dw)
     << " ins(%p, %b : " << tp << ", " << tf << ") outs(%c : " << to << ") -> "
     << to << "\n  return %r : " << to << "\n}\n";
  return os.str();
}

/// The indexing_maps of a transposed matmul kind ("" for the plain forms).
std::string matmulMaps(OpKind kind) {
  MatmulForm form = *getMatmulForm(kind);
  if (!form.transposeA && !form.transposeB)
    return "";
  std::string dims = form.batched ? "(b, m, n, k)" : "(m, n, k)";
  std::string b = form.batched ? "b, " : "";
  auto map = [&](const std::string &results) {
    return "affine_map<" + dims + " -> (" + b + results + ")>";
  };
  return "indexing_maps = [" + map(form.transposeA ? "k, m" : "m, k") + ", " +
         map(form.transposeB ? "n, k" : "k, n") + ", " + map("m, n") + "]";
}

/// A kernel of any matmul kind (`b` ignored unless batched).
std::string matmulKernel(bool tensors, OpKind kind, int64_t b, int64_t m,
                         int64_t n, int64_t k) {
  MatmulForm form = *getMatmulForm(kind);
  llvm::SmallVector<int64_t> a = form.transposeA
                                     ? llvm::SmallVector<int64_t>{k, m}
                                     : llvm::SmallVector<int64_t>{m, k};
  llvm::SmallVector<int64_t> bt = form.transposeB
                                      ? llvm::SmallVector<int64_t>{n, k}
                                      : llvm::SmallVector<int64_t>{k, n};
  llvm::SmallVector<int64_t> c = {m, n};
  if (form.batched)
    for (llvm::SmallVector<int64_t> *shape : {&a, &bt, &c})
      shape->insert(shape->begin(), b);
  return singleOpKernel(tensors, getOpName(kind), matmulMaps(kind), a, bt, c);
}

/// A kernel of any conv kind: `c` and `f` are per group, `g` is used only
/// by the grouped kinds.
std::string convKindKernel(bool tensors, OpKind kind, int64_t n, int64_t g,
                           int64_t h, int64_t w, int64_t c, int64_t f,
                           int64_t kh, int64_t kw, int64_t sh, int64_t sw,
                           int64_t dh, int64_t dw) {
  int64_t oh = convOut(h, kh, sh, dh), ow = convOut(w, kw, sw, dw);
  llvm::SmallVector<int64_t> in, filter, out;
  switch (kind) {
  case OpKind::ConvNhwcHwcf:
    in = {n, h, w, c}, filter = {kh, kw, c, f}, out = {n, oh, ow, f};
    break;
  case OpKind::ConvNhwcFhwc:
    in = {n, h, w, c}, filter = {f, kh, kw, c}, out = {n, oh, ow, f};
    break;
  case OpKind::ConvNchwFchw:
    in = {n, c, h, w}, filter = {f, c, kh, kw}, out = {n, f, oh, ow};
    break;
  case OpKind::ConvNgchwFgchw:
    in = {n, g, c, h, w}, filter = {f, g, c, kh, kw}, out = {n, g, f, oh, ow};
    break;
  case OpKind::ConvNhwgcGfhwc:
    in = {n, h, w, g, c}, filter = {g, f, kh, kw, c}, out = {n, oh, ow, g, f};
    break;
  default:
    llvm_unreachable("not a conv kind");
  }
  return singleOpKernel(tensors, getOpName(kind), convAttrs(sh, sw, dh, dw), in,
                        filter, out);
}

//===----------------------------------------------------------------------===//
// Random legal configs (CONFIG.md: factor lists per dimension role)
//===----------------------------------------------------------------------===//

llvm::SmallVector<int64_t> primeFactors(int64_t n) {
  llvm::SmallVector<int64_t> primes;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  if (n > 1)
    primes.push_back(n);
  return primes;
}

/// A uniformly random assignment of `size`'s prime factors to `count` slots.
llvm::SmallVector<int64_t> randomFactorization(int64_t size, unsigned count,
                                               std::mt19937_64 &rng) {
  llvm::SmallVector<int64_t> factors(count, 1);
  std::uniform_int_distribution<unsigned> slot(0, count - 1);
  for (int64_t p : primeFactors(size))
    factors[slot(rng)] *= p;
  return factors;
}

TileConfigAttr randomConfig(MLIRContext *ctx, const TunableOp &op,
                            std::mt19937_64 &rng) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    FactorMap factors;
    int64_t registerElements = 1;
    for (const LoopDim &dim : op.dims) {
      unsigned count = getDimLevels(kTargetCPU, op.kind, dim.role).size() + 1;
      factors[dim.name] = randomFactorization(dim.size, count, rng);
      if (dim.role == DimRole::Parallel)
        registerElements *= factors[dim.name].back();
    }
    if (registerElements > 1024)
      continue;
    Builder b(ctx);
    llvm::SmallVector<Attribute> order;
    for (const LoopDim &dim : op.dims)
      if (dim.role != DimRole::Batch)
        order.push_back(b.getStringAttr(dim.name));
    std::shuffle(order.begin(), order.end(), rng);
    // Every `pack` value of the kind (with `bt` where B is transposed).
    llvm::SmallVector<llvm::StringRef> packs = getPackValues(op.kind);
    int64_t innerCache = factors[isConv(op.kind) ? "c" : "k"].back();
    llvm::SmallVector<int64_t> unrolls;
    for (int64_t u : {1, 2, 4, 8})
      if (innerCache % u == 0)
        unrolls.push_back(u);
    llvm::SmallVector<NamedAttribute> options = {
        b.getNamedAttr("order", b.getArrayAttr(order)),
        b.getNamedAttr("vectorize", b.getBoolAttr(rng() % 5 != 0)),
        b.getNamedAttr("pack", b.getStringAttr(packs[rng() % packs.size()])),
        b.getNamedAttr("unroll",
                       b.getI64IntegerAttr(unrolls[rng() % unrolls.size()])),
    };
    // NCHW convs (grouped or not): native or computed as NHWC.
    const OptionSpec *layout = lookupOptionSpec(kTargetCPU, "layout");
    if (layout && layout->appliesTo(op.kind))
      options.push_back(b.getNamedAttr(
          "layout", b.getStringAttr(rng() % 2 ? "nhwc" : "native")));
    if (TileConfigAttr config =
            buildConfig(ctx, kTargetCPU, op, factors, options))
      return config;
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

class CPUExecutionTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    registerAllTileTunePasses();
    context = new MLIRContext();
    initializeContext(*context);
  }
  static void TearDownTestSuite() {
    delete context;
    context = nullptr;
  }

  OwningOpRef<ModuleOp> parse(const std::string &text) {
    return parseSourceString<ModuleOp>(text, context);
  }

  static Operation *findTunable(ModuleOp module) {
    Operation *found = nullptr;
    module.walk([&](Operation *op) {
      if (!found && succeeded(matchTunableOp(op)))
        found = op;
    });
    return found;
  }

  /// Lowers `module` (already carrying its config, if any) and runs it on
  /// copies of `inputs`; returns the kernel's output (argument 2 or the
  /// result).
  llvm::Expected<Buffer> run(ModuleOp module, llvm::ArrayRef<Buffer> inputs,
                             bool tiled) {
    if (llvm::Error err = prepareForExecution(module, /*strict=*/true))
      return std::move(err);
    if (tiled) {
      PassManager pm(context);
      CPULoweringOptions options;
      options.threads = 2;
      buildCPULoweringPipeline(pm, options);
      std::string diagnostics;
      ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
        diagnostics += diag.str() + "\n";
        return success();
      });
      if (failed(pm.run(module)))
        return llvm::createStringError("lowering failed: " + diagnostics);
    } else if (llvm::Error err =
                   runPassPipeline(module, getUntiledLoweringPipeline())) {
      return std::move(err);
    }
    auto engine = ExecutionModule::create(module);
    if (!engine)
      return engine.takeError();
    auto kernel = (*engine)->getKernel("kernel");
    if (!kernel)
      return kernel.takeError();
    llvm::SmallVector<Buffer> args;
    for (const Buffer &b : inputs)
      args.push_back(b.clone());
    llvm::SmallVector<Buffer *> pointers;
    for (Buffer &b : args)
      pointers.push_back(&b);
    llvm::SmallVector<Buffer> results;
    if (llvm::Error err = kernel->run(pointers, &results))
      return std::move(err);
    if (!results.empty())
      return std::move(results.front());
    return std::move(args[2]);
  }

  /// Runs the untiled reference once, then `numConfigs` random configs plus
  /// the default config, comparing each against the reference. With
  /// `expectedKind`, the kernel's op must be of that kind.
  void checkKernel(const std::string &text, unsigned numConfigs, uint64_t seed,
                   std::optional<OpKind> expectedKind = std::nullopt) {
    SCOPED_TRACE(text);
    OwningOpRef<ModuleOp> module = parse(text);
    ASSERT_TRUE(module);
    auto func = *module->getOps<func::FuncOp>().begin();
    auto signature = getKernelSignature(func);
    ASSERT_TRUE(static_cast<bool>(signature))
        << llvm::toString(signature.takeError());
    llvm::SmallVector<Buffer> inputs;
    for (auto [i, info] : llvm::enumerate(signature->args)) {
      auto buffer = info.allocate();
      ASSERT_TRUE(static_cast<bool>(buffer));
      buffer->fillRandom(seed + i);
      inputs.push_back(std::move(*buffer));
    }
    Operation *op = findTunable(*module);
    ASSERT_NE(op, nullptr);
    FailureOr<TunableOp> tunable = matchTunableOp(op);
    ASSERT_TRUE(succeeded(tunable));
    if (expectedKind)
      ASSERT_EQ(stringifyOpKind(tunable->kind), stringifyOpKind(*expectedKind));
    int64_t reduction = 1;
    for (const LoopDim &dim : tunable->dims)
      if (dim.role == DimRole::Reduction)
        reduction *= dim.size;
    Tolerance tolerance =
        Tolerance::forReduction(ElementType::F32, reduction + 1);

    OwningOpRef<ModuleOp> reference = module->clone();
    llvm::Expected<Buffer> expected = run(*reference, inputs, false);
    ASSERT_TRUE(static_cast<bool>(expected))
        << llvm::toString(expected.takeError());

    std::mt19937_64 rng(seed);
    for (unsigned i = 0; i <= numConfigs; ++i) {
      // The last variant uses the default config.
      TileConfigAttr config =
          i < numConfigs ? randomConfig(context, *tunable, rng)
                         : computeDefaultCPUConfig(context, *tunable,
                                                   CPUTarget{/*threads=*/2});
      ASSERT_TRUE(config);
      std::string configText;
      llvm::raw_string_ostream os(configText);
      os << Attribute(config);
      SCOPED_TRACE(configText);
      OwningOpRef<ModuleOp> variant = module->clone();
      setConfig(findTunable(*variant), config);
      llvm::Expected<Buffer> actual = run(*variant, inputs, true);
      ASSERT_TRUE(static_cast<bool>(actual))
          << llvm::toString(actual.takeError());
      auto cmp = compareBuffers(*actual, *expected, tolerance);
      ASSERT_TRUE(static_cast<bool>(cmp)) << llvm::toString(cmp.takeError());
      EXPECT_TRUE(cmp->passed) << cmp->summary();
    }
  }

  static MLIRContext *context;
};

MLIRContext *CPUExecutionTest::context = nullptr;

TEST_F(CPUExecutionTest, Matmul) {
  struct Shape {
    int64_t m, n, k;
  } shapes[] = {{1, 1, 1},    {7, 13, 5},  {17, 31, 8},
                {64, 96, 48}, {1, 128, 3}, {30, 64, 12}};
  uint64_t seed = 1;
  for (Shape s : shapes)
    checkKernel(singleOpKernel(true, "linalg.matmul", "", {s.m, s.k},
                               {s.k, s.n}, {s.m, s.n}),
                5, seed++);
}

TEST_F(CPUExecutionTest, MatmulOnMemrefs) {
  checkKernel(
      singleOpKernel(false, "linalg.matmul", "", {24, 36}, {36, 40}, {24, 40}),
      5, 11);
  checkKernel(
      singleOpKernel(false, "linalg.matmul", "", {5, 3}, {3, 11}, {5, 11}), 3,
      12);
}

TEST_F(CPUExecutionTest, BatchMatmul) {
  checkKernel(singleOpKernel(true, "linalg.batch_matmul", "", {4, 16, 24},
                             {4, 24, 32}, {4, 16, 32}),
              5, 21);
  checkKernel(singleOpKernel(true, "linalg.batch_matmul", "", {3, 7, 5},
                             {3, 5, 11}, {3, 7, 11}),
              4, 22);
  checkKernel(singleOpKernel(false, "linalg.batch_matmul", "", {2, 12, 8},
                             {2, 8, 20}, {2, 12, 20}),
              4, 23);
}

TEST_F(CPUExecutionTest, ConvNhwcHwcf) {
  // n, h, w, c, f, kh, kw, sh, sw, dh, dw
  checkKernel(convKernel(true, true, 1, 10, 12, 8, 16, 3, 3, 1, 1, 1, 1), 5,
              31);
  checkKernel(convKernel(true, true, 2, 11, 9, 3, 5, 3, 2, 2, 1, 1, 2), 5, 32);
  checkKernel(convKernel(true, true, 1, 7, 7, 4, 32, 1, 1, 1, 1, 1, 1), 3, 33);
  checkKernel(convKernel(false, true, 1, 9, 9, 6, 8, 3, 3, 2, 2, 1, 1), 4, 34);
}

TEST_F(CPUExecutionTest, ConvNchwFchw) {
  checkKernel(convKernel(true, false, 1, 10, 12, 8, 16, 3, 3, 1, 1, 1, 1), 5,
              41);
  checkKernel(convKernel(true, false, 2, 11, 9, 3, 5, 3, 2, 2, 1, 2, 1), 5, 42);
  checkKernel(convKernel(false, false, 1, 9, 8, 4, 8, 2, 3, 1, 2, 1, 1), 4, 43);
}

TEST_F(CPUExecutionTest, PaddedConv) {
  checkKernel(convKernel(true, true, 1, 8, 8, 4, 16, 3, 3, 1, 1, 1, 1, 1), 4,
              51);
  checkKernel(convKernel(true, false, 1, 7, 9, 3, 8, 5, 5, 1, 1, 1, 1, 2), 4,
              52);
  checkKernel(convKernel(true, true, 2, 6, 7, 3, 8, 3, 3, 1, 1, 1, 1, 1, true),
              4, 53);
  checkKernel(convKernel(true, false, 1, 6, 6, 2, 4, 3, 3, 2, 2, 1, 1, 1, true),
              3, 54);
}

TEST_F(CPUExecutionTest, TransposedMatmuls) {
  // (b, m, n, k): 1, primes, sizes no register tile divides.
  struct Shape {
    int64_t b, m, n, k;
  } shapes[] = {{1, 1, 1, 1}, {3, 17, 13, 5}};
  uint64_t seed = 61;
  for (OpKind kind :
       {OpKind::MatmulTransposeA, OpKind::MatmulTransposeB,
        OpKind::MatmulTransposeAB, OpKind::BatchMatmulTransposeA,
        OpKind::BatchMatmulTransposeB, OpKind::BatchMatmulTransposeAB}) {
    SCOPED_TRACE(stringifyOpKind(kind).str());
    for (Shape s : shapes)
      checkKernel(matmulKernel(true, kind, s.b, s.m, s.n, s.k), 2, seed++,
                  kind);
    checkKernel(matmulKernel(false, kind, 2, 12, 20, 9), 2, seed++, kind);
  }
}

TEST_F(CPUExecutionTest, ConvNhwcFhwc) {
  // n, g (unused), h, w, c, f, kh, kw, sh, sw, dh, dw
  checkKernel(convKindKernel(true, OpKind::ConvNhwcFhwc, 1, 1, 10, 12, 8, 16, 3,
                             3, 1, 1, 1, 1),
              3, 71, OpKind::ConvNhwcFhwc);
  checkKernel(convKindKernel(true, OpKind::ConvNhwcFhwc, 2, 1, 11, 9, 3, 5, 3,
                             2, 2, 1, 1, 2),
              3, 72, OpKind::ConvNhwcFhwc);
  checkKernel(convKindKernel(false, OpKind::ConvNhwcFhwc, 1, 1, 7, 7, 1, 13, 1,
                             1, 1, 1, 1, 1),
              2, 73, OpKind::ConvNhwcFhwc);
}

TEST_F(CPUExecutionTest, GroupedConvs) {
  // Group counts 2, 3, 4, 5; channels and filters per group 1 and primes;
  // strides and dilations; tensors and memrefs.
  struct Case {
    bool tensors;
    int64_t n, g, h, w, c, f, kh, kw, sh, sw, dh, dw;
  } cases[] = {
      {true, 1, 2, 8, 9, 3, 5, 3, 3, 1, 1, 1, 1},
      {true, 2, 3, 11, 7, 2, 7, 3, 2, 2, 1, 1, 2},
      {true, 1, 4, 6, 6, 1, 1, 3, 3, 1, 1, 1, 1},
      {false, 1, 5, 7, 8, 4, 3, 2, 3, 1, 2, 2, 1},
  };
  uint64_t seed = 81;
  for (OpKind kind : {OpKind::ConvNgchwFgchw, OpKind::ConvNhwgcGfhwc})
    for (const Case &k : cases)
      checkKernel(convKindKernel(k.tensors, kind, k.n, k.g, k.h, k.w, k.c, k.f,
                                 k.kh, k.kw, k.sh, k.sw, k.dh, k.dw),
                  2, seed++, kind);
}

// Every op kind the CPU passes tile, on sizes drawn from a seed: loop
// sizes 1, primes and composites no register tile divides.
TEST_F(CPUExecutionTest, EveryOpKindRandomShapes) {
  std::mt19937_64 rng(97);
  auto pick = [&](std::initializer_list<int64_t> values) {
    return values.begin()[rng() % values.size()];
  };
  uint64_t seed = 101;
  for (OpKind kind : kAllOpKinds) {
    SCOPED_TRACE(stringifyOpKind(kind).str());
    std::string text;
    bool tensors = rng() % 3 != 0;
    if (!isConv(kind)) {
      int64_t b = pick({1, 2, 3});
      int64_t m = pick({1, 5, 13, 24, 37});
      int64_t n = pick({1, 7, 18, 33});
      int64_t k = pick({1, 3, 11, 20});
      text = matmulKernel(tensors, kind, b, m, n, k);
    } else {
      int64_t n = pick({1, 2});
      int64_t g = pick({2, 3, 4});
      int64_t kh = pick({1, 2, 3});
      int64_t kw = pick({1, 3});
      int64_t dh = pick({1, 2});
      int64_t dw = pick({1, 2});
      int64_t sh = pick({1, 2});
      int64_t sw = pick({1, 2});
      // Images at least as large as the (dilated) window.
      int64_t h = dh * (kh - 1) + pick({1, 4, 7});
      int64_t w = dw * (kw - 1) + pick({1, 5, 8});
      int64_t c = pick({1, 3, 6});
      int64_t f = pick({1, 5, 12});
      text = convKindKernel(tensors, kind, n, g, h, w, c, f, kh, kw, sh, sw, dh,
                            dw);
    }
    checkKernel(text, 2, seed++, kind);
  }
}

TEST(DefaultConfigTest, LegalForAnyShape) {
  MLIRContext context;
  initializeContext(context);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> size(1, 300);
  for (int i = 0; i < 200; ++i) {
    int64_t m = size(rng), n = size(rng), k = size(rng);
    std::string text =
        singleOpKernel(true, "linalg.matmul", "", {m, k}, {k, n}, {m, n});
    if (i % 2)
      text = convKernel(true, i % 4 == 1, 1 + i % 3, 3 + m % 40, 3 + n % 40,
                        1 + k % 20, 1 + m % 70, 1 + i % 3, 1 + (i / 3) % 3, 1,
                        1, 1, 1);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    Operation *op = nullptr;
    module->walk([&](Operation *o) {
      if (!op && succeeded(matchTunableOp(o)))
        op = o;
    });
    ASSERT_NE(op, nullptr);
    FailureOr<TunableOp> tunable = matchTunableOp(op);
    for (int64_t threads : {1, 2, 3, 8}) {
      CPUTarget target;
      target.threads = threads;
      TileConfigAttr config =
          computeDefaultCPUConfig(&context, *tunable, target);
      ASSERT_TRUE(config) << text;
      EXPECT_TRUE(succeeded(verifyConfig(config, *tunable, [&] {
        return op->emitError();
      }))) << text;
    }
  }
}

// A loop of size 0 (a TunableOp built by hand; matchTunableOp refuses such
// ops) gives no config instead of a division by zero, for every loop of
// every op kind and any thread count.
TEST(DefaultConfigTest, EmptyLoopsGiveNoConfig) {
  MLIRContext context;
  initializeContext(context);
  for (bool conv : {false, true}) {
    std::string text =
        conv ? convKernel(true, false, 2, 8, 8, 4, 16, 3, 3, 1, 1, 1, 1)
             : singleOpKernel(true, "linalg.batch_matmul", "", {2, 8, 4},
                              {2, 4, 16}, {2, 8, 16});
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    ASSERT_TRUE(module);
    Operation *op = nullptr;
    module->walk([&](Operation *o) {
      if (!op && succeeded(matchTunableOp(o)))
        op = o;
    });
    ASSERT_NE(op, nullptr);
    TunableOp tunable = *matchTunableOp(op);
    ASSERT_TRUE(computeDefaultCPUConfig(&context, tunable));
    for (unsigned i = 0; i < tunable.dims.size(); ++i) {
      TunableOp empty = tunable;
      empty.dims[i].size = 0;
      for (int64_t threads : {1, 2, 7}) {
        CPUTarget target;
        target.threads = threads;
        EXPECT_FALSE(computeDefaultCPUConfig(&context, empty, target))
            << text << " loop " << empty.dims[i].name;
      }
    }
  }
}

} // namespace
