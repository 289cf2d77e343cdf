// Every input DESIGN.md section 3 rejects ("rejected" row and "Further precisions"), each with its accepted
// boundary neighbours. A rejection must be a pooljit::Error whose message names the field and the offending value
// (DESIGN.md section 2: "MaxPool: strides[1] = 0, must be >= 1"), from both resolve() and Primitive::create().
#include "support/expect_error.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace pj = pooljit;

namespace {

constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t pow2(int e) { return std::int64_t{1} << e; }

using pooljit::test::describe;
using pooljit::test::expect_accepted;
using pooljit::test::expect_error;
using pooljit::test::expect_rejected;

// A valid 2-D descriptor: src 1x2x6x5, kernel 2x2, stride 1, no pads: out 5x4.
pj::MaxPoolDesc base2d() {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 5}};
    d.kernel = {2, 2};
    d.strides = {1, 1};
    d.dilations = {1, 1};
    d.pads_begin = {0, 0};
    d.pads_end = {0, 0};
    return d;
}

// A 1-D descriptor with kernel 1, stride 1 and no pads over src dims {n, c, s}: dst dims equal src dims.
pj::MaxPoolDesc identity1d(pj::DType dtype, std::int64_t n, std::int64_t c, std::int64_t s) {
    pj::MaxPoolDesc d;
    d.src = {dtype, pj::Layout::ncx, {n, c, s}};
    d.kernel = {1};
    return d;
}

pj::AdaptiveMaxPoolDesc adaptive2d() {
    return pj::AdaptiveMaxPoolDesc{{pj::DType::f32, pj::Layout::ncx, {1, 2, 6, 5}}, {3, 2}, pj::DType::s64};
}

TEST(Validation, BaseDescriptorsAreValid) {
    expect_accepted(base2d());
    expect_accepted(identity1d(pj::DType::f32, 2, 3, 4));
    expect_accepted(adaptive2d());
}

TEST(Validation, Rank) {
    auto with_dims = [](std::vector<std::int64_t> dims) {
        pj::MaxPoolDesc d = base2d();
        const std::size_t spatial = dims.size() > 2 ? dims.size() - 2 : 1;
        d.src.dims = std::move(dims);
        d.kernel.assign(spatial, 1);
        d.strides.clear();
        d.dilations.clear();
        d.pads_begin.clear();
        d.pads_end.clear();
        return d;
    };
    expect_rejected(with_dims({4, 4}), {"src.dims", "2"});
    expect_rejected(with_dims({1, 1, 2, 2, 2, 2}), {"src.dims", "6"});
    expect_rejected(with_dims({4}), {"src.dims", "1"});
    expect_rejected(with_dims({}), {"src.dims", "0"});
    expect_accepted(with_dims({1, 1, 2}));
    expect_accepted(with_dims({1, 1, 2, 2}));
    expect_accepted(with_dims({1, 1, 2, 2, 2}));
}

TEST(Validation, AttributeLengths) {
    using Field = std::vector<std::int64_t> pj::MaxPoolDesc::*;
    const std::pair<const char*, Field> fields[] = {
        {"kernel", &pj::MaxPoolDesc::kernel},         {"strides", &pj::MaxPoolDesc::strides},
        {"dilations", &pj::MaxPoolDesc::dilations},   {"pads_begin", &pj::MaxPoolDesc::pads_begin},
        {"pads_end", &pj::MaxPoolDesc::pads_end},
    };
    for (const auto& [name, field] : fields) {
        SCOPED_TRACE(name);
        pj::MaxPoolDesc d = base2d();
        d.*field = {1};
        expect_rejected(d, {name, "1"});
        d.*field = {1, 1, 1};
        expect_rejected(d, {name, "3"});
        // A 3-D input needs 3 entries: 2 is too few.
        d = base2d();
        d.src.dims = {1, 2, 6, 5, 4};
        d.kernel = {1, 1, 1};
        d.strides = {1, 1, 1};
        d.dilations = {1, 1, 1};
        d.pads_begin = {0, 0, 0};
        d.pads_end = {0, 0, 0};
        expect_accepted(d);
        d.*field = {1, 1};
        expect_rejected(d, {name, "2"});
    }
}

