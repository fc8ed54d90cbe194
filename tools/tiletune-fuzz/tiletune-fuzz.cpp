//===- tiletune-fuzz.cpp - Differential fuzzer of the CPU pipeline --------===//
//
// Generates random single-op kernels from a seed (op family, shape, form,
// config, threads), compiles each with the pipeline users compile with
// (`tiletune-lower-cpu`), JIT-runs it on seeded inputs and compares the
// output with the C++ reference (KernelHarness). Every case runs in a forked
// child with a time limit (runInChild), so a crash or a hang is a typed
// failure; each failure is printed with a reproducer (the module with its
// config and the command rerunning that one case). Exit status 1 when any
// case failed. See docs/Testing.md.
//
// The property under test: every config the tuning space calls legal, every
// config the dialect's verifier accepts and every default config compiles
// and computes what the reference computes.
//
//===----------------------------------------------------------------------===//

#include "tiletune/Dialect/Diagnostics.h"
#include "tiletune/Dialect/TileConfig.h"
#include "tiletune/Driver/TuningSpace.h"
#include "tiletune/Execution/JIT.h"
#include "tiletune/Execution/KernelInfo.h"
#include "tiletune/InitAll.h"
#include "tiletune/Measure/KernelHarness.h"
#include "tiletune/Measure/Worker.h"
#include "tiletune/Problem/Problem.h"
#include "tiletune/Problem/ProblemSpace.h"
#include "tiletune/Support/OperandAccess.h"
#include "tiletune/Support/Target.h"
#include "tiletune/Transforms/DefaultConfig.h"
#include "tiletune/Transforms/Pipelines.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>

using namespace mlir;
using namespace mlir::tiletune;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory fuzzCategory("tiletune-fuzz options");

cl::opt<uint64_t> seedOpt("seed", cl::desc("Seed of the run"), cl::init(1),
                          cl::cat(fuzzCategory));
cl::opt<unsigned> numCases("cases", cl::desc("Number of cases to run"),
                           cl::init(50), cl::cat(fuzzCategory));
cl::opt<unsigned> firstCase("first", cl::desc("Index of the first case"),
                            cl::init(0), cl::cat(fuzzCategory));
cl::list<unsigned>
    onlyCases("case",
              cl::desc("Run only these cases (repeatable or comma-separated)"),
              cl::CommaSeparated, cl::cat(fuzzCategory));
/// Every op kind TileConfig knows, in TilingTemplates.def order.
constexpr OpKind kAllOpKinds[] = {
#define TILETUNE_OP_KIND(Enumerator, Name, OpName, IsConv) OpKind::Enumerator,
#include "tiletune/Support/TilingTemplates.def"
};

cl::list<std::string>
    opsOpt("ops", cl::desc("Op kinds to draw from (default: all; set in main)"),
           cl::CommaSeparated, cl::cat(fuzzCategory));
cl::list<std::string>
    formsOpt("forms",
             cl::desc("Forms to draw from (default: all): tensor, memref, "
                      "pad (a tensor.pad producer of the operands)"),
             cl::CommaSeparated, cl::cat(fuzzCategory));
cl::list<std::string> configsOpt(
    "configs",
    cl::desc("Config kinds to draw from (default: all): default (the "
             "pipeline's default-configs), space (a random valid point of "
             "the tuning space), verifier (a random config the dialect's "
             "verifier accepts, usually outside the space)"),
    cl::CommaSeparated, cl::cat(fuzzCategory));
cl::list<unsigned> threadsOpt("thread-counts",
                              cl::desc("Thread counts to draw from "
                                       "(default: 1,2)"),
                              cl::CommaSeparated, cl::cat(fuzzCategory));
cl::opt<double> maxMFlops(
    "max-mflops",
    cl::desc("FLOP budget of a generated shape in MFLOP (real-model shapes "
             "may use up to 5x)"),
    cl::init(30), cl::cat(fuzzCategory));
cl::opt<double> timeoutSeconds(
    "timeout", cl::desc("Time limit of one case in seconds (compile + run)"),
    cl::init(60), cl::cat(fuzzCategory));
cl::opt<uint64_t> memoryLimitMB(
    "memory-limit-mb",
    cl::desc("Address-space limit of a case's process in MiB (0: none)"),
    cl::init(0), cl::cat(fuzzCategory));
cl::opt<bool> listOnly("list", cl::desc("Print the cases without running them"),
                       cl::init(false), cl::cat(fuzzCategory));
cl::opt<bool> printModules(
    "print-modules",
    cl::desc("Print the module of every case, not only of failures"),
    cl::init(false), cl::cat(fuzzCategory));
cl::opt<std::string> injectFault(
    "inject-fault",
    cl::desc("Testing the fuzzer itself: make every case fail on purpose in "
             "its child (crash, hang, wrong: perturb the output, compile: an "
             "invalid pipeline), to check isolation and classification"),
    cl::init(""), cl::Hidden, cl::cat(fuzzCategory));
cl::opt<bool> quiet("quiet", cl::desc("Print only failures and the summary"),
                    cl::init(false), cl::cat(fuzzCategory));

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

enum class Form { Tensor, MemRef, PadProducer };
enum class ConfigKind { Default, Space, Verifier };

llvm::StringRef stringifyForm(Form form) {
  switch (form) {
  case Form::Tensor:
    return "tensor";
  case Form::MemRef:
    return "memref";
  case Form::PadProducer:
    return "pad";
  }
  llvm_unreachable("unknown form");
}

llvm::StringRef stringifyConfigKind(ConfigKind kind) {
  switch (kind) {
  case ConfigKind::Default:
    return "default";
  case ConfigKind::Space:
    return "space";
  case ConfigKind::Verifier:
    return "verifier";
  }
  llvm_unreachable("unknown config kind");
}

/// The family of an op kind: its plain form (matmul, batch_matmul,
/// conv_2d_nhwc_hwcf, conv_2d_nchw_fchw). A case draws its family first, then
/// one of the family's layout or transpose forms (see Generator::generate);
/// the family decides the loops and how the shape is drawn.
OpKind getFamily(OpKind kind) {
  switch (kind) {
  case OpKind::Matmul:
  case OpKind::MatmulTransposeA:
  case OpKind::MatmulTransposeB:
  case OpKind::MatmulTransposeAB:
    return OpKind::Matmul;
  case OpKind::BatchMatmul:
  case OpKind::BatchMatmulTransposeA:
  case OpKind::BatchMatmulTransposeB:
  case OpKind::BatchMatmulTransposeAB:
    return OpKind::BatchMatmul;
  case OpKind::ConvNhwcHwcf:
  case OpKind::ConvNhwcFhwc:
  case OpKind::ConvNhwgcGfhwc:
    return OpKind::ConvNhwcHwcf;
  case OpKind::ConvNchwFchw:
  case OpKind::ConvNgchwFgchw:
    return OpKind::ConvNchwFchw;
  }
  llvm_unreachable("unknown op kind");
}

