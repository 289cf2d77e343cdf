// pooljit-fuzz: differential fuzzing of the implementations create() picks (jit:avx512, jit:avx2) against the
// reference interpreter. Each case is a random valid configuration from casegen with adversarial or tie data, run
// once per requested ISA cap and compared bit for bit (values) and exactly (indices); now and then an invalid
// configuration, which create() must refuse with pooljit::Error and nothing else. A failing case is shrunk and
// printed as a problem string with a one-line command that replays it.
//
// Buffers end exactly at an inaccessible page, so a read or write past the end of src, dst or indices faults;
// src is read-only while the kernel runs. A fault prints the case being run before the process dies.
#include "casegen/casegen.hpp"

#include <pooljit/pooljit.hpp>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <typeinfo>
#include <variant>
#include <vector>

namespace pj = pooljit;
namespace cg = pooljit::casegen;

namespace {

// ---- crash reporting ----------------------------------------------------------------------------------------

// What is running now, written by the fuzzer before each create/execute and printed by the signal handler
// (write(2) only: nothing that allocates or locks runs inside the handler).
char crash_note[8192];
std::size_t crash_note_length = 0;

void set_crash_note(const std::string& text) {
    crash_note_length = std::min(text.size(), sizeof crash_note);
    std::memcpy(crash_note, text.data(), crash_note_length);
}

extern "C" void on_fatal_signal(int signal_number) {
    static const char header[] = "\npooljit-fuzz: fatal signal while running a case (a crash is a finding):\n";
    (void)!write(STDERR_FILENO, header, sizeof header - 1);
    (void)!write(STDERR_FILENO, crash_note, crash_note_length);
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
}

void install_crash_handler() {
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    for (const int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(s, &action, nullptr);
}

// ---- buffers that end at an inaccessible page ---------------------------------------------------------------

class PageGuardedBuffer {
public:
    PageGuardedBuffer() = default;
    PageGuardedBuffer(const PageGuardedBuffer&) = delete;
    PageGuardedBuffer& operator=(const PageGuardedBuffer&) = delete;
    ~PageGuardedBuffer() { unmap(); }

    // `size` bytes that end where a PROT_NONE page begins, preceded by `canary_bytes` more; all filled with `fill`.
    std::uint8_t* place(std::size_t size, std::uint8_t fill) {
        const std::size_t needed = size + canary_bytes;
        if (needed > usable_) {
            unmap();
            usable_ = (needed + page() - 1) / page() * page();
            void* base = mmap(nullptr, usable_ + page(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (base == MAP_FAILED) throw std::bad_alloc();
            base_ = static_cast<std::uint8_t*>(base);
            mprotect(base_ + usable_, page(), PROT_NONE);
        } else if (read_only_) {
            mprotect(base_, usable_, PROT_READ | PROT_WRITE);
        }
        read_only_ = false;
        size_ = size;
        fill_ = fill;
        std::memset(data() - canary_bytes, fill, needed);
        return data();
    }
    std::uint8_t* data() const { return base_ + usable_ - size_; }
    std::size_t size() const { return size_; }
    void make_read_only() {
        mprotect(base_, usable_, PROT_READ);
        read_only_ = true;
    }
    // The canary bytes before the tensor are as place() left them.
    bool front_intact() const {
        return std::all_of(data() - canary_bytes, data(), [this](std::uint8_t b) { return b == fill_; });
    }

private:
    static constexpr std::size_t canary_bytes = 64;
    static std::size_t page() {
        static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        return size;
    }
    void unmap() {
        if (base_ != nullptr) munmap(base_, usable_ + page());
        base_ = nullptr;
        usable_ = 0;
    }

    std::uint8_t* base_ = nullptr;
    std::size_t usable_ = 0;
    std::size_t size_ = 0;
    std::uint8_t fill_ = 0;
    bool read_only_ = false;
};

// ---- one case -----------------------------------------------------------------------------------------------

struct Finding {
    std::string kind;    // "values differ", "indices differ", "create threw", ... : shrinking keeps the kind
    std::string detail;  // the first differing element, the exception text
};

std::string describe(const char* tensor, const cg::Difference& d) {
    std::string at;
    for (const std::int64_t c : d.coordinates) at += (at.empty() ? "" : ",") + std::to_string(c);
    return fmt::format("{} element {} (memory order; logical N,C,spatial = [{}]): got {} ({}), want {} ({})", tensor,
                       d.element, at, d.got, d.got_value, d.want, d.want_value);
}

std::string exception_text(const std::exception& e) { return fmt::format("{}: {}", typeid(e).name(), e.what()); }

std::string quoted(const std::string& text) {  // for a POSIX shell
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

class Harness {
public:
    Harness(std::string program, bool inject_mismatch)
        : program_(std::move(program)), inject_mismatch_(inject_mismatch) {}

    std::string reproduce(const std::string& problem, std::uint64_t data_seed, const std::string& isa) const {
        return fmt::format("{} --replay {} --seed {} --isa {}{}", program_, quoted(problem), data_seed, isa,
                           inject_mismatch_ ? " --inject-mismatch" : "");
    }

    // A valid configuration on one ISA cap. Returns the finding, if any; `impl` receives the implementation.
    // With `choice`: the code that choice names, where the planner honours it (a refusal sets *refused and is
    // no finding: the choice does not fit the problem).
    std::optional<Finding> check_valid(const pj::AnyPoolDesc& desc, std::uint64_t data_seed, const std::string& isa,
                                       std::string* impl = nullptr, const pj::PlanChoice* choice = nullptr,
                                       bool* refused = nullptr) {
        const std::string problem = pj::to_string(desc);
        const std::string replay = reproduce(problem, data_seed, isa) +
                                   (choice ? " --choice " + quoted(pj::to_string(*choice)) : std::string());
        set_crash_note(fmt::format("  problem: {}\n{}  reproduce: {}\n", problem,
                                   choice ? "  choice: " + pj::to_string(*choice) + "\n" : std::string(), replay));
        ::setenv("POOLJIT_MAX_ISA", isa.c_str(), 1);
        pj::Primitive p;
        const std::uint64_t demotions = pj::cache::stats().demotions;
        try {
            if (choice) {
                p = pj::create(desc, *choice);
            } else {
                // The cap's ISA code, asked for (the rules may pick the other form under a cap): every case runs
                // on each ISA; where the CPU lacks it, create() serves what it has.
                pj::PlanChoice form;
                form.isa = isa == "avx512" ? pj::PlanChoice::Isa::avx512 : pj::PlanChoice::Isa::avx2;
                try {
                    p = isa == "avx512" || isa == "avx2" ? pj::create(desc, form) : pj::create(desc);
                } catch (const pj::Error& e) {
                    if (std::string_view(e.what()).find("cannot be honoured") == std::string_view::npos) throw;
                    p = pj::create(desc);
                }
            }
        } catch (const pj::Error& e) {
            if (choice && std::string_view(e.what()).find("cannot be honoured") != std::string_view::npos) {
                if (refused) *refused = true;
                return std::nullopt;
            }
            return Finding{"create threw on a valid configuration", exception_text(e)};
        } catch (const std::exception& e) {
            return Finding{"create threw on a valid configuration", exception_text(e)};
        }
        if (impl) *impl = p.impl_name();
        // create() hides an emitter failure behind the next ISA; for the fuzzer it is a bug like a mismatch.
        if (pj::cache::stats().demotions != demotions)
            return Finding{"demoted", "an ISA that the CPU and the cap allowed failed to plan or emit (POOLJIT_VERBOSE=2 "
                                      "prints why); served by " + p.impl_name()};
        try {
            reference_for(desc, problem, data_seed, p);
        } catch (const std::exception& e) {
            return Finding{"the reference threw on a valid configuration", exception_text(e)};
        }
        const std::size_t dst_bytes = cg::byte_size(p.dst_desc());
        const std::size_t idx_bytes = p.has_indices() ? cg::byte_size(p.indices_desc()) : 0;
        std::uint8_t* src = src_.place(src_bytes_.size(), 0x00);
        if (!src_bytes_.empty()) std::memcpy(src, src_bytes_.data(), src_bytes_.size());  // N or C may be 0
        src_.make_read_only();
        std::uint8_t* dst = dst_.place(dst_bytes, 0xA5);  // the reference's outputs were poisoned with 0x5A
        std::uint8_t* idx = idx_.place(idx_bytes, 0xA5);
        try {
            p.execute(src, dst, p.has_indices() ? idx : nullptr);
        } catch (const std::exception& e) {
            return Finding{"execute threw", exception_text(e)};
        }
        if (inject_mismatch_ && p.problem().channels >= 3 && dst_bytes > 0) dst[dst_bytes - 1] ^= 1;
        if (const auto d = cg::first_difference(p.dst_desc(), dst, ref_dst_.data()))
            return Finding{"values differ", describe("dst", *d)};
        if (p.has_indices())
            if (const auto d = cg::first_difference(p.indices_desc(), idx, ref_idx_.data()))
                return Finding{"indices differ", describe("indices", *d)};
        // A view's gaps belong to someone else: neither the run nor the reference may write them.
        for (const auto& [what, tensor, bytes, poison] :
             {std::tuple{"dst", p.dst_desc(), static_cast<const std::uint8_t*>(dst), std::uint8_t{0xA5}},
              std::tuple{"the reference's dst", p.dst_desc(), static_cast<const std::uint8_t*>(ref_dst_.data()), std::uint8_t{0x5A}},
              std::tuple{"indices", p.indices_desc(), static_cast<const std::uint8_t*>(idx), std::uint8_t{0xA5}},
              std::tuple{"the reference's indices", p.indices_desc(), static_cast<const std::uint8_t*>(ref_idx_.data()), std::uint8_t{0x5A}}}) {
            if (tensor.dims.empty()) continue;
            if (const auto gap = cg::first_gap_write(tensor, bytes, poison))
                return Finding{"wrote into a gap", fmt::format("{}: byte {} of the view's buffer is not an element of it", what, *gap)};
        }
        if (!dst_.front_intact()) return Finding{"wrote before dst", "bytes before the dst tensor changed"};
        if (!idx_.front_intact()) return Finding{"wrote before indices", "bytes before the indices tensor changed"};
        return std::nullopt;
    }

    // An invalid configuration: create() (directly, and through its problem string) must throw pooljit::Error.
    std::optional<Finding> check_invalid(const pj::AnyPoolDesc& desc, const std::string& expected_field,
                                         const std::string& isa) {
        std::string problem = "(no problem string)";
        try {
            problem = pj::to_string(desc);
        } catch (const pj::Error&) {
            // Out-of-range enum values print as "invalid"; casegen draws none, but refusing them is fine.
        } catch (const std::exception& e) {
            return Finding{"to_string threw something other than pooljit::Error", exception_text(e)};
        }
        set_crash_note(fmt::format("  invalid problem (must be refused): {}\n  reproduce: {}\n", problem,
                                   reproduce(problem, 1, isa)));
        ::setenv("POOLJIT_MAX_ISA", isa.c_str(), 1);
        if (auto f = expect_refusal([&] { (void)pj::create(desc); }, "create", expected_field)) return f;
        // The same configuration as a line: the parser or create must refuse it, again only with pooljit::Error.
        return expect_refusal([&] { (void)pj::create(pj::parse_problem(problem)); }, "parse_problem + create", "");
    }

private:
    // The message names the broken field: "kernel[2]", or "kernel[" with another index, since a descriptor that
    // casegen broke on one axis may break the same rule first on another (valid padding with a long kernel).
    static bool names_field(std::string_view message, const std::string& field) {
        if (field.empty() || message.find(field) != std::string_view::npos) return true;
        const auto bracket = field.find('[');
        return bracket != std::string::npos && message.find(field.substr(0, bracket + 1)) != std::string_view::npos;
    }

    template <typename F>
    static std::optional<Finding> expect_refusal(F&& attempt, const char* what, const std::string& expected_field) {
        try {
            attempt();
        } catch (const pj::Error& e) {
            if (!names_field(e.what(), expected_field))
                return Finding{std::string(what) + " refused it without naming " + expected_field, e.what()};
            return std::nullopt;
        } catch (const std::exception& e) {
            return Finding{std::string(what) + " threw something other than pooljit::Error", exception_text(e)};
        } catch (...) {
            return Finding{std::string(what) + " threw a non-standard exception", "(unknown type)"};
        }
        return Finding{std::string(what) + " accepted an invalid configuration",
                       expected_field.empty() ? "" : "expected an Error naming " + expected_field};
    }

    // The data and the reference outputs depend on the configuration and the seed only, so they are computed
    // once and shared by every ISA the case runs on.
    void reference_for(const pj::AnyPoolDesc& desc, const std::string& problem, std::uint64_t data_seed,
                       const pj::Primitive& p) {
        if (problem == ref_problem_ && data_seed == ref_seed_) return;
        ref_problem_.clear();
        src_bytes_ = cg::differential_data(p.src_desc(), data_seed);
        ref_dst_.assign(cg::byte_size(p.dst_desc()), 0x5A);
        ref_idx_.assign(p.has_indices() ? cg::byte_size(p.indices_desc()) : 0, 0x5A);
        std::visit(
            [&](const auto& d) {
                pj::reference::execute(d, src_bytes_.data(), ref_dst_.data(),
                                       p.has_indices() ? ref_idx_.data() : nullptr);
            },
            desc);
        ref_problem_ = problem;
        ref_seed_ = data_seed;
    }

    std::string program_;
    bool inject_mismatch_ = false;
    PageGuardedBuffer src_, dst_, idx_;
    std::vector<std::uint8_t> src_bytes_, ref_dst_, ref_idx_;
    std::string ref_problem_;
    std::uint64_t ref_seed_ = 0;
};

// ---- the run ------------------------------------------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer: the data seed of case i
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

struct Counters {
    std::uint64_t cases = 0;
    std::uint64_t valid = 0;
    std::uint64_t invalid = 0;
    std::uint64_t findings = 0;
    std::uint64_t choices = 0, choices_refused = 0;  // cases run with a random plan choice, and refused ones
    std::map<std::string, std::map<std::string, std::uint64_t>> served;  // isa cap -> impl -> cases
};

void print_served(const Counters& c, const std::vector<std::string>& isas) {
    std::string text;
    for (const std::string& isa : isas) {
        std::string impls;
        for (const auto& [impl, n] : c.served.count(isa) ? c.served.at(isa) : std::map<std::string, std::uint64_t>{})
            impls += fmt::format("{}{}={}", impls.empty() ? "" : ", ", impl, n);
        text += fmt::format("{}--isa {}: {}", text.empty() ? "" : "; ", isa, impls.empty() ? "none" : impls);
    }
    fmt::print("served: {}\n", text);
}

class Progress {
public:
    explicit Progress(bool enabled)
        : enabled_(enabled), tty_(enabled && isatty(STDERR_FILENO) == 1), start_(now()), last_(start_) {}
    // A line every 10 s, or a line redrawn 4 times a second on a terminal.
    void tick(const Counters& c) {
        if (!enabled_) return;
        const auto t = now();
        if (t - last_ < (tty_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(10000))) return;
        last_ = t;
        const double seconds = std::chrono::duration<double>(t - start_).count();
        fmt::print(stderr, "{}{} cases, {} mismatches, {:.0f} cases/s{}", tty_ ? "\r\033[K" : "", c.cases, c.findings,
                   static_cast<double>(c.cases) / seconds, tty_ ? "" : "\n");
        std::fflush(stderr);
    }
    void finish() const {
        if (tty_) std::fputs("\r\033[K", stderr);
    }
    double seconds() const { return std::chrono::duration<double>(now() - start_).count(); }

private:
    static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
    bool enabled_;
    bool tty_;
    std::chrono::steady_clock::time_point start_, last_;
};

// Mismatches past --shrink-reports get one line each, up to this many; the rest are only counted.
constexpr std::uint64_t one_line_reports = 50;

void report(Harness& harness, const pj::AnyPoolDesc& desc, std::uint64_t data_seed, const std::string& isa,
            const std::string& impl, const Finding& finding, std::uint64_t index, std::uint64_t shrink_reports) {
    if (index > shrink_reports + one_line_reports) return;
    if (index > shrink_reports) {  // one line, not shrunk
        fmt::print("MISMATCH #{} ({}) on --isa {}, impl {}: {}\n", index, finding.kind, isa, impl,
                   harness.reproduce(pj::to_string(desc), data_seed, isa));
        if (index == shrink_reports + one_line_reports) fmt::print("(further mismatches are counted, not printed)\n");
        std::fflush(stdout);
        return;
    }
    fmt::print("MISMATCH #{} ({}) on --isa {}, impl {}:\n", index, finding.kind, isa, impl);
    fmt::print("  found:     {}\n", pj::to_string(desc));
    int tries = 0;
    Finding minimal_finding = finding;
    // Candidates go through their problem string, so the printed line is exactly what replays.
    const pj::AnyPoolDesc minimal = cg::shrink(desc, [&](const pj::AnyPoolDesc& candidate) {
        ++tries;
        const pj::AnyPoolDesc replayed = pj::parse_problem(pj::to_string(candidate));
        const auto f = harness.check_valid(replayed, data_seed, isa);
        if (!f || f->kind != finding.kind) return false;
        minimal_finding = *f;
        return true;
    });
    fmt::print("  shrunk:    {}   ({} tries)\n", pj::to_string(minimal), tries);
    fmt::print("  first difference: {}\n", minimal_finding.detail);
    fmt::print("  reproduce: {}\n", harness.reproduce(pj::to_string(minimal), data_seed, isa));
    std::fflush(stdout);
}

// A random plan choice: each part left to the rules or set to one of its answers (the measured constants to one of
// a few values), so that combinations the tuner never tries are checked too.
pj::PlanChoice random_choice(std::mt19937_64& rng) {
    using C = pj::PlanChoice;
    C c;
    const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); };
    // One or two parts a case (more are mostly refused: a constant for code the problem does not take).
    const std::uint64_t first = rng() % 17, second = rng() % 2 == 0 ? rng() % 17 : first;
    int part = -1;
    const auto some = [&] {
        ++part;
        return static_cast<std::uint64_t>(part) == first || static_cast<std::uint64_t>(part) == second;
    };
    if (some()) c.isa = pick(2) == 0 ? C::Isa::avx512 : C::Isa::avx2;
    if (some()) c.nan = pick(2) == 0 ? C::Nan::scan : C::Nan::watch;
    if (some()) c.reuse = static_cast<C::Reuse>(1 + pick(3));
    if (some()) c.planes = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.pairs = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.masked = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.tap_pairs = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.ranks = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.bands = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.vertical = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.ranges = pick(2) == 0 ? C::Switch::on : C::Switch::off;
    if (some()) c.sweep_bytes = std::array{1, 256, 2048, 32768}[static_cast<std::size_t>(pick(4))];
    if (some()) c.separable_kib = std::array{1, 4, 12, 32}[static_cast<std::size_t>(pick(4))];
    if (some()) c.prefetch_kib = std::array{-1, 1, 24}[static_cast<std::size_t>(pick(3))];
    if (some()) c.chunk_kib = std::array{1, 12, 96}[static_cast<std::size_t>(pick(3))];
    if (some()) c.threads = 1 + pick(4);
    if (some()) c.grain = std::array{1, 3, 16}[static_cast<std::size_t>(pick(3))];
    return c;
}

std::vector<std::string> split_isas(const std::string& list) {
    std::vector<std::string> isas;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) isas.push_back(item);
    return isas;
}

int replay(Harness& harness, const std::string& line, std::uint64_t data_seed, const std::vector<std::string>& isas,
           const std::optional<pj::PlanChoice>& choice) {
    Counters c;
    pj::AnyPoolDesc desc;
    try {
        desc = pj::parse_problem(line);
    } catch (const pj::Error& e) {
        fmt::print("refused by the parser with pooljit::Error: {}\n1 cases, 0 mismatches\n", e.what());
        return 0;
    } catch (const std::exception& e) {
        fmt::print("MISMATCH: parse_problem threw something other than pooljit::Error: {}\n1 cases, 1 mismatches\n",
                   exception_text(e));
        return 1;
    }
    bool valid = true;
    std::string why;
    try {
        std::visit([](const auto& d) { (void)pj::resolve(d); }, desc);
    } catch (const pj::Error& e) {
        valid = false;
        why = e.what();
    }
    for (const std::string& isa : isas) {
        ++c.cases;
        std::string impl = "-";
        bool refused = false;
        const auto f = valid ? harness.check_valid(desc, data_seed, isa, &impl, choice ? &*choice : nullptr, &refused)
                             : harness.check_invalid(desc, "", isa);
        if (refused) fmt::print("--isa {}: the planner refuses plan choice {} for this problem\n", isa, pj::to_string(*choice));
        if (valid) ++c.served[isa][impl];
        if (f) {
            ++c.findings;
            fmt::print("--isa {}: impl {}: MISMATCH ({}): {}\n", isa, impl, f->kind, f->detail);
        } else {
            fmt::print("--isa {}: {}\n", isa,
                       valid ? "impl " + impl + ": OK, bit exact" : "refused with pooljit::Error: " + why);
        }
    }
    if (valid) print_served(c, isas);
    fmt::print("{} cases, {} mismatches\n", c.cases, c.findings);
    return c.findings == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"pooljit-fuzz: differential fuzzing of pooljit's JIT kernels against the reference interpreter"};
    std::uint64_t seed = std::random_device{}();
    std::uint64_t iterations = 0;
    double seconds = 0.0;
    std::string isa_list = "avx512,avx2";
    std::string replay_line;
    double invalid_fraction = 0.1;
    int shrink_reports = 5;
    bool no_progress = false;
    bool inject_mismatch = false;
    app.add_option("--seed", seed,
                   "seed of the run (default: random, printed); with --replay, the seed of the case's data");
    auto* iterations_option =
        app.add_option("-n,--iterations", iterations, "configurations to draw (each runs once per ISA); default 1000");
    auto* seconds_option =
        app.add_option("-t,--seconds", seconds, "draw configurations for this long")->check(CLI::PositiveNumber);
    app.add_option("--isa", isa_list, "comma-separated ISA caps to run each case on (POOLJIT_MAX_ISA values)")
        ->check([](const std::string& list) -> std::string {
            for (const std::string& isa : split_isas(list))
                if (isa != "avx512" && isa != "avx2" && isa != "ref")
                    return "unknown ISA '" + isa + "' (avx512, avx2, ref)";
            return split_isas(list).empty() ? "no ISA given" : "";
        });
    app.add_option("--replay", replay_line, "run this one problem string (with --seed as its data seed) and exit");
    std::string choice_text;
    app.add_option("--choice", choice_text, "with --replay: create it under this plan choice (e.g. \"isa=avx2 nan=watch\")");
    app.add_option("--invalid-fraction", invalid_fraction, "fraction of configurations drawn invalid")
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--shrink-reports", shrink_reports,
                   "mismatches that are shrunk and reported in full; the next 50 get one line, the rest are counted")
        ->check(CLI::NonNegativeNumber);
    app.add_flag("--no-progress", no_progress, "no progress lines on stderr");
    app.add_flag("--inject-mismatch", inject_mismatch,
                 "test the fuzzer itself: flip one bit of the output of every case with 3 or more channels, to "
                 "exercise shrinking and reporting");
    CLI11_PARSE(app, argc, argv);

