//===- OperandAccess.cpp - Which loops index which operand ----------------===//
//
// The operand layouts of each op kind (see OperandAccess.h).
//
//===----------------------------------------------------------------------===//

#include "tiletune/Support/OperandAccess.h"

using namespace llvm;
using namespace mlir::tiletune;

SmallVector<int64_t, 4> OperandAccess::getExtents(
    function_ref<int64_t(StringRef)> span) const {
  SmallVector<int64_t, 4> extents;
  for (const auto &terms : indices) {
    int64_t extent = 1;
    for (const IndexTerm &t : terms)
      extent += t.coefficient * (span(t.dim) - 1);
    extents.push_back(extent);
  }
  return extents;
}

SmallVector<OperandAccess, 3>
mlir::tiletune::getOperandAccesses(const ProblemSpec &problem, bool asNHWC) {
  using Dim = SmallVector<IndexTerm, 2>;
  auto one = [](StringRef d) { return Dim{{d.str(), 1}}; };
  auto make = [](StringRef name, bool out, SmallVector<Dim, 4> dims) {
    OperandAccess a;
    a.name = name.str();
    a.isOutput = out;
    a.indices = std::move(dims);
    return a;
  };
  switch (problem.opKind) {
  case OpKind::Matmul:
    return {make("A", false, {one("m"), one("k")}),
            make("B", false, {one("k"), one("n")}),
            make("C", true, {one("m"), one("n")})};
  case OpKind::BatchMatmul:
    return {make("A", false, {one("b"), one("m"), one("k")}),
            make("B", false, {one("b"), one("k"), one("n")}),
            make("C", true, {one("b"), one("m"), one("n")})};
  case OpKind::ConvNhwcHwcf:
  case OpKind::ConvNchwFchw: {
    Dim h{{"oh", problem.strides[0]}, {"kh", problem.dilations[0]}};
    Dim w{{"ow", problem.strides[1]}, {"kw", problem.dilations[1]}};
    if (problem.opKind == OpKind::ConvNhwcHwcf || asNHWC)
      return {make("input", false, {one("n"), h, w, one("c")}),
              make("filter", false, {one("kh"), one("kw"), one("c"), one("f")}),
              make("output", true, {one("n"), one("oh"), one("ow"), one("f")})};
    return {make("input", false, {one("n"), one("c"), h, w}),
            make("filter", false, {one("f"), one("c"), one("kh"), one("kw")}),
            make("output", true, {one("n"), one("f"), one("oh"), one("ow")})};
  }
  }
  return {};
}