/// Whether `kind` is a grouped conv (a loop g over groups of c channels and
/// f filters).
bool isGroupedConv(OpKind kind) {
  return kind == OpKind::ConvNgchwFgchw || kind == OpKind::ConvNhwgcGfhwc;
}

/// Low and high zero padding of one operand per dimension (the tensor.pad
/// producer of the `pad` form); empty when the operand is not padded.
struct OperandPad {
  SmallVector<int64_t> low, high;
  bool empty() const { return low.empty(); }
};

/// One generated case: everything needed to build, run and report it.
struct FuzzCase {
  unsigned index = 0;
  OpKind kind = OpKind::Matmul;
  /// Grouped convs: the number of groups (c and f are per group).
  int64_t groups = 1;
  bool f64 = false;
  Form form = Form::Tensor;
  ConfigKind configKind = ConfigKind::Default;
  unsigned threads = 1;
  /// How the shape was drawn ("prime", "model", ...).
  std::string shapeClass;
  /// Operand shapes as the op sees them (lhs, rhs, out).
  SmallVector<int64_t> lhs, rhs, out;
  std::array<int64_t, 2> strides = {1, 1}, dilations = {1, 1};
  /// The pad form: padding of lhs and rhs (the function takes them unpadded).
  OperandPad lhsPad, rhsPad;
  /// Tensor forms: the output starts as a zero-filled tensor.empty
  /// (linalg.fill, as frontends write it) instead of the argument %out.
  bool fillInit = false;
  /// The config on the op ("" for the default kind: the pipeline picks it).
  std::string configText;
  /// For the default kind: the config the heuristic picks (for the report).
  std::string defaultConfigText;
  /// For the verifier kind: whether the tuning space holds the config.
  bool inSpace = false;
  /// The module as compiled (the op carries configText).
  std::string moduleText;
  /// Why the case could not be generated (a failure of the generator or
  /// of the space: reported as a failure).
  std::string generationError;
  std::string generationClass;
};

/// Sets the operand shapes of `c` (lhs, rhs, out) from its loop sizes by
/// name, with the operand layouts of its kind (getOperandAccesses: a conv's
/// input extent is (out - 1) * stride + (window - 1) * dilation + 1).
void setOperandShapes(FuzzCase &c, const llvm::StringMap<int64_t> &sizes) {
  ProblemSpec spec;
  spec.opKind = c.kind;
  spec.strides = c.strides;
  spec.dilations = c.dilations;
  SmallVector<int64_t> *shapes[] = {&c.lhs, &c.rhs, &c.out};
  for (auto [access, shape] :
       llvm::zip(getOperandAccesses(spec, /*asNHWC=*/false), shapes)) {
    SmallVector<int64_t, 4> extents =
        access.getExtents([&](StringRef dim) { return sizes.lookup(dim); });
    shape->assign(extents.begin(), extents.end());
  }
}

std::string shapeStr(ArrayRef<int64_t> shape) {
  return llvm::join(
      llvm::map_range(shape, [](int64_t s) { return std::to_string(s); }), "x");
}

std::string typeStr(ArrayRef<int64_t> shape, bool f64, bool tensor) {
  return (tensor ? "tensor<" : "memref<") + shapeStr(shape) +
         (f64 ? "xf64>" : "xf32>");
}

SmallVector<int64_t> unpadded(ArrayRef<int64_t> shape, const OperandPad &pad) {
  SmallVector<int64_t> result(shape);
  if (!pad.empty())
    for (auto [i, s] : llvm::enumerate(result))
      s -= pad.low[i] + pad.high[i];
  return result;
}

std::string describeCase(const FuzzCase &c) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << stringifyOpKind(c.kind) << " " << shapeStr(c.lhs) << " * "
     << shapeStr(c.rhs) << " -> " << shapeStr(c.out)
     << (c.f64 ? " f64" : " f32");
  if (isConv(c.kind))
    os << " s=" << c.strides[0] << "x" << c.strides[1]
       << " d=" << c.dilations[0] << "x" << c.dilations[1];
  if (isGroupedConv(c.kind))
    os << " g=" << c.groups;
  auto padStr = [](llvm::StringRef name, const OperandPad &pad) {
    if (pad.empty())
      return std::string();
    return (" " + name + " low[" + shapeStr(pad.low) + "] high[" +
            shapeStr(pad.high) + "]")
        .str();
  };
  os << " [" << c.shapeClass << "], " << stringifyForm(c.form)
     << padStr("lhs", c.lhsPad) << padStr("rhs", c.rhsPad)
     << ", config=" << stringifyConfigKind(c.configKind);
  if (c.configKind == ConfigKind::Verifier)
    os << (c.inSpace ? " (in space)" : " (off space)");
  if (c.fillInit)
    os << ", init=fill";
  os << ", threads=" << c.threads;
  return text;
}