TEST(Validation, EmptyKernelRejectedOtherEmptyVectorsMeanDefaults) {
    pj::MaxPoolDesc d = base2d();
    d.kernel.clear();
    expect_rejected(d, {"kernel"});
    d = base2d();
    d.strides.clear();
    d.dilations.clear();
    d.pads_begin.clear();
    d.pads_end.clear();
    expect_accepted(d);
}

TEST(Validation, KernelStrideDilationAtLeastOne) {
    using Field = std::vector<std::int64_t> pj::MaxPoolDesc::*;
    const std::pair<const char*, Field> fields[] = {
        {"kernel", &pj::MaxPoolDesc::kernel},
        {"strides", &pj::MaxPoolDesc::strides},
        {"dilations", &pj::MaxPoolDesc::dilations},
    };
    for (const auto& [name, field] : fields) {
        const std::string n = name;
        for (std::size_t axis : {0u, 1u})
            for (std::int64_t bad : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{-7}, std::numeric_limits<std::int64_t>::min()}) {
                pj::MaxPoolDesc d = base2d();
                (d.*field)[axis] = bad;
                expect_rejected(d, {n + "[" + std::to_string(axis) + "] = " + std::to_string(bad)});
            }
        pj::MaxPoolDesc d = base2d();
        (d.*field) = {1, 1};
        expect_accepted(d);
    }
    // 3-D: the third axis is checked too.
    pj::MaxPoolDesc d = base2d();
    d.src.dims = {1, 2, 4, 4, 4};
    d.kernel = {2, 2, 0};
    d.strides = {1, 1, 1};
    d.dilations = {1, 1, 1};
    d.pads_begin = {0, 0, 0};
    d.pads_end = {0, 0, 0};
    expect_rejected(d, {"kernel[2] = 0"});
    d.kernel = {2, 2, 2};
    d.strides = {1, 1, 0};
    expect_rejected(d, {"strides[2] = 0"});
    d.strides = {1, 1, 1};
    d.dilations = {1, 1, 0};
    expect_rejected(d, {"dilations[2] = 0"});
}

TEST(Validation, NegativePads) {
    for (std::size_t axis : {0u, 1u})
        for (std::int64_t bad : {std::int64_t{-1}, std::int64_t{-5}}) {
            pj::MaxPoolDesc d = base2d();
            d.pads_begin[axis] = bad;
            expect_rejected(d, {"pads_begin[" + std::to_string(axis) + "] = " + std::to_string(bad)});
            d = base2d();
            d.pads_end[axis] = bad;
            expect_rejected(d, {"pads_end[" + std::to_string(axis) + "] = " + std::to_string(bad)});
        }
    pj::MaxPoolDesc d = base2d();
    d.pads_begin = {0, 0};
    d.pads_end = {0, 0};
    expect_accepted(d);
    d.pads_begin = {5, 7};  // pads >= kernel are allowed
    d.pads_end = {3, 9};
    expect_accepted(d);
}

