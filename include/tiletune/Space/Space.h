//===- Space.h - Typed tuning parameters and search spaces ------*- C++ -*-===//
//
// The search space of the tuner: typed parameters (factorization,
// permutation, discrete, categorical) with the neighbour topologies of OpEvo
// (section 3), exact counting, uniform sampling, enumeration by rank, feature
// encoding, and spaces = products of parameters restricted by named
// constraints. Pure C++: no MLIR IR is needed.
//
//===----------------------------------------------------------------------===//

#ifndef TILETUNE_SPACE_SPACE_H
#define TILETUNE_SPACE_SPACE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_set>

namespace mlir::tiletune {

struct ProblemSpec;

/// The value of one parameter: a small vector of integer slots. Its meaning
/// depends on the parameter kind (factors, permutation entries or an index
/// into a list of values).
using ParamValue = llvm::SmallVector<int64_t, 8>;

/// One point of a space: the slots of all parameters, concatenated in
/// parameter order. Cheap to copy, compare and hash.
class Config {
public:
  Config() = default;
  /// Builds a config from its slots.
  explicit Config(llvm::ArrayRef<int64_t> slots)
      : slots(slots.begin(), slots.end()) {}

  /// All slots.
  llvm::ArrayRef<int64_t> getSlots() const { return slots; }
  /// All slots, mutable.
  llvm::MutableArrayRef<int64_t> getSlots() { return slots; }
  /// Number of slots.
  size_t size() const { return slots.size(); }
  /// Whether the config has no slots (a default-constructed config).
  bool empty() const { return slots.empty(); }
  /// Slot `i`.
  int64_t operator[](size_t i) const { return slots[i]; }

  bool operator==(const Config &other) const { return slots == other.slots; }
  bool operator!=(const Config &other) const { return !(*this == other); }
  /// Lexicographic order of the slots (for deterministic containers).
  bool operator<(const Config &other) const { return slots < other.slots; }

  /// Hash of the slots.
  llvm::hash_code hash() const {
    return llvm::hash_combine_range(slots.begin(), slots.end());
  }

private:
  llvm::SmallVector<int64_t, 16> slots;
};

/// std::hash-style functor for configs.
struct ConfigHash {
  size_t operator()(const Config &c) const { return size_t(c.hash()); }
};

/// A set of configs (e.g. the "already proposed" set of a strategy).
using ConfigSet = std::unordered_set<Config, ConfigHash>;

/// The four parameter types of OpEvo section 3.
enum class ParamKind { Factorization, Permutation, Discrete, Categorical };

/// Stable lowercase name of a parameter kind ("factorization", ...).
llvm::StringRef stringifyParamKind(ParamKind kind);

/// A typed tuning parameter: a finite feasible set with a neighbour
/// topology. Values are `getWidth()` integer slots. Parameters are immutable
/// after construction and shared between copies of a space.
class Parameter {
public:
  virtual ~Parameter();

  /// The parameter type.
  ParamKind getKind() const { return kind; }
  /// The parameter name (unique within a space).
  llvm::StringRef getName() const { return name; }

  /// Number of integer slots of a value.
  virtual unsigned getWidth() const = 0;
  /// Exact number of values (no enumeration). Saturates at UINT64_MAX.
  virtual uint64_t count() const = 0;
  /// Writes the value of rank `index` (0 <= index < count()) into `out`.
  /// Ranks define the canonical enumeration order of the parameter.
  virtual void unrank(uint64_t index,
                      llvm::MutableArrayRef<int64_t> out) const = 0;
  /// The rank of a valid value (inverse of unrank).
  virtual uint64_t rank(llvm::ArrayRef<int64_t> value) const = 0;
  /// Draws a value uniformly at random.
  virtual void sample(std::mt19937_64 &rng,
                      llvm::MutableArrayRef<int64_t> out) const = 0;
  /// Appends all values adjacent to `value` in the parameter's topology, in
  /// a deterministic order. Adjacency is symmetric and irreflexive.
  virtual void getNeighbors(llvm::ArrayRef<int64_t> value,
                            llvm::SmallVectorImpl<ParamValue> &out) const = 0;
  /// Whether `value` lies in the feasible set; if not, `reason` says why.
  virtual bool isValid(llvm::ArrayRef<int64_t> value,
                       std::string *reason = nullptr) const = 0;
  /// Writes the parameter's default value (factorization: everything in the
  /// outermost factor; permutation: identity; otherwise the given default).
  virtual void getDefault(llvm::MutableArrayRef<int64_t> out) const = 0;

