// pooljit-bench: for each problem string, pooljit's creation time on a cache miss and a hit, its execution
// time (Google Benchmark, median of repetitions), effective GB/s and the fraction of the copy bandwidth
// measured in the same run, and oneDNN's and XNNPACK's times on the same problem when built with them (DESIGN.md
// section 7). --check compares every problem against the reference first; any mismatch or error makes the exit
// status 1, and so does XNNPACK's output differing from pooljit's.
#include "buffers.hpp"
#include "check.hpp"
#include "interleave.hpp"
#include "machine.hpp"
#include "onednn.hpp"
#include "problems.hpp"
#include "report.hpp"
#include "sppf.hpp"
#include "timing.hpp"
#include "xnnpack.hpp"

#include <pooljit/pooljit.hpp>

#include <CLI/CLI.hpp>
#include <casegen/casegen.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace pj = pooljit;
using namespace pooljit_bench;

namespace {

struct Options {
    std::vector<std::string> files;
    std::vector<std::string> cases;
    int threads = 1;
    bool check = false;
    bool csv_requested = false;
    std::string csv_path;  // empty or "-": stdout
    double min_time_s = 0.05;
    int repetitions = 5;
    int miss_samples = 9;
    std::string filter;
    std::string dtypes, layouts, indices, views;  // variants, comma-separated
    std::uint64_t seed = 1;
    std::size_t copy_mib = 256;
    bool skip_onednn = false;
    bool skip_xnnpack = false;
    std::size_t buffer_offset = 0;  // bytes past a 64-byte boundary where every timed tensor starts
    std::string sppf;               // --sppf NxCxHxW: time the SPPF block's chain instead of problems
    std::string wisdom;             // --wisdom FILE: loaded first; the rules are timed beside each chosen plan
    bool regret = false;            // --regret: tune each problem, time the winner and the rules
    double budget_ms = 100;         // --budget-ms: the tuner's budget per problem
    int interleave = 0;             // --interleave CALLS: after the table, every problem's calls in turn
};

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Lets the other runtime's idle workers (oneTBB's, OpenMP's) stop spinning before the next measurement: on
// two cores a spinning worker takes half the machine.
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(5)); }

// Creation on a miss: the cache is emptied before each create, and only the create is timed; the median of
// `samples` single creates.
Timing time_create_miss(const Case& c, int samples) {
    TimingPlan plan;
    plan.iterations = 1;
    plan.repetitions = samples;
    plan.manual_time = true;
    return measure("pooljit.create_miss", plan, [&](benchmark::State& state) {
        for (auto _ : state) {
            pj::cache::clear();
            try {
                const auto t0 = Clock::now();
                pj::Primitive p = pj::create(c.desc);
                const auto t1 = Clock::now();
                benchmark::DoNotOptimize(p);
                state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
            } catch (const std::exception& e) {
                state.SkipWithError(e.what());
                break;
            }
        }
    });
}

struct CreateHit {
    Timing timing;
    bool cached = false;  // the cache counted hits, and no miss, while the creates were timed
};

// Creation on a hit: the key is put in the cache first. Sub-microsecond, so a short minimum time per
// repetition is plenty.
CreateHit time_create_hit(const Case& c, const Options& options) {
    (void)pj::create(c.desc);
    const pj::cache::Stats before = pj::cache::stats();
    TimingPlan plan;
    plan.min_time_s = std::min(options.min_time_s, 0.02);
    plan.repetitions = options.repetitions;
    CreateHit hit;
    hit.timing = measure("pooljit.create_hit", plan, timed_loop([&] {
        pj::Primitive p = pj::create(c.desc);
        benchmark::DoNotOptimize(p);
    }));
    const pj::cache::Stats after = pj::cache::stats();
    hit.cached = after.hits > before.hits && after.misses == before.misses;
    return hit;
}