/// The text of the kernel module: @tiletune_kernel with one op whose
/// operands are the function's arguments (through tensor.pad in the pad
/// form), in destination-passing style on memrefs, returning its result on
/// tensors, where the output's initial value is the argument %out or, with
/// fillInit, a zero-filled tensor.empty. `config` goes on the op when not
/// empty.
std::string buildModuleText(const FuzzCase &c, llvm::StringRef config) {
  bool tensor = c.form != Form::MemRef;
  bool producer = c.form == Form::PadProducer;
  bool fill = tensor && c.fillInit;
  std::string elt = c.f64 ? "f64" : "f32";
  std::string lhsT = typeStr(c.lhs, c.f64, tensor);
  std::string rhsT = typeStr(c.rhs, c.f64, tensor);
  std::string outT = typeStr(c.out, c.f64, tensor);
  std::string argLhsT =
      producer ? typeStr(unpadded(c.lhs, c.lhsPad), c.f64, true) : lhsT;
  std::string argRhsT =
      producer ? typeStr(unpadded(c.rhs, c.rhsPad), c.f64, true) : rhsT;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "func.func @" << kKernelFunctionName << "(%lhs: " << argLhsT
     << ", %rhs: " << argRhsT;
  if (!fill)
    os << ", %out: " << outT;
  os << ")";
  if (tensor)
    os << " -> " << outT;
  os << " {\n";
  if (producer || fill)
    os << "  %zero = arith.constant 0.0 : " << elt << "\n";
  std::string outV = "%out";
  if (fill) {
    // The output as frontends initialize it.
    os << "  %empty = tensor.empty() : " << outT << "\n"
       << "  %init = linalg.fill ins(%zero : " << elt
       << ") outs(%empty : " << outT << ") -> " << outT << "\n";
    outV = "%init";
  }
  std::string lhsV = "%lhs", rhsV = "%rhs";
  if (producer) {
    auto emitPad = [&](llvm::StringRef name, const OperandPad &pad,
                       llvm::StringRef from, llvm::StringRef fromT,
                       llvm::StringRef toT) {
      auto list = [](ArrayRef<int64_t> v) {
        return llvm::join(
            llvm::map_range(v, [](int64_t s) { return std::to_string(s); }),
            ", ");
      };
      os << "  %" << name << " = tensor.pad " << from << " low["
         << list(pad.low) << "] high[" << list(pad.high) << "] {\n  ^bb0(";
      for (size_t i = 0; i < pad.low.size(); ++i)
        os << (i ? ", " : "") << "%i" << i << ": index";
      os << "):\n    tensor.yield %zero : " << elt << "\n  } : " << fromT
         << " to " << toT << "\n";
    };
    if (!c.lhsPad.empty()) {
      emitPad("lhs_padded", c.lhsPad, "%lhs", argLhsT, lhsT);
      lhsV = "%lhs_padded";
    }
    if (!c.rhsPad.empty()) {
      emitPad("rhs_padded", c.rhsPad, "%rhs", argRhsT, rhsT);
      rhsV = "%rhs_padded";
    }
  }
  os << "  " << (tensor ? "%result = " : "") << getOpName(c.kind);
  // Transposed matmuls: the indexing_maps of their form.
  if (std::optional<MatmulForm> form = getMatmulForm(c.kind);
      form && (form->transposeA || form->transposeB)) {
    llvm::StringRef dims = form->batched ? "(b, m, n, k)" : "(m, n, k)";
    llvm::StringRef b = form->batched ? "b, " : "";
    auto map = [&](llvm::StringRef results) {
      return ("affine_map<" + dims + " -> (" + b + results + ")>").str();
    };
    os << " indexing_maps = [" << map(form->transposeA ? "k, m" : "m, k")
       << ", " << map(form->transposeB ? "n, k" : "k, n") << ", " << map("m, n")
       << "]";
  }
  SmallVector<std::string> attrs;
  if (isConv(c.kind)) {
    attrs.push_back(llvm::formatv("dilations = dense<[{0}, {1}]> : "
                                  "tensor<2xi64>",
                                  c.dilations[0], c.dilations[1]));
    attrs.push_back(llvm::formatv("strides = dense<[{0}, {1}]> : "
                                  "tensor<2xi64>",
                                  c.strides[0], c.strides[1]));
  }
  if (!config.empty())
    attrs.push_back("tiletune.config = " + config.str());
  if (!attrs.empty())
    os << " {" << llvm::join(attrs, ", ") << "}";
  os << "\n      ins(" << lhsV << ", " << rhsV << " : " << lhsT << ", " << rhsT
     << ")\n      outs(" << outV << " : " << outT << ")";
  if (tensor)
    os << " -> " << outT << "\n  return %result : " << outT << "\n";
  else
    os << "\n  return\n";
  os << "}\n";
  return text;
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

/// Draws the cases of a run. Case i depends only on the seed, i and the
/// restrictions of --ops/--forms/--configs/--thread-counts, so one case can be
/// rerun alone.
class Generator {
public:
  Generator(MLIRContext *ctx, uint64_t seed) : ctx(ctx), seed(seed) {
    SmallVector<OpKind> ops;
    for (const std::string &name : opsOpt)
      ops.push_back(*symbolizeOpKind(name));
    if (ops.empty())
      ops.assign(std::begin(kAllOpKinds), std::end(kAllOpKinds));
    // The families in the order their first kind is named, each with its
    // kinds (the plain form first).
    for (OpKind kind : ops) {
      OpKind family = getFamily(kind);
      if (!llvm::is_contained(families, family))
        families.push_back(family);
      SmallVector<OpKind> &members = kindsOfFamily[family];
      if (llvm::is_contained(members, kind))
        continue;
      if (kind == family)
        members.insert(members.begin(), kind);
      else
        members.push_back(kind);
    }
    for (const std::string &name : formsOpt)
      forms.push_back(name == "tensor"   ? Form::Tensor
                      : name == "memref" ? Form::MemRef
                                         : Form::PadProducer);
    if (forms.empty())
      forms = {Form::Tensor, Form::MemRef, Form::PadProducer};
    for (const std::string &name : configsOpt)
      configs.push_back(name == "default" ? ConfigKind::Default
                        : name == "space" ? ConfigKind::Space
                                          : ConfigKind::Verifier);
    if (configs.empty())
      configs = {ConfigKind::Default, ConfigKind::Space, ConfigKind::Verifier};
    for (unsigned t : threadsOpt)
      threadCounts.push_back(t);
    if (threadCounts.empty())
      threadCounts = {1, 2};
  }

  FuzzCase generate(unsigned index);

private:
  template <typename T> const T &pick(std::mt19937_64 &rng, ArrayRef<T> v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
  }
  int64_t uniform(std::mt19937_64 &rng, int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  bool chance(std::mt19937_64 &rng, double p) {
    return std::bernoulli_distribution(p)(rng);
  }
  /// A loop size of a random class: 1, below a register tile, a prime, a
  /// power of two or another composite. `classes` collects the names.
  int64_t drawSize(std::mt19937_64 &rng, int64_t cap,
                   std::set<std::string> &classes);
  /// The number of groups of a grouped conv (usually more than 1).
  int64_t drawGroups(std::mt19937_64 &rng, bool model);
  /// Draws the loops of the case's family from `rng` (the same draws for
  /// every form of a family) and the group count from `formRng`.
  void drawShape(std::mt19937_64 &rng, std::mt19937_64 &formRng, FuzzCase &c);
  void drawPadProducer(std::mt19937_64 &rng, FuzzCase &c);
  /// A random config the dialect's verifier accepts; null after too many
  /// rejected draws.
  TileConfigAttr drawVerifierConfig(std::mt19937_64 &rng, const TunableOp &op);
  /// Sets the config of the case (needs the op of the parsed module).
  void drawConfig(std::mt19937_64 &rng, FuzzCase &c);

  MLIRContext *ctx;
  uint64_t seed;
  /// The families to draw from and the kinds of each.
  SmallVector<OpKind> families;
  std::map<OpKind, SmallVector<OpKind>> kindsOfFamily;
  SmallVector<Form> forms;
  SmallVector<ConfigKind> configs;
  SmallVector<unsigned> threadCounts;
};

int64_t Generator::drawSize(std::mt19937_64 &rng, int64_t cap,
                            std::set<std::string> &classes) {
  static const int64_t primes[] = {2,  3,  5,  7,  11, 13, 17,  19,
                                   23, 29, 31, 37, 61, 67, 127, 131};
  static const int64_t pow2[] = {2, 4, 8, 16, 32, 64, 128, 256};
  static const int64_t composite[] = {6,  9,  12, 15, 24,  25,  33,
                                      48, 49, 63, 96, 100, 144, 196};
  int64_t size;
  switch (uniform(rng, 0, 4)) {
  case 0:
    classes.insert("one");
    size = 1;
    break;
  case 1:
    classes.insert("small");
    size = uniform(rng, 2, 7);
    break;
  case 2:
    classes.insert("prime");
    size = pick<int64_t>(rng, primes);
    break;
  case 3:
    classes.insert("pow2");
    size = pick<int64_t>(rng, pow2);
    break;
  default:
    classes.insert("composite");
    size = pick<int64_t>(rng, composite);
    break;
  }
  return std::min(size, cap);
}

int64_t Generator::drawGroups(std::mt19937_64 &rng, bool model) {
  // Real models: ResNeXt's 32 groups, grouped stages of 2-8; otherwise 1
  // (the plain conv as a grouped op) to 16, primes included.
  static const int64_t modelGroups[] = {2, 4, 8, 32};
  static const int64_t groups[] = {1, 2, 3, 4, 5, 7, 8, 16};
  return model ? pick<int64_t>(rng, modelGroups) : pick<int64_t>(rng, groups);
}

void Generator::drawShape(std::mt19937_64 &rng, std::mt19937_64 &formRng,
                          FuzzCase &c) {
  double budget = maxMFlops * 1e6;
  std::set<std::string> classes;
  bool model = chance(rng, 0.2);
  switch (getFamily(c.kind)) {
  case OpKind::Matmul:
  case OpKind::BatchMatmul: {
    // (b, m, n, k)
    static const std::array<int64_t, 4> models[] = {
        {1, 128, 768, 768}, // BERT-base projection
        {1, 197, 64, 197},  // ViT attention (one head)
        {1, 1, 1000, 512},  // ResNet-18 classifier
        {1, 49, 512, 256},  // 7x7 feature map, 1x1 conv as matmul
        {1, 384, 96, 64},   // MobileNet-style
        {12, 128, 128, 64}, // BERT attention scores
        {12, 128, 64, 128}, // BERT attention context
        {16, 49, 49, 32},   // Swin window attention
        {8, 77, 77, 64},    // CLIP text attention
    };
    std::array<int64_t, 4> dims;
    if (model) {
      dims = pick<std::array<int64_t, 4>>(rng, models);
      budget *= 5;
    } else {
      dims = {drawSize(rng, 16, classes), drawSize(rng, 256, classes),
              drawSize(rng, 256, classes), drawSize(rng, 256, classes)};
    }
    if (!isBatchedMatmul(c.kind))
      dims[0] = 1;
    // Keep the FLOPs in the budget: halve the largest loop.
    auto flops = [&] { return 2.0 * dims[0] * dims[1] * dims[2] * dims[3]; };
    while (flops() > budget) {
      auto *largest = std::max_element(dims.begin(), dims.end());
      *largest = (*largest + 1) / 2;
    }
    auto [b, m, n, k] = dims;
    setOperandShapes(c, {{"b", b}, {"m", m}, {"n", n}, {"k", k}});
    break;
  }
  case OpKind::ConvNhwcHwcf:
  case OpKind::ConvNchwFchw: {
    // (n, oh, ow, f, kh, kw, c, stride)
    static const std::array<int64_t, 8> models[] = {
        {1, 112, 112, 64, 7, 7, 3, 2}, // ResNet stem
        {1, 56, 56, 64, 3, 3, 64, 1},  // ResNet conv2_x
        {1, 28, 28, 128, 1, 1, 256, 1}, {1, 14, 14, 256, 3, 3, 256, 1},
        {1, 7, 7, 512, 1, 1, 1024, 1},  {1, 112, 112, 32, 3, 3, 3, 2},
        {1, 13, 13, 384, 3, 3, 192, 1}, // AlexNet conv3
    };
    std::array<int64_t, 8> dims;
    if (model) {
      dims = pick<std::array<int64_t, 8>>(rng, models);
      budget *= 5;
    } else {
      static const int64_t windows[] = {1, 1, 2, 3, 3, 5, 7};
      dims = {drawSize(rng, 4, classes),   drawSize(rng, 64, classes),
              drawSize(rng, 64, classes),  drawSize(rng, 128, classes),
              pick<int64_t>(rng, windows), pick<int64_t>(rng, windows),
              drawSize(rng, 128, classes), 1};
      c.strides = {uniform(rng, 1, 2), uniform(rng, 1, 2)};
      c.dilations = {chance(rng, 0.2) ? 2 : 1, chance(rng, 0.2) ? 2 : 1};
    }
    if (model)
      c.strides = {dims[7], dims[7]};
    if (isGroupedConv(c.kind)) {
      // f and c per group; a model's channels split into the groups.
      c.groups = drawGroups(formRng, model);
      if (model) {
        dims[3] = std::max<int64_t>(1, dims[3] / c.groups);
        dims[6] = std::max<int64_t>(1, dims[6] / c.groups);
      }
    }
    auto flops = [&] {
      return 2.0 * c.groups * dims[0] * dims[1] * dims[2] * dims[3] * dims[4] *
             dims[5] * dims[6];
    };
    // Shrink the output, channel and batch loops (not the window).
    while (flops() > budget) {
      int64_t *largest = &dims[0];
      for (unsigned i : {1u, 2u, 3u, 6u})
        if (dims[i] > *largest)
          largest = &dims[i];
      *largest = (*largest + 1) / 2;
    }
    auto [n, oh, ow, f, kh, kw, ch, s] = dims;
    (void)s;
    setOperandShapes(c, {{"n", n}, {"g", c.groups}, {"oh", oh}, {"ow", ow},
                         {"f", f}, {"kh", kh}, {"kw", kw}, {"c", ch}});
    break;
  }
  default:
    llvm_unreachable("not an op family");
  }
  c.shapeClass = model ? "model" : llvm::join(classes, "+");
}

void Generator::drawPadProducer(std::mt19937_64 &rng, FuzzCase &c) {
  // A padding of at most 3 per side that leaves at least 1 element.
  auto side = [&](int64_t size, int64_t &low, int64_t &high) {
    low = std::min<int64_t>(uniform(rng, 0, 3), size - 1);
    high = std::min<int64_t>(uniform(rng, 0, 3), size - 1 - low);
  };
  auto none = [](size_t rank) {
    OperandPad pad;
    pad.low.assign(rank, 0);
    pad.high.assign(rank, 0);
    return pad;
  };
  if (isConv(c.kind)) {
    // Frontends pad the image's spatial dimensions: H, W of NHWC, NHWGC
    // (1, 2), NCHW (2, 3) and NGCHW (3, 4) images.
    c.lhsPad = none(c.lhs.size());
    unsigned h = c.kind == OpKind::ConvNchwFchw     ? 2
                 : c.kind == OpKind::ConvNgchwFgchw ? 3
                                                    : 1;
    side(c.lhs[h], c.lhsPad.low[h], c.lhsPad.high[h]);
    side(c.lhs[h + 1], c.lhsPad.low[h + 1], c.lhsPad.high[h + 1]);
    return;
  }
  // Matmuls: A on m and k, B on k (the same padding as A's k) and n, where
  // the transposed forms store them ([k][m] and [n][k]).
  MatmulForm form = *getMatmulForm(c.kind);
  size_t rank = c.lhs.size();
  unsigned inner = rank - 1, outer = rank - 2;
  unsigned mDim = form.transposeA ? inner : outer;
  unsigned kDimA = form.transposeA ? outer : inner;
  unsigned kDimB = form.transposeB ? inner : outer;
  unsigned nDim = form.transposeB ? outer : inner;
  c.lhsPad = none(rank);
  c.rhsPad = none(rank);
  side(c.lhs[mDim], c.lhsPad.low[mDim], c.lhsPad.high[mDim]);
  side(c.lhs[kDimA], c.lhsPad.low[kDimA], c.lhsPad.high[kDimA]);
  c.rhsPad.low[kDimB] = c.lhsPad.low[kDimA];
  c.rhsPad.high[kDimB] = c.lhsPad.high[kDimA];
  side(c.rhs[nDim], c.rhsPad.low[nDim], c.rhsPad.high[nDim]);
}

TileConfigAttr Generator::drawVerifierConfig(std::mt19937_64 &rng,
                                             const TunableOp &op) {
  // Every `pack` value of the kind (with `bt` where B is transposed).
  SmallVector<StringRef> packs = getPackValues(op.kind);
  static const int64_t unrolls[] = {1, 2, 4, 8};
  const OptionSpec *padSpec = lookupOptionSpec(kTargetCPU, "pad");
  const OptionSpec *layoutSpec = lookupOptionSpec(kTargetCPU, "layout");
  bool paddable = padSpec && padSpec->appliesTo(op.kind);
  bool hasLayout = layoutSpec && layoutSpec->appliesTo(op.kind);
  // An NCHW conv: its im2col through NHWC (a 1x1 one also per image, whose
  // packs are a subset).
  std::optional<OpKind> im2colKind =
      getIm2colMatmulKind(op.kind, /*nhwcLayout=*/true);
  SmallVector<StringRef> im2colPacks;
  if (im2colKind)
    for (StringRef pack : getPackValues(*im2colKind))
      if (pack != "bt")
        im2colPacks.push_back(pack);
  for (unsigned attempt = 0; attempt < 200; ++attempt) {
    FactorMap factors;
    for (const LoopDim &dim : op.dims) {
      unsigned numFactors =
          getDimLevels(kTargetCPU, op.kind, dim.role).size() + 1;
      int64_t size = dim.size;
      // Pad by up to the size itself (at most 64) on some loops.
      if (paddable && dim.role != DimRole::Batch && chance(rng, 0.25))
        size += uniform(rng, 1, std::min<int64_t>(dim.size, 64));
      SmallVector<int64_t> list(numFactors, 1);
      for (auto [prime, exponent] : factorizePrimes(size))
        for (unsigned e = 0; e < exponent; ++e)
          list[uniform(rng, 0, numFactors - 1)] *= prime;
      factors[dim.name] = list;
    }
    Builder b(ctx);
    SmallVector<NamedAttribute> options;
    if (chance(rng, 0.5)) {
      SmallVector<Attribute> order;
      for (const LoopDim &dim : op.dims)
        if (dim.role != DimRole::Batch)
          order.push_back(b.getStringAttr(dim.name));
      std::shuffle(order.begin(), order.end(), rng);
      options.push_back(b.getNamedAttr("order", b.getArrayAttr(order)));
    }
    // A conv as its im2col GEMM, packed as that GEMM's form allows (dn on
    // an FHWC filter).
    bool im2col = im2colKind && chance(rng, 0.3);
    if (im2col)
      options.push_back(b.getNamedAttr("im2col", b.getBoolAttr(true)));
    if (chance(rng, 0.5))
      options.push_back(b.getNamedAttr(
          "pack",
          b.getStringAttr(pick<StringRef>(rng, im2col ? im2colPacks : packs))));
    if (chance(rng, 0.5))
      options.push_back(b.getNamedAttr(
          "unroll", b.getI64IntegerAttr(pick<int64_t>(rng, unrolls))));
    if (chance(rng, 0.2))
      options.push_back(b.getNamedAttr("vectorize", b.getBoolAttr(false)));
    if (hasLayout && chance(rng, 0.5))
      options.push_back(b.getNamedAttr(
          "layout", b.getStringAttr(chance(rng, 0.5) ? "nhwc" : "native")));
    std::string ignored;
    ThreadScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      ignored = diag.str();
      return success();
    });
    TileConfigAttr attr = buildConfig(ctx, kTargetCPU, op, factors, options);
    if (!attr)
      continue;
    auto emit = [&]() { return emitError(UnknownLoc::get(ctx)); };
    if (succeeded(verifyConfig(attr, op, emit)))
      return attr;
  }
  return {};
}

