// pooljit-warmup: reads the pooling configurations an application will need (files of problem strings, ONNX
// models, OpenVINO IR), compiles each distinct kernel once through cache::warmup on a pool of threads, and
// reports per kernel the problem string, the implementation and the compile time, then a summary. --verify
// runs every kernel once against the reference; --emit writes the distinct problem strings. --target-isa ISA
// --compile-only plans and emits every problem's code for ISA whatever this CPU has, never running or caching it:
// an ahead-of-time check of the ISA a test host lacks.
//
// Compile time per kernel: each distinct cache key (the resolved Problem without the batch size; all
// problems of one run share the ISA) is compiled by its own cache::warmup({desc}) call on a worker thread, and
// that call's wall time is the kernel's compile time. One call per key is what makes per-kernel times and a
// progress bar possible; cache::stats() only has totals. Problems that share a key are then hits.
#include "openvino_ir.hpp"

#include <pooljit/pooljit.hpp>

#include "casegen/casegen.hpp"
#if POOLJIT_HAVE_ONNX
#include "onnx_import.hpp"
#endif

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

// One configuration found in an input, and where.
struct Found {
    pj::AnyPoolDesc desc;
    std::string origin;  // "file:line", "model.onnx: node 'pool1' (MaxPool)", "net.xml: layer 'pool1' (MaxPool)"
};

struct Inputs {
    std::vector<Found> found;
    std::vector<std::string> skipped;  // per file: "file: Conv x2, Relu x1"
};

// "Conv x2, Relu x1" from a list of op types.
std::string count_ops(const std::vector<std::string>& ops) {
    std::map<std::string, int> counts;
    for (const std::string& op : ops) ++counts[op];
    std::string text;
    for (const auto& [op, n] : counts) text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", op, n);
    return text;
}

bool is_comment_or_blank(std::string_view line) {
    const auto first = line.find_first_not_of(" \t\r");
    return first == std::string_view::npos || line[first] == '#';
}

void read_problem_file(const std::string& path, Inputs& inputs) {
    std::ifstream in(path);
    if (!in) throw pj::Error(path + ": cannot open the file");
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (is_comment_or_blank(line)) continue;
        const std::string where = fmt::format("{}:{}", path, number);
        try {
            pj::AnyPoolDesc desc = pj::parse_problem(line);
            std::visit([](const auto& d) { (void)pj::resolve(d); }, desc);
            inputs.found.push_back({std::move(desc), where});
        } catch (const pj::Error& e) {
            throw pj::Error(where + ": " + e.what());
        }
    }
    if (in.bad()) throw pj::Error(path + ": read error");
}

using ShapeOverrides = std::map<std::string, std::vector<std::int64_t>>;

void read_onnx(const std::string& path, const ShapeOverrides& overrides, Inputs& inputs) {
#if POOLJIT_HAVE_ONNX
    const pj::onnx_import::Model model = pj::onnx_import::read_model(path, overrides);
    for (const auto& pool : model.pools)
        inputs.found.push_back({pool.desc, fmt::format("{}: node '{}' ({})", path, pool.name, pool.op_type)});
    std::vector<std::string> ops;
    for (const std::string& other : model.others) ops.push_back(other.substr(0, other.find(' ')));
    if (!ops.empty()) inputs.skipped.push_back(path + ": " + count_ops(ops));
#else
    (void)overrides;
    (void)inputs;
    throw pj::Error(path + ": this pooljit-warmup was built without ONNX support (libonnx-dev, libprotobuf-dev)");
#endif
}

void read_ir(const std::string& path, Inputs& inputs) {
#if POOLJIT_HAVE_PUGIXML
    const pj::openvino_ir::Ir ir = pj::openvino_ir::read_ir(path);
    for (const auto& layer : ir.pools)
        inputs.found.push_back({layer.desc, fmt::format("{}: layer '{}' ({}{}{})", path, layer.name, layer.type,
                                                        layer.version.empty() ? "" : ", ", layer.version)});
    if (!ir.others.empty()) inputs.skipped.push_back(path + ": " + count_ops(ir.others));
#else
    (void)inputs;
    throw pj::Error(path + ": this pooljit-warmup was built without OpenVINO IR support (libpugixml-dev)");
#endif
}

