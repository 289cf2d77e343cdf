// Views and blocked layouts at the API (DESIGN.md section 2, "Views and blocked layouts"; section 4): what
// resolve() and create() refuse, naming the field (pooljit::Error), and what they accept; problem strings with
// strides keys and blocked layouts; the descriptors a Primitive hands back; the cache key (the batch size and the
// steps between images are run-time arguments, a row stride is not); strides_of() and byte_extent().
#include "casegen/casegen.hpp"

#include "support/expect_error.hpp"

#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <variant>
#include <vector>

namespace pj = pooljit;

namespace {

using Dims = std::vector<std::int64_t>;
constexpr std::int64_t pow2(int e) { return std::int64_t{1} << e; }

using pooljit::test::expect_accepted;
using pooljit::test::expect_error;
using pooljit::test::expect_rejected;

// src 2x3x6x5 f32 ncx, k 2x2: dst 2x3x5x4. Dense strides: src {90, 30, 5, 1}, dst {60, 20, 4, 1}.
pj::MaxPoolDesc base(bool indices = false) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::ncx, {2, 3, 6, 5}};
    d.kernel = {2, 2};
    if (indices) d.indices = pj::IndexSpec{pj::DType::s64, 0, pj::StorageOrder::row_major};
    return d;
}

// ---- validation ------------------------------------------------------------------------------------------------

TEST(ViewValidation, StridesOfTheWrongCountNameTheirField) {
    pj::MaxPoolDesc d = base(true);
    d.src.strides = {90, 30, 5};
    expect_rejected(d, {"src.strides", "3 entries"});
    d = base(true);
    d.dst_strides = {60, 20, 4, 1, 1};
    expect_rejected(d, {"dst_strides", "5 entries"});
    d = base(true);
    d.indices_strides = {60};
    expect_rejected(d, {"indices_strides", "1 entries"});
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::nxc, {1, 4, 6, 6}}, {3, 3}, pj::DType::s32};
    a.dst_strides = {36, 1, 12};
    expect_rejected(a, {"dst_strides", "3 entries"});
}

TEST(ViewValidation, ANegativeStrideNamesItsEntry) {
    pj::MaxPoolDesc d = base(true);
    d.src.strides = {90, 30, 5, -1};
    expect_rejected(d, {"src.strides[3] = -1"});
    d = base(true);
    d.dst_strides = {60, -2, 4, 1};
    expect_rejected(d, {"dst_strides[1] = -2"});
    d = base(true);
    d.indices_strides = {-60, 20, 4, 1};
    expect_rejected(d, {"indices_strides[0] = -60"});
}

// dst 2x3x5x4: by stride, each axis must step past everything the smaller ones reach.
TEST(ViewValidation, AnOutputViewThatMapsTwoElementsToOneAddressIsRefused) {
    pj::MaxPoolDesc d = base(true);
    d.dst_strides = {60, 20, 1, 1};  // rows 1 apart, widths 1 apart: (h, w) = (0, 1) and (1, 0) share an address
    expect_rejected(d, {"dst_strides", "share an address"});
    d = base(true);
    d.dst_strides = {60, 0, 4, 1};  // every channel of a pixel at one address
    expect_rejected(d, {"dst_strides", "share an address"});
    d = base(true);
    d.dst_strides = {0, 20, 4, 1};  // both images at one address
    expect_rejected(d, {"dst_strides", "share an address"});
    d = base(true);
    d.indices_strides = {60, 20, 4, 0};  // the indices of a row at one address; dst itself is dense
    expect_rejected(d, {"indices_strides", "share an address"});
    d = base(true);
    d.indices_strides = {60, 20, 3, 1};  // a row of 4 in 3: its last element is the next row's first
    expect_rejected(d, {"indices_strides", "share an address"});
    // Blocked: a block's 16 lanes (padded ones included, which are written) are consecutive; blocks 8 apart
    // overlap the previous block's lanes 8 to 15. dst 2x20x5x4 nCx16c.
    d = base();
    d.src.layout = pj::Layout::nCx16c;
    d.src.dims = {2, 20, 6, 5};
    d.dst_strides = {640, 8, 64, 16};
    expect_rejected(d, {"dst_strides", "share an address"});
}

