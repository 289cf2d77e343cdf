// The specs' worked examples (tests/data/spec_examples.txt), run through Primitive::create + execute and through
// reference::execute in every dtype that holds the example's values, both layouts, with s64, s32 and no indices,
// for the example's batch and for the example repeated over a batch of 2.
#include "support/tensor_util.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace pj = pooljit;
namespace pt = pooljit::test;

namespace {

struct Example {
    std::string name;
    std::string source;
    std::string problem;
    std::vector<std::int64_t> dst_dims;
    std::vector<double> input;
    std::vector<double> output;
    std::vector<std::int64_t> indices;  // empty: the example gives none
    int line = 0;
};

std::vector<std::int64_t> parse_dims(const std::string& text) {
    std::vector<std::int64_t> dims;
    std::stringstream s(text);
    std::string part;
    while (std::getline(s, part, 'x')) dims.push_back(std::stoll(part));
    return dims;
}

template <typename T>
void append_numbers(const std::string& text, std::vector<T>& out) {
    std::istringstream s(text);
    std::string token;
    while (s >> token) {
        if constexpr (std::is_floating_point_v<T>) out.push_back(std::stod(token));  // accepts "-inf"
        else out.push_back(static_cast<T>(std::stoll(token)));
    }
}

std::vector<Example> load_examples() {
    const std::string path = std::string(POOLJIT_TEST_DATA_DIR) + "/spec_examples.txt";
    std::ifstream file(path);
    if (!file) throw std::runtime_error("cannot open " + path);
    std::vector<Example> examples;
    Example current;
    bool open = false;
    std::string line;
    for (int number = 1; std::getline(file, line); ++number) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        line = line.substr(first);
        const auto space = line.find(' ');
        const std::string key = line.substr(0, space);
        const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
        const auto where = path + ":" + std::to_string(number) + ": ";
        if (key == "case") {
            if (open) throw std::runtime_error(where + "case inside an open case (missing 'end')");
            current = Example{};
            current.name = rest;
            current.line = number;
            open = true;
            continue;
        }
        if (!open) throw std::runtime_error(where + "'" + key + "' outside a case");
        if (key == "source") current.source = rest;
        else if (key == "problem") current.problem = rest;
        else if (key == "dst") current.dst_dims = parse_dims(rest);
        else if (key == "input") append_numbers(rest, current.input);
        else if (key == "output") append_numbers(rest, current.output);
        else if (key == "indices") append_numbers(rest, current.indices);
        else if (key == "end") {
            examples.push_back(current);
            open = false;
        } else {
            throw std::runtime_error(where + "unknown key '" + key + "'");
        }
    }
    if (open) throw std::runtime_error(path + ": the last case has no 'end'");
    return examples;
}

const std::vector<Example>& examples() {
    static const std::vector<Example> all = load_examples();
    return all;
}

// Bytes with a guard zone after the tensor, so a write past the end shows.
constexpr std::size_t guard_bytes = 64;
constexpr std::byte poison{0xA5};

struct Variant {
    pj::DType dtype;
    pj::Layout layout;
    std::optional<pj::DType> index_dtype;
    std::int64_t batch;  // 1: the example as written; 2: repeated over the batch
};

std::string describe(const Variant& v) {
    return std::string("dt=") + pj::to_string(v.dtype) + " layout=" + pj::to_string(v.layout) +
           " idx=" + (v.index_dtype ? pj::to_string(*v.index_dtype) : "none") + " N=" + std::to_string(v.batch);
}

std::string join(const std::vector<double>& v) {
    std::ostringstream s;
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
    return s.str();
}

std::string join(const std::vector<std::int64_t>& v) {
    std::ostringstream s;
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << v[i];
    return s.str();
}

// The pooling problem of one variant, with what it must produce (logical NCX order).
struct Prepared {
    pj::AnyPoolDesc desc;
    std::vector<std::int64_t> src_dims;
    std::vector<std::int64_t> dst_dims;
    std::vector<double> input;
    std::vector<double> output;
    std::vector<std::int64_t> indices;  // empty when the variant has no indices output
};