// Under floor, ek = (k-1)*d + 1 must not exceed P = in + pb + pe. src W = 5.
TEST(Validation, DilatedKernelLargerThanPaddedInput) {
    pj::MaxPoolDesc d = base2d();
    d.kernel = {2, 6};  // ek 6 > P 5
    expect_rejected(d, {"kernel[1]", "6"});
    d.pads_end = {0, 1};  // P 6 == ek: one output
    expect_accepted(d);
    d.pads_end = {0, 0};
    d.pads_begin = {0, 1};
    expect_accepted(d);

    d = base2d();
    d.kernel = {2, 3};
    d.dilations = {1, 3};  // ek 7 > P 5
    expect_rejected(d, {"kernel[1]", "dilations[1]"});
    d.dilations = {1, 2};  // ek 5 == P 5
    expect_accepted(d);
    d.dilations = {1, 3};
    d.pads_begin = {0, 1};
    d.pads_end = {0, 1};  // ek 7 == P 7
    expect_accepted(d);

    // Axis 0 (H = 6): k=7 > 6.
    d = base2d();
    d.kernel = {7, 2};
    expect_rejected(d, {"kernel[0]", "7"});

    // valid ignores the given pads, so they cannot make room for the kernel.
    d = base2d();
    d.kernel = {2, 6};
    d.pads_begin = {1, 1};
    d.pads_end = {1, 1};
    d.auto_pad = pj::AutoPad::valid;
    expect_rejected(d, {"kernel[1]", "6"});
    d.kernel = {2, 5};
    expect_accepted(d);

    // same_* pads to fit any kernel: never rejected for size.
    for (pj::AutoPad pad : {pj::AutoPad::same_upper, pj::AutoPad::same_lower}) {
        d = base2d();
        d.kernel = {9, 6};
        d.dilations = {2, 3};
        d.auto_pad = pad;
        expect_accepted(d);
    }
}