  /// Number of features `encode` appends.
  virtual unsigned getNumFeatures() const = 0;
  /// Appends numeric features of `value` for learned cost models.
  virtual void encode(llvm::ArrayRef<int64_t> value,
                      llvm::SmallVectorImpl<double> &features) const = 0;
  /// Appends one name per feature ("<param>.<what>").
  virtual void
  getFeatureNames(llvm::SmallVectorImpl<std::string> &names) const = 0;

  /// Prints `value` in the canonical key syntax (e.g. "[4,2,8,16]", "[n,k,m]",
  /// "512", "true").
  virtual void print(llvm::ArrayRef<int64_t> value,
                     llvm::raw_ostream &os) const = 0;
  /// Parses the key syntax of `print` into `out`; errors on malformed or
  /// infeasible text.
  virtual llvm::Error parse(llvm::StringRef text,
                            llvm::MutableArrayRef<int64_t> out) const = 0;

  /// A copy of this parameter restricted by `pattern`: the key syntax of one
  /// value pins the parameter to it (count 1, no neighbours); a
  /// factorization also accepts `*` for free slots, e.g. "[1,*,*,*]" pins
  /// the outermost factor only. The copy prints and parses values like this
  /// parameter, so keys stay comparable. Errors on a malformed pattern or
  /// one no feasible value matches.
  virtual llvm::Expected<std::shared_ptr<const Parameter>>
  pin(llvm::StringRef pattern) const = 0;

protected:
  Parameter(ParamKind kind, llvm::StringRef name) : kind(kind), name(name) {}

private:
  ParamKind kind;
  std::string name;
};

/// Ordered factorization of `total` into `numFactors` positive integers
/// (outer to inner) whose product is `total`. Two tuples are adjacent when
/// one is obtained from the other by moving one prime factor from one slot
/// to another. Counting is exact by prime-exponent combinatorics:
/// prod over primes p^e of C(e + nu - 1, nu - 1).
class FactorizationParam : public Parameter {
public:
  /// `total` >= 1, `numFactors` >= 1.
  FactorizationParam(llvm::StringRef name, int64_t total, unsigned numFactors);
  /// The same factorization with slot i pinned to `pinned[i]` where that is
  /// > 0 (0 = free); the free slots factorize the rest of the total. The
  /// pinned values must divide the total (all pinned: multiply to it).
  FactorizationParam(llvm::StringRef name, int64_t total, unsigned numFactors,
                     llvm::ArrayRef<int64_t> pinned);

  /// The pinned value of each slot (0 = free); empty when nothing is pinned.
  llvm::ArrayRef<int64_t> getPinned() const { return pinned; }

  /// The number being factorized.
  int64_t getTotal() const { return total; }
  /// Number of factors (nu).
  unsigned getNumFactors() const { return numFactors; }
  /// Prime factorization of the total: (prime, exponent), ascending primes.
  llvm::ArrayRef<std::pair<int64_t, unsigned>> getPrimes() const {
    return primes;
  }

  unsigned getWidth() const override { return numFactors; }
  uint64_t count() const override;
  void unrank(uint64_t index,
              llvm::MutableArrayRef<int64_t> out) const override;
  uint64_t rank(llvm::ArrayRef<int64_t> value) const override;
  void sample(std::mt19937_64 &rng,
              llvm::MutableArrayRef<int64_t> out) const override;
  void getNeighbors(llvm::ArrayRef<int64_t> value,
                    llvm::SmallVectorImpl<ParamValue> &out) const override;
  bool isValid(llvm::ArrayRef<int64_t> value,
               std::string *reason = nullptr) const override;
  void getDefault(llvm::MutableArrayRef<int64_t> out) const override;
  unsigned getNumFeatures() const override { return numFactors; }
  void encode(llvm::ArrayRef<int64_t> value,
              llvm::SmallVectorImpl<double> &features) const override;
  void
  getFeatureNames(llvm::SmallVectorImpl<std::string> &names) const override;
  void print(llvm::ArrayRef<int64_t> value,
             llvm::raw_ostream &os) const override;
  llvm::Error parse(llvm::StringRef text,
                    llvm::MutableArrayRef<int64_t> out) const override;
  llvm::Expected<std::shared_ptr<const Parameter>>
  pin(llvm::StringRef pattern) const override;

