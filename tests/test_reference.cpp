// The reference interpreter against the rules of DESIGN.md section 3 that the spec examples do not reach:
// NaN policies, -0, ties, empty windows, padding never read, integer extremes, axis, storage order, adaptive
// windows. Every expected value below is worked out by hand from the rule it names.
#include "runtime/dtype.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace pj = pooljit;

namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
const float qnan = std::bit_cast<float>(0x7FC00001u);
const float qnan2 = std::bit_cast<float>(0xFFC00002u);

template <typename T>
struct Result {
    std::vector<T> values;
    std::vector<std::int64_t> indices;
};

template <typename T, typename Desc>
Result<T> run(const Desc& desc, const std::vector<T>& input) {
    const pj::Problem p = pj::resolve(desc);
    EXPECT_EQ(input.size(), static_cast<std::size_t>(p.batch * p.channels * p.spatial_in_size()));
    const auto n_out = static_cast<std::size_t>(p.batch * p.channels * p.spatial_out_size());
    Result<T> r{std::vector<T>(n_out), std::vector<std::int64_t>(n_out, 12345)};
    std::vector<std::int32_t> idx32(n_out, 12345);
    void* idx = p.has_indices ? (p.index_dtype == pj::DType::s32 ? static_cast<void*>(idx32.data()) : r.indices.data()) : nullptr;
    pj::reference::execute(desc, input.data(), r.values.data(), idx);
    if (p.has_indices && p.index_dtype == pj::DType::s32)
        for (std::size_t i = 0; i < n_out; ++i) r.indices[i] = idx32[i];
    return r;
}

pj::MaxPoolDesc pool1d(pj::DType dt, std::int64_t width, std::int64_t k, std::int64_t s = 1, std::int64_t pb = 0,
                       std::int64_t pe = 0) {
    pj::MaxPoolDesc d;
    d.src = {dt, pj::Layout::ncx, {1, 1, width}};
    d.kernel = {k};
    d.strides = {s};
    d.pads_begin = {pb};
    d.pads_end = {pe};
    d.indices = pj::IndexSpec{};
    return d;
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

}  // namespace

TEST(Reference, NanPropagateSelectsTheFirstNan) {
    // One window over [1, NaN(a), 5, NaN(b)]: the output is NaN(a), bits and index.
    const auto r = run<float>(pool1d(pj::DType::f32, 4, 4), {1.0f, qnan, 5.0f, qnan2});
    EXPECT_EQ(bits(r.values[0]), bits(qnan));
    EXPECT_EQ(r.indices[0], 1);
}

TEST(Reference, NanPropagateWhenTheFirstElementIsNan) {
    const auto r = run<float>(pool1d(pj::DType::f32, 3, 3), {qnan2, 7.0f, inf});
    EXPECT_EQ(bits(r.values[0]), bits(qnan2));
    EXPECT_EQ(r.indices[0], 0);
}

TEST(Reference, NanIgnoreSkipsNans) {
    auto d = pool1d(pj::DType::f32, 4, 2, 2);
    d.nan = pj::NanPolicy::ignore;
    // Windows [NaN, 3] and [NaN, NaN]: 3 at index 1; the all-NaN window is empty: -inf, index -1.
    const auto r = run<float>(d, {qnan, 3.0f, qnan, qnan2});
    EXPECT_EQ(r.values[0], 3.0f);
    EXPECT_EQ(r.indices[0], 1);
    EXPECT_EQ(bits(r.values[1]), bits(-inf));
    EXPECT_EQ(r.indices[1], -1);
}

TEST(Reference, SignedZerosCompareEqualAndTheFirstWins) {
    const auto r1 = run<float>(pool1d(pj::DType::f32, 2, 2), {-0.0f, 0.0f});
    EXPECT_EQ(bits(r1.values[0]), bits(-0.0f));
    EXPECT_EQ(r1.indices[0], 0);
    const auto r2 = run<float>(pool1d(pj::DType::f32, 2, 2), {0.0f, -0.0f});
    EXPECT_EQ(bits(r2.values[0]), bits(0.0f));
    EXPECT_EQ(r2.indices[0], 0);
}

TEST(Reference, TiesGoToTheFirstInRowMajorWindowOrder) {
    // 2-D window 2x2 over a 2x2 input holding 4 at (0,1) and (1,0): (0,1) comes first in (kh, kw) order.
    pj::MaxPoolDesc d;
    d.src = {pj::DType::s32, pj::Layout::ncx, {1, 1, 2, 2}};
    d.kernel = {2, 2};
    d.indices = pj::IndexSpec{};
    const auto r = run<std::int32_t>(d, {1, 4, 4, 2});
    EXPECT_EQ(r.values[0], 4);
    EXPECT_EQ(r.indices[0], 1);
}