std::string extension_of(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

ShapeOverrides parse_shapes(const std::vector<std::string>& specs) {
    ShapeOverrides overrides;
    for (const std::string& spec : specs) {
        const auto eq = spec.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            throw pj::Error("--shape " + spec + ": expected NAME=DIMS, e.g. data=1x3x224x224");
        std::vector<std::int64_t> dims;
        std::string_view rest = std::string_view(spec).substr(eq + 1);
        while (!rest.empty()) {
            const auto sep = rest.find_first_of("x,");
            const std::string item(rest.substr(0, sep));
            std::size_t used = 0;
            long long value = -1;
            try {
                value = std::stoll(item, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used == 0 || used != item.size() || value < 0)
                throw pj::Error("--shape " + spec + ": dim '" + item + "' is not a non-negative integer");
            dims.push_back(value);
            rest = sep == std::string_view::npos ? std::string_view() : rest.substr(sep + 1);
        }
        overrides[spec.substr(0, eq)] = dims;
    }
    return overrides;
}

// The cache key as far as a tool can see it: the resolved Problem without the batch size.
std::vector<std::int64_t> key_of(const pj::AnyPoolDesc& desc) {
    pj::Problem p = std::visit([](const auto& d) { return pj::resolve(d); }, desc);
    std::vector<std::int64_t> key = {static_cast<std::int64_t>(p.op),
                                     static_cast<std::int64_t>(p.dtype),
                                     static_cast<std::int64_t>(p.layout),
                                     p.spatial_rank,
                                     p.channels,
                                     static_cast<std::int64_t>(p.nan),
                                     p.has_indices,
                                     static_cast<std::int64_t>(p.index_dtype),
                                     p.axis,
                                     static_cast<std::int64_t>(p.order)};
    for (const auto* spatial : {&p.in, &p.out, &p.kernel, &p.stride, &p.dilation, &p.pad_begin, &p.pad_end})
        key.insert(key.end(), spatial->begin(), spatial->end());
    return key;
}

double percentile(std::vector<double> values, double q) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    // Nearest rank.
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

class ProgressBar {
public:
    ProgressBar(bool enabled, std::size_t total) : enabled_(enabled), total_(total) { draw(0); }
    void advance() {
        const std::lock_guard lock(mutex_);
        draw(++done_);
    }
    void finish() {
        if (enabled_) std::fputs("\r\033[K", stderr);
    }

private:
    void draw(std::size_t done) const {
        if (!enabled_) return;
        constexpr std::size_t width = 40;
        const std::size_t filled = total_ == 0 ? width : done * width / total_;
        fmt::print(stderr, "\r[{}{}] {}/{} kernels", std::string(filled, '#'), std::string(width - filled, '.'), done,
                   total_);
        std::fflush(stderr);
    }

    bool enabled_;
    std::size_t total_;
    std::size_t done_ = 0;
    std::mutex mutex_;
};

struct Kernel {            // one distinct cache key
    pj::AnyPoolDesc desc;  // the first problem with this key
    double compile_us = 0.0;
    std::string error;
};

// One-time start-up costs (oneTBB's worker threads, the first JIT code buffer, lazy initialisation in the
// library) would otherwise be charged to whichever kernel compiles first. A tiny kernel pays them untimed; it
// is then dropped and the statistics zeroed, so the cache line of the summary counts this run's kernels only.
void start_runtime() {
    pj::MaxPoolDesc tiny;
    tiny.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, 1}};
    tiny.kernel = {1};
    try {
        pj::cache::warmup({tiny});
    } catch (const std::exception&) {
        // Whatever failed here fails again, timed and reported, for the real kernels.
    }
    pj::cache::clear();
    pj::cache::reset_stats();
}