void Generator::drawConfig(std::mt19937_64 &rng, FuzzCase &c) {
  // The op as the passes see it (padded operands in the pad form).
  std::string text = buildModuleText(c, "");
  std::string diagText;
  ThreadScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
    diagText += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, ctx);
  Operation *op = nullptr;
  if (module)
    module->walk([&](Operation *candidate) {
      if (succeeded(matchTunableOp(candidate)))
        op = candidate;
    });
  if (!op) {
    c.generationClass = "generator_error";
    c.generationError = "the generated module does not parse or has no "
                        "tunable op: " +
                        diagText;
    return;
  }
  FailureOr<TunableOp> tunable = matchTunableOp(op);
  std::string reason;
  FailureOr<Problem> problem = extractProblem(op, kTargetCPU, &reason);
  if (failed(problem)) {
    c.generationClass = "generator_error";
    c.generationError = "extractProblem: " + reason;
    return;
  }
  // The tuning space (also for the other kinds: the verifier's configs are
  // told apart by whether the space holds them).
  std::optional<Space> space;
  std::string spaceError;
  if (llvm::Expected<Space> built = buildTuningSpace(ctx, *problem))
    space = std::move(*built);
  else
    spaceError = llvm::toString(built.takeError());

  switch (c.configKind) {
  case ConfigKind::Default: {
    CPUTarget target;
    target.threads = c.threads;
    c.defaultConfigText =
        printAttr(computeDefaultCPUConfig(ctx, *tunable, target));
    return;
  }
  case ConfigKind::Space: {
    if (!space) {
      c.generationClass = "space_error";
      c.generationError = "buildTuningSpace failed: " + spaceError;
      return;
    }
    std::optional<Config> config = space->sampleValid(rng);
    if (!config) {
      c.generationClass = "space_error";
      c.generationError =
          "no valid config found in the space of " + problem->describe();
      return;
    }
    llvm::Expected<TileConfigAttr> attr =
        configToAttr(ctx, *problem, *space, *config);
    if (!attr) {
      // The space calls the config legal, the dialect does not.
      c.generationClass = "space_invalid";
      c.generationError = llvm::toString(attr.takeError());
      return;
    }
    c.configText = printAttr(*attr);
    return;
  }
  case ConfigKind::Verifier: {
    TileConfigAttr attr = drawVerifierConfig(rng, *tunable);
    if (!attr) {
      c.generationClass = "generator_error";
      c.generationError = "no config the verifier accepts was drawn";
      return;
    }
    c.configText = printAttr(attr);
    if (space) {
      llvm::Expected<Config> config = attrToConfig(*problem, *space, attr);
      c.inSpace = config && space->isValid(*config);
      if (!config)
        llvm::consumeError(config.takeError());
    }
    return;
  }
  }
}