Prepared prepare(const Example& ex, const Variant& v) {
    Prepared p{pj::parse_problem(ex.problem), {}, ex.dst_dims, {}, {}, {}};
    // The flat NCX index of a selected element moves by C*S per batch entry when the numbering covers the batch
    // (row-major axis 0, or column-major, which requires axis 0); other axes and AdaptiveMaxPool count within a
    // batch entry. Empty windows keep -1.
    std::int64_t index_step_per_batch = 0;
    std::visit(
        [&](auto& d) {
            using D = std::decay_t<decltype(d)>;
            p.src_dims = d.src.dims;
            const std::int64_t per_batch = pt::element_count(d.src.dims) / d.src.dims[0];
            d.src.dtype = v.dtype;
            d.src.layout = v.layout;
            if constexpr (std::is_same_v<D, pj::MaxPoolDesc>) {
                if (d.indices) {
                    const auto rank = static_cast<std::int64_t>(d.src.dims.size());
                    const std::int64_t axis = d.indices->axis < 0 ? d.indices->axis + rank : d.indices->axis;
                    if (axis == 0) index_step_per_batch = per_batch;
                }
                if (v.index_dtype) d.indices->dtype = *v.index_dtype;
                else d.indices.reset();
            } else {
                d.index_dtype = v.index_dtype;
            }
            d.src.dims[0] *= v.batch;
        },
        p.desc);
    p.src_dims[0] *= v.batch;
    p.dst_dims[0] *= v.batch;
    for (std::int64_t n = 0; n < v.batch; ++n) {
        p.input.insert(p.input.end(), ex.input.begin(), ex.input.end());
        p.output.insert(p.output.end(), ex.output.begin(), ex.output.end());
        if (v.index_dtype)
            for (std::int64_t i : ex.indices) p.indices.push_back(i < 0 ? i : i + n * index_step_per_batch);
    }
    return p;
}

std::vector<std::byte> guarded(std::size_t size) { return std::vector<std::byte>(size + guard_bytes, poison); }

bool guard_intact(const std::vector<std::byte>& buffer, std::size_t size) {
    return std::all_of(buffer.begin() + static_cast<std::ptrdiff_t>(size), buffer.end(),
                       [](std::byte b) { return b == poison; });
}

// Compares one run's dst and indices buffers (in the variant's layout) with the expectation.
void check_outputs(const char* who, const Prepared& p, const Variant& v, const std::vector<std::byte>& dst,
                   const std::vector<std::byte>& idx) {
    SCOPED_TRACE(who);
    const std::vector<std::byte> expected_dst =
        pt::convert_layout(pt::to_bytes(v.dtype, p.output), pj::size_of(v.dtype), p.dst_dims, pj::Layout::ncx, v.layout);
    const std::size_t dst_size = expected_dst.size();
    EXPECT_TRUE(guard_intact(dst, dst_size)) << "bytes written past the end of dst";
    const std::vector<std::byte> actual_dst(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(dst_size));
    EXPECT_EQ(0, std::memcmp(actual_dst.data(), expected_dst.data(), dst_size))
        << "values (logical NCX order)\n  expected: " << join(p.output) << "\n  actual:   "
        << join(pt::from_bytes(v.dtype, pt::convert_layout(actual_dst, pj::size_of(v.dtype), p.dst_dims, v.layout,
                                                           pj::Layout::ncx)));
    if (!v.index_dtype) return;
    const std::size_t idx_size = p.indices.size() * pj::size_of(*v.index_dtype);
    EXPECT_TRUE(guard_intact(idx, idx_size)) << "bytes written past the end of indices";
    const std::vector<std::byte> actual_idx(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(idx_size));
    const std::vector<std::int64_t> actual = pt::indices_from_bytes(
        *v.index_dtype, pt::convert_layout(actual_idx, pj::size_of(*v.index_dtype), p.dst_dims, v.layout, pj::Layout::ncx));
    EXPECT_EQ(p.indices, actual) << "indices (logical NCX order)\n  expected: " << join(p.indices)
                                 << "\n  actual:   " << join(actual);
}

