// Observability: the "pooljit" spdlog logger (POOLJIT_VERBOSE), JIT code dumps (POOLJIT_JIT_DUMP) and perf
// maps (POOLJIT_JIT_PROFILE). Nothing here changes generated code, so none of it is in the cache key.
#pragma once

#include "runtime/primitive_state.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace spdlog {
class logger;
}

namespace pooljit::detail {

namespace log_internal {
inline constexpr int verbosity_unread = -1;
extern std::atomic<int> verbosity_level;  // verbosity_unread until POOLJIT_VERBOSE has been read
int read_verbosity_from_environment();
}  // namespace log_internal

// POOLJIT_VERBOSE, read once: 0 (default) silent; 1 one line per create and per execute; 2 also the dispatch
// reasons and the plan at each create. Values above 2 act as 2; anything but a non-negative integer throws
// Error naming the variable. After the first read this is one relaxed atomic load, which is all execute()
// pays when logging is off.
inline int verbosity() {
    const int level = log_internal::verbosity_level.load(std::memory_order_relaxed);
    return level != log_internal::verbosity_unread ? level : log_internal::read_verbosity_from_environment();
}

// Overrides POOLJIT_VERBOSE (which is read only once per process); a negative level re-reads it at next use.
void set_verbosity_for_testing(int level);

// The logger named "pooljit", writing bare messages to stderr. Registered with spdlog, so that an application
// (or a test) can find it with spdlog::get("pooljit") and add sinks or change its level.
std::shared_ptr<spdlog::logger> logger();

// "pooljit create <problem string> impl=<impl> cache=<hit|miss> compile_us=<n>", where compile_us is the time
// this create spent compiling (0 on a hit); at verbosity 2 followed by the dispatch reasons and the plan. The
// problem string never contains " impl=", so a reader can cut it out and parse it back.
void log_create(const PrimitiveState& state, bool cache_hit, std::int64_t compile_microseconds);
// "pooljit execute <problem string> impl=<impl> threads=<threads used> us=<microseconds, 3 decimals>".
void log_execute(const PrimitiveState& state, double microseconds, int threads);
// Always printed, whatever the verbosity: something went wrong that does not stop pooljit.
void log_warning(const std::string& message);

// Called once per compile, whatever the cache does with the result. When the implementation has generated
// code: POOLJIT_JIT_DUMP=DIR writes each code region to DIR/pooljit_<key hash>_<isa>_<region>.bin, and
// POOLJIT_JIT_PROFILE=1 appends its address range to /tmp/perf-<pid>.map. Both are read once. Never throws:
// a failure to write is a warning.
void publish_compiled_code(std::uint64_t key_hash, const Implementation& impl);

// The file name (no directory) a JIT dump of one code region gets: pooljit_<16 hex digits>_<isa>_<region>.bin.
std::string jit_dump_file_name(std::uint64_t key_hash, const std::string& impl_name, const std::string& region);

// Overrides POOLJIT_JIT_DUMP (an empty directory turns dumps off) and POOLJIT_JIT_PROFILE.
void set_jit_dump_dir_for_testing(const std::string& directory);
void set_jit_profile_for_testing(bool enabled);

// Reads POOLJIT_VERBOSE and POOLJIT_JIT_PROFILE if that has not happened yet, so that create() reports an
// invalid value before it caches or compiles anything.
void check_observability_settings();

}  // namespace pooljit::detail
