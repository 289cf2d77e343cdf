// Wisdom: the measured choices of this CPU, one text line a problem, loaded from files (POOLJIT_WISDOM at first
// use), added by tune() results, and saved. create() asks it for the problem's choice.
#include "runtime/tune.hpp"

#include "jit/isa/isa.hpp"
#include "runtime/cache.hpp"
#include "runtime/log.hpp"

#include <spdlog/spdlog.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <unordered_map>
#include <sstream>
#include <utility>
#include <vector>

namespace pooljit {
namespace {

struct Entry {
    std::string problem;  // the problem string, as the file holds it
    Problem resolved;     // the same problem resolved: what a create looks it up by
    int threads = 0;
    PlanChoice choice;
    std::string times;    // "us@choice; ..." as the file holds them
    // The planner refused the choice once (logged then): later creates take the rules without asking again. The
    // line is saved as it was read.
    bool refused = false;
};

// A resolved problem's hash, its batch size and strides included (the cache's hash of the whole problem).
std::uint64_t problem_hash(const Problem& p) { return detail::hash_of(detail::CacheKey{p, jit::Isa::ref, {}}); }

class Wisdom {
public:
    // Entries of this CPU, found by their resolved problem and threads (a create has the problem resolved
    // already: a lookup makes no string); lines of other CPUs kept as read, for save().
    std::optional<PlanChoice> lookup(const Problem& problem, int threads) {
        const std::uint64_t hash = problem_hash(problem);
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(hash);
        for (auto it = first; it != last; ++it) {
            const Entry& e = entries_[it->second];
            if (e.threads == threads && e.resolved == problem) return e.refused ? PlanChoice{} : e.choice;
        }
        return std::nullopt;
    }
    // Marks the entry refused; false when it was already (another thread logged it) or is gone.
    bool refuse(const Problem& problem, int threads) {
        const std::uint64_t hash = problem_hash(problem);
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(hash);
        for (auto it = first; it != last; ++it) {
            Entry& e = entries_[it->second];
            if (e.threads == threads && e.resolved == problem && !e.refused) return e.refused = true;
        }
        return false;
    }
    void put(Entry entry) {
        const std::uint64_t hash = problem_hash(entry.resolved);
        std::lock_guard lock(mutex_);
        const auto [first, last] = index_.equal_range(hash);
        for (auto it = first; it != last; ++it) {
            Entry& e = entries_[it->second];
            if (e.threads == entry.threads && e.resolved == entry.resolved) {
                e = std::move(entry);
                return;
            }
        }
        index_.emplace(hash, entries_.size());
        entries_.push_back(std::move(entry));
        count_.store(entries_.size(), std::memory_order_relaxed);
    }
    void keep_foreign(const std::string& line) {
        std::lock_guard lock(mutex_);
        foreign_.push_back(line);
    }
    std::size_t size() const { return count_.load(std::memory_order_relaxed); }
    void clear() {
        std::lock_guard lock(mutex_);
        entries_.clear();
        index_.clear();
        foreign_.clear();
        count_.store(0, std::memory_order_relaxed);
    }
    std::string text(const std::string& cpu) {
        std::lock_guard lock(mutex_);
        std::ostringstream s;
        s << "# pooljit wisdom: cpu | problem (with its batch) | threads | choice | each candidate's us@choice\n";
        for (const Entry& e : entries_)
            s << "cpu=" << cpu << " | problem=" << e.problem << " | threads=" << e.threads << " | choice="
              << to_string(e.choice) << " | times=" << e.times << "\n";
        for (const std::string& line : foreign_) s << line << "\n";
        return s.str();
    }

private:
    std::mutex mutex_;
    std::vector<Entry> entries_;
    std::unordered_multimap<std::uint64_t, std::size_t> index_;
    std::vector<std::string> foreign_;
    std::atomic<std::size_t> count_{0};
};

Entry make_entry(const std::string& problem, int threads, const PlanChoice& choice, std::string times) {
    const AnyPoolDesc desc = parse_problem(problem);
    Entry e;
    e.problem = to_string(desc);
    e.resolved = std::visit([](const auto& d) { return resolve(d); }, desc);
    e.threads = threads;
    e.choice = choice;
    e.times = std::move(times);
    return e;
}

Wisdom& the_wisdom() {
    static Wisdom w;
    return w;
}

std::atomic<int> tuning_state{-1};  // -1: POOLJIT_TUNE not read yet

bool tuning_on() {
    int state = tuning_state.load(std::memory_order_relaxed);
    if (state < 0) {
        const char* text = std::getenv("POOLJIT_TUNE");
        const std::string_view value = text != nullptr ? text : "";
        if (!value.empty() && value != "0" && value != "1")
            throw Error("POOLJIT_TUNE = " + std::string(value) + ", must be 0 or 1");
        const int from_env = value == "1" ? 1 : 0;
        tuning_state.compare_exchange_strong(state, from_env);
        state = tuning_state.load(std::memory_order_relaxed);
    }
    return state == 1;
}

void load_environment_wisdom() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char* path = std::getenv("POOLJIT_WISDOM");
        if (path != nullptr && *path != '\0') wisdom::load(path);
    });
}

std::string trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

}  // namespace