TEST(Reference, AllMinusInfWindowReturnsARealIndex) {
    // Padding is skipped, not read as -inf: the window over [pad, -inf, -inf] selects element 0, never -1.
    const auto r = run<float>(pool1d(pj::DType::f32, 2, 3, 1, 1, 0), {-inf, -inf});
    EXPECT_EQ(bits(r.values[0]), bits(-inf));
    EXPECT_EQ(r.indices[0], 0);
}

TEST(Reference, AllLowestIntegerWindowsReturnARealIndex) {
    const auto r8 = run<std::int8_t>(pool1d(pj::DType::s8, 3, 2, 1, 1, 0), {-128, -128, -128});
    EXPECT_EQ(r8.values, (std::vector<std::int8_t>{-128, -128, -128}));
    EXPECT_EQ(r8.indices, (std::vector<std::int64_t>{0, 0, 1}));
    const auto ru = run<std::uint8_t>(pool1d(pj::DType::u8, 2, 2, 1, 0, 1), {0, 0});
    EXPECT_EQ(ru.indices, (std::vector<std::int64_t>{0, 1}));
    const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
    const auto r64 = run<std::int64_t>(pool1d(pj::DType::s64, 2, 2), {lo, lo});
    EXPECT_EQ(r64.values[0], lo);
    EXPECT_EQ(r64.indices[0], 0);
}

TEST(Reference, EmptyWindowsGiveLowestAndMinusOne) {
    // in=2 k=1 s=2 ceil: out = ceil((2-1)/2)+1 = 2, and window 1 covers position 2 only, past the input: empty.
    auto d = pool1d(pj::DType::f32, 2, 1, 2);
    d.rounding = pj::Rounding::ceil;
    const auto rf = run<float>(d, {3.0f, 4.0f});
    ASSERT_EQ(rf.values.size(), 2u);
    EXPECT_EQ(rf.values[0], 3.0f);
    EXPECT_EQ(bits(rf.values[1]), bits(-inf));
    EXPECT_EQ(rf.indices[1], -1);

    d.src.dtype = pj::DType::s8;
    EXPECT_EQ(run<std::int8_t>(d, {3, 4}).values[1], -128);
    d.src.dtype = pj::DType::u8;
    EXPECT_EQ(run<std::uint8_t>(d, {3, 4}).values[1], 0);
    d.src.dtype = pj::DType::s32;
    EXPECT_EQ(run<std::int32_t>(d, {3, 4}).values[1], std::numeric_limits<std::int32_t>::min());
    d.src.dtype = pj::DType::f16;
    EXPECT_EQ(run<std::uint16_t>(d, {0x4200, 0x4400}).values[1], 0xFC00);  // f16 -inf
    d.src.dtype = pj::DType::bf16;
    EXPECT_EQ(run<std::uint16_t>(d, {0x4040, 0x4080}).values[1], 0xFF80);  // bf16 -inf
    d.src.dtype = pj::DType::f64;
    const auto r64 = run<double>(d, {3.0, 4.0});
    EXPECT_EQ(r64.values[1], -std::numeric_limits<double>::infinity());
    EXPECT_EQ(r64.indices[1], -1);
}

TEST(Reference, DilatedWindowThatMissesTheInputIsEmpty) {
    // in=1, k=2, d=3, pads 2/2: P = 5, ek = 4, out = 2. Window 0 taps positions -2 and 1: both outside [0, 1).
    // Window 1 taps -1 and 2: outside too. Both empty.
    auto d = pool1d(pj::DType::f32, 1, 2, 1, 2, 2);
    d.dilations = {3};
    const auto r = run<float>(d, {9.0f});
    EXPECT_EQ(r.values.size(), 2u);
    EXPECT_EQ(r.indices, (std::vector<std::int64_t>{-1, -1}));
}

TEST(Reference, F16AndBf16CompareByValueAndKeepTheBits) {
    // f16: -2 (0xC000) < denormal 0x0001 < 1 (0x3C00); a NaN with payload propagates unchanged.
    const auto r = run<std::uint16_t>(pool1d(pj::DType::f16, 3, 3), {0xC000, 0x3C00, 0x0001});
    EXPECT_EQ(r.values[0], 0x3C00);
    EXPECT_EQ(r.indices[0], 1);
    const auto rn = run<std::uint16_t>(pool1d(pj::DType::f16, 3, 3), {0x3C00, 0x7E05, 0x7C00});
    EXPECT_EQ(rn.values[0], 0x7E05);
    // bf16 -0 (0x8000) ties +0 (0x0000): the first kept, bits intact.
    const auto rb = run<std::uint16_t>(pool1d(pj::DType::bf16, 2, 2), {0x8000, 0x0000});
    EXPECT_EQ(rb.values[0], 0x8000);
}