// Under ceil and ceil_torch a window may reach up to s - 1 elements past the padded input: ek < P + s is accepted
// (one output), ek >= P + s refused; under floor ek > P is still refused. Explicit and valid pads alike; the error
// names the field, the span, the bound and the rounding rule.
TEST(Validation, KernelPastThePaddedInputUnderCeil) {
    const auto one_d = [](std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d, std::int64_t pb,
                          std::int64_t pe, pj::AutoPad pad, pj::Rounding rounding) {
        pj::MaxPoolDesc desc;
        desc.src = {pj::DType::f32, pj::Layout::ncx, {1, 2, in}};
        desc.kernel = {k};
        desc.strides = {s};
        desc.dilations = {d};
        desc.pads_begin = {pb};
        desc.pads_end = {pe};
        desc.auto_pad = pad;
        desc.rounding = rounding;
        return desc;
    };
    using pj::AutoPad;
    using pj::Rounding;
    // The ONNX example of a window past the input: in 3, k 4, s 2. P + s = 5.
    expect_rejected(one_d(3, 4, 2, 1, 0, 0, AutoPad::explicit_pads, Rounding::floor),
                    {"kernel[0] = 4", "spans 4", "must not exceed the padded input 3", "src.dims[2] = 3",
                     "floor rounding"});
    expect_accepted(one_d(3, 3, 2, 1, 0, 0, AutoPad::explicit_pads, Rounding::floor));
    for (const Rounding r : {Rounding::ceil, Rounding::ceil_torch}) {
        const std::string rule = std::string(r == Rounding::ceil ? "under ceil" : "under ceil_torch") + " rounding";
        SCOPED_TRACE(rule);
        for (const AutoPad pad : {AutoPad::explicit_pads, AutoPad::valid}) {
            // Valid ignores the pads given here: they would otherwise make room.
            const std::int64_t given = pad == AutoPad::valid ? 3 : 0;
            expect_accepted(one_d(3, 4, 2, 1, given, given, pad, r));
            expect_rejected(one_d(3, 5, 2, 1, given, given, pad, r),
                            {"kernel[0] = 5", "spans 5", "must be less than the padded input + stride 5",
                             "src.dims[2] = 3 + pads 0 + 0", "strides[0] = 2", rule});
            // Stride 1: no room past the padded input.
            expect_accepted(one_d(3, 3, 1, 1, given, given, pad, r));
            expect_rejected(one_d(3, 4, 1, 1, given, given, pad, r), {"kernel[0] = 4", "padded input + stride 4", rule});
            // Dilation: k 3, d 2 spans 5 over 3; stride 3 lets it reach 2 past, stride 2 only 1.
            expect_accepted(one_d(3, 3, 3, 2, given, given, pad, r));
            expect_rejected(one_d(3, 3, 2, 2, given, given, pad, r),
                            {"kernel[0] = 3", "dilations[0] = 2", "spans 5", "padded input + stride 5", rule});
        }
        // Explicit pads count in P: in 3 + 1 + 1 = 5, stride 3: ek 7 accepted, ek 8 refused.
        expect_accepted(one_d(3, 7, 3, 1, 1, 1, AutoPad::explicit_pads, r));
        expect_rejected(one_d(3, 8, 3, 1, 1, 1, AutoPad::explicit_pads, r),
                        {"kernel[0] = 8", "padded input + stride 8", "src.dims[2] = 3 + pads 1 + 1", "strides[0] = 3",
                         rule});
        // Under floor the same pads allow ek 5 only.
        expect_accepted(one_d(3, 5, 3, 1, 1, 1, AutoPad::explicit_pads, Rounding::floor));
        expect_rejected(one_d(3, 6, 3, 1, 1, 1, AutoPad::explicit_pads, Rounding::floor),
                        {"kernel[0] = 6", "padded input 5", "floor rounding"});

        // 2-D: the axis that passes the bound is named; the other may overhang within it.
        pj::MaxPoolDesc d = base2d();  // 6x5
        d.rounding = r;
        d.strides = {3, 2};
        d.kernel = {8, 6};  // H: ek 8 < 6 + 3; W: ek 6 < 5 + 2
        expect_accepted(d);
        d.kernel = {8, 7};  // W: ek 7 = 5 + 2
        expect_rejected(d, {"kernel[1] = 7", "padded input + stride 7", "strides[1] = 2", rule});
        d.kernel = {9, 6};  // H: ek 9 = 6 + 3
        expect_rejected(d, {"kernel[0] = 9", "padded input + stride 9", "strides[0] = 3", rule});

        // same_* pads to fit any kernel and ignores the rounding.
        for (const AutoPad pad : {AutoPad::same_upper, AutoPad::same_lower})
            expect_accepted(one_d(3, 9, 2, 1, 0, 0, pad, r));
    }

    // A span past 63 bits (under floor P bounds it; under ceil a huge stride would not): refused, and the widest
    // span that fits accepted.
    constexpr std::int64_t huge_dilation = int64_max - 1;  // k 2: spans int64_max
    expect_accepted(one_d(1, 2, int64_max, huge_dilation, 0, 1, AutoPad::explicit_pads, Rounding::ceil));
    expect_rejected(one_d(1, 2, int64_max, int64_max, 0, 1, AutoPad::explicit_pads, Rounding::ceil),
                    {"kernel[0] = 2", "dilations[0] = " + std::to_string(int64_max), "must fit in 63 bits"});
    expect_rejected(one_d(1, 3, int64_max, pow2(62), 0, 2, AutoPad::explicit_pads, Rounding::ceil_torch),
                    {"kernel[0] = 3", "must fit in 63 bits"});
}

