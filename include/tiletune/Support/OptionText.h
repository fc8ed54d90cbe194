//===- OptionText.h - Help texts built at run time ---------------*- C++ -*-===//
//
// Part of the TileTune project.
//
//===----------------------------------------------------------------------===//
//
// llvm::cl::desc keeps only a StringRef. A description that names a default
// is built when the tool starts (`"... (default " + std::to_string(x) + ")"`);
// the temporary std::string dies right after the option's constructor and
// --help would then print freed memory. keepOptionText gives such a text
// static storage. Header-only.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SUPPORT_OPTIONTEXT_H
#define TILETUNE_SUPPORT_OPTIONTEXT_H

#include "llvm/ADT/StringRef.h"

#include <forward_list>
#include <string>

namespace mlir::tiletune {

/// Keeps \p text alive until the program exits and returns a view of it, for
/// llvm::cl::desc and other places that store only a StringRef.
inline llvm::StringRef keepOptionText(std::string text) {
  static std::forward_list<std::string> texts;
  texts.push_front(std::move(text));
  return texts.front();
}

} // namespace mlir::tiletune

#endif // TILETUNE_SUPPORT_OPTIONTEXT_H
