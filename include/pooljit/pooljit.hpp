// pooljit: a JIT compiler for max-pooling kernels. The one header a user includes.
//
//   pooljit::MaxPoolDesc d;
//   d.src = {pooljit::DType::f32, pooljit::Layout::nxc, {8, 64, 112, 112}};
//   d.kernel = {3, 3}; d.strides = {2, 2}; d.pads_begin = {1, 1}; d.pads_end = {1, 1};
//   pooljit::Primitive p = pooljit::Primitive::create(d);
//   p.execute(src, dst);
#pragma once

#include <pooljit/types.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pooljit {

namespace detail {
struct PrimitiveState;
}

// A cheap, copyable handle to immutable compiled code for one configuration. execute() is const and may be
// called from many threads at once on different buffers.
class Primitive {
public:
    Primitive() = default;  // empty: execute() throws

    // The rules' code, or the choice a wisdom entry holds for this CPU and problem (see pooljit::wisdom).
    static Primitive create(const MaxPoolDesc& desc);
    static Primitive create(const AdaptiveMaxPoolDesc& desc);
    // The code a choice names; throws Error (naming the part) where the planner cannot honour it for the problem.
    static Primitive create(const MaxPoolDesc& desc, const PlanChoice& choice);
    static Primitive create(const AdaptiveMaxPoolDesc& desc, const PlanChoice& choice);

    bool empty() const { return state_ == nullptr; }
    const Problem& problem() const;
    const TensorDesc& src_desc() const;
    const TensorDesc& dst_desc() const;
    // Same dims and memory layout as dst_desc(); dims are empty when the primitive has no indices output.
    const TensorDesc& indices_desc() const;
    bool has_indices() const;
    // "jit:avx512", "jit:avx2" or "ref".
    const std::string& impl_name() const;
    // The choice the code was made under: the rules', a wisdom entry's or the one create() was given.
    const PlanChoice& choice() const;
    // The problem string this primitive was created from (section 4 of DESIGN.md).
    const std::string& problem_string() const;

    // src, dst and indices are dense tensors as described by src_desc(), dst_desc() and indices_desc(); no
    // alignment is required. indices must be non-null exactly when the primitive has an indices output.
    void execute(const void* src, void* dst, void* indices = nullptr) const;

private:
    explicit Primitive(std::shared_ptr<const detail::PrimitiveState> state) : state_(std::move(state)) {}
    const detail::PrimitiveState& state() const;

    std::shared_ptr<const detail::PrimitiveState> state_;
};

// Problem strings: one line per configuration, e.g.
//   maxpool dt=f32 layout=nxc src=8x64x112x112 k=3x3 s=2x2 d=1x1 pb=1x1 pe=1x1 pad=explicit round=floor
//           nan=propagate idx=s64 axis=0 order=row
//   adaptivemaxpool dt=f32 layout=ncx src=1x3x32x32 out=16x16 idx=s64
// to_string prints every key; parse accepts omitted keys (defaults) and throws Error naming a bad token.
std::string to_string(const MaxPoolDesc& desc);
std::string to_string(const AdaptiveMaxPoolDesc& desc);
MaxPoolDesc parse_max_pool(std::string_view line);
AdaptiveMaxPoolDesc parse_adaptive_max_pool(std::string_view line);

// A tensor's memory as pooljit addresses it: its element strides, one per dim (the given ones, or the layout's
// dense ones: in nCx8c / nCx16c C is padded to a multiple of the block and s[1] steps between blocks), and its
// bytes from its first element to past its last (a block's padded lanes included; 0 when N or C is 0): the size
// of the buffer that holds it. Throws Error naming the field for strides of the wrong count or a negative one.
std::vector<std::int64_t> strides_of(const TensorDesc& desc);
std::size_t byte_extent(const TensorDesc& desc);

// PlanChoice as text: "rules", or the fields that differ from the rules as key=value tokens, e.g.
// "isa=avx2 nan=watch reuse=separable threads=2". parse_plan_choice throws Error naming a bad token.
std::string to_string(const PlanChoice& choice);
PlanChoice parse_plan_choice(std::string_view text);

using AnyPoolDesc = std::variant<MaxPoolDesc, AdaptiveMaxPoolDesc>;
// Dispatches on the op name: "maxpool" or "adaptivemaxpool".
AnyPoolDesc parse_problem(std::string_view line);
std::string to_string(const AnyPoolDesc& desc);
Primitive create(const AnyPoolDesc& desc);
Primitive create(const AnyPoolDesc& desc, const PlanChoice& choice);

// Ahead-of-time checks (pooljit-warmup --compile-only): plans and emits the code create() would make for `isa`
// ("avx512" or "avx2") whatever this CPU has, and reports it. The code is never run, cached or handed out as a
// Primitive. Throws Error for an invalid descriptor or ISA name, and when the planner or an emitter fails for
// the ISA (create() would fall back to the next implementation: a demotion, which is a bug).
struct CompileReport {
    std::string impl_name;   // "jit:avx512" or "jit:avx2"
    std::string strategies;  // the strategies the plan chose, space-separated (names of docs/strategies.md)
    std::size_t code_bytes = 0;  // the generated code and data of every entry
    std::string plan;            // the plan, as POOLJIT_VERBOSE=2 prints it
};
CompileReport compile_only(const AnyPoolDesc& desc, std::string_view isa);

