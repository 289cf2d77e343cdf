// Hostile descriptors through the public API: every field at its extremes, invalid enum values, ranks and
// vector lengths, sizes that break the byte-size rule. Each invalid descriptor must be refused with
// pooljit::Error naming the field, by create() and by the reference alike; each valid extreme must be created
// cheaply (no allocation sized by the tensor, no work proportional to it) and, when small enough to run, agree
// with the reference byte for byte. Hostile problem strings are in test_hostile_problem_strings.cpp, hostile use
// of a created primitive in test_hostile_runtime.cpp.
#include "tests/hardening/alloc_watch.hpp"
#include "tests/hardening/hostile_util.hpp"
#include "tests/support/isa_cap.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

namespace pj = pooljit;

using pooljit::test::IsaCap;
using pooljit::test::hostile::base;
using pooljit::test::hostile::expect_matches_reference;
using pooljit::test::hostile::isa_caps;
using pooljit::test::hostile::Watchdog;

namespace {

constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t two_pow(int e) { return std::int64_t{1} << e; }

std::string describe(const pj::AnyPoolDesc& d) { return pj::to_string(d); }

// create() of an invalid descriptor throws pooljit::Error whose message contains `field`; the reference
// refuses it the same way, before touching its (null) buffers.
template <class Desc>
void expect_refused(const Desc& desc, const std::string& field, const std::string& what) {
    SCOPED_TRACE(what);
    try {
        (void)pj::Primitive::create(desc);
        ADD_FAILURE() << what << ": create() accepted it";
    } catch (const pj::Error& e) {
        EXPECT_NE(std::string(e.what()).find(field), std::string::npos)
            << what << ": the message does not name '" << field << "': " << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": create() threw a " << typeid(e).name() << " instead of pooljit::Error: " << e.what();
    }
    try {
        pj::reference::execute(desc, nullptr, nullptr, nullptr);
        ADD_FAILURE() << what << ": reference::execute accepted it";
    } catch (const pj::Error&) {
    } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": reference::execute threw a " << typeid(e).name() << ": " << e.what();
    }
    // Printing an invalid descriptor must not crash either (logs print what they are given).
    EXPECT_NO_FATAL_FAILURE((void)pj::to_string(desc));
}

}  // namespace

// ---- Refusals ---------------------------------------------------------------------------------------------

