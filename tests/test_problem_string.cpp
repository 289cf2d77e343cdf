// Problem strings (DESIGN.md section 4): the documented examples parse to the documented fields, printing
// round-trips over generated descriptors, and a bad token is named in the error.
#include "casegen/casegen.hpp"
#include "support/expect_error.hpp"

#include <gtest/gtest.h>

namespace pj = pooljit;

TEST(ProblemString, DesignExampleParsesToItsFields) {
    const std::string line =
        "maxpool dt=f32 layout=nxc src=8x64x112x112 k=3x3 s=2x2 d=1x1 pb=1x1 pe=1x1 pad=explicit round=floor "
        "nan=propagate idx=s64 axis=0 order=row";
    const pj::MaxPoolDesc d = pj::parse_max_pool(line);
    EXPECT_EQ(d.src.dtype, pj::DType::f32);
    EXPECT_EQ(d.src.layout, pj::Layout::nxc);
    EXPECT_EQ(d.src.dims, (std::vector<std::int64_t>{8, 64, 112, 112}));
    EXPECT_EQ(d.kernel, (std::vector<std::int64_t>{3, 3}));
    EXPECT_EQ(d.strides, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(d.pads_begin, (std::vector<std::int64_t>{1, 1}));
    ASSERT_TRUE(d.indices.has_value());
    EXPECT_EQ(d.indices->dtype, pj::DType::s64);
    EXPECT_EQ(pj::to_string(d), line);  // every key, in the documented order
}

TEST(ProblemString, AdaptiveExampleRoundTrips) {
    const std::string line = "adaptivemaxpool dt=f32 layout=ncx src=1x3x32x32 out=16x16 idx=s64";
    const pj::AdaptiveMaxPoolDesc a = pj::parse_adaptive_max_pool(line);
    EXPECT_EQ(a.output_size, (std::vector<std::int64_t>{16, 16}));
    EXPECT_EQ(a.index_dtype, pj::DType::s64);
    EXPECT_EQ(pj::to_string(a), line);
    EXPECT_TRUE(std::holds_alternative<pj::AdaptiveMaxPoolDesc>(pj::parse_problem(line)));
}

TEST(ProblemString, OmittedKeysTakeDefaults) {
    const pj::MaxPoolDesc d = pj::parse_max_pool("maxpool src=1x2x5 k=3");
    EXPECT_EQ(d.src.dtype, pj::DType::f32);
    EXPECT_EQ(d.src.layout, pj::Layout::ncx);
    EXPECT_EQ(d.auto_pad, pj::AutoPad::explicit_pads);
    EXPECT_EQ(d.rounding, pj::Rounding::floor);
    EXPECT_EQ(d.nan, pj::NanPolicy::propagate);
    EXPECT_FALSE(d.indices.has_value());
    EXPECT_EQ(pj::to_string(d),
              "maxpool dt=f32 layout=ncx src=1x2x5 k=3 s=1 d=1 pb=0 pe=0 pad=explicit round=floor nan=propagate "
              "idx=none axis=0 order=row");
}

TEST(ProblemString, RoundTripsGeneratedDescriptors) {
    pj::casegen::Generator gen(20261121);
    for (int i = 0; i < 3000; ++i) {
        const pj::AnyPoolDesc d = gen.any();
        const std::string s = pj::to_string(d);
        const pj::AnyPoolDesc back = pj::parse_problem(s);
        ASSERT_EQ(pj::to_string(back), s);
        // Printing fills empty vectors with their defaults, so compare what the descriptors mean.
        const pj::Problem a = std::visit([](const auto& x) { return pj::resolve(x); }, d);
        const pj::Problem b = std::visit([](const auto& x) { return pj::resolve(x); }, back);
        ASSERT_EQ(a, b) << s;
    }
}

TEST(ProblemString, BadTokensAreNamed) {
    const std::pair<const char*, const char*> cases[] = {
        {"maxpool src=1x1x4 k=2 stride=2", "stride=2"},
        {"maxpool src=1x1x4 k=2 dt=f8", "dt=f8"},
        {"maxpool src=1xax4 k=2", "src=1xax4"},
        {"maxpool src=1x1x4 k=2x", "k=2x"},
        {"maxpool src=1x1x4 k=2 k=3", "k=3"},
        {"maxpool src=1x1x4 k=2 pad=same", "pad=same"},
        {"maxpool src=1x1x4 k=2 round=up", "round=up"},
        {"maxpool src=1x1x4 k=2 idx=s16", "idx=s16"},
        {"maxpool src=1x1x4 k=2 order=col", "order=col"},
        {"maxpool src=1x1x4 k=2 nonsense", "nonsense"},
        {"maxpool src=1x1x4 k=99999999999999999999", "k=99999999999999999999"},
        {"avgpool src=1x1x4 k=2", "avgpool"},
        {"maxpool k=2", "src="},
        {"maxpool src=1x1x4", "k="},
        {"adaptivemaxpool src=1x1x4", "out="},
        {"adaptivemaxpool src=1x1x4 out=2 k=2", "k=2"},
    };
    for (const auto& [line, token] : cases)
        pooljit::test::expect_error(line, [&, l = line] { (void)pj::parse_problem(l); }, {token});
}

TEST(ProblemString, ParsesButDoesNotValidate) {
    // Parsing reads fields; the rules of DESIGN.md section 3 are resolve()'s, so a negative stride parses and
    // create() then names it.
    const pj::MaxPoolDesc d = pj::parse_max_pool("maxpool src=1x1x4 k=2 s=-1");
    EXPECT_EQ(d.strides, (std::vector<std::int64_t>{-1}));
    EXPECT_THROW((void)pj::Primitive::create(d), pj::Error);
}