TEST(Validation, SpatialDimsAtLeastOneBatchAndChannelsMayBeZero) {
    pj::MaxPoolDesc d = base2d();
    d.src.dims = {1, 2, 0, 5};
    expect_rejected(d, {"src.dims[2] = 0"});
    d.src.dims = {1, 2, 6, 0};
    expect_rejected(d, {"src.dims[3] = 0"});
    d.src.dims = {1, 2, 6, -3};
    expect_rejected(d, {"src.dims[3] = -3"});
    d.src.dims = {-1, 2, 6, 5};
    expect_rejected(d, {"src.dims[0] = -1"});
    d.src.dims = {1, -2, 6, 5};
    expect_rejected(d, {"src.dims[1] = -2"});

    const std::vector<std::int64_t> allowed[] = {{0, 2, 6, 5}, {1, 0, 6, 5}, {0, 0, 6, 5}, {1, 2, 2, 2}};
    for (const auto& dims : allowed) {
        d = base2d();
        d.src.dims = dims;
        d.indices = pj::IndexSpec{};
        expect_accepted(d);
        if (dims[0] != 0 && dims[1] != 0) continue;
        // execute is a no-op: it touches no byte of the (zero-size) tensors.
        SCOPED_TRACE(describe(d));
        pj::Primitive p;
        ASSERT_NO_THROW(p = pj::Primitive::create(d));
        std::vector<unsigned char> src(16, 0x11), dst(16, 0x22), idx(16, 0x33);
        EXPECT_NO_THROW(p.execute(src.data(), dst.data(), idx.data()));
        EXPECT_EQ(src, std::vector<unsigned char>(16, 0x11));
        EXPECT_EQ(dst, std::vector<unsigned char>(16, 0x22));
        EXPECT_EQ(idx, std::vector<unsigned char>(16, 0x33));
    }
    // AdaptiveMaxPool follows the same rule.
    pj::AdaptiveMaxPoolDesc a = adaptive2d();
    a.src.dims = {1, 2, 6, 0};
    expect_rejected(a, {"src.dims[3] = 0"});
    a.src.dims = {0, 0, 6, 5};
    expect_accepted(a);
}

TEST(Validation, AxisRange) {
    pj::MaxPoolDesc d = base2d();  // rank 4: axis in [-4, 3]
    for (std::int64_t bad : {std::int64_t{4}, std::int64_t{5}, std::int64_t{-5}, std::int64_t{-100}}) {
        d.indices = pj::IndexSpec{pj::DType::s64, bad, pj::StorageOrder::row_major};
        expect_rejected(d, {"axis = " + std::to_string(bad)});
    }
    for (std::int64_t good = -4; good <= 3; ++good) {
        d.indices = pj::IndexSpec{pj::DType::s64, good, pj::StorageOrder::row_major};
        expect_accepted(d);
    }
    // rank 3: axis in [-3, 2]
    d = identity1d(pj::DType::f32, 1, 2, 5);
    d.indices = pj::IndexSpec{pj::DType::s32, 3, pj::StorageOrder::row_major};
    expect_rejected(d, {"axis = 3"});
    d.indices->axis = -4;
    expect_rejected(d, {"axis = -4"});
    d.indices->axis = 2;
    expect_accepted(d);
    d.indices->axis = -3;
    expect_accepted(d);
}

TEST(Validation, ColumnMajorNeedsAxisZero) {
    pj::MaxPoolDesc d = base2d();  // rank 4
    for (std::int64_t bad : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{-1}, std::int64_t{-3}}) {
        d.indices = pj::IndexSpec{pj::DType::s64, bad, pj::StorageOrder::column_major};
        expect_rejected(d, {"column_major", "axis", std::to_string(bad)});
    }
    // axis is normalized first: -R is axis 0.
    d.indices = pj::IndexSpec{pj::DType::s64, -4, pj::StorageOrder::column_major};
    expect_accepted(d);
    EXPECT_EQ(pj::resolve(d).axis, 0);
    d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::column_major};
    expect_accepted(d);
    d.indices = pj::IndexSpec{pj::DType::s64, 2, pj::StorageOrder::row_major};
    expect_accepted(d);
}