Row bench_case(const Case& c, std::size_t index, const Options& options, double copy_gbps) {
    Row row;
    row.c = &c;
    try {
        const pj::Primitive primitive = pj::create(c.desc);
        row.impl = primitive.impl_name();

        // The check runs on adversarial data (ties, NaN, infinities, -0, whole windows of the lowest value) and
        // on the timed data; the timing runs on finite activations (what a network produces: NaN input sends a
        // row to the exact NaN-policy code), the same bytes for pooljit and oneDNN.
        std::vector<std::uint8_t> src = pj::casegen::activation_data(primitive.src_desc(), options.seed + index);
        if (src.empty()) src.resize(1);
        if (options.check) {
            std::vector<std::uint8_t> hard = pj::casegen::adversarial_data(primitive.src_desc(), options.seed + index);
            if (hard.empty()) hard.resize(1);
            row.notes = check_against_reference(c, primitive, hard);
            if (row.notes.empty()) row.notes = check_against_reference(c, primitive, src);
            row.check = row.notes.empty() ? "OK" : "FAIL";
        }

        const std::size_t src_bytes = pj::casegen::byte_size(primitive.src_desc());
        const std::size_t dst_bytes = pj::casegen::byte_size(primitive.dst_desc());
        const std::size_t idx_bytes = primitive.has_indices() ? pj::casegen::byte_size(primitive.indices_desc()) : 0;
        // The timed tensors, pooljit's and the peers': 64-byte aligned (plus --buffer-offset), as an inference
        // engine allocates them.
        const TensorBuffer timed_src(src.data(), src_bytes, options.buffer_offset);
        TensorBuffer dst(dst_bytes, options.buffer_offset), idx(idx_bytes, options.buffer_offset);
        void* const idx_ptr = primitive.has_indices() ? idx.data() : nullptr;
        const auto execute = [&] { primitive.execute(timed_src.data(), dst.data(), idx_ptr); };
        execute();  // first touch of dst and indices
        const auto start = Clock::now();
        execute();
        const double one_run_us = microseconds_since(start);

        TimingPlan base;
        base.min_time_s = options.min_time_s;
        base.repetitions = options.repetitions;

        row.create_miss_us = time_create_miss(c, options.miss_samples).median_us;
        const CreateHit hit = time_create_hit(c, options);
        row.create_hit_us = hit.timing.median_us;
        row.hit_was_cached = hit.cached;

        settle();
        const Timing exec = measure("pooljit.execute", capped_plan(base, one_run_us), timed_loop(execute));
        if (!exec.error.empty()) throw std::runtime_error(exec.error);
        row.exec_us = exec.median_us;
        row.exec_repetitions = exec.repetitions;
        row.exec_iterations = exec.iterations;
        // The bytes a run moves: every element once, a blocked tensor's padded lanes included; a view's gaps,
        // which its buffer spans, are not moved.
        const auto moved = [](pj::TensorDesc t) {
            t.strides.clear();
            return pj::casegen::byte_size(t);
        };
        row.bytes = static_cast<double>(moved(primitive.src_desc()) + moved(primitive.dst_desc()) +
                                        (primitive.has_indices() ? moved(primitive.indices_desc()) : 0));
        row.gbps = row.bytes / (row.exec_us * 1e-6) / 1e9;
        row.percent_of_copy = 100.0 * row.gbps / copy_gbps;

        if (options.threads > 1) row.spin_capacity = spin_capacity(options.threads, 3.0, 3);

        // Measured choice: the rules beside a wisdom entry, or the tuner's winner beside the rules, on the same
        // buffers and with the same timing as the row's own figure.
        row.choice = pj::to_string(primitive.choice());
        const auto time_choice = [&](const pj::PlanChoice& choice) {
            const pj::Primitive chosen = pj::create(c.desc, choice);
            const auto run = [&] { chosen.execute(timed_src.data(), dst.data(), idx_ptr); };
            settle();
            return measure("pooljit.execute_choice", capped_plan(base, one_run_us), timed_loop(run)).median_us;
        };
        if (!options.wisdom.empty() && !primitive.choice().is_rules()) row.rules_us = time_choice(pj::PlanChoice{});
        if (!options.wisdom.empty() && primitive.choice().is_rules()) row.rules_us = row.exec_us;
        if (options.regret) {
            pj::TuneOptions tune_options;
            tune_options.threads = options.threads;
            tune_options.budget_ms = options.budget_ms;
            const pj::TuneResult tuned = pj::tune(c.desc, tune_options);
            for (const pj::TuneCandidate& candidate : tuned.candidates)
                if (!candidate.failure.empty())
                    row.notes.push_back("TUNER CANDIDATE FAILED " + pj::to_string(candidate.choice) + ": " + candidate.failure);
            row.tuned_choice = pj::to_string(tuned.winner);
            row.tuned_us = tuned.winner.is_rules() ? row.exec_us : time_choice(tuned.winner);
            if (row.rules_us != row.rules_us) row.rules_us = primitive.choice().is_rules() ? row.exec_us : time_choice(pj::PlanChoice{});
            row.notes.push_back(fmt::format("regret {:.3f}: rules {} us, tuned {} us ({})", row.regret(),
                                            format_us(row.rules_us), format_us(row.tuned_us), row.tuned_choice));
        } else if (!options.wisdom.empty()) {
            row.notes.push_back(fmt::format("wisdom: {} ({} us), rules {} us", row.choice, format_us(row.exec_us),
                                            format_us(row.rules_us)));
        }

        if (!options.skip_onednn) {
            settle();
            row.peer = onednn_time(c.problem, timed_src.data(), base);
            settle();
        }
        if (!options.skip_xnnpack) {
            // dst holds pooljit's output for src: XNNPACK's is compared with it before XNNPACK is timed.
            row.xnnpack = xnnpack_time(c.problem, timed_src.data(), dst.data(), dst_bytes, base, options.buffer_offset);
            if (!row.xnnpack.mismatch.empty()) {
                row.notes.push_back("XNNPACK MISMATCH: its output differs from pooljit's: " + row.xnnpack.mismatch);
            }
            if (!row.xnnpack.error.empty()) row.notes.push_back("XNNPACK: " + row.xnnpack.error);
            settle();
        }
    } catch (const std::exception& e) {
        row.check = "ERROR";
        row.notes.push_back(e.what());
    }
    return row;
}

