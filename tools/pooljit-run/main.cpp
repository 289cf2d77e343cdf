// pooljit-run: reads a file of problem strings and, for each, creates the primitive, executes it on
// deterministic pseudo-random data, runs the reference interpreter on the same input and compares the outputs
// byte for byte. Prints one table row per problem; exits 1 on any mismatch, error or malformed line.
#include <pooljit/pooljit.hpp>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

struct Case {
    std::string where;  // file:line, for messages
    pj::AnyPoolDesc desc;
    pj::Problem problem;
    std::string label;  // the problem without its default-valued keys
};

std::string join_dims(const std::vector<std::int64_t>& dims) {
    std::string s;
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

bool all_equal(const std::vector<std::int64_t>& v, std::int64_t value) {
    return std::all_of(v.begin(), v.end(), [value](std::int64_t x) { return x == value; });
}

std::string short_label(const pj::MaxPoolDesc& d) {
    std::string s = fmt::format("{} {} {} k{}", pj::to_string(d.src.dtype), pj::to_string(d.src.layout),
                                join_dims(d.src.dims), join_dims(d.kernel));
    if (!all_equal(d.strides, 1)) s += " s" + join_dims(d.strides);
    if (!all_equal(d.dilations, 1)) s += " d" + join_dims(d.dilations);
    if (d.auto_pad == pj::AutoPad::explicit_pads) {
        if (!all_equal(d.pads_begin, 0) || !all_equal(d.pads_end, 0)) {
            s += " p" + join_dims(d.pads_begin.empty() ? d.pads_end : d.pads_begin);
            if (d.pads_begin != d.pads_end) s += "/" + join_dims(d.pads_end);
        }
    } else {
        static constexpr const char* auto_pad_names[] = {"explicit", "valid", "same_upper", "same_lower"};
        s += std::string(" ") + auto_pad_names[static_cast<int>(d.auto_pad)];
    }
    if (d.rounding == pj::Rounding::ceil) s += " ceil";
    if (d.rounding == pj::Rounding::ceil_torch) s += " ceil_torch";
    if (d.nan == pj::NanPolicy::ignore) s += " nan=ignore";
    if (d.indices) {
        s += std::string(" idx=") + pj::to_string(d.indices->dtype);
        if (d.indices->axis != 0) s += fmt::format("@axis{}", d.indices->axis);
        if (d.indices->order == pj::StorageOrder::column_major) s += "@col";
    }
    return s;
}

std::string short_label(const pj::AdaptiveMaxPoolDesc& d) {
    std::string s = fmt::format("adaptive {} {} {} out{}", pj::to_string(d.src.dtype), pj::to_string(d.src.layout),
                                join_dims(d.src.dims), join_dims(d.output_size));
    if (d.index_dtype) s += std::string(" idx=") + pj::to_string(*d.index_dtype);
    return s;
}

bool is_comment_or_blank(std::string_view line) {
    const auto first = line.find_first_not_of(" \t\r");
    return first == std::string_view::npos || line[first] == '#';
}

// Parses and validates every line before anything runs, so a bad file fails fast and names the line.
bool read_cases(const std::string& path, std::vector<Case>& cases) {
    std::ifstream in(path);
    if (!in) {
        fmt::print(stderr, "pooljit-run: cannot open {}\n", path);
        return false;
    }
    std::string line;
    for (int line_number = 1; std::getline(in, line); ++line_number) {
        if (is_comment_or_blank(line)) continue;
        const std::string where = fmt::format("{}:{}", path, line_number);
        try {
            pj::AnyPoolDesc desc = pj::parse_problem(line);
            const pj::Problem problem = std::visit([](const auto& d) { return pj::resolve(d); }, desc);
            std::string label = std::visit([](const auto& d) { return short_label(d); }, desc);
            cases.push_back({where, std::move(desc), problem, std::move(label)});
        } catch (const std::exception& e) {
            fmt::print(stderr, "{}: {}\n", where, e.what());
            return false;
        }
    }
    return true;
}

std::size_t byte_size(const pj::TensorDesc& t) {
    std::size_t n = pj::size_of(t.dtype);
    for (const std::int64_t dim : t.dims) n *= static_cast<std::size_t>(dim);
    return t.dims.empty() ? 0 : n;
}

// f16 bits of a float that f16 holds exactly (zeros, infinities, NaN, or a normal f16 value): every value
// make_value() produces is one of these.
std::uint16_t exact_f32_to_f16(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    if (value != value) return static_cast<std::uint16_t>(sign | 0x7E00u);
    if (value == 0.0f) return sign;
    if (value == std::numeric_limits<float>::infinity() || value == -std::numeric_limits<float>::infinity())
        return static_cast<std::uint16_t>(sign | 0x7C00u);
    const std::uint32_t exponent = ((bits >> 23) & 0xFFu) - 127u + 15u;
    return static_cast<std::uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3FFu));
}