TEST(Validation, InvalidEnumValues) {
    pj::MaxPoolDesc d = base2d();
    d.src.dtype = static_cast<pj::DType>(8);
    expect_rejected(d, {"dtype = 8"});
    d.src.dtype = static_cast<pj::DType>(255);
    expect_rejected(d, {"dtype = 255"});
    d = base2d();
    d.src.layout = static_cast<pj::Layout>(4);
    expect_rejected(d, {"layout = 4"});
    d = base2d();
    d.auto_pad = static_cast<pj::AutoPad>(4);
    expect_rejected(d, {"auto_pad = 4"});
    d = base2d();
    d.rounding = static_cast<pj::Rounding>(3);
    expect_rejected(d, {"rounding = 3"});
    d = base2d();
    d.nan = static_cast<pj::NanPolicy>(2);
    expect_rejected(d, {"nan = 2"});
    d = base2d();
    d.indices = pj::IndexSpec{pj::DType::s64, 0, static_cast<pj::StorageOrder>(2)};
    expect_rejected(d, {"order = 2"});
    d.indices = pj::IndexSpec{static_cast<pj::DType>(9), 0, pj::StorageOrder::row_major};
    expect_rejected(d, {"dtype = 9"});
    // Valid DType values that are not index types.
    for (pj::DType bad : {pj::DType::f32, pj::DType::f64, pj::DType::f16, pj::DType::bf16, pj::DType::s8, pj::DType::u8}) {
        d.indices = pj::IndexSpec{bad, 0, pj::StorageOrder::row_major};
        expect_rejected(d, {"indices", std::string("= ") + pj::to_string(bad)});
    }
    // Every valid data dtype and index dtype is accepted.
    for (pj::DType dt : {pj::DType::f32, pj::DType::f64, pj::DType::f16, pj::DType::bf16, pj::DType::s8, pj::DType::u8,
                         pj::DType::s32, pj::DType::s64})
        for (pj::DType idx : {pj::DType::s32, pj::DType::s64})
            for (pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc, pj::Layout::nCx8c, pj::Layout::nCx16c}) {
                d = base2d();
                d.src.dtype = dt;
                d.src.layout = layout;
                d.indices = pj::IndexSpec{idx, 0, pj::StorageOrder::row_major};
                expect_accepted(d);
            }

    pj::AdaptiveMaxPoolDesc a = adaptive2d();
    a.src.dtype = static_cast<pj::DType>(8);
    expect_rejected(a, {"dtype = 8"});
    a = adaptive2d();
    a.src.layout = static_cast<pj::Layout>(4);
    expect_rejected(a, {"layout = 4"});
    a = adaptive2d();
    a.index_dtype = static_cast<pj::DType>(12);
    expect_rejected(a, {"index_dtype = 12"});
    a.index_dtype = pj::DType::f32;
    expect_rejected(a, {"index_dtype = f32"});
    a.index_dtype = pj::DType::s32;
    expect_accepted(a);
    a.index_dtype.reset();
    expect_accepted(a);
}

TEST(Validation, AdaptiveMaxPoolOutputSize) {
    pj::AdaptiveMaxPoolDesc a = adaptive2d();
    for (std::size_t axis : {0u, 1u})
        for (std::int64_t bad : {std::int64_t{0}, std::int64_t{-1}, std::int64_t{-9}}) {
            a = adaptive2d();
            a.output_size[axis] = bad;
            expect_rejected(a, {"output_size[" + std::to_string(axis) + "] = " + std::to_string(bad)});
        }
    a = adaptive2d();
    a.output_size = {1, 1};
    expect_accepted(a);
    a.output_size = {12, 11};  // larger than the input: allowed
    expect_accepted(a);
    a.output_size = {3};
    expect_rejected(a, {"output_size", "1"});
    a.output_size = {3, 2, 2};
    expect_rejected(a, {"output_size", "3"});
    a.output_size = {};
    expect_rejected(a, {"output_size"});

    a = adaptive2d();
    a.src.dims = {4, 4};
    a.output_size = {};
    expect_rejected(a, {"src.dims", "2"});
    a.src.dims = {1, 1, 2, 2, 2, 2};
    a.output_size = {1, 1, 1, 1};
    expect_rejected(a, {"src.dims", "6"});
    a.src.dims = {1, 1, 2, 2, 2};
    a.output_size = {1, 1, 1};
    expect_accepted(a);
    a.src.dims = {1, 1, 2};
    a.output_size = {1};
    expect_accepted(a);
}