  static bool classof(const Parameter *p) {
    return p->getKind() == ParamKind::Factorization;
  }

private:
  int64_t total;
  unsigned numFactors;
  llvm::SmallVector<std::pair<int64_t, unsigned>> primes;
  /// Number of compositions of each prime's exponent into numFactors parts.
  llvm::SmallVector<uint64_t> perPrimeCounts;
  /// Pinned slot values (0 = free), empty when unpinned; then `freeParam`
  /// factorizes the remaining total into the free slots `freeSlots` (null
  /// when no slot is free).
  llvm::SmallVector<int64_t> pinned;
  llvm::SmallVector<unsigned> freeSlots;
  std::shared_ptr<const FactorizationParam> freeParam;

  /// Scatters a value of `freeParam` into the free slots of `out` (pinned slots
  /// get their pinned values).
  void scatterFree(llvm::ArrayRef<int64_t> free,
                   llvm::MutableArrayRef<int64_t> out) const;
  /// The free slots of `value`.
  llvm::SmallVector<int64_t, 8> gatherFree(llvm::ArrayRef<int64_t> value) const;
};

/// A permutation of named elements (e.g. a loop order). A value holds, per
/// position, the index of the element placed there. Two permutations are
/// adjacent when they differ by one swap (a two-cycle).
class PermutationParam : public Parameter {
public:
  /// `elements` must be distinct and non-empty (at most 20 of them).
  PermutationParam(llvm::StringRef name, llvm::ArrayRef<std::string> elements);
  /// The same permutation parameter pinned to the single value `only`.
  PermutationParam(llvm::StringRef name, llvm::ArrayRef<std::string> elements,
                   llvm::ArrayRef<int64_t> only);

  /// The pinned value, empty when the parameter is free.
  llvm::ArrayRef<int64_t> getPinned() const { return only; }

  /// The element names, in identity order.
  llvm::ArrayRef<std::string> getElements() const { return elements; }

  unsigned getWidth() const override { return elements.size(); }
  uint64_t count() const override;
  void unrank(uint64_t index,
              llvm::MutableArrayRef<int64_t> out) const override;
  uint64_t rank(llvm::ArrayRef<int64_t> value) const override;
  void sample(std::mt19937_64 &rng,
              llvm::MutableArrayRef<int64_t> out) const override;
  void getNeighbors(llvm::ArrayRef<int64_t> value,
                    llvm::SmallVectorImpl<ParamValue> &out) const override;
  bool isValid(llvm::ArrayRef<int64_t> value,
               std::string *reason = nullptr) const override;
  void getDefault(llvm::MutableArrayRef<int64_t> out) const override;
  unsigned getNumFeatures() const override { return elements.size(); }
  void encode(llvm::ArrayRef<int64_t> value,
              llvm::SmallVectorImpl<double> &features) const override;
  void
  getFeatureNames(llvm::SmallVectorImpl<std::string> &names) const override;
  void print(llvm::ArrayRef<int64_t> value,
             llvm::raw_ostream &os) const override;
  llvm::Error parse(llvm::StringRef text,
                    llvm::MutableArrayRef<int64_t> out) const override;
  llvm::Expected<std::shared_ptr<const Parameter>>
  pin(llvm::StringRef pattern) const override;

  static bool classof(const Parameter *p) {
    return p->getKind() == ParamKind::Permutation;
  }

private:
  llvm::SmallVector<std::string> elements;
  /// The pinned value (empty: free).
  llvm::SmallVector<int64_t> only;
};

/// An ordered list of distinct integers (e.g. max unroll steps). A value is
/// one slot holding the *index* into the ascending value list; adjacent
/// values are the next smaller and next larger ones.
class DiscreteParam : public Parameter {
public:
  /// `values` must be non-empty; they are sorted and de-duplicated.
  /// `defaultValue` must be one of them.
  DiscreteParam(llvm::StringRef name, llvm::ArrayRef<int64_t> values,
                int64_t defaultValue);