TEST(ViewValidation, IndicesStridesWithoutAnIndicesOutputAreRefused) {
    pj::MaxPoolDesc d = base(false);
    d.indices_strides = {60, 20, 4, 1};
    expect_rejected(d, {"indices_strides", "no indices output"});
    pj::AdaptiveMaxPoolDesc a{{pj::DType::f32, pj::Layout::ncx, {1, 4, 6, 6}}, {3, 3}, std::nullopt};
    a.indices_strides = {36, 9, 3, 1};
    expect_rejected(a, {"indices_strides", "no indices output"});
}

// The last element's bytes must fit in 63 bits: for f32, its offset L needs 4 (L + 1) <= 2^63 - 1, L <= 2^61 - 2.
// src 2x3x6x5 with strides {S, 30, 5, 1}: the last element (1, 2, 5, 4) sits at S + 60 + 25 + 4 = S + 89.
TEST(ViewValidation, AnExtentBeyond63BitsOfBytesIsRefused) {
    pj::MaxPoolDesc d = base();
    d.src.strides = {pow2(61) - 91, 30, 5, 1};  // L = 2^61 - 2: the largest
    expect_accepted(d, false);
    d.src.strides = {pow2(61) - 90, 30, 5, 1};  // L = 2^61 - 1: 2^63 bytes
    expect_rejected(d, {"src.strides", "63 bits"});
    d.src.strides = {pow2(62), 30, 5, 1};  // L itself past 2^62
    expect_rejected(d, {"src.strides", "63 bits"});
    d = base(true);
    d.dst_strides = {pow2(62), 20, 4, 1};
    expect_rejected(d, {"dst_strides", "63 bits"});
    d = base(true);
    d.indices_strides = {pow2(60), 20, 4, 1};  // s64: (2^60 + 80) x 8 bytes
    expect_rejected(d, {"indices_strides", "63 bits"});
    // Indices that take dst's strides have their own bytes: dst f32 at {2^60, ...} spans (2^60 + 80) x 4 bytes,
    // its s64 indices twice that, past 2^63.
    d = base(true);
    d.dst_strides = {pow2(60), 20, 4, 1};
    expect_rejected(d, {"indices", "dst_strides", "63 bits"});
    d.indices.reset();
    expect_accepted(d, false);
}

// An empty tensor (N or C of 0) has its strides bounded as one image's: its code is planned with them, and a
// cache entry made for it serves the same problem with images. Its N or C axis counts as one element.
TEST(ViewValidation, AnEmptyTensorsStridesAreBoundedAsOneImages) {
    pj::MaxPoolDesc d = base();
    d.src.dims = {0, 3, 6, 5};
    d.src.strides = {pow2(62), 30, 5, 1};  // N = 0: the batch stride never steps
    expect_accepted(d, false);
    d.src.strides = {90, pow2(61), 5, 1};  // 2 channel steps of 2^61 elements: past 63 bits of bytes
    expect_rejected(d, {"src.strides", "63 bits"});
    d = base(true);
    d.src.dims = {2, 0, 6, 5};
    d.dst_strides = {60, 20, pow2(61), 1};  // 4 row steps of 2^61 f32 elements
    expect_rejected(d, {"dst_strides", "63 bits"});
}

TEST(ViewValidation, SourcesThatAliasGapsAndPartialBlocksAreAccepted) {
    pj::MaxPoolDesc d = base(true);
    d.src.strides = {0, 0, 5, 1};  // every image and channel reads one plane
    expect_accepted(d);
    d.src.strides = {0, 0, 0, 0};  // every element is the first
    expect_accepted(d);
    d = base(true);
    d.src.strides = {200, 60, 10, 2};   // every other element of rows of 10
    d.dst_strides = {100, 30, 6, 1};    // rows of 4 in 6
    d.indices_strides = {400, 120, 24, 5};  // gaps of their own: every fifth element of rows of 24
    expect_accepted(d);
    d = base(true);
    d.src.dims[0] = 1;
    d.dst_strides = {0, 20, 4, 1};  // one image: its batch stride is never stepped
    expect_accepted(d);
    for (const pj::Layout layout : {pj::Layout::nCx8c, pj::Layout::nCx16c})
        for (const std::int64_t channels : {1, 3, 20}) {
            d = base(true);
            d.src.layout = layout;
            d.src.dims[1] = channels;
            expect_accepted(d);
        }
}