// One pseudo-random floating value: mostly multiples of 1/4 in [-64, 64), so that ties are common and every
// value is exact in f16 and bf16; now and then a NaN, an infinity or a negative zero.
double make_value(std::uint64_t r) {
    switch (r % 1024) {
        case 0: return std::numeric_limits<double>::quiet_NaN();
        case 1: return -std::numeric_limits<double>::infinity();
        case 2: return std::numeric_limits<double>::infinity();
        case 3: return -0.0;
        default: return static_cast<double>(static_cast<std::int64_t>((r >> 10) % 512) - 256) / 4.0;
    }
}

template <typename T>
void store(unsigned char* bytes, std::size_t i, T value) {
    std::memcpy(bytes + i * sizeof(T), &value, sizeof(T));
}

// Deterministic across platforms: mt19937_64's raw output is fully specified by the standard.
void fill_random(std::vector<unsigned char>& bytes, pj::DType dtype, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const std::size_t count = bytes.size() / pj::size_of(dtype);
    unsigned char* out = bytes.data();
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t r = rng();
        const auto narrow_int = static_cast<std::int32_t>(r % 2048) - 1024;
        switch (dtype) {
            case pj::DType::f32: store(out, i, static_cast<float>(make_value(r))); break;
            case pj::DType::f64: store(out, i, make_value(r)); break;
            case pj::DType::f16: store(out, i, exact_f32_to_f16(static_cast<float>(make_value(r)))); break;
            case pj::DType::bf16:
                store(out, i, static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(make_value(r))) >> 16));
                break;
            case pj::DType::s8: store(out, i, static_cast<std::int8_t>(r & 0xFF)); break;
            case pj::DType::u8: store(out, i, static_cast<std::uint8_t>(r & 0xFF)); break;
            case pj::DType::s32: store(out, i, narrow_int); break;
            case pj::DType::s64: store(out, i, static_cast<std::int64_t>(narrow_int)); break;
        }
    }
}

// An output buffer followed by guard bytes that must survive execute(): the contract is that not a byte past
// the described tensor is touched.
struct GuardedBuffer {
    static constexpr std::size_t guard_bytes = 64;
    static constexpr unsigned char fill = 0xA5;
    static constexpr unsigned char guard = 0x5A;

    explicit GuardedBuffer(std::size_t tensor_bytes) : size(tensor_bytes), bytes(tensor_bytes + guard_bytes, fill) {
        std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(), guard);
    }
    void* data() { return bytes.data(); }
    bool guard_intact() const {
        return std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(size), bytes.end(),
                           [](unsigned char b) { return b == guard; });
    }

    std::size_t size;
    std::vector<unsigned char> bytes;
};

// Empty when equal; otherwise where the first difference is.
std::string first_difference(const char* what, const GuardedBuffer& got, const GuardedBuffer& want,
                             std::size_t element_size) {
    if (!got.guard_intact()) return fmt::format("{}: bytes past the end of the tensor were written", what);
    const auto mismatch = std::mismatch(got.bytes.begin(), got.bytes.begin() + static_cast<std::ptrdiff_t>(got.size),
                                        want.bytes.begin());
    if (mismatch.first == got.bytes.begin() + static_cast<std::ptrdiff_t>(got.size)) return {};
    const auto element = static_cast<std::size_t>(mismatch.first - got.bytes.begin()) / element_size;
    std::string got_hex, want_hex;
    for (std::size_t b = element_size; b-- > 0;) {
        got_hex += fmt::format("{:02x}", got.bytes[element * element_size + b]);
        want_hex += fmt::format("{:02x}", want.bytes[element * element_size + b]);
    }
    return fmt::format("{}: first difference at element {} (memory order): got 0x{}, reference 0x{}", what,
                       element, got_hex, want_hex);
}

double microseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

struct Row {
    std::string impl = "-";
    double create_us = 0.0;
    double execute_us = 0.0;
    double reference_us = 0.0;
    std::string check;
    std::vector<std::string> notes;  // printed under the row
};