// "under valid and same_*, the pads vectors are not read at all"
TEST(Validation, PadsNotReadUnderValidAndSame) {
    const std::vector<std::int64_t> bad_pads[] = {{1}, {-1, -1}, {-5, 3, 2}, {0, 0, 0, 0}};
    for (pj::AutoPad pad : {pj::AutoPad::valid, pj::AutoPad::same_upper, pj::AutoPad::same_lower})
        for (const auto& pads : bad_pads) {
            pj::MaxPoolDesc d = base2d();
            d.auto_pad = pad;
            d.pads_begin = pads;
            expect_accepted(d);
            d.pads_end = pads;
            expect_accepted(d);
            d.pads_begin = {0, 0};
            expect_accepted(d);
        }
    // ... while explicit reads them.
    pj::MaxPoolDesc d = base2d();
    d.pads_begin = {-1, -1};
    expect_rejected(d, {"pads_begin[0] = -1"});
    d.pads_begin = {1};
    expect_rejected(d, {"pads_begin", "1"});
}

// Byte sizes must fit in 63 bits (src, dst and indices).
TEST(Validation, ByteSizeOverflow) {
    // src: 2^61 f32 elements = 2^63 bytes.
    expect_rejected(identity1d(pj::DType::f32, 1, 1, pow2(61)), {"src"});
    expect_rejected(identity1d(pj::DType::f32, pow2(20), pow2(20), pow2(21)), {"src"});
    expect_rejected(identity1d(pj::DType::f64, pow2(30), pow2(30), pow2(30)), {"src"});
    expect_rejected(identity1d(pj::DType::u8, 2, 2, pow2(62)), {"src"});
    expect_accepted(identity1d(pj::DType::f32, 1, 1, pow2(61) - 1), false);  // 2^63 - 4 bytes
    expect_accepted(identity1d(pj::DType::u8, 1, 1, int64_max), false);      // exactly 2^63 - 1 bytes
    expect_accepted(identity1d(pj::DType::f64, pow2(20), pow2(20), pow2(20) - 1), false);

    // dst larger than src: 1 element, pads_end 2^62 -> out 2^62 + 1 f32 elements.
    pj::MaxPoolDesc d = identity1d(pj::DType::f32, 1, 1, 1);
    d.pads_end = {pow2(62)};
    expect_rejected(d, {"dst"});
    d.pads_end = {pow2(61) - 2};  // out 2^61 - 1: 2^63 - 4 bytes
    expect_accepted(d, false);

    // indices: u8 dst of 2^61 bytes is fine, its s64 indices (2^64 bytes) and s32 indices (2^63 bytes) are not.
    d = identity1d(pj::DType::u8, 1, 1, 1);
    d.pads_end = {pow2(61) - 1};  // out 2^61
    expect_accepted(d, false);
    d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
    expect_rejected(d, {"indices"});
    d.indices->dtype = pj::DType::s32;
    expect_rejected(d, {"indices"});
    d.pads_end = {pow2(60) - 2};  // out 2^60 - 1: s64 indices 2^63 - 8 bytes
    d.indices->dtype = pj::DType::s64;
    expect_accepted(d, false);
    d.pads_end = {pow2(60) - 1};  // out 2^60: s64 indices 2^63 bytes
    expect_rejected(d, {"indices"});

    // Pads so large that P overflows 64 bits must be an Error, not wrap around.
    d = identity1d(pj::DType::u8, 1, 1, 1);
    d.pads_begin = {int64_max};
    d.pads_end = {int64_max};
    expect_rejected(d, {});

    // AdaptiveMaxPool: dst from output_size.
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 4}}, {pow2(61)}, std::nullopt};
    expect_rejected(a, {"dst"});
    a.output_size = {pow2(61) - 1};
    expect_accepted(a, false);
}

