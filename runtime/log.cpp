// Observability: verbose log lines, JIT dumps and perf maps. See log.hpp for the formats.
#include "runtime/log.hpp"

#include "jit/plan/plan.hpp"

#include <pooljit/types.hpp>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>

namespace pooljit::detail {

namespace log_internal {

std::atomic<int> verbosity_level{verbosity_unread};

int read_verbosity_from_environment() {
    int level = 0;
    if (const char* text = std::getenv("POOLJIT_VERBOSE"); text != nullptr && *text != '\0') {
        const std::string_view value(text);
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), level);
        if (error != std::errc() || end != value.data() + value.size() || level < 0)
            throw Error("POOLJIT_VERBOSE = " + std::string(value) + ", must be 0, 1 or 2");
        level = std::min(level, 2);
    }
    // Concurrent first readers parse the same variable; the first store wins, so everyone agrees afterwards.
    int expected = verbosity_unread;
    verbosity_level.compare_exchange_strong(expected, level, std::memory_order_relaxed);
    return verbosity_level.load(std::memory_order_relaxed);
}

}  // namespace log_internal

void set_verbosity_for_testing(int level) {
    log_internal::verbosity_level.store(level < 0 ? log_internal::verbosity_unread : std::min(level, 2),
                                        std::memory_order_relaxed);
}

std::shared_ptr<spdlog::logger> logger() {
    static const std::shared_ptr<spdlog::logger> instance = [] {
        if (auto existing = spdlog::get("pooljit")) return existing;  // the application made its own
        auto created = std::make_shared<spdlog::logger>("pooljit", std::make_shared<spdlog::sinks::stderr_sink_mt>());
        created->set_pattern("%v");  // the messages carry their own "pooljit" prefix
        created->set_level(spdlog::level::info);
        try {
            spdlog::register_logger(created);
        } catch (const spdlog::spdlog_ex&) {
            // Registered by another thread of the application in between: use that one.
            if (auto existing = spdlog::get("pooljit")) return existing;
        }
        return created;
    }();
    return instance;
}

namespace {

// Calls `emit` for each non-empty line of a multi-line text.
template <class Emit>
void for_each_line(std::string_view text, Emit emit) {
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        if (!line.empty()) emit(line);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

}  // namespace

void log_create(const PrimitiveState& state, bool cache_hit, std::int64_t compile_microseconds) {
    const int level = verbosity();
    if (level == 0) return;
    const Implementation& impl = *state.impl;
    const auto log = logger();
    log->info("pooljit create {} impl={} cache={} compile_us={}", state.problem_string(), impl.impl_name,
              cache_hit ? "hit" : "miss", compile_microseconds);
    if (!impl.demotion.empty() && !cache_hit) log->warn("pooljit demoted {}", impl.demotion);
    if (level < 2) return;
    for_each_line(impl.dispatch_log, [&](std::string_view line) { log->info("pooljit dispatch {}", line); });
    if (!impl.kernel) return;
    for_each_line(jit::to_string(impl.plan), [&](std::string_view line) {
        // The planner's lines may already start with "plan"; the prefix is not repeated.
        if (line.starts_with("plan ")) line.remove_prefix(5);
        log->info("pooljit plan {}", line);
    });
}

void log_execute(const PrimitiveState& state, double microseconds, int threads) {
    logger()->info("pooljit execute {} impl={} threads={} us={:.3f}", state.problem_string(), state.impl->impl_name,
                   threads, microseconds);
}

void log_warning(const std::string& message) { logger()->warn("pooljit warning: {}", message); }

namespace {

// Dump and perf-map settings, read once at the first compile (or the first check), and the perf map file
// itself: one mutex, because compiles are rare and lines from concurrent compiles must not interleave.
std::mutex jit_output_mutex;
std::optional<std::string> dump_directory;  // unread until set; empty: no dumps
std::optional<bool> perf_map_enabled;       // unread until set

std::string dump_directory_locked() {
    if (!dump_directory) {
        const char* text = std::getenv("POOLJIT_JIT_DUMP");
        dump_directory = text != nullptr ? text : "";
    }
    return *dump_directory;
}

bool perf_map_enabled_locked() {
    if (!perf_map_enabled) {
        const char* text = std::getenv("POOLJIT_JIT_PROFILE");
        const std::string_view value = text != nullptr ? text : "";
        if (value != "" && value != "0" && value != "1")
            throw Error("POOLJIT_JIT_PROFILE = " + std::string(value) + ", must be 0 or 1");
        perf_map_enabled = value == "1";
    }
    return *perf_map_enabled;
}

std::string hex16(std::uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

// "jit:avx512" -> "avx512": the file name says which ISA the bytes are for.
std::string isa_part(const std::string& impl_name) {
    const std::size_t colon = impl_name.find(':');
    return colon == std::string::npos ? impl_name : impl_name.substr(colon + 1);
}

void write_dump_locked(const std::string& directory, std::uint64_t key_hash, const Implementation& impl) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);  // an existing directory is not an error
    for (const jit::CompiledKernel::CodeRegion& region : impl.kernel->code_regions()) {
        const std::filesystem::path path =
            std::filesystem::path(directory) / jit_dump_file_name(key_hash, impl.impl_name, region.name);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(static_cast<const char*>(region.code), static_cast<std::streamsize>(region.size));
        out.close();
        if (!out) log_warning("cannot write the JIT dump " + path.string() + ": " + std::strerror(errno));
    }
}

void append_perf_map_locked(std::uint64_t key_hash, const Implementation& impl) {
    const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    std::FILE* map = std::fopen(path.c_str(), "a");
    if (map == nullptr) {
        log_warning("cannot open the perf map " + path + ": " + std::strerror(errno));
        return;
    }
    bool written = true;
    for (const jit::CompiledKernel::CodeRegion& region : impl.kernel->code_regions())
        written &= std::fprintf(map, "%llx %zx pooljit_%s_%s\n",
                                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(region.code)),
                                region.size, hex16(key_hash).c_str(), region.name.c_str()) > 0;
    written &= std::fclose(map) == 0;
    if (!written) log_warning("cannot write the perf map " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string jit_dump_file_name(std::uint64_t key_hash, const std::string& impl_name, const std::string& region) {
    return "pooljit_" + hex16(key_hash) + "_" + isa_part(impl_name) + "_" + region + ".bin";
}

void publish_compiled_code(std::uint64_t key_hash, const Implementation& impl) {
    if (!impl.kernel) return;  // the reference: no generated code
    try {
        std::lock_guard lock(jit_output_mutex);
        if (const std::string directory = dump_directory_locked(); !directory.empty())
            write_dump_locked(directory, key_hash, impl);
        if (perf_map_enabled_locked()) append_perf_map_locked(key_hash, impl);
    } catch (const std::exception& e) {
        // The kernel is compiled and correct; failing to describe it must not fail the create.
        log_warning(std::string("cannot publish the JIT code: ") + e.what());
    }
}

void set_jit_dump_dir_for_testing(const std::string& directory) {
    std::lock_guard lock(jit_output_mutex);
    dump_directory = directory;
}

void set_jit_profile_for_testing(bool enabled) {
    std::lock_guard lock(jit_output_mutex);
    perf_map_enabled = enabled;
}

void check_observability_settings() {
    (void)verbosity();
    std::lock_guard lock(jit_output_mutex);
    (void)perf_map_enabled_locked();
}

}  // namespace pooljit::detail