// ---- problem strings -----------------------------------------------------------------------------------------

TEST(ViewStrings, StridesAndBlockedLayoutsRoundTrip) {
    const std::string line =
        "maxpool dt=bf16 layout=nCx16c src=2x20x6x5 k=2x2 s=1x1 d=1x1 pb=0x0 pe=0x0 pad=explicit round=floor "
        "nan=propagate idx=s32 axis=1 order=row src_strides=1000x480x80x16 dst_strides=700x320x64x16 "
        "idx_strides=1400x640x128x16";
    const pj::MaxPoolDesc d = pj::parse_max_pool(line);
    EXPECT_EQ(d.src.layout, pj::Layout::nCx16c);
    EXPECT_EQ(d.src.strides, (Dims{1000, 480, 80, 16}));
    EXPECT_EQ(d.dst_strides, (Dims{700, 320, 64, 16}));
    EXPECT_EQ(d.indices_strides, (Dims{1400, 640, 128, 16}));
    EXPECT_EQ(pj::to_string(d), line);  // every key, the strides keys last in the order src, dst, idx
    EXPECT_EQ(pj::parse_max_pool(pj::to_string(d)), d);
    // Printed only when given.
    pj::MaxPoolDesc only_dst = d;
    only_dst.src.strides.clear();
    only_dst.indices_strides.clear();
    const std::string s = pj::to_string(only_dst);
    EXPECT_EQ(s.find("src_strides"), std::string::npos) << s;
    EXPECT_EQ(s.find("idx_strides"), std::string::npos) << s;
    EXPECT_NE(s.find(" dst_strides=700x320x64x16"), std::string::npos) << s;
    EXPECT_EQ(pj::parse_max_pool(s), only_dst);
    const pj::MaxPoolDesc dense = pj::parse_max_pool("maxpool layout=nCx8c src=1x3x9 k=3");
    EXPECT_EQ(pj::to_string(dense).find("strides"), std::string::npos);
    EXPECT_NE(pj::to_string(dense).find("layout=nCx8c"), std::string::npos);

    const std::string adaptive = "adaptivemaxpool dt=f32 layout=nxc src=1x4x6x6 out=3x3 idx=s64 "
                                 "src_strides=576x1x96x16 dst_strides=144x1x48x16 idx_strides=72x1x24x8";
    const pj::AdaptiveMaxPoolDesc a = pj::parse_adaptive_max_pool(adaptive);
    EXPECT_EQ(a.src.strides, (Dims{576, 1, 96, 16}));
    EXPECT_EQ(a.dst_strides, (Dims{144, 1, 48, 16}));
    EXPECT_EQ(a.indices_strides, (Dims{72, 1, 24, 8}));
    EXPECT_EQ(pj::to_string(a), adaptive);
    EXPECT_TRUE(std::holds_alternative<pj::AdaptiveMaxPoolDesc>(pj::parse_problem(adaptive)));
    // What the strings mean survives too.
    EXPECT_EQ(pj::resolve(pj::parse_adaptive_max_pool(pj::to_string(a))), pj::resolve(a));
}