std::vector<Case> read_cases(const Options& options) {
    std::vector<Case> cases;
    for (const std::string& file : options.files) {
        std::vector<Case> more = read_problem_file(file);
        cases.insert(cases.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    for (std::size_t i = 0; i < options.cases.size(); ++i) {
        cases.push_back(parse_case(options.cases[i], fmt::format("--case {}", i + 1)));
    }
    cases = expand(cases, parse_variants(options.dtypes, options.layouts, options.indices, options.views));
    if (!options.filter.empty()) {
        const std::regex filter(options.filter);
        std::erase_if(cases, [&](const Case& c) {
            return !std::regex_search(c.text, filter) && !std::regex_search(c.label, filter);
        });
    }
    return cases;
}

int run_sppf_option(const Options& options) {
    Variants variants;
    std::vector<std::int64_t> dims;
    try {
        variants = parse_variants(options.dtypes, options.layouts, "");
        const pj::MaxPoolDesc shape = pj::parse_max_pool("maxpool src=" + options.sppf + " k=1x1");
        dims = shape.src.dims;
        if (dims.size() != 4) throw InputError("--sppf " + options.sppf + ": give N, C, H and W (e.g. 1x512x20x20)");
    } catch (const std::exception& e) {
        fmt::print(stderr, "pooljit-bench: {}\n", e.what());
        return 1;
    }
    if (variants.dtypes.empty()) variants.dtypes.push_back(pj::DType::f32);
    if (variants.layouts.empty()) variants.layouts.push_back(pj::Layout::nxc);
    init_timing("pooljit-bench");
    pj::set_num_threads(options.threads > 0 ? options.threads : online_cpus());
    double copy_gbps = 0;
    {
        CopyProbe copy(options.copy_mib << 20);
        copy_gbps = copy.gbps(options.threads > 0 ? options.threads : online_cpus(), 5);
    }
    fmt::print("CPU: {}; {} thread(s); timing: median of {} repetitions of >= {} s\n", cpu_model_name(),
               options.threads, options.repetitions, options.min_time_s);
    int status = 0;
    for (const pj::DType dtype : variants.dtypes)
        for (const pj::Layout layout : variants.layouts) {
            try {
                status |= run_sppf({dims, dtype, layout, options.min_time_s, options.repetitions, options.buffer_offset},
                                   copy_gbps, stdout);
            } catch (const std::exception& e) {
                fmt::print(stderr, "pooljit-bench: --sppf {} {} {}: {}\n", options.sppf, pj::to_string(dtype),
                           pj::to_string(layout), e.what());
                status = 1;
            }
        }
    return status;
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return std::filesystem::equivalent(a, b, ec);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "pooljit-bench: pooljit's creation and execution times, GB/s and fraction of the copy bandwidth measured\n"
        "in the same run, beside oneDNN's and XNNPACK's pooling on the same problem when built with them.\n"
        "Problems are problem strings (DESIGN.md section 4), one per line in FILEs ('#' comments) or --case."};
    Options options;
    app.add_option("files", options.files, "files of problem strings, one per line")->check(CLI::ExistingFile);
    app.add_option("--case", options.cases, "a problem string (repeatable), e.g. \"maxpool dt=f32 layout=nxc "
                                            "src=1x64x112x112 k=3x3 s=2x2 pb=1x1 pe=1x1\"")
        ->allow_extra_args(false);
    app.add_option("-t,--threads", options.threads,
                   "threads for pooljit (set_num_threads), oneDNN and XNNPACK (a pthreadpool), and for the copy "
                   "bandwidth; 0: all CPUs")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    app.add_flag("--check", options.check, "compare each problem against the reference before timing it");
    app.add_option("--csv", options.csv_path, "also write one CSV row per problem to FILE; without FILE (or '-'), "
                                              "CSV goes to stdout and the table to stderr")
        ->expected(0, 1)
        ->type_name("[FILE]");
    app.add_option("--min-time", options.min_time_s, "minimum seconds per repetition of an execution timing")
        ->check(CLI::Range(1e-4, 100.0))
        ->capture_default_str();
    app.add_option("--repetitions", options.repetitions, "repetitions per timing; the table shows their median")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_option("--miss-samples", options.miss_samples, "cache-miss creations timed per problem (median)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_option("--filter", options.filter, "only the problems whose string or short form matches REGEX")
        ->type_name("REGEX");
    app.add_option("--dtype", options.dtypes, "run each problem in each of these data types, e.g. f32,bf16,u8")
        ->type_name("LIST");
    app.add_option("--layout", options.layouts, "run each problem in each of these layouts: nxc,ncx,nCx8c,nCx16c")
        ->type_name("LIST");
    app.add_option("--view", options.views,
                   "run each problem's src and dst as each of these views: dense, slice (C of a 4C tensor), pitch "
                   "(rows padded by 16 elements)")
        ->type_name("LIST");
    app.add_option("--idx", options.indices, "run each problem with each of these indices outputs: none,s32,s64")
        ->type_name("LIST");
    app.add_option("--seed", options.seed, "seed of the input data (each problem's also depends on its position)")
        ->capture_default_str();
    app.add_option("--copy-mib", options.copy_mib, "size of each buffer of the copy-bandwidth probe, MiB")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    app.add_flag("--no-onednn", options.skip_onednn, "do not time oneDNN");
    app.add_flag("--no-xnnpack", options.skip_xnnpack, "do not time XNNPACK");
    app.add_option("--buffer-offset", options.buffer_offset,
                   "start every timed tensor this many bytes past a 64-byte boundary (0: aligned, as inference "
                   "engines allocate tensors)")
        ->check(CLI::Range(0, 63))
        ->type_name("BYTES");
    app.add_option("--wisdom", options.wisdom,
                   "load wisdom FILE first (pooljit::wisdom::load): each problem runs the choice it holds for this CPU, "
                   "and the rules are timed beside it")
        ->check(CLI::ExistingFile)
        ->type_name("FILE");
    app.add_flag("--regret", options.regret,
                 "tune each problem (pooljit::tune) and time its winner and the rules here: regret = rules / tuned, "
                 "how far the rules are from the best pooljit does on this CPU");
    app.add_option("--budget-ms", options.budget_ms, "the tuner's budget per problem (with --regret)")
        ->check(CLI::Range(1.0, 60000.0));
    app.add_option("--interleave", options.interleave,
                   "after the table, time CALLS single calls of each problem's pooljit execute, the problems in turn, "
                   "and print each one's lowest call: ratios between problems that hold where the machine's speed "
                   "drifts")
        ->check(CLI::Range(1, 1000000))
        ->type_name("CALLS");
    app.add_option("--sppf", options.sppf,
                   "time YOLOv5's SPPF block on an NxCxHxW input (e.g. 1x512x20x20), in each --dtype and --layout "
                   "(default f32, nxc): the three k5 pools in place in the concat buffer against three dense pools, "
                   "alone and with the concatenation's copy")
        ->type_name("DIMS");
    CLI11_PARSE(app, argc, argv);
    options.csv_requested = app.count("--csv") > 0;

    if (!options.sppf.empty()) return run_sppf_option(options);
    if (options.files.empty() && options.cases.empty()) {
        fmt::print(stderr, "pooljit-bench: no problems: give files of problem strings or --case (see --help)\n");
        return 1;
    }
    const bool csv_to_stdout = options.csv_requested && (options.csv_path.empty() || options.csv_path == "-");
    for (const std::string& file : options.files) {
        if (options.csv_requested && !csv_to_stdout && same_file(file, options.csv_path)) {
            fmt::print(stderr, "pooljit-bench: --csv {} would overwrite an input file\n", options.csv_path);
            return 1;
        }
    }

    std::vector<Case> cases;
    try {
        cases = read_cases(options);
    } catch (const InputError& e) {
        fmt::print(stderr, "pooljit-bench: {}\n", e.what());
        return 1;
    } catch (const std::regex_error& e) {
        fmt::print(stderr, "pooljit-bench: --filter {}: {}\n", options.filter, e.what());
        return 1;
    }
    if (cases.empty()) {
        fmt::print(stderr, "pooljit-bench: no problem to run{}\n", options.filter.empty() ? "" : " (--filter matched none)");
        return 1;
    }

    std::FILE* const table_out = csv_to_stdout ? stderr : stdout;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> csv_file(nullptr, &std::fclose);
    if (options.csv_requested && !csv_to_stdout) {
        csv_file.reset(std::fopen(options.csv_path.c_str(), "w"));
        if (!csv_file) {
            fmt::print(stderr, "pooljit-bench: cannot write {}\n", options.csv_path);
            return 1;
        }
    }
    std::FILE* const csv_out = csv_to_stdout ? stdout : csv_file.get();

    if (!options.wisdom.empty()) {
        try {
            pj::wisdom::load(options.wisdom);
        } catch (const std::exception& e) {
            fmt::print(stderr, "pooljit-bench: {}\n", e.what());
            return 1;
        }
    }
    init_timing(argv[0]);
    const int threads = options.threads > 0 ? options.threads : online_cpus();
    options.threads = threads;
    pj::set_num_threads(threads);
    onednn_set_threads(threads);
    if (!options.skip_xnnpack) xnnpack_set_threads(threads);

    // The machine, measured before the problems.
    double copy_gbps_1 = 0, copy_gbps_n = 0;
    {
        CopyProbe copy(options.copy_mib << 20);
        copy_gbps_1 = copy.gbps(1, 5);
        copy_gbps_n = threads > 1 ? copy.gbps(threads, 5) : copy_gbps_1;
    }
    const double capacity = threads > 1 ? spin_capacity(threads, 20.0, 5) : not_measured;

    fmt::print(table_out, "pooljit-bench: {} problem{}, {} thread{}, {}\n", cases.size(), cases.size() == 1 ? "" : "s",
               threads, threads == 1 ? "" : "s", options.check ? "checked against the reference first" : "not checked");
    fmt::print(table_out, "CPU: {} ({} online CPUs); pooljit set_num_threads({})\n", cpu_model_name(), online_cpus(),
               threads);
    if (threads > 1) {
        fmt::print(table_out,
                   "copy bandwidth (memcpy {} MiB, read + write, median of 5): 1 thread {:.1f} GB/s, {} threads {:.1f} "
                   "GB/s (the %copy reference)\n",
                   options.copy_mib, copy_gbps_1, threads, copy_gbps_n);
        fmt::print(table_out,
                   "spin capacity at {} threads: {:.2f} ({} = {} real cores, 1.00 = time-sliced onto one core); "
                   "column cap: the same probe right after each row's timing\n",
                   threads, capacity, threads, threads);
        if (capacity < 0.8 * threads) {
            fmt::print(table_out, "WARNING: the {} threads do not run on {} cores at once now: multi-thread figures "
                                  "below understate the machine\n", threads, threads);
        }
    } else {
        fmt::print(table_out, "copy bandwidth (memcpy {} MiB, read + write, median of 5): {:.1f} GB/s\n",
                   options.copy_mib, copy_gbps_1);
    }
    fmt::print(table_out, "{}\n", options.skip_onednn ? std::string("oneDNN: not timed (--no-onednn)") : onednn_description());
    fmt::print(table_out, "{}\n", options.skip_xnnpack ? std::string("XNNPACK: not timed (--no-xnnpack)") : xnnpack_description());
    fmt::print(table_out,
               "timing: Google Benchmark, wall clock, median of {} repetitions of >= {} s (of 1 iteration above 50 ms, "
               "fewer above 0.5 s); tensors {} bytes past a 64-byte boundary, the same for every library timed here\n"
               "miss/hit: Primitive::create after cache::clear() (median of {}) / with the key cached; GB/s = (src + dst "
               "+ indices bytes) / exec us\n"
               "ratio = oneDNN us / pooljit exec us (> 1: pooljit faster), oneDNN with its workspace (+ws) when the "
               "problem has indices\n"
               "XNN ratio = XNNPACK us / pooljit exec us; '-' where XNNPACK cannot compute exactly the problem (ncx, not "
               "2-D, indices, other data types, windows it would read differently: --csv says why)\n\n",
               options.repetitions, options.min_time_s, options.buffer_offset, options.miss_samples);

    std::size_t label_width = std::string_view("problem").size();
    for (const Case& c : cases) label_width = std::max(label_width, c.label.size());
    label_width = std::min<std::size_t>(label_width, 44);
    const Table table(table_out, label_width, threads > 1);
    const CsvWriter csv(csv_out, threads, copy_gbps_n);
    table.print_header();
    if (csv_out) csv.print_header();

    const auto suite_start = Clock::now();
    int mismatches = 0, errors = 0, ratios = 0, jit_ratios = 0, xnnpack_ratios = 0, xnnpack_mismatches = 0;
    bool uncached_hits = false;
    double log_ratio_sum = 0, jit_log_ratio_sum = 0;  // jit_: without oneDNN's reference fallbacks
    double xnnpack_log_ratio_sum = 0;
    double log_regret_sum = 0, max_regret = 0;
    int regret_cells = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Row row = bench_case(cases[i], i, options, copy_gbps_n);
        if (row.regret() == row.regret() && row.regret() > 0) {
            log_regret_sum += std::log(row.regret());
            max_regret = std::max(max_regret, row.regret());
            ++regret_cells;
        }
        table.print_row(row);
        if (csv_out) csv.print_row(row);
        mismatches += row.check == "FAIL";
        errors += row.check == "ERROR";
        uncached_hits |= !row.hit_was_cached;
        xnnpack_mismatches += !row.xnnpack.mismatch.empty();
        if (row.ratio_xnnpack() > 0) {
            xnnpack_log_ratio_sum += std::log(row.ratio_xnnpack());
            ++xnnpack_ratios;
        }
        if (row.ratio() > 0) {
            log_ratio_sum += std::log(row.ratio());
            ++ratios;
            if (row.peer.inference.impl.rfind("ref:", 0) != 0) {
                jit_log_ratio_sum += std::log(row.ratio());
                ++jit_ratios;
            }
        }
    }

    fmt::print(table_out, "\n{} problem{} in {:.1f} s", cases.size(), cases.size() == 1 ? "" : "s", microseconds_since(suite_start) / 1e6);
    if (options.check) fmt::print(table_out, "; check: {} OK, {} FAIL", cases.size() - static_cast<std::size_t>(mismatches + errors), mismatches);
    if (errors) fmt::print(table_out, ", {} ERROR", errors);
    if (ratios) {
        fmt::print(table_out, "; geometric mean ratio oneDNN/pooljit: {:.2f}x over {} problem{}", std::exp(log_ratio_sum / ratios),
                   ratios, ratios == 1 ? "" : "s");
        if (jit_ratios < ratios && jit_ratios > 0) {
            fmt::print(table_out, ", {:.2f}x over the {} where oneDNN did not fall back to its reference",
                       std::exp(jit_log_ratio_sum / jit_ratios), jit_ratios);
        }
    }
    if (xnnpack_ratios) {
        fmt::print(table_out, "; XNNPACK/pooljit: {:.2f}x over {} problem{}", std::exp(xnnpack_log_ratio_sum / xnnpack_ratios),
                   xnnpack_ratios, xnnpack_ratios == 1 ? "" : "s");
    }
    if (regret_cells > 0)
        fmt::print(table_out, "; regret (rules / tuned): geomean {:.3f} over {} problems, max {:.3f}", std::exp(log_regret_sum / regret_cells),
                   regret_cells, max_regret);
    fmt::print(table_out, "\n");
    if (xnnpack_mismatches) {
        fmt::print(table_out, "XNNPACK MISMATCH on {} problem{}: XNNPACK's output differs from pooljit's (the notes under "
                              "the rows marked '!' say where); run with --check to see whether pooljit agrees with the "
                              "reference\n", xnnpack_mismatches, xnnpack_mismatches == 1 ? "" : "s");
    }
    if (options.interleave > 0) {
        try {
            const std::vector<InterleavedTime> times =
                time_interleaved(cases, options.interleave, options.seed, options.buffer_offset);
            print_interleaved(table_out, cases, times, options.interleave, label_width);
        } catch (const std::exception& e) {
            fmt::print(table_out, "interleaved: not timed: {}\n", e.what());
            ++errors;
        }
    }
    if (threads > 1) fmt::print(table_out, "spin capacity at {} threads at the end: {:.2f}\n", threads, spin_capacity(threads, 20.0, 5));
    if (uncached_hits) fmt::print(table_out, "* in 'hit us': no cache hit was counted while timing repeated creates (cache disabled or "
                          "not built): the figure is a compile\n");
    return mismatches == 0 && errors == 0 && xnnpack_mismatches == 0 ? 0 : 1;
}