FuzzCase Generator::generate(unsigned index) {
  // Case i has its own stream: (seed, i) through a seed sequence.
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(index),
                    0x7117u};
  std::mt19937_64 rng(seq);
  FuzzCase c;
  c.index = index;
  // The family from the case's stream (as the op kind was drawn before
  // the layout and transpose forms joined), its form from a stream of its
  // own: restricted to the plain kinds (--ops=matmul,batch_matmul,
  // conv_2d_nhwc_hwcf,conv_2d_nchw_fchw), a seed draws the cases it drew
  // then; with other forms, a case is the same problem in another form.
  OpKind family = pick<OpKind>(rng, families);
  std::seed_seq formSeq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(index),
                        0xf0e3u};
  std::mt19937_64 formRng(formSeq);
  c.kind = pick<OpKind>(formRng, kindsOfFamily[family]);
  c.form = pick<Form>(rng, forms);
  c.configKind = pick<ConfigKind>(rng, configs);
  c.threads = pick<unsigned>(rng, threadCounts);
  c.f64 = chance(rng, 0.15);
  drawShape(rng, formRng, c);
  if (c.form == Form::PadProducer)
    drawPadProducer(rng, c);
  // Axes added later draw from their own stream, so that the cases drawn
  // before them stay what they were.
  std::seed_seq laterSeq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(index),
                         0x5eedu};
  std::mt19937_64 later(laterSeq);
  c.fillInit = c.form != Form::MemRef && chance(later, 0.35);
  drawConfig(rng, c);
  c.moduleText = buildModuleText(c, c.configText);
  return c;
}