TEST(HostileRefused, NegativeAndExtremeValuesInEveryField) {
    struct Field {
        const char* name;  // what the message must contain
        std::function<void(pj::MaxPoolDesc&, std::int64_t)> set;
        std::vector<std::int64_t> refused;
    };
    const std::vector<std::int64_t> negative{-1, -2, i64_min, i64_min + 1};
    const std::vector<Field> fields{
        {"src.dims[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[0] = v; }, negative},
        {"src.dims[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[1] = v; }, negative},
        {"src.dims[2]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[2] = v; }, {0, -1, i64_min}},
        {"src.dims[3]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.src.dims[3] = v; }, {0, -1, i64_min}},
        {"kernel[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.kernel[0] = v; }, {0, -1, i64_min, i64_max}},
        {"kernel[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.kernel[1] = v; }, {0, -1, i64_min, i64_max}},
        {"strides[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.strides[0] = v; }, {0, -1, i64_min}},
        {"strides[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.strides[1] = v; }, {0, -1, i64_min}},
        {"dilations[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.dilations[0] = v; }, {0, -1, i64_min}},
        {"dilations[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.dilations[1] = v; }, {0, -1, i64_min}},
        {"pads_begin[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_begin[0] = v; }, {-1, i64_min, i64_max}},
        {"pads_begin[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_begin[1] = v; }, {-1, i64_min, i64_max}},
        {"pads_end[0]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_end[0] = v; }, {-1, i64_min, i64_max}},
        {"pads_end[1]", [](pj::MaxPoolDesc& d, std::int64_t v) { d.pads_end[1] = v; }, {-1, i64_min, i64_max}},
        {"indices.axis", [](pj::MaxPoolDesc& d, std::int64_t v) { d.indices->axis = v; }, {4, -5, i64_min, i64_max}},
    };
    for (const Field& f : fields)
        for (const std::int64_t v : f.refused)
            for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
                pj::MaxPoolDesc d = base(layout);
                f.set(d, v);
                expect_refused(d, f.name, std::string(f.name) + " = " + std::to_string(v));
            }
}

TEST(HostileRefused, ExtremeDimsBreakTheByteSizeRule) {
    struct Case {
        std::vector<std::int64_t> dims;
        const char* field;
    };
    const std::vector<Case> cases{
        {{1, 1, two_pow(40), two_pow(40)}, "src dims"},                  // 2^80 elements
        {{1, 1, two_pow(31), two_pow(30)}, "src dims"},                  // exactly 2^63 bytes of f32
        {{i64_max, 1, 3, 3}, "src dims"},
        {{1, i64_max, 3, 3}, "src dims"},
        {{1, 1, i64_max, 3}, "src dims"},
        {{1, 1, 3, i64_max}, "src dims"},
        {{0, i64_max, 3, 3}, "src dims"},                                // empty, yet absurd
        {{i64_max, 0, 3, 3}, "src dims"},
        {{two_pow(21), two_pow(21), two_pow(21), 3}, "src dims"},       // each factor fits, the product not
    };
    for (const Case& c : cases)
        for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
            pj::MaxPoolDesc d = base(layout);
            d.src.dims = c.dims;
            d.kernel = {1, 1};
            d.pads_begin = d.pads_end = {};
            expect_refused(d, c.field, "src = " + describe(d));
        }
    // s64 indices are twice the size of an f32 dst: the indices tensor alone breaks the rule.
    pj::MaxPoolDesc d = base();
    d.src.dims = {1, 1, two_pow(30), two_pow(30)};
    d.kernel = {1, 1};
    d.pads_begin = d.pads_end = {};
    expect_refused(d, "indices dims", "s64 indices of 2^60 elements");
    // s32 indices whose largest value does not fit.
    d.src.dims = {1, 1, two_pow(16), two_pow(16)};
    d.indices->dtype = pj::DType::s32;
    expect_refused(d, "indices.dtype", "s32 indices of 2^32 elements");
    // Adaptive: the output size breaks the rule, not the input.
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 4, 4}}, {two_pow(40), two_pow(40)}, std::nullopt};
    expect_refused(a, "dst dims", "adaptive output 2^40 x 2^40");
    a.output_size = {i64_max, 1};
    expect_refused(a, "dst dims", "adaptive output INT64_MAX");
}

TEST(HostileRefused, RanksAndVectorLengths) {
    for (const std::size_t rank : {0u, 1u, 2u, 6u, 7u, 64u}) {
        pj::MaxPoolDesc d = base();
        d.src.dims.assign(rank, 2);
        expect_refused(d, "src.dims has rank", "rank " + std::to_string(rank));
        pj::AdaptiveMaxPoolDesc a{d.src, {1, 1}, std::nullopt};
        expect_refused(a, "src.dims has rank", "adaptive rank " + std::to_string(rank));
    }
    struct Field {
        const char* name;
        std::function<std::vector<std::int64_t>&(pj::MaxPoolDesc&)> get;
        bool may_be_empty;
    };
    const std::vector<Field> fields{
        {"kernel", [](pj::MaxPoolDesc& d) -> auto& { return d.kernel; }, false},
        {"strides", [](pj::MaxPoolDesc& d) -> auto& { return d.strides; }, true},
        {"dilations", [](pj::MaxPoolDesc& d) -> auto& { return d.dilations; }, true},
        {"pads_begin", [](pj::MaxPoolDesc& d) -> auto& { return d.pads_begin; }, true},
        {"pads_end", [](pj::MaxPoolDesc& d) -> auto& { return d.pads_end; }, true},
    };
    for (const Field& f : fields) {
        for (const std::size_t length : {1u, 3u, 5u, 1000u}) {
            pj::MaxPoolDesc d = base();
            f.get(d).assign(length, 1);
            expect_refused(d, f.name, std::string(f.name) + " of length " + std::to_string(length));
        }
        pj::MaxPoolDesc d = base();
        f.get(d).clear();
        if (f.may_be_empty) EXPECT_NO_THROW((void)pj::Primitive::create(d)) << f.name << " empty means the default";
        else expect_refused(d, f.name, std::string(f.name) + " empty");
    }
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 6}}, {}, std::nullopt};
    expect_refused(a, "output_size", "adaptive output_size empty");
    for (const std::size_t length : {1u, 3u, 1000u}) {
        a.output_size.assign(length, 2);
        expect_refused(a, "output_size", "adaptive output_size of length " + std::to_string(length));
    }
    for (const std::int64_t v : {std::int64_t{0}, std::int64_t{-1}, i64_min}) {
        a.output_size = {2, v};
        expect_refused(a, "output_size[1]", "adaptive output_size[1] = " + std::to_string(v));
    }
    // Under valid and same_*, the pads vectors are not read at all: wrong lengths and negatives are ignored.
    for (const pj::AutoPad ap : {pj::AutoPad::valid, pj::AutoPad::same_upper, pj::AutoPad::same_lower}) {
        pj::MaxPoolDesc d = base();
        d.auto_pad = ap;
        d.pads_begin = {i64_min, -1, 5};
        d.pads_end = {i64_max};
        EXPECT_NO_THROW((void)pj::Primitive::create(d)) << describe(d);
    }
}

TEST(HostileRefused, InvalidEnumValues) {
    for (const int v : {8, 99, 255}) {
        pj::MaxPoolDesc d = base();
        d.src.dtype = static_cast<pj::DType>(v);
        expect_refused(d, "src.dtype", "src.dtype " + std::to_string(v));
        d = base();
        d.src.layout = static_cast<pj::Layout>(v);
        expect_refused(d, "src.layout", "src.layout " + std::to_string(v));
        d = base();
        d.auto_pad = static_cast<pj::AutoPad>(v);
        expect_refused(d, "auto_pad", "auto_pad " + std::to_string(v));
        d = base();
        d.rounding = static_cast<pj::Rounding>(v);
        expect_refused(d, "rounding", "rounding " + std::to_string(v));
        d = base();
        d.nan = static_cast<pj::NanPolicy>(v);
        expect_refused(d, "nan", "nan " + std::to_string(v));
        d = base();
        d.indices->dtype = static_cast<pj::DType>(v);
        expect_refused(d, "indices.dtype", "indices.dtype " + std::to_string(v));
        d = base();
        d.indices->order = static_cast<pj::StorageOrder>(v);
        expect_refused(d, "indices.order", "indices.order " + std::to_string(v));
        pj::AdaptiveMaxPoolDesc a{{static_cast<pj::DType>(v), pj::Layout::ncx, {1, 2, 6, 6}}, {3, 3}, std::nullopt};
        expect_refused(a, "src.dtype", "adaptive src.dtype " + std::to_string(v));
        a.src.dtype = pj::DType::f32;
        a.src.layout = static_cast<pj::Layout>(v);
        expect_refused(a, "src.layout", "adaptive src.layout " + std::to_string(v));
        a.src.layout = pj::Layout::ncx;
        a.index_dtype = static_cast<pj::DType>(v);
        expect_refused(a, "index_dtype", "adaptive index_dtype " + std::to_string(v));
    }
    // Valid dtypes that are not index dtypes.
    for (const pj::DType dt : {pj::DType::f32, pj::DType::u8, pj::DType::f16}) {
        pj::MaxPoolDesc d = base();
        d.indices->dtype = dt;
        expect_refused(d, "indices.dtype", std::string("indices.dtype ") + pj::to_string(dt));
        pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 6}}, {3, 3}, dt};
        expect_refused(a, "index_dtype", std::string("adaptive index_dtype ") + pj::to_string(dt));
    }
    // column_major needs axis 0 (axis -R normalizes to 0 and is fine).
    pj::MaxPoolDesc d = base();
    d.indices->order = pj::StorageOrder::column_major;
    d.indices->axis = 1;
    expect_refused(d, "indices.order", "column_major with axis 1");
    d.indices->axis = -4;
    EXPECT_NO_THROW((void)pj::Primitive::create(d));
}

TEST(HostileRefused, HugePadsKernelsAndDilations) {
    // Both pads at INT64_MAX/2: the padded size 2^63 + 2 does not fit.
    pj::MaxPoolDesc d = base();
    d.pads_begin = {1, i64_max / 2};
    d.pads_end = {1, i64_max / 2};
    expect_refused(d, "pads_begin[1]", "pads INT64_MAX/2 on both sides");
    // A dilated kernel that spans more than 64 bits.
    d = base();
    d.dilations = {1, i64_max};
    expect_refused(d, "kernel[1]", "kernel 3 with dilation INT64_MAX");
    d.kernel = {3, i64_max};
    d.dilations = {1, i64_max};
    expect_refused(d, "kernel[1]", "kernel INT64_MAX with dilation INT64_MAX");
    // Kernel one larger than the padded input.
    d = base();
    d.kernel = {3, 11};
    expect_refused(d, "kernel[1]", "kernel 11 over 8 + 1 + 1");
    // same_*: the padding a huge dilated kernel needs overflows; auto_pad ignores the explicit pads.
    for (const pj::AutoPad ap : {pj::AutoPad::same_upper, pj::AutoPad::same_lower}) {
        d = base();
        d.auto_pad = ap;
        d.kernel = {3, i64_max};
        d.dilations = {1, i64_max};
        expect_refused(d, "kernel[1]", "same_* with kernel and dilation INT64_MAX");
    }
    // Huge pads with stride 1: the output alone breaks the byte-size rule.
    d = base();
    d.pads_begin = {0, i64_max / 2};
    d.pads_end = {0, 0};
    expect_refused(d, "dst dims", "pads_begin INT64_MAX/2 with stride 1");
}

// ---- Valid extremes: created cheaply -----------------------------------------------------------------------

// Creates `desc` under every ISA cap with the allocation watch armed and a watchdog: it must succeed, give the
// expected dst dims, allocate no block larger than 64 MiB and take well under a second of real work.
template <class Desc>
void expect_created_cheaply(const Desc& desc, const std::vector<std::int64_t>& dst_dims, const std::string& what) {
    for (const char* isa : isa_caps) {
        SCOPED_TRACE(what + " (POOLJIT_MAX_ISA=" + isa + ")");
        const IsaCap cap(isa);
        pj::cache::clear();
        const Watchdog watchdog("create(" + describe(desc) + ") under POOLJIT_MAX_ISA=" + isa, std::chrono::seconds(30));
        const auto start = std::chrono::steady_clock::now();
        std::size_t largest = 0;
        std::string impl;
        try {
            const alloc_watch::Scope watch;
            const pj::Primitive p = pooljit::test::create_for_cap(desc, isa);
            largest = watch.largest_request();
            impl = p.impl_name();
            EXPECT_EQ(p.dst_desc().dims, dst_dims) << what;
        } catch (const std::exception& e) {
            ADD_FAILURE() << what << ": create() of a valid descriptor threw (" << typeid(e).name() << "): " << e.what();
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_LE(largest, alloc_watch::refused_above)
            << what << ": create() asked for a block of " << largest << " bytes (impl " << impl << ")";
        EXPECT_LT(seconds, 5.0) << what << ": create() took " << seconds << " s (impl " << impl << ")";
    }
    pj::cache::clear();
}

TEST(HostileValid, LargeDescriptorIsCreatedWithoutAllocatingTheTensor) {
    pj::MaxPoolDesc d;
    d.kernel = {3};
    // 1-D, 2^60 f32 elements: 2^62 bytes.
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, two_pow(60)}};
    expect_created_cheaply(d, {1, 1, two_pow(60) - 2}, "1-D ncx 2^60 elements");
    d.src.layout = pj::Layout::nxc;
    expect_created_cheaply(d, {1, 1, two_pow(60) - 2}, "1-D nxc 2^60 elements");
    // N x C of 2^60 with a 1x1 spatial plane.
    d.src = {pj::DType::f32, pj::Layout::nxc, {two_pow(30), two_pow(30), 1, 1}};
    d.kernel = {1, 1};
    expect_created_cheaply(d, {two_pow(30), two_pow(30), 1, 1}, "N = C = 2^30");
    d.src.layout = pj::Layout::ncx;
    expect_created_cheaply(d, {two_pow(30), two_pow(30), 1, 1}, "N = C = 2^30, ncx");
}

// The outer spatial axes (H, and D for 3-D) at the size limit: a per-output-row table sized by the output
// would be gigabytes.
TEST(HostileValid, HugeOuterAxesAreCreatedWithoutPerRowTables) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::nxc, {1, 16, two_pow(28), two_pow(28)}};
    d.kernel = {3, 3};
    expect_created_cheaply(d, {1, 16, two_pow(28) - 2, two_pow(28) - 2}, "nxc 1x16x2^28x2^28 k3x3");
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 1, two_pow(40), 4}};
    d.kernel = {1, 1};
    expect_created_cheaply(d, {1, 1, two_pow(40), 4}, "ncx 1x1x2^40x4 k1x1");
    d.src = {pj::DType::u8, pj::Layout::ncx, {1, 1, two_pow(40), 64}};  // rows wide enough for byte rows
    expect_created_cheaply(d, {1, 1, two_pow(40), 64}, "u8 ncx 1x1x2^40x64 k1x1");
    d.src = {pj::DType::s8, pj::Layout::nxc, {1, 1, two_pow(60), 2, 2}};
    d.kernel = {1, 1, 1};
    expect_created_cheaply(d, {1, 1, two_pow(60), 2, 2}, "3-D s8 1x1x2^60x2x2 k1x1x1");
}

