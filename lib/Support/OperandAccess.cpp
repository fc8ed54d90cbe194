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
  if (std::optional<MatmulForm> form = getMatmulForm(problem.opKind)) {
    // Operands as stored: a transposed A is [k][m], a transposed B [n][k].
    SmallVector<Dim, 4> a, b, c;
    if (form->batched) {
      a.push_back(one("b"));
      b.push_back(one("b"));
      c.push_back(one("b"));
    }
    a.append(form->transposeA ? SmallVector<Dim, 4>{one("k"), one("m")}
                              : SmallVector<Dim, 4>{one("m"), one("k")});
    b.append(form->transposeB ? SmallVector<Dim, 4>{one("n"), one("k")}
                              : SmallVector<Dim, 4>{one("k"), one("n")});
    c.append({one("m"), one("n")});
    return {make("A", false, std::move(a)), make("B", false, std::move(b)),
            make("C", true, std::move(c))};
  }
  switch (problem.opKind) {
  case OpKind::ConvNhwcHwcf:
  case OpKind::ConvNhwcFhwc:
  case OpKind::ConvNchwFchw: {
    Dim h{{"oh", problem.strides[0]}, {"kh", problem.dilations[0]}};
    Dim w{{"ow", problem.strides[1]}, {"kw", problem.dilations[1]}};
    if (problem.opKind == OpKind::ConvNhwcFhwc)
      return {make("input", false, {one("n"), h, w, one("c")}),
              make("filter", false, {one("f"), one("kh"), one("kw"), one("c")}),
              make("output", true, {one("n"), one("oh"), one("ow"), one("f")})};
    if (problem.opKind == OpKind::ConvNhwcHwcf || asNHWC)
      return {make("input", false, {one("n"), h, w, one("c")}),
              make("filter", false, {one("kh"), one("kw"), one("c"), one("f")}),
              make("output", true, {one("n"), one("oh"), one("ow"), one("f")})};
    return {make("input", false, {one("n"), one("c"), h, w}),
            make("filter", false, {one("f"), one("c"), one("kh"), one("kw")}),
            make("output", true, {one("n"), one("f"), one("oh"), one("ow")})};
  }
  case OpKind::ConvNgchwFgchw:
  case OpKind::ConvNhwgcGfhwc: {
    Dim h{{"oh", problem.strides[0]}, {"kh", problem.dilations[0]}};
    Dim w{{"ow", problem.strides[1]}, {"kw", problem.dilations[1]}};
    if (problem.opKind == OpKind::ConvNhwgcGfhwc)
      return {make("input", false, {one("n"), h, w, one("g"), one("c")}),
              make("filter", false,
                   {one("g"), one("f"), one("kh"), one("kw"), one("c")}),
              make("output", true,
                   {one("n"), one("oh"), one("ow"), one("g"), one("f")})};
    if (asNHWC) // each group transposed to NHWC / HWCF / NHWC
      return {make("input", false, {one("g"), one("n"), h, w, one("c")}),
              make("filter", false,
                   {one("g"), one("kh"), one("kw"), one("c"), one("f")}),
              make("output", true,
                   {one("g"), one("n"), one("oh"), one("ow"), one("f")})};
    return {make("input", false, {one("n"), one("g"), one("c"), h, w}),
            make("filter", false,
                 {one("f"), one("g"), one("c"), one("kh"), one("kw")}),
            make("output", true,
                 {one("n"), one("g"), one("f"), one("oh"), one("ow")})};
  }
  default:
    break;
  }
  return {};
}