//===----------------------------------------------------------------------===//
// Running a case (in the child process)
//===----------------------------------------------------------------------===//

/// Marker the child writes to stderr when it enters a phase.
constexpr llvm::StringLiteral kPhaseMarker = "tiletune-fuzz-phase: ";

void enterPhase(llvm::StringRef name) {
  llvm::errs() << kPhaseMarker << name << "\n";
  llvm::errs().flush();
}

/// Copies `from` into the interior of `to` (zero elsewhere) at offsets `low`.
void padInto(const Buffer &from, Buffer &to, ArrayRef<int64_t> low) {
  to.fillConstant(0.0);
  ArrayRef<int64_t> strides = to.getStrides();
  for (int64_t i = 0, e = from.getNumElements(); i < e; ++i) {
    SmallVector<int64_t> index = from.delinearize(i);
    int64_t linear = 0;
    for (auto [d, idx] : llvm::enumerate(index))
      linear += (idx + low[d]) * strides[d];
    to.setFromDouble(linear, from.getAsDouble(i));
  }
}

/// Compiles and runs the case; the answer is "<class>\n<message>", class
/// one of pass, compile_error, runtime_error, wrong_result.
std::string runCase(const FuzzCase &c) {
  auto answer = [](llvm::StringRef cls, const llvm::Twine &message) {
    return (cls + "\n" + message).str();
  };
  enterPhase("parse");
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  initializeContext(ctx);
  std::string diagText;
  ThreadScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    if (!diagText.empty())
      diagText += "\n";
    llvm::raw_string_ostream os(diagText);
    os << diag.getLocation() << ": " << diag.str();
    // Notes only by their first line ("see current operation" dumps IR).
    for (const Diagnostic &note : diag.getNotes())
      os << "\n  note: " << llvm::StringRef(note.str()).split('\n').first;
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(c.moduleText, &ctx);
  if (!module)
    return answer("compile_error", "the module does not parse: " + diagText);
  // The reference problem: the op on the operands it sees (in the pad form
  // the padded ones: a single-op function taking them as arguments).
  FuzzCase plain = c;
  if (plain.form == Form::PadProducer)
    plain.form = Form::Tensor;
  plain.fillInit = false;
  OwningOpRef<ModuleOp> refModule =
      parseSourceString<ModuleOp>(buildModuleText(plain, ""), &ctx);
  if (!refModule)
    return answer("compile_error",
                  "the reference module does not parse: " + diagText);
  auto refFunc = refModule->lookupSymbol<func::FuncOp>(kKernelFunctionName);
  llvm::Expected<ReferenceProblem> problem = analyzeSingleOpKernel(refFunc);
  if (!problem)
    return answer("compile_error",
                  "no reference: " + llvm::toString(problem.takeError()));
  llvm::Expected<KernelSignature> refSig = getKernelSignature(refFunc);
  if (!refSig)
    return answer("compile_error", llvm::toString(refSig.takeError()));
  // The arguments of the kernel before lowering (lowering may add trailing
  // out-parameters).
  unsigned numOriginalArgs = c.fillInit ? 2 : 3;

  enterPhase("lower");
  if (llvm::Error err = prepareForExecution(*module, /*strict=*/true))
    return answer("compile_error", llvm::toString(std::move(err)));
  PassManager pm(&ctx, ModuleOp::getOperationName());
  CPULoweringOptions lowering;
  lowering.threads = c.threads;
  lowering.tile = true;
  lowering.defaultConfigs = c.configKind == ConfigKind::Default;
  lowering.emitCInterface = true;
  buildCPULoweringPipeline(pm, lowering);
  if (injectFault == "compile")
    module->walk([](func::FuncOp func) {
      func->setAttr("tiletune.config", UnitAttr::get(func.getContext()));
    });
  if (failed(pm.run(*module)))
    return answer("compile_error", "tiletune-lower-cpu failed:\n" + diagText);
  // LLVM's code generation, apart from the pipeline in a time-out's report.
  enterPhase("jit");
  llvm::Expected<std::unique_ptr<ExecutionModule>> compiled =
      ExecutionModule::create(*module);
  if (!compiled)
    return answer("compile_error",
                  "JIT failed: " + llvm::toString(compiled.takeError()));
  llvm::Expected<Kernel> kernel = (*compiled)->getKernel(kKernelFunctionName);
  if (!kernel)
    return answer("compile_error", "kernel lookup failed: " +
                                       llvm::toString(kernel.takeError()));
  const KernelSignature &sig = kernel->getSignature();

  enterPhase("run");
  // Arguments of the kernel (argument i from seed + i, the seed depending on
  // the case); the reference sees the same values, zero-padded in the pad
  // form, and a zero output where a linalg.fill initializes it.
  uint64_t inputSeed = uint64_t(c.index) * 8 + 1;
  llvm::Expected<SmallVector<Buffer>> args =
      KernelHarness::seedArguments(sig.args, inputSeed);
  if (!args)
    return answer("runtime_error", llvm::toString(args.takeError()));
  llvm::Expected<KernelHarness> harness = KernelHarness::create(
      *problem, refSig->args, inputSeed, /*computeExpected=*/false);
  if (!harness)
    return answer("runtime_error", llvm::toString(harness.takeError()));
  if (c.fillInit)
    harness->getArguments()[problem->outArg].fillConstant(0.0);
  if (c.form == Form::PadProducer) {
    if (!c.lhsPad.empty())
      padInto((*args)[problem->lhsArg],
              harness->getArguments()[problem->lhsArg], c.lhsPad.low);
    if (!c.rhsPad.empty())
      padInto((*args)[problem->rhsArg],
              harness->getArguments()[problem->rhsArg], c.rhsPad.low);
  }
  if (c.threads >= 1)
    if (llvm::Error err = setOpenMPNumThreads(int(c.threads)))
      return answer("runtime_error", llvm::toString(std::move(err)));
  SmallVector<Buffer *> argPtrs;
  for (Buffer &buffer : *args)
    argPtrs.push_back(&buffer);
  SmallVector<Buffer> results;
  if (injectFault == "crash")
    raise(SIGSEGV);
  if (injectFault == "hang")
    for (volatile bool forever = true; forever;)
      ;
  if (llvm::Error err = kernel->run(argPtrs, &results))
    return answer("runtime_error", llvm::toString(std::move(err)));
  // The output: the out argument (memrefs, and tensors whose result
  // bufferizes into it: the pipeline drops such results), else the
  // returned memref or a trailing out-parameter lowering added for it.
  Buffer *actual = nullptr;
  if (problem->outputIsResult && !results.empty())
    actual = &results.front();
  else if (problem->outputIsResult && args->size() > numOriginalArgs)
    actual = &(*args)[numOriginalArgs];
  else if (!c.fillInit)
    actual = &(*args)[problem->outArg];
  if (!actual)
    return answer("runtime_error", "the kernel returned no output");

  if (injectFault == "wrong") {
    int64_t last = actual->getNumElements() - 1;
    actual->setFromDouble(last, actual->getAsDouble(last) + 1.0);
  }
  enterPhase("verify");
  llvm::Expected<ComparisonResult> cmp = harness->verify(*actual);
  if (!cmp)
    return answer("runtime_error", llvm::toString(cmp.takeError()));
  if (!cmp->passed)
    return answer("wrong_result",
                  "output differs from the reference: " + cmp->summary());
  return answer("pass", "");
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

struct Outcome {
  /// pass, crash, timeout, compile_error, runtime_error, wrong_result,
  /// space_invalid, space_error, generator_error.
  std::string cls;
  std::string message;
  std::string phase;
  double seconds = 0;
};

Outcome runIsolated(const FuzzCase &c) {
  Outcome outcome;
  if (!c.generationClass.empty()) {
    outcome.cls = c.generationClass;
    outcome.message = c.generationError;
    outcome.phase = "generate";
    return outcome;
  }
  WorkerOptions options;
  options.timeoutSeconds = timeoutSeconds;
  options.captureStderr = true;
  options.memoryLimitBytes = memoryLimitMB * 1024 * 1024;
  llvm::Expected<WorkerResult> result =
      runInChild([&c] { return runCase(c); }, options);
  if (!result) {
    outcome.cls = "worker_error";
    outcome.message = llvm::toString(result.takeError());
    return outcome;
  }
  outcome.seconds = result->seconds;
  // The last phase the child entered, and what it printed since.
  std::string tail;
  outcome.phase = "start";
  SmallVector<llvm::StringRef> lines;
  llvm::StringRef(result->stderrTail).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines) {
    if (line.starts_with(kPhaseMarker)) {
      outcome.phase = line.drop_front(kPhaseMarker.size()).trim().str();
      tail.clear();
      continue;
    }
    tail += line.str() + "\n";
  }
  switch (result->status) {
  case WorkerStatus::Success: {
    auto [cls, message] = llvm::StringRef(result->output).split('\n');
    outcome.cls = cls.str();
    outcome.message = message.str();
    return outcome;
  }
  case WorkerStatus::Timeout:
    outcome.cls = "timeout";
    break;
  case WorkerStatus::Crashed:
  case WorkerStatus::ExitedNonZero:
    outcome.cls = "crash";
    break;
  }
  outcome.message = result->describe() + " during " + outcome.phase;
  llvm::StringRef trimmed = llvm::StringRef(tail).trim();
  if (trimmed.size() > 3000)
    trimmed = trimmed.take_back(3000);
  if (!trimmed.empty())
    outcome.message += ":\n" + trimmed.str();
  return outcome;
}