void compile_all(std::vector<Kernel>& kernels, unsigned jobs, bool progress) {
    ProgressBar bar(progress, kernels.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < kernels.size();) {
            const auto start = std::chrono::steady_clock::now();
            try {
                pj::cache::warmup({kernels[i].desc});
            } catch (const std::exception& e) {
                kernels[i].error = e.what();
            }
            kernels[i].compile_us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
            bar.advance();
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    bar.finish();
}

// Runs the primitive once on adversarial data and compares with the reference bit for bit. Empty: equal.
std::string verify(const pj::Primitive& p, std::uint64_t seed) {
    constexpr std::size_t guard = 64;
    constexpr std::size_t too_large = std::size_t{1} << 30;
    const std::size_t src_bytes = pj::casegen::byte_size(p.src_desc());
    const std::size_t dst_bytes = pj::casegen::byte_size(p.dst_desc());
    const std::size_t idx_bytes = p.has_indices() ? pj::casegen::byte_size(p.indices_desc()) : 0;
    if (src_bytes > too_large || dst_bytes > too_large || idx_bytes > too_large) return "skipped (tensors over 1 GiB)";
    const std::vector<std::uint8_t> src = pj::casegen::adversarial_data(p.src_desc(), seed);
    // Different poison in the two runs, so an element neither wrote still differs; guard bytes after each.
    std::vector<std::uint8_t> dst(dst_bytes + guard, 0xA5), ref_dst(dst_bytes + guard, 0x5A);
    std::vector<std::uint8_t> idx(idx_bytes + guard, 0xA5), ref_idx(idx_bytes + guard, 0x5A);
    std::fill(dst.begin() + static_cast<std::ptrdiff_t>(dst_bytes), dst.end(), std::uint8_t{0xEE});
    std::fill(idx.begin() + static_cast<std::ptrdiff_t>(idx_bytes), idx.end(), std::uint8_t{0xEE});
    p.execute(src.data(), dst.data(), p.has_indices() ? idx.data() : nullptr);
    pj::reference::execute(p.problem(), src.data(), ref_dst.data(), p.has_indices() ? ref_idx.data() : nullptr);
    const auto describe = [](const char* what, const pj::casegen::Difference& d) {
        std::string at;
        for (const std::int64_t c : d.coordinates) at += (at.empty() ? "" : ",") + std::to_string(c);
        return fmt::format("{} element {} [{}]: got {} ({}), want {} ({})", what, d.element, at, d.got, d.got_value,
                           d.want, d.want_value);
    };
    if (const auto d = pj::casegen::first_difference(p.dst_desc(), dst.data(), ref_dst.data()))
        return describe("dst", *d);
    if (p.has_indices())
        if (const auto d = pj::casegen::first_difference(p.indices_desc(), idx.data(), ref_idx.data()))
            return describe("indices", *d);
    const auto intact = [&](const std::vector<std::uint8_t>& b, std::size_t size) {
        return std::all_of(b.begin() + static_cast<std::ptrdiff_t>(size), b.end(),
                           [](std::uint8_t x) { return x == 0xEE; });
    };
    if (!intact(dst, dst_bytes)) return "dst: bytes past the end of the tensor were written";
    if (!intact(idx, idx_bytes)) return "indices: bytes past the end of the tensor were written";
    return {};
}

// --compile-only: one compile_only() per distinct problem, on `jobs` threads; a line each (code bytes, the
// strategies the plan chose) and a summary with the impl: count. 1 when any problem fails to plan or emit.
int compile_only_all(const std::vector<pj::AnyPoolDesc>& problems, const std::vector<std::string>& lines,
                     const std::string& isa, unsigned jobs, bool quiet, bool progress) {
    struct Result {
        pj::CompileReport report;
        std::string error;
        double microseconds = 0.0;
    };
    std::vector<Result> results(problems.size());
    ProgressBar bar(progress, problems.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < problems.size();) {
            const auto start = std::chrono::steady_clock::now();
            try {
                results[i].report = pj::compile_only(problems[i], isa);
            } catch (const std::exception& e) {
                results[i].error = e.what();
            }
            results[i].microseconds =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
            bar.advance();
        }
    };
    std::vector<std::thread> threads;
    for (unsigned t = 1; t < std::min<std::size_t>(jobs, std::max<std::size_t>(problems.size(), 1)); ++t)
        threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    bar.finish();

    int failures = 0;
    std::map<std::string, int> served;
    std::vector<double> times;
    std::size_t code_bytes = 0;
    if (!quiet) fmt::print("{:>4}  {:>11}  {:>10}  {:<10}  {}\n", "#", "compile us", "code bytes", "impl", "problem / strategies");
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        times.push_back(r.microseconds);
        if (!r.error.empty()) {
            ++failures;
            fmt::print("{:>4}  {:>11.1f}  {:>10}  {:<10}  {}\n      ERROR: {}\n", i + 1, r.microseconds, "-", "-", lines[i],
                       r.error);
            continue;
        }
        ++served[r.report.impl_name];
        code_bytes += r.report.code_bytes;
        if (!quiet)
            fmt::print("{:>4}  {:>11.1f}  {:>10}  {:<10}  {}\n      strategies: {}\n", i + 1, r.microseconds,
                       r.report.code_bytes, r.report.impl_name, lines[i], r.report.strategies);
    }
    std::string impls;
    for (const auto& [name, n] : served) impls += fmt::format("{}{}={}", impls.empty() ? "" : ", ", name, n);
    fmt::print(
        "summary: compile-only for {}: {} distinct problems, {} code bytes; compile p50 {:.1f} us, p99 {:.1f} us; "
        "impl: {}{}\n",
        isa, problems.size(), code_bytes, percentile(times, 0.50), percentile(times, 0.99), impls.empty() ? "none" : impls,
        failures > 0 ? fmt::format("; {} failed", failures) : "");
    return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "pooljit-warmup: compile the pooling kernels of problem-string files, ONNX models and OpenVINO IR "
        "into pooljit's cache, and report what was compiled"};
    std::vector<std::string> files;
    std::vector<std::string> shape_specs;
    std::string emit_file;
    bool do_verify = false;
    bool verbose = false;
    bool quiet = false;
    bool no_progress = false;
    std::string target_isa;
    bool compile_only = false;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    std::uint64_t seed = 1;
    app.add_option("inputs", files,
                   "inputs: .onnx (ONNX model), .xml (OpenVINO IR, its .bin next to it), anything else a file of "
                   "problem strings (one per line, '#' starts a comment)")
        ->required();
    app.add_option("--shape", shape_specs,
                   "NAME=DIMS (e.g. data=1x3x224x224): dims for an ONNX graph input or pooling input, for models "
                   "with dynamic shapes; applies to every .onnx input")
        ->type_name("NAME=DIMS");
    app.add_option("--emit", emit_file, "write the distinct problem strings to FILE (readable as an input again)");
    app.add_flag("--verify", do_verify, "run each kernel once on random data against the reference, bit for bit");
    app.add_option("--target-isa", target_isa, "with --compile-only: the ISA to plan and emit for (avx512, avx2)")
        ->check(CLI::IsMember({"avx512", "avx2"}));
    app.add_flag("--compile-only", compile_only,
                 "plan and emit every problem's code for --target-isa whatever this CPU has; nothing is run or "
                 "cached. Exit status 1 if any problem fails to plan or emit");
    app.add_option("-j,--jobs", jobs, "compile threads (default: all cores)")->check(CLI::Range(1u, 1024u));
    app.add_option("--seed", seed, "seed of the --verify data");
    app.add_flag("-v,--verbose", verbose, "list where each problem was found");
    app.add_flag("-q,--quiet", quiet, "print the summary only, not a line per kernel");
    app.add_flag("--no-progress", no_progress, "no progress bar (it is drawn only when stderr is a terminal)");
    bool tune = false;
    std::string wisdom_out;
    double budget_ms = 100;
    int tune_threads = 0;
    app.add_flag("--tune", tune,
                 "measure every distinct problem's candidate plans on this CPU (pooljit::tune, checked against the "
                 "reference) before compiling; the winners serve the compiles and go to --wisdom");
    app.add_option("--wisdom", wisdom_out, "with --tune: write the wisdom (this CPU's winners) to FILE")
        ->type_name("FILE");
    app.add_option("--budget-ms", budget_ms, "with --tune: milliseconds of compiling and timing per problem")
        ->check(CLI::Range(1.0, 60000.0));
    app.add_option("--threads", tune_threads, "with --tune: the threads execute will run on (default: all)")
        ->check(CLI::Range(1, 4096));
    CLI11_PARSE(app, argc, argv);
    if (!wisdom_out.empty() && !tune) {
        fmt::print(stderr, "pooljit-warmup: --wisdom FILE writes what --tune measures: give --tune too\n");
        return 1;
    }
    if (tune && compile_only) {
        fmt::print(stderr, "pooljit-warmup: --tune runs code, --compile-only never does: choose one\n");
        return 1;
    }
    if (compile_only != !target_isa.empty()) {
        fmt::print(stderr, "pooljit-warmup: --compile-only and --target-isa ISA go together\n");
        return 1;
    }
    if (compile_only && do_verify) {
        fmt::print(stderr, "pooljit-warmup: --verify runs code, --compile-only never does: choose one\n");
        return 1;
    }

    // ---- read --------------------------------------------------------------------------------------------
    Inputs inputs;
    try {
        const ShapeOverrides overrides = parse_shapes(shape_specs);
        bool any_onnx = false;
        for (const std::string& file : files) {
            const std::string ext = extension_of(file);
            if (!std::filesystem::exists(file)) throw pj::Error(file + ": no such file");
            if (std::filesystem::is_directory(file)) throw pj::Error(file + ": is a directory, not a file");
            if (ext == ".onnx") {
                any_onnx = true;
                read_onnx(file, overrides, inputs);
            } else if (ext == ".xml") {
                read_ir(file, inputs);
            } else {
                read_problem_file(file, inputs);
            }
        }
        if (!overrides.empty() && !any_onnx) throw pj::Error("--shape is given but no input is an .onnx model");
    } catch (const std::exception& e) {
        fmt::print(stderr, "pooljit-warmup: {}\n", e.what());
        return 1;
    }

    // ---- deduplicate: distinct problem strings, then distinct cache keys ----------------------------------
    struct Distinct {
        std::string problem;
        pj::AnyPoolDesc desc;
        std::vector<std::string> origins;
        std::size_t kernel = 0;  // index into kernels
    };
    std::vector<Distinct> problems;
    std::map<std::string, std::size_t> problem_index;
    std::vector<Kernel> kernels;
    std::map<std::vector<std::int64_t>, std::size_t> kernel_index;
    for (const Found& f : inputs.found) {
        const std::string problem = pj::to_string(f.desc);
        auto [it, inserted] = problem_index.emplace(problem, problems.size());
        if (inserted) {
            const auto [k, new_key] = kernel_index.emplace(key_of(f.desc), kernels.size());
            if (new_key) kernels.push_back({f.desc, 0.0, {}});
            problems.push_back({problem, f.desc, {}, k->second});
        }
        problems[it->second].origins.push_back(f.origin);
    }

    if (!emit_file.empty()) {
        std::ofstream out(emit_file);
        out << "# pooljit-warmup: " << problems.size() << " distinct problems from";
        for (const std::string& file : files) out << ' ' << file;
        out << '\n';
        for (const Distinct& d : problems) out << d.problem << '\n';
        out.close();
        if (!out) {
            fmt::print(stderr, "pooljit-warmup: {}: cannot write the file\n", emit_file);
            return 1;
        }
    }

    if (compile_only) {
        std::vector<pj::AnyPoolDesc> descs;
        std::vector<std::string> lines;
        for (const Distinct& d : problems) {
            descs.push_back(d.desc);
            lines.push_back(d.problem);
        }
        fmt::print("pooljit-warmup: {} configurations in {} inputs, {} distinct problems; compile-only for {}\n",
                   inputs.found.size(), files.size(), problems.size(), target_isa);
        std::fflush(stdout);
        const int status =
            compile_only_all(descs, lines, target_isa, jobs, quiet, !no_progress && isatty(STDERR_FILENO) == 1);
        if (!emit_file.empty()) fmt::print("emitted {} distinct problems to {}\n", problems.size(), emit_file);
        return status;
    }

    if (tune) {
        // One problem at a time: candidates are timed on this CPU, so nothing else may run beside them.
        if (tune_threads > 0) pj::set_num_threads(tune_threads);
        fmt::print("pooljit-warmup: tuning {} distinct problems on {} ({} ms each)\n", problems.size(),
                   pj::wisdom::cpu_identity(), budget_ms);
        fmt::print("{:>4}  {:>10}  {:>10}  {:>6}  {:>10}  {}\n", "#", "rules us", "tuned us", "ratio", "tune ms", "choice / problem");
        int tune_failures = 0;
        for (std::size_t i = 0; i < problems.size(); ++i) {
            try {
                pj::TuneOptions options;
                options.budget_ms = budget_ms;
                options.threads = tune_threads;
                const pj::TuneResult r = pj::tune(problems[i].desc, options);
                pj::wisdom::add(r);
                for (const pj::TuneCandidate& c : r.candidates)
                    if (!c.failure.empty()) {
                        ++tune_failures;
                        fmt::print("      CANDIDATE FAILED {} ({}): {}\n", pj::to_string(c.choice), c.impl, c.failure);
                    }
                fmt::print("{:>4}  {:>10.2f}  {:>10.2f}  {:>6.2f}  {:>10.1f}  {}\n      {}\n", i + 1, r.rules_us,
                           r.winner_us, r.winner_us > 0 ? r.rules_us / r.winner_us : 0.0, r.spent_ms + r.check_ms,
                           pj::to_string(r.winner), problems[i].problem);
            } catch (const std::exception& e) {
                ++tune_failures;
                fmt::print("{:>4}  tuning failed: {}\n      {}\n", i + 1, e.what(), problems[i].problem);
            }
            std::fflush(stdout);
        }
        if (!wisdom_out.empty()) {
            try {
                pj::wisdom::save(wisdom_out);
                fmt::print("wisdom: {} entries written to {}\n", pj::wisdom::size(), wisdom_out);
            } catch (const std::exception& e) {
                fmt::print(stderr, "pooljit-warmup: {}\n", e.what());
                return 1;
            }
        }
        if (tune_failures > 0) {
            fmt::print(stderr, "pooljit-warmup: {} tuning failures (a candidate that differs from the reference is a bug)\n",
                       tune_failures);
            return 1;
        }
    }

    const auto threads = static_cast<unsigned>(std::clamp<std::size_t>(kernels.size(), 1, jobs));
    fmt::print(
        "pooljit-warmup: {} configurations in {} inputs, {} distinct problems, {} distinct keys; "
        "compiling on {} threads\n",
        inputs.found.size(), files.size(), problems.size(), kernels.size(), threads);
    std::fflush(stdout);

    // ---- compile ------------------------------------------------------------------------------------------
    start_runtime();
    const auto wall_start = std::chrono::steady_clock::now();
    compile_all(kernels, threads, !no_progress && isatty(STDERR_FILENO) == 1);
    const double wall_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - wall_start).count();

    // ---- report per kernel --------------------------------------------------------------------------------
    int failures = 0;
    std::map<std::string, int> served;
    std::vector<bool> reported(kernels.size(), false);
    if (!quiet)
        fmt::print("{:>4}  {:>11}  {:<10}  {}{}\n", "#", "compile us", "impl", do_verify ? "verify    " : "",
                   "problem");
    for (std::size_t i = 0; i < problems.size(); ++i) {
        const Distinct& d = problems[i];
        const Kernel& k = kernels[d.kernel];
        std::string impl = "-", check;
        if (!k.error.empty()) {
            check = "ERROR: " + k.error;
        } else {
            try {
                const pj::Primitive p = pj::create(d.desc);
                impl = p.impl_name();
                if (do_verify) check = verify(p, seed * 0x9E3779B97F4A7C15ull + i);
            } catch (const std::exception& e) {
                check = std::string("ERROR: ") + e.what();
            }
        }
        ++served[impl];
        const bool first_of_key = !reported[d.kernel];
        reported[d.kernel] = true;
        const char* verdict = check.empty()                  ? "OK"
                              : check.starts_with("skipped") ? "SKIPPED"
                              : check.starts_with("ERROR")   ? "ERROR"
                                                             : "MISMATCH";
        const bool ok = check.empty() || check.starts_with("skipped");
        if (!ok) ++failures;
        if (!quiet || !ok) {
            const std::string compile = first_of_key ? fmt::format("{:.1f}", k.compile_us) : "same key";
            fmt::print("{:>4}  {:>11}  {:<10}  {}{}\n", i + 1, compile, impl,
                       do_verify || !ok ? fmt::format("{:<8}  ", verdict) : "", d.problem);
            if (!check.empty()) fmt::print("      {}\n", check);
            if (verbose)
                for (const std::string& origin : d.origins) fmt::print("      from {}\n", origin);
        }
    }
    for (const std::string& line : inputs.skipped) fmt::print("skipped ops (not pooling): {}\n", line);

    // ---- summary ------------------------------------------------------------------------------------------
    std::vector<double> times;
    double total = 0.0;
    for (const Kernel& k : kernels) {
        times.push_back(k.compile_us);
        total += k.compile_us;
    }
    std::string impls;
    for (const auto& [name, n] : served) impls += fmt::format("{}{}={}", impls.empty() ? "" : ", ", name, n);
    fmt::print(
        "summary: {} configurations, {} distinct problems, {} distinct keys; compile total {:.1f} us, "
        "p50 {:.1f} us, p99 {:.1f} us, wall {:.1f} us on {} threads; impl: {}\n",
        inputs.found.size(), problems.size(), kernels.size(), total, percentile(times, 0.50), percentile(times, 0.99),
        wall_us, threads, impls.empty() ? "none" : impls);
    const pj::cache::Stats after = pj::cache::stats();
    fmt::print("cache: hits {}, misses {}, entries {}, evictions {}, compile time {:.1f} us, capacity {}\n", after.hits,
               after.misses, after.entries, after.evictions, after.compile_microseconds, pj::cache::capacity());
    if (do_verify)
        fmt::print("verify: {} problems, {} failed\n", problems.size(), failures);
    else if (failures > 0)
        fmt::print("errors: {} problems failed to compile\n", failures);
    if (!emit_file.empty()) fmt::print("emitted {} distinct problems to {}\n", problems.size(), emit_file);
    return failures == 0 ? 0 : 1;
}