TEST(HostileValid, HugeAdaptiveOutputsAreCreatedCheaply) {
    // Regular windows over a huge width (one run), and irregular ones (more runs than any plan holds).
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 1, two_pow(40)}}, {1, two_pow(40)}, std::nullopt};
    expect_created_cheaply(a, {1, 1, 1, two_pow(40)}, "adaptive width 2^40 -> 2^40");
    a.output_size = {1, two_pow(40) - 1};
    expect_created_cheaply(a, {1, 1, 1, two_pow(40) - 1}, "adaptive width 2^40 -> 2^40 - 1");
    // Output larger than the input is allowed.
    a.src.dims = {1, 1, 1, 1000};
    a.output_size = {1, two_pow(50)};
    expect_created_cheaply(a, {1, 1, 1, two_pow(50)}, "adaptive width 1000 -> 2^50");
    a.src.dims = {1, 1, two_pow(40), 2};
    a.output_size = {two_pow(40) - 1, 2};
    expect_created_cheaply(a, {1, 1, two_pow(40) - 1, 2}, "adaptive height 2^40 -> 2^40 - 1");
}

// ---- Valid extremes: executed and compared -------------------------------------------------------------------

TEST(HostileValid, KernelOneAndKernelEqualToTheInput) {
    const std::vector<std::vector<std::int64_t>> spatial_shapes{{37}, {5, 7}, {3, 4, 5}};
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::DType dt : {pj::DType::f32, pj::DType::f16, pj::DType::s8, pj::DType::f64})
            for (const auto& spatial : spatial_shapes) {
                pj::MaxPoolDesc d;
                d.src = {dt, layout, {2, 5}};
                d.src.dims.insert(d.src.dims.end(), spatial.begin(), spatial.end());
                d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
                d.kernel.assign(spatial.size(), 1);
                expect_matches_reference(d, "kernel 1: " + describe(d));
                d.strides.assign(spatial.size(), 3);
                expect_matches_reference(d, "kernel 1 stride 3: " + describe(d));
                d.strides.clear();
                d.kernel = spatial;  // one window over the whole input
                expect_matches_reference(d, "kernel = input: " + describe(d));
                d.rounding = pj::Rounding::ceil;
                d.pads_begin.assign(spatial.size(), 0);
                d.pads_end.assign(spatial.size(), 1);  // kernel = input + pads: one window
                d.kernel = spatial;
                for (auto& k : d.kernel) k += 1;
                expect_matches_reference(d, "kernel = padded input: " + describe(d));
            }
}