TEST(ViewStrings, MalformedStridesKeysAreRefusedNamingTheToken) {
    const std::pair<const char*, const char*> cases[] = {
        {"maxpool src=1x1x4 k=2 src_strides=", "src_strides="},
        {"maxpool src=1x1x4 k=2 src_strides=4x", "src_strides=4x"},
        {"maxpool src=1x1x4 k=2 dst_strides=3xax1", "dst_strides=3xax1"},
        {"maxpool src=1x1x4 k=2 idx=s64 idx_strides=x3x1", "idx_strides=x3x1"},
        {"maxpool src=1x1x4 k=2 src_strides=4x4x99999999999999999999", "src_strides=4x4x99999999999999999999"},
        {"maxpool src=1x1x4 k=2 dst_strides=3x3x1 dst_strides=3x3x1", "dst_strides=3x3x1"},
        {"maxpool src=1x1x4 k=2 strides=3x3x1", "strides=3x3x1"},
        {"maxpool src=1x1x4 k=2 layout=nCx4c", "layout=nCx4c"},
        {"adaptivemaxpool src=1x1x4 out=2 idx_strides=", "idx_strides="},
    };
    for (const auto& [line, token] : cases)
        pooljit::test::expect_error(line, [&, l = line] { (void)pj::parse_problem(l); }, {token});
    // A negative stride parses (a field, not a token error) and resolve() names it.
    const pj::MaxPoolDesc d = pj::parse_max_pool("maxpool src=1x1x4 k=2 src_strides=4x4x-1");
    EXPECT_EQ(d.src.strides, (Dims{4, 4, -1}));
    expect_error("resolve", [&] { (void)pj::resolve(d); }, {"src.strides[2] = -1"});
}

// ---- descriptors a Primitive hands back ---------------------------------------------------------------------------

TEST(ViewPrimitive, DescriptorsCarryTheViewsStrides) {
    pj::MaxPoolDesc d = base(true);
    const pj::Primitive dense = pj::create(d);
    EXPECT_TRUE(dense.src_desc().strides.empty());
    EXPECT_TRUE(dense.dst_desc().strides.empty());
    EXPECT_TRUE(dense.indices_desc().strides.empty());
    d.src.strides = {200, 60, 10, 2};
    d.dst_strides = {100, 30, 6, 1};
    const pj::Primitive view = pj::create(d);
    EXPECT_EQ(view.src_desc().strides, (Dims{200, 60, 10, 2}));
    EXPECT_EQ(view.dst_desc().strides, (Dims{100, 30, 6, 1}));
    EXPECT_EQ(view.dst_desc().dims, (Dims{2, 3, 5, 4}));
    EXPECT_EQ(view.indices_desc().strides, (Dims{100, 30, 6, 1}));  // the indices take dst's strides
    EXPECT_EQ(view.indices_desc().dtype, pj::DType::s64);
    d.indices_strides = {60, 20, 4, 1};  // dense: the indices' own strides are the dense ones
    const pj::Primitive own = pj::create(d);
    EXPECT_EQ(own.dst_desc().strides, (Dims{100, 30, 6, 1}));
    EXPECT_TRUE(own.indices_desc().strides.empty());
    // Strides given equal to the dense ones describe a dense tensor (types.hpp: "strides empty where they are the
    // layout's dense ones").
    d = base();
    d.src.strides = {90, 30, 5, 1};
    d.dst_strides = {60, 20, 4, 1};
    EXPECT_TRUE(pj::create(d).dst_desc().strides.empty());
    // Blocked: the layout passes to dst and indices.
    d = base(true);
    d.src.layout = pj::Layout::nCx8c;
    const pj::Primitive blocked = pj::create(d);
    EXPECT_EQ(blocked.dst_desc().layout, pj::Layout::nCx8c);
    EXPECT_EQ(blocked.indices_desc().layout, pj::Layout::nCx8c);
}

// ---- the cache key ------------------------------------------------------------------------------------------------

// A channel slice of a concat buffer of 64 channels: 16 of them, 8x8 pixels, k2 s2 (4x4 output). src strides
// {8*8*64, 1, 8*64, 64} = {4096, 1, 512, 64}, dst {4*4*64, 1, 4*64, 64} = {1024, 1, 256, 64}.
pj::MaxPoolDesc slice_pool(std::int64_t batch, std::int64_t src_batch_stride, std::int64_t dst_batch_stride,
                           std::int64_t src_row_stride = 512) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, pj::Layout::nxc, {batch, 16, 8, 8}, {src_batch_stride, 1, src_row_stride, 64}};
    d.dst_strides = {dst_batch_stride, 1, 256, 64};
    d.kernel = {2, 2};
    d.strides = {2, 2};
    return d;
}