// s32 indices are rejected when the largest possible index, prod(src dims[axis:]) - 1, exceeds INT32_MAX.
TEST(Validation, S32IndicesLargestIndex) {
    // N*C*S = 2^31: the largest index is exactly INT32_MAX.
    pj::MaxPoolDesc d = identity1d(pj::DType::u8, 2, 1, pow2(30));
    d.indices = pj::IndexSpec{pj::DType::s32, 0, pj::StorageOrder::row_major};
    expect_accepted(d, false);
    d.src.dims = {1, 1, int32_max + 1};  // largest index INT32_MAX, 1-D
    expect_accepted(d, false);

    // One more element: largest index 2^31.
    d.src.dims = {1, 1, int32_max + 2};
    expect_rejected(d, {"s32", std::to_string(int32_max + 1)});
    d.src.dims = {2, 1, pow2(30) + 1};  // largest index 2^31 + 1
    expect_rejected(d, {"s32", std::to_string(pow2(31) + 1)});
    d.indices->dtype = pj::DType::s64;
    expect_accepted(d, false);

    // The axis shrinks the range: modulo prod(dims[2:]) = 2^30 + 1.
    d.indices = pj::IndexSpec{pj::DType::s32, 2, pj::StorageOrder::row_major};
    expect_accepted(d, false);
    d.indices->axis = -1;
    expect_accepted(d, false);
    d.indices->axis = 1;  // C*S = 2^30 + 1
    expect_accepted(d, false);

    // axis 1 at the boundary: C*S = 2^31 fits, 2^31 + 1 does not, whatever N.
    d.src.dims = {3, 2, pow2(30)};
    expect_accepted(d, false);
    d.src.dims = {3, 1, pow2(31) + 1};
    expect_rejected(d, {"s32", std::to_string(pow2(31))});
    d.indices->axis = 0;
    d.src.dims = {3, 2, pow2(30)};  // 3 * 2^31 - 1
    expect_rejected(d, {"s32", std::to_string(3 * pow2(31) - 1)});

    // column_major (axis 0) numbers the whole tensor too.
    d.indices = pj::IndexSpec{pj::DType::s32, 0, pj::StorageOrder::column_major};
    d.src.dims = {1, 2, pow2(30)};
    expect_accepted(d, false);
    d.src.dims = {1, 2, pow2(30) + 1};
    expect_rejected(d, {"s32", std::to_string(pow2(31) + 1)});

    // AdaptiveMaxPool: per-channel spatial indices in [0, prod(spatial)).
    pj::AdaptiveMaxPoolDesc a{{pj::DType::u8, pj::Layout::ncx, {4, 4, pow2(31)}}, {1}, pj::DType::s32};
    expect_accepted(a, false);
    a.src.dims = {1, 1, pow2(16), pow2(15) + 1};
    a.output_size = {1, 1};
    expect_rejected(a, {"s32", std::to_string(pow2(31) + pow2(16) - 1)});
    a.index_dtype = pj::DType::s64;
    expect_accepted(a, false);
}

TEST(Validation, ExecuteArguments) {
    pj::MaxPoolDesc d = base2d();
    d.indices = pj::IndexSpec{};
    const pj::Primitive p = pj::Primitive::create(d);
    std::vector<float> src(60, 1.0f), dst(40, 0.0f);
    std::vector<std::int64_t> idx(40, 0);
    expect_error("execute with indices = nullptr", [&] { p.execute(src.data(), dst.data(), nullptr); }, {"indices"});
    expect_error("reference::execute with indices = nullptr",
                 [&] { pj::reference::execute(d, src.data(), dst.data(), nullptr); }, {"indices"});
    EXPECT_NO_THROW(p.execute(src.data(), dst.data(), idx.data()));

    const pj::Primitive empty;
    EXPECT_TRUE(empty.empty());
    expect_error("execute on a default-constructed Primitive", [&] { empty.execute(src.data(), dst.data(), idx.data()); },
                 {});
    expect_error("execute on a default-constructed Primitive, no indices",
                 [&] { empty.execute(src.data(), dst.data()); }, {});
}

}  // namespace