namespace wisdom {

std::string cpu_identity() { return jit::cpu_identity(); }

void load(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("wisdom " + path + ": cannot be read");
    const std::string cpu = cpu_identity();
    // The whole file is read before any of it is kept: a malformed line leaves the wisdom as it was.
    std::string line;
    int number = 0;
    std::string foreign_cpu;
    std::vector<Entry> entries;
    std::vector<std::string> foreign_lines;
    while (std::getline(in, line)) {
        ++number;
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#') continue;
        const auto fail = [&](const std::string& why) -> void {
            throw Error("wisdom " + path + ":" + std::to_string(number) + ": " + why + " (a line is 'cpu=... | "
                        "problem=... | threads=N | choice=... | times=...')");
        };
        std::vector<std::string> fields;
        for (std::size_t at = 0;;) {
            const std::size_t bar = t.find(" | ", at);
            fields.push_back(trim(std::string_view(t).substr(at, bar == std::string::npos ? std::string::npos : bar - at)));
            if (bar == std::string::npos) break;
            at = bar + 3;
        }
        static constexpr const char* keys[] = {"cpu=", "problem=", "threads=", "choice=", "times="};
        if (fields.size() != 5) fail("has " + std::to_string(fields.size()) + " fields, must have 5");
        for (int i = 0; i < 5; ++i)
            if (fields[static_cast<std::size_t>(i)].rfind(keys[i], 0) != 0)
                fail(std::string("field ") + std::to_string(i + 1) + " must start with '" + keys[i] + "'");
        const std::string line_cpu = fields[0].substr(4);
        const std::string problem = fields[1].substr(8);
        int threads = 0;
        const std::string_view threads_text = std::string_view(fields[2]).substr(8);
        const auto [end, ec] = std::from_chars(threads_text.data(), threads_text.data() + threads_text.size(), threads);
        if (ec != std::errc() || end != threads_text.data() + threads_text.size() || threads < 1)
            fail("threads = '" + std::string(threads_text) + "', must be an integer >= 1");
        Entry entry;
        try {
            entry = make_entry(problem, threads, parse_plan_choice(fields[3].substr(7)), fields[4].substr(6));
        } catch (const Error& e) {
            fail(e.what());
        }
        if (line_cpu != cpu) {
            foreign_cpu = line_cpu;
            foreign_lines.push_back(t);
            continue;
        }
        entries.push_back(std::move(entry));
    }
    for (std::string& f : foreign_lines) the_wisdom().keep_foreign(std::move(f));
    for (Entry& e : entries) the_wisdom().put(std::move(e));
    if (!foreign_lines.empty())
        detail::log_warning("pooljit wisdom " + path + ": " + std::to_string(foreign_lines.size()) +
                            " entries for another CPU (" + foreign_cpu + ") ignored; this CPU is " + cpu);
    detail::log_wisdom(path + ": " + std::to_string(entries.size()) + " entries for this CPU loaded");
}

void save(const std::string& path) {
    std::ofstream out(path);
    if (!out) throw Error("wisdom " + path + ": cannot be written");
    out << the_wisdom().text(cpu_identity());
    if (!out) throw Error("wisdom " + path + ": writing failed");
}

void add(const TuneResult& result) {
    std::string times;
    for (const TuneCandidate& c : result.candidates) {
        if (!c.failure.empty() || c.rounds == 0) continue;
        std::ostringstream us;
        us.precision(4);
        us << c.us;
        times += (times.empty() ? "" : "; ") + us.str() + "@" + to_string(c.choice);
    }
    the_wisdom().put(make_entry(result.problem, result.threads, result.winner, times));
}

std::optional<PlanChoice> lookup(const std::string& problem, int threads) {
    const AnyPoolDesc desc = parse_problem(problem);
    return the_wisdom().lookup(std::visit([](const auto& d) { return resolve(d); }, desc), threads);
}

std::size_t size() { return the_wisdom().size(); }

void clear() { the_wisdom().clear(); }

}  // namespace wisdom

void set_tuning(bool on) { tuning_state.store(on ? 1 : 0, std::memory_order_relaxed); }

bool tuning() { return tuning_on(); }

namespace detail {

int effective_threads() {
    const int n = num_threads();
    return n > 0 ? n : tbb::this_task_arena::max_concurrency();
}

std::optional<PlanChoice> measured_choice(const AnyPoolDesc& desc, const Problem& resolved) {
    load_environment_wisdom();
    const bool tune_misses = tuning_on();
    // Without wisdom or tuning a create pays nothing here; with wisdom, a hash of the resolved problem.
    if (the_wisdom().size() == 0 && !tune_misses) return std::nullopt;
    const int threads = effective_threads();
    if (const std::optional<PlanChoice> held = the_wisdom().lookup(resolved, threads)) {
        if (verbosity() >= 2)
            log_wisdom(to_string(desc) + " threads=" + std::to_string(threads) + ": wisdom, choice " + to_string(*held));
        return held;
    }
    const std::string problem = to_string(desc);
    if (!tune_misses) {
        log_wisdom(problem + " threads=" + std::to_string(threads) + ": rules (no wisdom entry)");
        return std::nullopt;
    }
    TuneOptions options;
    options.threads = threads;
    TuneResult result;
    try {
        result = tune(desc, options);
    } catch (const Error& e) {  // too wide to time here: the rules serve it, and create() goes on
        log_wisdom(problem + ": not tuned, the rules serve it: " + e.what());
        return std::nullopt;
    }
    wisdom::add(result);
    log_wisdom(problem + " threads=" + std::to_string(threads) + ": tuned in " + std::to_string(result.spent_ms) +
               " ms, choice " + to_string(result.winner));
    return result.winner;
}

void log_wisdom(const std::string& message) {
    if (verbosity() >= 2) logger()->info("pooljit wisdom {}", message);
}

void wisdom_refused(const Problem& resolved, const std::string& problem, const std::string& why) {
    if (the_wisdom().refuse(resolved, effective_threads()))
        log_warning("pooljit wisdom " + problem + ": the choice was refused, the rules serve it: " + why);
}

}  // namespace detail
}  // namespace pooljit