// The oracle: a scalar interpreter of the semantics in DESIGN.md section 3. It validates like create().
namespace reference {
void execute(const MaxPoolDesc& desc, const void* src, void* dst, void* indices = nullptr);
void execute(const AdaptiveMaxPoolDesc& desc, const void* src, void* dst, void* indices = nullptr);
void execute(const Problem& problem, const void* src, void* dst, void* indices = nullptr);
}  // namespace reference

// The primitive cache. Compiled code is keyed by the resolved problem without its batch size (N is a run-time
// argument: primitives that differ only in N share one entry) plus the ISA in force (POOLJIT_MAX_ISA, read at
// each create); hash collisions are harmless, keys are compared whole. Least recently used entries are
// evicted beyond the capacity: POOLJIT_CACHE_CAPACITY (default 1024, 0 disables caching; a value that is not
// a non-negative integer makes create() throw Error) until set_capacity() is called. Concurrent create() calls
// for the same key compile once and the others wait for that result; a compile that throws is not cached and
// the waiters get the same exception. A Primitive keeps its code alive after eviction or clear().
namespace cache {
struct Stats {
    std::uint64_t hits = 0;       // create() calls served by an entry (waiting for a compile in flight included)
    std::uint64_t misses = 0;     // create() calls that compiled (with caching disabled: every create)
    std::uint64_t entries = 0;    // now in the cache (compiles in flight included)
    std::uint64_t evictions = 0;  // entries dropped for capacity (by inserts or set_capacity; not clear())
    double compile_microseconds = 0.0;  // total time spent compiling
    // Compiles where an implementation that the CPU and POOLJIT_MAX_ISA allowed declined (its planner or
    // emitter failed) and the next one served: a bug in pooljit, with the reason in the POOLJIT_VERBOSE log.
    std::uint64_t demotions = 0;
};
Stats stats();
// Sets hits, misses, evictions, compile_microseconds and demotions to zero; the entries stay.
void reset_stats();
// Shrinking evicts the least recently used entries; 0 empties the cache and disables caching.
void set_capacity(std::size_t capacity);
std::size_t capacity();
// Drops every entry (not counted as evictions); the counters stay.
void clear();
// Creates every descriptor in parallel (oneTBB) so that later creates of them hit the cache. Every descriptor
// is tried; afterwards the exception of the first failing one in list order is rethrown (pooljit::Error for
// an invalid descriptor).
void warmup(const std::vector<AnyPoolDesc>& descs);
}  // namespace cache

// Measured choice (DESIGN.md section 5): tune() times the alternatives the rules leave open on this CPU and keeps
// the fastest; wisdom holds the winners, keyed by this CPU's identity and the problem, and create() uses them.
struct TuneOptions {
    std::int64_t batch = 0;   // images a call takes (0: the descriptor's N)
    int threads = 0;          // threads execute runs on (0: set_num_threads' setting, else all available)
    double budget_ms = 100;   // time for compiling and timing the candidates; each is timed at least once
};
struct TuneCandidate {
    PlanChoice choice;
    std::string impl;         // "jit:avx512", "jit:avx2"
    double us = 0;            // its time a call: the lowest of its interleaved rounds' means
    int rounds = 0;           // rounds it was timed in
    std::string failure;      // non-empty: its output differed from the reference (a bug; never picked)
};
struct TuneResult {
    std::string problem;      // the problem string with the batch tuned for
    int threads = 0;
    std::vector<TuneCandidate> candidates;  // the rules' first
    PlanChoice winner;        // the fastest candidate that matched the reference
    double winner_us = 0, rules_us = 0;
    double spent_ms = 0;      // compiling and timing: what the budget bounds (one round may pass it)
    double check_ms = 0;      // the reference checks, beside the budget (one image, or the whole batch if small)
};
// Enumerates the candidate choices the rules leave open (both ISA forms where the CPU runs both, each strategy
// alternative valid for the problem, a few values of each measured constant, the executor's thread count),
// one at a time around the rules' plan; checks each against the reference once, bit for bit, on tie and NaN
// data; times them interleaved, on hot buffers, within the budget; returns every candidate and the winner.
TuneResult tune(const AnyPoolDesc& desc, const TuneOptions& options = {});

// With tuning on (set_tuning(true), or POOLJIT_TUNE=1 at first use), create() tunes a problem that neither the
// cache nor wisdom holds, within the default budget, and adds the result to the in-memory wisdom. Off by default.
void set_tuning(bool on);
bool tuning();

namespace wisdom {
// This CPU as wisdom keys it: vendor, family, model, stepping, ISA features and L1d/L2/L3 sizes.
std::string cpu_identity();
// Text, one line a problem: "cpu=... | problem=... | threads=T | choice=... | times=us@choice; ...". load() adds
// the lines of this CPU (another CPU's are kept for save() but never used, with one log line per file) and
// throws Error naming the file and the line for a malformed one. POOLJIT_WISDOM=FILE loads at first use.
void load(const std::string& path);
void save(const std::string& path);
void add(const TuneResult& result);
// The choice held for this problem string and thread count on this CPU, if any ("rules" once a create found the
// planner refuses it: logged then, the line still saved as read).
std::optional<PlanChoice> lookup(const std::string& problem, int threads);
std::size_t size();
void clear();
}  // namespace wisdom

// Threads used by execute(), in [0, 4096] (else pooljit::Error); 0 restores the default: POOLJIT_NUM_THREADS
// when set, else oneTBB's choice in the caller's arena (a call from inside a tbb::task_arena uses that arena).
void set_num_threads(int n);
// The setting in force: set_num_threads, else POOLJIT_NUM_THREADS, else 0 (oneTBB decides).
int num_threads();

}  // namespace pooljit