TEST(ViewCache, BatchSizeAndBatchStridesShareAnEntryARowStrideDoesNot) {
    pj::cache::clear();
    pj::cache::reset_stats();
    const pj::Primitive a = pj::create(slice_pool(2, 4096, 1024));
    EXPECT_EQ(pj::cache::stats().misses, 1u);
    // Other images further apart: the steps between images are run-time arguments, like N.
    const pj::Primitive b = pj::create(slice_pool(5, 4096 + 100, 1024 + 7));
    EXPECT_EQ(pj::cache::stats().hits, 1u);
    EXPECT_EQ(pj::cache::stats().misses, 1u);
    EXPECT_EQ(pj::cache::stats().entries, 1u);
    // A row stride is in the code (the tap stride along h).
    const pj::Primitive c = pj::create(slice_pool(2, 4096 + 64 * 8, 1024, 512 + 64));
    EXPECT_EQ(pj::cache::stats().hits, 1u);
    EXPECT_EQ(pj::cache::stats().misses, 2u);
    EXPECT_EQ(pj::cache::stats().entries, 2u);
    // The shared code serves b's images at b's steps: its run equals the reference's, gaps untouched.
    const pj::Problem& p = b.problem();
    const std::vector<std::uint8_t> src = pj::casegen::adversarial_data(p.src_desc(), 5);
    std::vector<std::uint8_t> got(pj::casegen::byte_size(p.dst_desc()), 0xA5), want(got.size(), 0xA5);
    b.execute(src.data(), got.data());
    pj::reference::execute(p, src.data(), want.data());
    EXPECT_EQ(got, want);
}

// ---- strides_of and byte_extent -------------------------------------------------------------------------------

// The dense strides and extents by DESIGN.md's formula (the element at n*s0 + c*s1 + sum x_i*s_{2+i}; blocked
// (c / B)*s1 + c % B, C padded to a multiple of B), worked by hand:
//  - ncx f32 2x3x4x5: w 1, h 5, c 4*5 = 20, n 3*20 = 60; the last element (1, 2, 3, 4) at 60 + 40 + 15 + 4 = 119:
//    120 elements, 480 bytes.
//  - nxc f32 2x3x4x5: c 1, w 3, h 5*3 = 15, n 4*15 = 60; the last at 60 + 2 + 45 + 12 = 119: 480 bytes.
//  - nCx16c bf16 2x20x3x5: 2 blocks (C padded to 32); w 16, h 5*16 = 80, block 3*80 = 240, n 2*240 = 480; the
//    last padded lane (1, 31, 2, 4) at 480 + 240 + 160 + 64 + 15 = 959: 960 elements, 1920 bytes (2*32*3*5*2).
//  - nCx8c f32 1x3x5 (1-D): 1 block; w 8, block 5*8 = 40, n 40; the last lane (0, 7, 4) at 32 + 7 = 39: 160 bytes.
//  - ncx s64 1x2x2x3x4 (3-D): w 1, h 4, d 12, c 24, n 48: 48 elements, 384 bytes.
TEST(StridesOf, DenseTensorsByHand) {
    EXPECT_EQ(pj::strides_of({pj::DType::f32, pj::Layout::ncx, {2, 3, 4, 5}}), (Dims{60, 20, 5, 1}));
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {2, 3, 4, 5}}), 480u);
    EXPECT_EQ(pj::strides_of({pj::DType::f32, pj::Layout::nxc, {2, 3, 4, 5}}), (Dims{60, 1, 15, 3}));
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::nxc, {2, 3, 4, 5}}), 480u);
    EXPECT_EQ(pj::strides_of({pj::DType::bf16, pj::Layout::nCx16c, {2, 20, 3, 5}}), (Dims{480, 240, 80, 16}));
    EXPECT_EQ(pj::byte_extent({pj::DType::bf16, pj::Layout::nCx16c, {2, 20, 3, 5}}), 1920u);
    EXPECT_EQ(pj::strides_of({pj::DType::f32, pj::Layout::nCx8c, {1, 3, 5}}), (Dims{40, 40, 8}));
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::nCx8c, {1, 3, 5}}), 160u);
    EXPECT_EQ(pj::strides_of({pj::DType::s64, pj::Layout::ncx, {1, 2, 2, 3, 4}}), (Dims{48, 24, 12, 4, 1}));
    EXPECT_EQ(pj::byte_extent({pj::DType::s64, pj::Layout::ncx, {1, 2, 2, 3, 4}}), 384u);
    // No image or no channel: nothing to hold.
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::nCx16c, {0, 20, 3, 5}}), 0u);
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {2, 0, 3, 5}}), 0u);
}