  /// The sorted values.
  llvm::ArrayRef<int64_t> getValues() const { return values; }
  /// The integer a value (an index slot) stands for.
  int64_t getValue(llvm::ArrayRef<int64_t> value) const {
    return values[value[0]];
  }
  /// Index of `v` in the value list, if present.
  std::optional<int64_t> indexOf(int64_t v) const;

  unsigned getWidth() const override { return 1; }
  uint64_t count() const override { return values.size(); }
  void unrank(uint64_t index,
              llvm::MutableArrayRef<int64_t> out) const override;
  uint64_t rank(llvm::ArrayRef<int64_t> value) const override;
  void sample(std::mt19937_64 &rng,
              llvm::MutableArrayRef<int64_t> out) const override;
  void getNeighbors(llvm::ArrayRef<int64_t> value,
                    llvm::SmallVectorImpl<ParamValue> &out) const override;
  bool isValid(llvm::ArrayRef<int64_t> value,
               std::string *reason = nullptr) const override;
  void getDefault(llvm::MutableArrayRef<int64_t> out) const override;
  unsigned getNumFeatures() const override { return 1; }
  void encode(llvm::ArrayRef<int64_t> value,
              llvm::SmallVectorImpl<double> &features) const override;
  void
  getFeatureNames(llvm::SmallVectorImpl<std::string> &names) const override;
  void print(llvm::ArrayRef<int64_t> value,
             llvm::raw_ostream &os) const override;
  llvm::Error parse(llvm::StringRef text,
                    llvm::MutableArrayRef<int64_t> out) const override;
  llvm::Expected<std::shared_ptr<const Parameter>>
  pin(llvm::StringRef pattern) const override;

  static bool classof(const Parameter *p) {
    return p->getKind() == ParamKind::Discrete;
  }

private:
  llvm::SmallVector<int64_t> values;
  int64_t defaultIndex;
};

/// An unordered set of named choices (e.g. true/false, none/a/b/ab). A value
/// is one slot holding the choice index; all choices are mutually adjacent.
class CategoricalParam : public Parameter {
public:
  /// `choices` must be distinct and non-empty; `defaultIndex` < size.
  CategoricalParam(llvm::StringRef name, llvm::ArrayRef<std::string> choices,
                   unsigned defaultIndex = 0);

  /// The choice names.
  llvm::ArrayRef<std::string> getChoices() const { return choices; }
  /// The choice name a value stands for.
  llvm::StringRef getChoice(llvm::ArrayRef<int64_t> value) const {
    return choices[value[0]];
  }
  /// Index of choice `name`, if present.
  std::optional<int64_t> indexOf(llvm::StringRef name) const;

  unsigned getWidth() const override { return 1; }
  uint64_t count() const override { return choices.size(); }
  void unrank(uint64_t index,
              llvm::MutableArrayRef<int64_t> out) const override;
  uint64_t rank(llvm::ArrayRef<int64_t> value) const override;
  void sample(std::mt19937_64 &rng,
              llvm::MutableArrayRef<int64_t> out) const override;
  void getNeighbors(llvm::ArrayRef<int64_t> value,
                    llvm::SmallVectorImpl<ParamValue> &out) const override;
  bool isValid(llvm::ArrayRef<int64_t> value,
               std::string *reason = nullptr) const override;
  void getDefault(llvm::MutableArrayRef<int64_t> out) const override;
  unsigned getNumFeatures() const override { return choices.size(); }
  void encode(llvm::ArrayRef<int64_t> value,
              llvm::SmallVectorImpl<double> &features) const override;
  void
  getFeatureNames(llvm::SmallVectorImpl<std::string> &names) const override;
  void print(llvm::ArrayRef<int64_t> value,
             llvm::raw_ostream &os) const override;
  llvm::Error parse(llvm::StringRef text,
                    llvm::MutableArrayRef<int64_t> out) const override;
  llvm::Expected<std::shared_ptr<const Parameter>>
  pin(llvm::StringRef pattern) const override;