TEST(HostileValid, StrideLargerThanTheInput) {
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::Rounding rounding : {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch})
            for (const std::int64_t stride : {std::int64_t{9}, std::int64_t{1000}, two_pow(40), i64_max / 2, i64_max}) {
                pj::MaxPoolDesc d;
                d.src = {pj::DType::f32, layout, {2, 17, 6, 5}};
                d.kernel = {2, 2};
                d.strides = {stride, stride};
                d.pads_begin = {1, 0};
                d.pads_end = {0, 1};
                d.rounding = rounding;
                d.indices = pj::IndexSpec{pj::DType::s32, 0, pj::StorageOrder::row_major};
                expect_matches_reference(d, "stride " + std::to_string(stride) + ": " + describe(d));
            }
}

// Pads and dilations near 2^62 that still leave a small output: most windows lie in the padding.
TEST(HostileValid, HugePadsAndDilationsWithASmallOutput) {
    for (const pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc})
        for (const pj::Rounding rounding : {pj::Rounding::floor, pj::Rounding::ceil, pj::Rounding::ceil_torch}) {
            pj::MaxPoolDesc d;
            d.src = {pj::DType::f32, layout, {1, 3, 4}};
            d.kernel = {3};
            d.strides = {two_pow(50)};  // 2^12 + 1 outputs; the last window holds real elements
            d.pads_begin = {i64_max / 2};
            d.pads_end = {0};
            d.rounding = rounding;
            d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
            expect_matches_reference(d, "pads_begin INT64_MAX/2: " + describe(d));
            d.pads_begin = {0};
            d.pads_end = {i64_max / 2};
            expect_matches_reference(d, "pads_end INT64_MAX/2: " + describe(d));
            // A two-tap window whose taps are 2^62 apart: one in the padding, one on src[0].
            d.src.dims = {1, 3, 1};
            d.kernel = {2};
            d.strides = {1};
            d.dilations = {two_pow(62)};
            d.pads_begin = {two_pow(62)};
            d.pads_end = {0};
            expect_matches_reference(d, "dilation 2^62: " + describe(d));
            // 2-D, the huge values on the outer axis.
            d.src.dims = {1, 3, 1, 4};
            d.kernel = {2, 2};
            d.strides = {1, 1};
            d.dilations = {two_pow(62), 1};
            d.pads_begin = {two_pow(62), 0};
            d.pads_end = {0, 0};
            expect_matches_reference(d, "outer dilation 2^62: " + describe(d));
            // Dilation INT64_MAX with kernel 1: the window is one element.
            d.kernel = {1, 1};
            d.dilations = {i64_max, i64_max};
            d.pads_begin = {0, 0};
            expect_matches_reference(d, "kernel 1 dilation INT64_MAX: " + describe(d));
        }
}

TEST(HostileValid, EmptyBatchOrChannels) {
    for (const auto& dims : std::vector<std::vector<std::int64_t>>{{0, 3, 8, 8}, {2, 0, 8, 8}, {0, 0, 8, 8}}) {
        pj::MaxPoolDesc d = base(pj::Layout::nxc);
        d.src.dims = dims;
        const pj::Primitive p = pj::Primitive::create(d);
        EXPECT_NO_THROW(p.execute(nullptr, nullptr, nullptr)) << "nothing to read or write";
    }
    // Null buffers for a non-empty tensor are refused, not dereferenced.
    const pj::Primitive p = pj::Primitive::create(base());
    std::vector<float> src(2 * 3 * 8 * 8), dst(src.size());
    std::vector<std::int64_t> idx(src.size());
    EXPECT_THROW(p.execute(nullptr, dst.data(), idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), nullptr, idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), dst.data(), nullptr), pj::Error);
}