/// The command that reruns case `index` alone (with the run's restrictions).
std::string rerunCommand(unsigned index) {
  std::string cmd = llvm::formatv("tiletune-fuzz --seed={0} --case={1}",
                                  seedOpt.getValue(), index);
  auto list = [](llvm::StringRef name, const auto &values) {
    std::string s;
    if (values.empty())
      return s;
    s = " --" + name.str() + "=";
    bool first = true;
    for (const auto &v : values) {
      llvm::raw_string_ostream(s) << (first ? "" : ",") << v;
      first = false;
    }
    return s;
  };
  cmd += list("ops", opsOpt);
  cmd += list("forms", formsOpt);
  cmd += list("configs", configsOpt);
  cmd += list("thread-counts", threadsOpt);
  if (maxMFlops.getNumOccurrences())
    cmd += llvm::formatv(" --max-mflops={0}", maxMFlops.getValue());
  return cmd;
}

void printModule(llvm::raw_ostream &os, const FuzzCase &c) {
  std::string options = llvm::formatv("threads={0}", c.threads).str();
  if (c.configKind == ConfigKind::Default)
    options += " default-configs=true";
  os << "  // compile: tiletune-opt --tiletune-lower-cpu=\"" << options
     << "\" case.mlir\n";
  // tiletune-run --verify knows only ops on the function's arguments.
  if (c.form != Form::PadProducer && !c.fillInit)
    os << "  // run:     tiletune-run case.mlir "
          "--pipeline=\"tiletune-lower-cpu{"
       << options << "}\" --verify --repeats=0 --num-threads=" << c.threads
       << "\n";
  if (!c.defaultConfigText.empty())
    os << "  // default config: " << c.defaultConfigText << "\n";
  SmallVector<llvm::StringRef> lines;
  llvm::StringRef(c.moduleText).split(lines, '\n', -1, false);
  for (llvm::StringRef line : lines)
    os << "  " << line << "\n";
}