Row run_case(const Case& c, std::uint64_t seed, int runs) {
    Row row;
    try {
        auto start = std::chrono::steady_clock::now();
        const pj::Primitive primitive = pj::create(c.desc);
        row.create_us = microseconds_since(start);
        row.impl = primitive.impl_name();

        std::vector<unsigned char> src(std::max<std::size_t>(byte_size(primitive.src_desc()), 1));
        fill_random(src, primitive.src_desc().dtype, seed);
        const std::size_t dst_bytes = byte_size(primitive.dst_desc());
        const std::size_t idx_bytes = primitive.has_indices() ? byte_size(primitive.indices_desc()) : 0;
        GuardedBuffer dst(dst_bytes), idx(idx_bytes), ref_dst(dst_bytes), ref_idx(idx_bytes);
        void* idx_ptr = primitive.has_indices() ? idx.data() : nullptr;
        void* ref_idx_ptr = primitive.has_indices() ? ref_idx.data() : nullptr;

        row.execute_us = std::numeric_limits<double>::infinity();
        for (int run = 0; run < runs; ++run) {
            start = std::chrono::steady_clock::now();
            primitive.execute(src.data(), dst.data(), idx_ptr);
            row.execute_us = std::min(row.execute_us, microseconds_since(start));
        }

        start = std::chrono::steady_clock::now();
        std::visit([&](const auto& d) { pj::reference::execute(d, src.data(), ref_dst.data(), ref_idx_ptr); }, c.desc);
        row.reference_us = microseconds_since(start);

        std::string diff = first_difference("dst", dst, ref_dst, pj::size_of(primitive.dst_desc().dtype));
        if (!diff.empty()) row.notes.push_back(std::move(diff));
        if (primitive.has_indices()) {
            diff = first_difference("indices", idx, ref_idx, pj::size_of(primitive.indices_desc().dtype));
            if (!diff.empty()) row.notes.push_back(std::move(diff));
        }
        row.check = row.notes.empty() ? "OK" : "MISMATCH";
    } catch (const std::exception& e) {
        row.check = "ERROR";
        row.notes.push_back(e.what());
    }
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"pooljit-run: create, execute and check each problem of a file against the reference"};
    std::vector<std::string> files;
    int runs = 1;
    int threads = 0;
    std::uint64_t seed = 1;
    app.add_option("files", files, "files of problem strings, one per line ('#' starts a comment)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("-r,--runs", runs, "timed executions per problem; the fastest is reported")
        ->check(CLI::Range(1, 1000000));
    app.add_option("-t,--threads", threads, "threads for execute (0: the library's default)")->check(CLI::NonNegativeNumber);
    app.add_option("--seed", seed, "seed of the input data (each line's data also depends on its position)");
    CLI11_PARSE(app, argc, argv);

    std::vector<Case> cases;
    for (const std::string& file : files) {
        if (!read_cases(file, cases)) return 1;
    }
    if (threads > 0) pj::set_num_threads(threads);

    std::size_t label_width = std::string_view("problem").size();
    std::size_t dst_width = std::string_view("dst").size();
    for (const Case& c : cases) {
        label_width = std::max(label_width, c.label.size());
        dst_width = std::max(dst_width, join_dims(c.problem.dst_desc().dims).size());
    }
    const std::size_t impl_width = std::string_view("jit:avx512").size();
    const auto print_row = [&](std::string_view label, std::string_view impl, std::string_view dst,
                               std::string_view create, std::string_view execute, std::string_view reference,
                               std::string_view check) {
        fmt::print("{:<{}}  {:<{}}  {:<{}}  {:>11}  {:>11}  {:>11}  {}\n", label, label_width, impl, impl_width, dst,
                   dst_width, create, execute, reference, check);
    };
    print_row("problem", "impl", "dst", "create us", "execute us", "ref us", "check");
    std::fflush(stdout);

    int failures = 0;
    const auto suite_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        const Row row = run_case(c, seed * 0x9E3779B97F4A7C15ull + i, runs);
        const bool ran = row.check != "ERROR";
        print_row(c.label, row.impl, join_dims(c.problem.dst_desc().dims), ran ? fmt::format("{:.1f}", row.create_us) : "-",
                  ran ? fmt::format("{:.1f}", row.execute_us) : "-", ran ? fmt::format("{:.1f}", row.reference_us) : "-",
                  row.check);
        for (const std::string& note : row.notes) fmt::print("    {}: {}\n", c.where, note);
        std::fflush(stdout);
        if (row.check != "OK") ++failures;
    }
    fmt::print("{} problems, {} passed, {} failed ({:.1f} s)\n", cases.size(), cases.size() - static_cast<std::size_t>(failures),
               failures, microseconds_since(suite_start) / 1e6);
    return failures == 0 ? 0 : 1;
}