  static bool classof(const Parameter *p) {
    return p->getKind() == ParamKind::Categorical;
  }

private:
  llvm::SmallVector<std::string> choices;
  unsigned defaultIndex;
};

class Space;

/// A named predicate over configs. `check` returns std::nullopt when the
/// config satisfies it, or a human-readable reason when it does not.
struct Constraint {
  /// Short identifier, e.g. "register-tile-limit".
  std::string name;
  /// The predicate (must be deterministic and side-effect free).
  std::function<std::optional<std::string>(const Space &, const Config &)>
      check;
};

/// One violated constraint (or infeasible parameter) of a config.
struct Violation {
  /// Constraint or parameter name.
  std::string name;
  /// Why the config violates it.
  std::string reason;
};

/// A search space: the product of typed parameters, restricted by named
/// constraints. Copies are cheap (parameters are shared and immutable);
/// adding a constraint to a copy leaves the original untouched, which is how
/// space transformations (filters) are built.
class Space {
public:
  Space() = default;
  /// An empty space with a descriptive name.
  explicit Space(llvm::StringRef name) : name(name) {}

  /// Descriptive name (e.g. "cpu matmul 1024x1024x1024").
  llvm::StringRef getName() const { return name; }
  void setName(llvm::StringRef newName) { name = newName.str(); }

  /// The op the space was built for (buildSpace attaches it), or null for an
  /// abstract space (e.g. buildPaperMatmulSpace). Copies keep it, so pinned
  /// and filtered spaces know their op too; loop-nest features
  /// (LoopNestFeatures.h) need it.
  const ProblemSpec *getProblem() const { return problem.get(); }
  void setProblem(const ProblemSpec &spec);

  /// Appends a parameter (its name must be new); returns its index.
  unsigned addParameter(std::shared_ptr<const Parameter> param);
  /// Appends a constraint.
  void addConstraint(Constraint constraint);
  /// A copy of this space with one more constraint: a filtered space that
  /// every strategy can search.
  Space withConstraint(Constraint constraint) const;
  /// A copy of this space with parameters pinned by `assignments`:
  /// "name=pattern" items separated by ';' in the key syntax, e.g.
  /// "order=[n,k,m];unroll=4;m=[1,*,*,*]" (see Parameter::pin). The copy is
  /// named "<name> fixed{<assignments>}" so runs over it are told apart.
  /// Errors name the unknown parameter or the bad pattern.
  llvm::Expected<Space> withPinned(llvm::StringRef assignments) const;

  /// Number of parameters.
  unsigned getNumParameters() const { return params.size(); }
  /// Parameter `i`.
  const Parameter &getParameter(unsigned i) const { return *params[i]; }
  /// Index of the parameter called `paramName`.
  std::optional<unsigned> lookup(llvm::StringRef paramName) const;
  /// First slot of parameter `i` in a config.
  unsigned getOffset(unsigned i) const { return offsets[i]; }
  /// Total number of slots of a config.
  unsigned getWidth() const { return width; }
  /// The constraints.
  llvm::ArrayRef<Constraint> getConstraints() const { return constraints; }
  /// Whether any constraint restricts the product space.
  bool isConstrained() const { return !constraints.empty(); }

  /// The slots of parameter `i` within `config`.
  llvm::ArrayRef<int64_t> getValue(const Config &config, unsigned i) const {
    return config.getSlots().slice(offsets[i], params[i]->getWidth());
  }
  /// The slots of the parameter called `paramName` (asserts it exists).
  llvm::ArrayRef<int64_t> getValue(const Config &config,
                                   llvm::StringRef paramName) const;
  /// A copy of `config` with parameter `i` set to `value`.
  Config withValue(const Config &config, unsigned i,
                   llvm::ArrayRef<int64_t> value) const;

  /// Exact size of the unconstrained product space (no enumeration);
  /// saturates at UINT64_MAX.
  uint64_t countProduct() const;
  /// Exact number of configs satisfying all constraints, by enumeration;
  /// errors if the product space is larger than `limit`. Equals
  /// countProduct() for unconstrained spaces (then no enumeration is done).
  llvm::Expected<uint64_t> countValid(uint64_t limit = 50000000) const;