/// The names of every op kind, comma-separated.
std::string listOpKinds() {
  return llvm::join(
      llvm::map_range(kAllOpKinds,
                      [](OpKind kind) { return stringifyOpKind(kind).str(); }),
      ", ");
}

bool validateOptions() {
  auto bad = [](const llvm::Twine &message) {
    llvm::WithColor::error(llvm::errs(), "tiletune-fuzz") << message << "\n";
    return false;
  };
  for (const std::string &name : opsOpt)
    if (!symbolizeOpKind(name))
      return bad("unknown op kind '" + name + "' in --ops (" + listOpKinds() +
                 ")");
  for (const std::string &name : formsOpt)
    if (name != "tensor" && name != "memref" && name != "pad")
      return bad("unknown form '" + name +
                 "' in --forms (tensor, memref, pad)");
  for (const std::string &name : configsOpt)
    if (name != "default" && name != "space" && name != "verifier")
      return bad("unknown config kind '" + name +
                 "' in --configs (default, space, verifier)");
  for (unsigned t : threadsOpt)
    if (t < 1 || t > 256)
      return bad("--thread-counts values must be between 1 and 256");
  if (!(timeoutSeconds > 0) || timeoutSeconds > 86400)
    return bad("--timeout must be in (0, 86400] seconds");
  if (!injectFault.empty() && injectFault != "crash" && injectFault != "hang" &&
      injectFault != "wrong" && injectFault != "compile")
    return bad("--inject-fault must be crash, hang, wrong or compile");
  if (!(maxMFlops > 0) || maxMFlops > 1e6)
    return bad("--max-mflops must be in (0, 1e6]");
  return true;
}

int runMain() {
  if (!validateOptions())
    return 1;
  // Cases are generated here and run in forked children: no thread may
  // exist in this process (see Worker.h), hence no context threading.
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  initializeContext(ctx);
  Generator generator(&ctx, seedOpt);

  SmallVector<unsigned> indices(onlyCases.begin(), onlyCases.end());
  if (indices.empty())
    for (unsigned i = 0; i < numCases; ++i)
      indices.push_back(firstCase + i);

  llvm::raw_ostream &os = llvm::outs();
  std::map<std::string, unsigned> counts;
  SmallVector<std::pair<unsigned, std::string>> failures;
  double totalSeconds = 0;
  for (unsigned index : indices) {
    FuzzCase c = generator.generate(index);
    if (listOnly) {
      os << "case " << index << ": " << describeCase(c) << "\n";
      if (printModules)
        printModule(os, c);
      continue;
    }
    Outcome outcome = runIsolated(c);
    totalSeconds += outcome.seconds;
    ++counts[outcome.cls];
    bool passed = outcome.cls == "pass";
    if (!passed || !quiet)
      os << llvm::formatv("case {0}: {1}: {2} ({3:f2} s)\n", index,
                          describeCase(c), passed ? "PASS" : "FAIL",
                          outcome.seconds);
    if (passed) {
      if (printModules)
        printModule(os, c);
      os.flush();
      continue;
    }
    failures.push_back({index, outcome.cls});
    os << "FAILURE [" << outcome.cls << "] case " << index << " (seed "
       << seedOpt.getValue() << "): " << outcome.message << "\n";
    os << "  rerun: " << rerunCommand(index) << "\n";
    printModule(os, c);
    os.flush();
  }
  if (listOnly)
    return 0;
  os << llvm::formatv("summary: {0} cases, {1} passed, {2} failed "
                      "({3:f1} s in cases)",
                      indices.size(), counts["pass"], failures.size(),
                      totalSeconds);
  std::string byClass;
  for (auto &[cls, n] : counts)
    if (cls != "pass")
      byClass += (byClass.empty() ? "" : ", ") + cls + ": " + std::to_string(n);
  if (!byClass.empty())
    os << "; " << byClass;
  os << "\n";
  if (!failures.empty()) {
    os << "failed cases:";
    for (auto &[index, cls] : failures)
      os << " " << index << "(" << cls << ")";
    os << "\n";
  }
  os.flush();
  return failures.empty() ? 0 : 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  cl::HideUnrelatedOptions(fuzzCategory);
  static const std::string opsHelp =
      "Op kinds to draw from (default: all): " + listOpKinds() +
      ". A case draws a family (matmul, batch_matmul, conv_2d_nhwc_hwcf: its "
      "NHWC forms, conv_2d_nchw_fchw: its NCHW forms), then one of the "
      "listed kinds of that family";
  opsOpt.setDescription(opsHelp);
  mlir::tiletune::registerTileTuneVersionPrinter();
  cl::ParseCommandLineOptions(
      argc, argv,
      "tiletune-fuzz: differential fuzzing of the CPU pipeline\n\n"
      "Draws cases from --seed (op family, shape, form, config, threads), "
      "compiles each with tiletune-lower-cpu in a forked child with a time "
      "limit, runs it and compares the output with the C++ reference. "
      "Prints a reproducer per failure (crash, timeout, compile_error, "
      "runtime_error, wrong_result, space_invalid, ...). Exit status: 0 all "
      "cases passed, 1 a case failed or bad options.\n\n"
      "Example:\n"
      "  tiletune-fuzz --seed=7 --cases=200 --quiet\n"
      "  tiletune-fuzz --seed=7 --case=42 --print-modules\n");
  return runMain();
}