    const std::vector<std::string> isas = split_isas(isa_list);
    install_crash_handler();
    Harness harness(argv[0], inject_mismatch);
    if (!replay_line.empty()) {
        std::optional<pj::PlanChoice> choice;
        if (!choice_text.empty()) {
            try {
                choice = pj::parse_plan_choice(choice_text);
            } catch (const pj::Error& e) {
                fmt::print(stderr, "pooljit-fuzz: --choice: {}\n", e.what());
                return 1;
            }
        }
        return replay(harness, replay_line, seed, isas, choice);
    }

    if (iterations_option->count() == 0 && seconds_option->count() == 0) iterations = 1000;
    const bool by_time = seconds_option->count() > 0;
    fmt::print("pooljit-fuzz: seed {}, {}{}{}, ISAs {}, invalid fraction {}\n", seed,
               iterations_option->count() || !by_time ? fmt::format("{} iterations", iterations) : "",
               iterations_option->count() && by_time ? " or " : "", by_time ? fmt::format("{} s", seconds) : "",
               isa_list, invalid_fraction);
    std::fflush(stdout);

    cg::Generator generator(seed);
    std::mt19937_64 choose(mix(seed ^ 0x1BADull));
    std::bernoulli_distribution draw_invalid(invalid_fraction);
    Counters c;
    Progress progress(!no_progress);
    const bool count_limited = iterations_option->count() > 0 || !by_time;
    for (std::uint64_t i = 0;; ++i) {
        if (count_limited && i >= iterations) break;
        if (by_time && progress.seconds() >= seconds) break;
        const std::uint64_t data_seed = mix(seed * 0x100000001B3ull + i);
        if (draw_invalid(choose)) {
            const cg::InvalidCase invalid = generator.invalid();
            for (const std::string& isa : isas) {
                ++c.cases;
                ++c.invalid;
                if (const auto f = harness.check_invalid(invalid.desc, invalid.expected_field, isa)) {
                    ++c.findings;
                    std::string problem = "(no problem string)";
                    try {
                        problem = pj::to_string(invalid.desc);
                    } catch (const std::exception&) {
                    }
                    fmt::print("MISMATCH #{} ({}) on --isa {}:\n  invalid:   {}\n  detail:    {}\n  reproduce: {}\n",
                               c.findings, f->kind, isa, problem, f->detail,
                               harness.reproduce(problem, data_seed, isa));
                    std::fflush(stdout);
                }
            }
        } else {
            const pj::AnyPoolDesc desc = generator.any();
            for (const std::string& isa : isas) {
                ++c.cases;
                ++c.valid;
                std::string impl = "-";
                const auto f = harness.check_valid(desc, data_seed, isa, &impl);
                ++c.served[isa][impl];
                if (f) {
                    ++c.findings;
                    progress.finish();
                    report(harness, desc, data_seed, isa, impl, *f, c.findings,
                           static_cast<std::uint64_t>(shrink_reports));
                }
                // The same case under a random plan choice: every choice the planner honours computes the
                // reference's results (a choice changes speed, never results).
                if (choose() % 4 == 0) {
                    const pj::PlanChoice choice = random_choice(choose);
                    bool refused = false;
                    ++c.choices;
                    const auto fc = harness.check_valid(desc, data_seed, isa, &impl, &choice, &refused);
                    c.choices_refused += refused;
                    if (fc) {
                        ++c.findings;
                        progress.finish();
                        fmt::print("MISMATCH #{} ({}) on --isa {} with plan choice {}:\n  found:     {}\n  detail:    {}\n"
                                   "  reproduce: {} --choice {}\n",
                                   c.findings, fc->kind, isa, pj::to_string(choice), pj::to_string(desc), fc->detail,
                                   harness.reproduce(pj::to_string(desc), data_seed, isa), quoted(pj::to_string(choice)));
                        std::fflush(stdout);
                    }
                }
            }
        }
        progress.tick(c);
    }
    progress.finish();
    ::unsetenv("POOLJIT_MAX_ISA");
    fmt::print("valid cases {}, invalid cases {} ({:.1f} s, {:.0f} cases/s)\n", c.valid, c.invalid, progress.seconds(),
               static_cast<double>(c.cases) / std::max(progress.seconds(), 1e-9));
    print_served(c, isas);
    fmt::print("plan choices: {} cases under a random choice, {} of them refused by the planner\n", c.choices,
               c.choices_refused);
    fmt::print("{} cases, {} mismatches\n", c.cases, c.findings);
    return c.findings == 0 ? 0 : 1;
}