  /// The config of mixed-radix rank `index` < countProduct() (parameter 0 is
  /// the most significant digit).
  Config unrank(uint64_t index) const;
  /// Mixed-radix rank of a config whose parameters are feasible.
  uint64_t rank(const Config &config) const;
  /// A uniformly random point of the product space (constraints ignored).
  Config sample(std::mt19937_64 &rng) const;
  /// A uniformly random config satisfying the constraints, by rejection
  /// with at most `maxAttempts` draws; std::nullopt if none was found.
  std::optional<Config> sampleValid(std::mt19937_64 &rng,
                                    unsigned maxAttempts = 10000) const;
  /// A config satisfying the constraints for which `accept` returns true:
  /// first up to `maxAttempts` uniform draws; if all fail and the product
  /// space has at most `scanLimit` points, a scan over all ranks starting at
  /// a random one (so small spaces are searched exhaustively). Never loops
  /// unboundedly; std::nullopt when nothing was found.
  std::optional<Config> sampleValidIf(
      std::mt19937_64 &rng, const std::function<bool(const Config &)> &accept,
      unsigned maxAttempts = 1000, uint64_t scanLimit = 1000000) const;
  /// The config made of every parameter's default value (G-BFS's
  /// "no multi-level tiling" start state for factorization spaces).
  Config getDefault() const;

  /// Appends all neighbours of `config` in the product topology: configs
  /// that differ in exactly one parameter, by one adjacency step of that
  /// parameter. Constraints are not applied (check with isValid).
  void getNeighbors(const Config &config,
                    llvm::SmallVectorImpl<Config> &out) const;

  /// Whether every parameter value is feasible and every constraint holds.
  /// On failure `reason` gets the first violation ("name: reason").
  bool isValid(const Config &config, std::string *reason = nullptr) const;
  /// All violations of `config` (empty when valid).
  llvm::SmallVector<Violation> getViolations(const Config &config) const;

  /// Canonical text key, e.g. "m=[4,2,8,16];k=[64,16];order=[n,k,m]".
  std::string getKey(const Config &config) const;
  /// Parses a key produced by getKey (parameters in any order). Every
  /// factorization must be present; an option missing from the key takes
  /// its default, so keys written before an option was added (a tuning
  /// database of an older version) still parse, meaning what they ran.
  llvm::Expected<Config> parseKey(llvm::StringRef key) const;
  /// The JSON form of a config, as the tuning database stores it: parameter
  /// name -> value (factor list, element names, integer or choice name),
  /// plus "key" (getKey), e.g. {"m":[4,2,8],"order":["n","k","m"],"u":4,
  /// "key":"m=[4,2,8];order=[n,k,m];u=4"}.
  llvm::json::Value toJSON(const Config &config) const;

  /// Number of features of `encode`.
  unsigned getNumFeatures() const;
  /// Appends the features of every parameter, in parameter order.
  void encode(const Config &config,
              llvm::SmallVectorImpl<double> &features) const;
  /// Names of the features of `encode`.
  llvm::SmallVector<std::string> getFeatureNames() const;

private:
  std::string name;
  llvm::SmallVector<std::shared_ptr<const Parameter>> params;
  llvm::SmallVector<unsigned> offsets;
  unsigned width = 0;
  llvm::SmallVector<Constraint> constraints;
  std::shared_ptr<const ProblemSpec> problem;
};

/// Prime factorization of `n` >= 1 as (prime, exponent), ascending.
llvm::SmallVector<std::pair<int64_t, unsigned>> factorizePrimes(int64_t n);

/// Binomial coefficient C(n, k), saturating at UINT64_MAX.
uint64_t binomial(uint64_t n, uint64_t k);

/// Multiplication saturating at UINT64_MAX.
uint64_t saturatingMul(uint64_t a, uint64_t b);

/// Uniform integer in [0, n) (n >= 1) drawn from `rng` by rejection; the
/// same sequence on every platform (unlike std::uniform_int_distribution).
uint64_t uniformIndex(std::mt19937_64 &rng, uint64_t n);

/// Uniform double in [0, 1) with 53 random bits; platform independent.
double uniformReal(std::mt19937_64 &rng);

} // namespace mlir::tiletune

#endif // TILETUNE_SPACE_SPACE_H