void run_variant(const Example& ex, const Variant& v) {
    SCOPED_TRACE(describe(v));
    const Prepared p = prepare(ex, v);
    ASSERT_EQ(static_cast<std::int64_t>(p.input.size()), pt::element_count(p.src_dims)) << "data file: input count";
    ASSERT_EQ(static_cast<std::int64_t>(p.output.size()), pt::element_count(p.dst_dims)) << "data file: output count";
    if (v.index_dtype) {
        ASSERT_EQ(p.indices.size(), p.output.size()) << "data file: indices count";
    }

    const std::vector<std::byte> src =
        pt::convert_layout(pt::to_bytes(v.dtype, p.input), pj::size_of(v.dtype), p.src_dims, pj::Layout::ncx, v.layout);
    const std::size_t dst_size = p.output.size() * pj::size_of(v.dtype);
    const std::size_t idx_size = v.index_dtype ? p.indices.size() * pj::size_of(*v.index_dtype) : 0;

    pj::Primitive prim;
    ASSERT_NO_THROW(prim = std::visit([](const auto& d) { return pj::Primitive::create(d); }, p.desc))
        << pj::to_string(p.desc);
    EXPECT_EQ(prim.dst_desc(), (pj::TensorDesc{v.dtype, v.layout, p.dst_dims}));
    EXPECT_EQ(prim.has_indices(), v.index_dtype.has_value());
    if (v.index_dtype) {
        EXPECT_EQ(prim.indices_desc(), (pj::TensorDesc{*v.index_dtype, v.layout, p.dst_dims}));
    } else {
        EXPECT_TRUE(prim.indices_desc().dims.empty());
    }
    {
        std::vector<std::byte> dst = guarded(dst_size);
        std::vector<std::byte> idx = guarded(idx_size);
        ASSERT_NO_THROW(prim.execute(src.data(), dst.data(), v.index_dtype ? idx.data() : nullptr));
        check_outputs(("Primitive impl=" + prim.impl_name()).c_str(), p, v, dst, idx);
    }
    {
        std::vector<std::byte> dst = guarded(dst_size);
        std::vector<std::byte> idx = guarded(idx_size);
        ASSERT_NO_THROW(std::visit(
            [&](const auto& d) { pj::reference::execute(d, src.data(), dst.data(), v.index_dtype ? idx.data() : nullptr); },
            p.desc));
        check_outputs("reference::execute", p, v, dst, idx);
    }
}

class SpecExample : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SpecExample, MatchesEveryDtypeLayoutAndIndexType) {
    const Example& ex = examples()[GetParam()];
    SCOPED_TRACE("example " + ex.name + " (" + ex.source + "), spec_examples.txt line " + std::to_string(ex.line));
    ASSERT_TRUE(pt::all_representable(pj::DType::f32, ex.input)) << "every example must run in f32";

    std::vector<std::optional<pj::DType>> index_types{std::nullopt};
    if (!ex.indices.empty()) index_types = {pj::DType::s64, pj::DType::s32, std::nullopt};
    int dtypes_run = 0;
    for (pj::DType dtype : pt::all_dtypes) {
        if (!pt::all_representable(dtype, ex.input)) continue;
        ++dtypes_run;
        for (pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
            for (const auto& index_dtype : index_types)
                for (std::int64_t batch : {1, 2}) run_variant(ex, Variant{dtype, layout, index_dtype, batch});
    }
    // Every example has small integers: at least all floating types and s8, s32, s64 hold them.
    EXPECT_GE(dtypes_run, 7);
}

std::vector<std::size_t> example_ids() {
    std::vector<std::size_t> ids(examples().size());
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    return ids;
}

INSTANTIATE_TEST_SUITE_P(SpecExamples, SpecExample, ::testing::ValuesIn(example_ids()),
                         [](const ::testing::TestParamInfo<std::size_t>& param) { return examples()[param.param].name; });

// Guards against the data file losing cases: every spec example named in the brief is present.
TEST(SpecExamplesFile, HoldsEverySpecExample) {
    const char* required[] = {
        "ov8_example1_explicit", "ov8_example2_valid_1d", "ov8_example3_same_lower", "ov8_example4_same_upper",
        "ov8_example5_valid_ceil", "ov8_example6_dilation", "ov8_example7_axis2", "ov1_example1_explicit",
        "ov1_example2_valid_1d", "ov1_example3_same_lower", "ov1_example4_same_upper", "ov1_example5_valid_ceil",
        "onnx_maxpool_2d_uint8", "onnx_maxpool_2d_precomputed_pads", "onnx_maxpool_with_argmax_2d_precomputed_pads",
        "onnx_maxpool_2d_precomputed_strides", "onnx_maxpool_with_argmax_2d_precomputed_strides",
        "onnx_maxpool_2d_precomputed_same_upper", "onnx_maxpool_2d_ceil", "onnx_maxpool_2d_dilations",
        "adaptive_1d_5_to_3", "adaptive_2d_5x7_to_2x3"};
    for (const char* name : required) {
        const bool found = std::any_of(examples().begin(), examples().end(),
                                       [&](const Example& e) { return e.name == name; });
        EXPECT_TRUE(found) << name;
    }
    for (const Example& e : examples()) {
        EXPECT_FALSE(e.problem.empty()) << e.name;
        EXPECT_FALSE(e.source.empty()) << e.name;
    }
}

}  // namespace