// A view: strides_of gives the strides back; the extent runs from the first element to past the last.
//  - nxc f32 1x3x2x2, a slice of 8 channels {32, 1, 16, 8}: the last element (0, 2, 1, 1) at 2 + 16 + 8 = 26:
//    27 elements, 108 bytes.
//  - ncx u8 2x2x3x3 rows of 5, images 40 apart {40, 15, 5, 1}: the last at 40 + 15 + 10 + 2 = 67: 68 bytes.
//  - a source broadcast {0, 0, 5, 1} over 2x3x6x5 f32: the last at 25 + 4 = 29: 120 bytes.
TEST(StridesOf, ViewsByHand) {
    const pj::TensorDesc slice{pj::DType::f32, pj::Layout::nxc, {1, 3, 2, 2}, {32, 1, 16, 8}};
    EXPECT_EQ(pj::strides_of(slice), (Dims{32, 1, 16, 8}));
    EXPECT_EQ(pj::byte_extent(slice), 108u);
    EXPECT_EQ(pj::casegen::byte_size(slice), 108u);
    EXPECT_EQ(pj::byte_extent({pj::DType::u8, pj::Layout::ncx, {2, 2, 3, 3}, {40, 15, 5, 1}}), 68u);
    EXPECT_EQ(pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {2, 3, 6, 5}, {0, 0, 5, 1}}), 120u);
    expect_error("strides_of", [] { (void)pj::strides_of({pj::DType::f32, pj::Layout::ncx, {1, 3, 4}, {12, 4}}); },
                 {"strides"});
    expect_error("byte_extent", [] { (void)pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {1, 3, 4}, {12, -4, 1}}); },
                 {"strides"});
}

// Sizes that pass 63 bits of bytes, and enums out of range, are refused naming the rule: the dense strides of a
// blocked tensor whose C rounds up past 2^63, a 5-D tensor of 2^40-element dims, an f32 tensor of 2^61
// elements, a view whose extent passes 2^63 bytes, and a dtype that is none of the enumerators.
TEST(StridesOf, SizesBeyond63BitsAndBadEnumsAreRefused) {
    constexpr std::int64_t max = INT64_MAX;
    expect_error("strides_of nCx16c", [&] { (void)pj::strides_of({pj::DType::f32, pj::Layout::nCx16c, {1, max, 1}}); },
                 {"63 bits"});
    expect_error("byte_extent nCx16c", [&] { (void)pj::byte_extent({pj::DType::u8, pj::Layout::nCx16c, {1, max, 1}}); },
                 {"63 bits"});
    const pj::TensorDesc huge{pj::DType::u8, pj::Layout::ncx, {1, 1, pow2(40), pow2(40), pow2(40)}};
    expect_error("strides_of 5-D", [&] { (void)pj::strides_of(huge); }, {"63 bits"});
    expect_error("byte_extent 5-D", [&] { (void)pj::byte_extent(huge); }, {"63 bits"});
    expect_error("byte_extent f32", [&] { (void)pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {1, 1, pow2(61)}}); },
                 {"63 bits"});
    EXPECT_EQ(pj::byte_extent({pj::DType::u8, pj::Layout::ncx, {1, 1, pow2(62)}}), static_cast<std::size_t>(pow2(62)));
    expect_error("byte_extent view",
                 [&] { (void)pj::byte_extent({pj::DType::f32, pj::Layout::ncx, {1, 3, 4}, {0, pow2(61), 1}}); },
                 {"strides", "63 bits"});
    const pj::TensorDesc bad_dtype{static_cast<pj::DType>(99), pj::Layout::ncx, {1, 3, 4}};
    expect_error("strides_of dtype", [&] { (void)pj::strides_of(bad_dtype); }, {"dtype", "99"});
    expect_error("byte_extent dtype", [&] { (void)pj::byte_extent(bad_dtype); }, {"dtype", "99"});
}

}  // namespace