TEST(Reference, UnsignedCompareIsUnsigned) {
    const auto r = run<std::uint8_t>(pool1d(pj::DType::u8, 3, 3), {127, 200, 128});
    EXPECT_EQ(r.values[0], 200);
    EXPECT_EQ(r.indices[0], 1);
}

TEST(Reference, Int64CompareUsesAll64Bits) {
    // 2^53 + 1 and 2^53 are equal as doubles; as integers the first is larger.
    const std::int64_t a = (std::int64_t{1} << 53) + 1, b = std::int64_t{1} << 53;
    const auto r = run<std::int64_t>(pool1d(pj::DType::s64, 2, 2), {b, a});
    EXPECT_EQ(r.values[0], a);
    EXPECT_EQ(r.indices[0], 1);
}

TEST(Reference, AxisTakesTheFlatIndexModuloTheTrailingDims) {
    // N=2, C=2, W=3, k=3: the max of each row is its last element. Flat NCX index of (n, c, 2) is
    // (n*2 + c)*3 + 2; axis 0 keeps it, axis 1 takes it mod C*W = 6, axis 2 (= -1) mod W = 3.
    pj::MaxPoolDesc d = pool1d(pj::DType::f32, 3, 3);
    d.src.dims = {2, 2, 3};
    const std::vector<float> in = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2};
    d.indices = pj::IndexSpec{pj::DType::s64, 0};
    EXPECT_EQ(run<float>(d, in).indices, (std::vector<std::int64_t>{2, 5, 8, 11}));
    d.indices = pj::IndexSpec{pj::DType::s32, 1};
    EXPECT_EQ(run<float>(d, in).indices, (std::vector<std::int64_t>{2, 5, 2, 5}));
    d.indices = pj::IndexSpec{pj::DType::s64, -1};
    EXPECT_EQ(run<float>(d, in).indices, (std::vector<std::int64_t>{2, 2, 2, 2}));
}

TEST(Reference, ColumnMajorNumbersOnlyTheSpatialPartColumnMajor) {
    // N=1, C=2, H=2, W=3, kernel 1x1: every element selects itself. Column-major index of (c, h, w) is
    // c*6 + h + w*2.
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::ncx, {1, 2, 2, 3}};
    d.kernel = {1, 1};
    d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::column_major};
    const auto r = run<float>(d, std::vector<float>(12, 1.0f));
    EXPECT_EQ(r.indices, (std::vector<std::int64_t>{0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11}));
}

TEST(Reference, NxcLayoutKeepsLogicalIndices) {
    // N=1, C=2, W=2 in nxc memory: [w0c0, w0c1, w1c0, w1c1] = [1, 9, 5, 3], k=2.
    // Channel 0 max 5 at w=1 -> NCX index 1; channel 1 max 9 at w=0 -> NCX index 2.
    pj::MaxPoolDesc d = pool1d(pj::DType::f32, 2, 2);
    d.src.dims = {1, 2, 2};
    d.src.layout = pj::Layout::nxc;
    const auto r = run<float>(d, {1, 9, 5, 3});
    EXPECT_EQ(r.values, (std::vector<float>{5, 9}));
    EXPECT_EQ(r.indices, (std::vector<std::int64_t>{1, 2}));
}

TEST(Reference, AdaptiveWindowsFollowTheSpecBounds) {
    // in=5, out=3: windows [0,2), [1,4), [3,5) (start = floor(i*5/3), end = ceil((i+1)*5/3)).
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 1, 5}}, {3}, pj::DType::s64};
    const auto r = run<float>(a, {4, 1, 3, 9, 2});
    EXPECT_EQ(r.values, (std::vector<float>{4, 9, 9}));
    EXPECT_EQ(r.indices, (std::vector<std::int64_t>{0, 3, 3}));
    // Output larger than the input: in=2, out=3: windows [0,1), [0,2), [1,2).
    pj::AdaptiveMaxPoolDesc up{{pj::DType::s32, pj::Layout::ncx, {1, 2, 2}}, {3}, pj::DType::s32};
    const auto ru = run<std::int32_t>(up, {5, 7, 8, 6});
    EXPECT_EQ(ru.values, (std::vector<std::int32_t>{5, 7, 7, 8, 8, 6}));
    // Adaptive indices are per-channel spatial indices.
    EXPECT_EQ(ru.indices, (std::vector<std::int64_t>{0, 1, 1, 0, 0, 1}));
}

TEST(Reference, ZeroBatchOrChannelsIsANoOp) {
    pj::MaxPoolDesc d = pool1d(pj::DType::f32, 4, 2);
    d.src.dims = {0, 3, 4};
    EXPECT_NO_THROW(pj::reference::execute(d, nullptr, nullptr, nullptr));
    d.src.dims = {2, 0, 4};
    EXPECT_NO_THROW(pj::reference::execute(d, nullptr, nullptr, nullptr));
}
