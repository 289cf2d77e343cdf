// The Primitive handle: descriptors, implementation name, argument checks, and zero-size tensors.
#include <pooljit/pooljit.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace pj = pooljit;

namespace {
pj::MaxPoolDesc stem(pj::Layout layout) {
    pj::MaxPoolDesc d;
    d.src = {pj::DType::f32, layout, {2, 3, 9, 9}};
    d.kernel = {3, 3};
    d.strides = {2, 2};
    d.pads_begin = {1, 1};
    d.pads_end = {1, 1};
    d.indices = pj::IndexSpec{pj::DType::s32};
    return d;
}
}  // namespace

TEST(Primitive, DescriptorsFollowTheProblem) {
    const pj::Primitive p = pj::Primitive::create(stem(pj::Layout::nxc));
    EXPECT_EQ(p.src_desc(), (pj::TensorDesc{pj::DType::f32, pj::Layout::nxc, {2, 3, 9, 9}}));
    EXPECT_EQ(p.dst_desc(), (pj::TensorDesc{pj::DType::f32, pj::Layout::nxc, {2, 3, 5, 5}}));
    EXPECT_EQ(p.indices_desc(), (pj::TensorDesc{pj::DType::s32, pj::Layout::nxc, {2, 3, 5, 5}}));
    EXPECT_TRUE(p.has_indices());
    EXPECT_FALSE(p.impl_name().empty());
    EXPECT_EQ(p.problem_string(), pj::to_string(stem(pj::Layout::nxc)));

    pj::MaxPoolDesc no_idx = stem(pj::Layout::ncx);
    no_idx.indices.reset();
    const pj::Primitive q = pj::Primitive::create(no_idx);
    EXPECT_FALSE(q.has_indices());
    EXPECT_TRUE(q.indices_desc().dims.empty());
}

TEST(Primitive, EmptyHandleThrows) {
    const pj::Primitive p;
    EXPECT_TRUE(p.empty());
    float x = 0;
    EXPECT_THROW(p.execute(&x, &x), pj::Error);
    EXPECT_THROW((void)p.dst_desc(), pj::Error);
}

TEST(Primitive, NullBuffersAreRefused) {
    const pj::Primitive p = pj::Primitive::create(stem(pj::Layout::ncx));
    std::vector<float> src(2 * 3 * 81), dst(2 * 3 * 25);
    std::vector<std::int32_t> idx(dst.size());
    EXPECT_THROW(p.execute(nullptr, dst.data(), idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), nullptr, idx.data()), pj::Error);
    EXPECT_THROW(p.execute(src.data(), dst.data(), nullptr), pj::Error);
    EXPECT_NO_THROW(p.execute(src.data(), dst.data(), idx.data()));
}

TEST(Primitive, MatchesTheReference) {
    for (pj::Layout layout : {pj::Layout::ncx, pj::Layout::nxc}) {
        const pj::MaxPoolDesc d = stem(layout);
        const pj::Primitive p = pj::Primitive::create(d);
        std::vector<float> src(2 * 3 * 81);
        for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>((i * 37) % 101) - 50.0f;
        std::vector<float> dst(2 * 3 * 25, -1), want(dst.size(), -2);
        std::vector<std::int32_t> idx(dst.size(), -7), want_idx(dst.size(), -8);
        p.execute(src.data(), dst.data(), idx.data());
        pj::reference::execute(d, src.data(), want.data(), want_idx.data());
        EXPECT_EQ(dst, want);
        EXPECT_EQ(idx, want_idx);
    }
}

TEST(Primitive, ZeroBatchIsANoOp) {
    pj::MaxPoolDesc d = stem(pj::Layout::nxc);
    d.src.dims[0] = 0;
    const pj::Primitive p = pj::Primitive::create(d);
    EXPECT_EQ(p.dst_desc().dims, (std::vector<std::int64_t>{0, 3, 5, 5}));
    EXPECT_NO_THROW(p.execute(nullptr, nullptr, nullptr));
}

TEST(Primitive, HandlesAreCheapCopies) {
    const pj::Primitive p = pj::Primitive::create(stem(pj::Layout::nxc));
    const pj::Primitive q = p;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the point
    EXPECT_EQ(&p.problem(), &q.problem());
}

TEST(Primitive, CreateFromAnyDescriptor) {
    const pj::AnyPoolDesc a = pj::parse_problem("adaptivemaxpool dt=u8 layout=nxc src=1x4x6x6 out=2x3 idx=s32");
    const pj::Primitive p = pj::create(a);
    EXPECT_EQ(p.dst_desc().dims, (std::vector<std::int64_t>{1, 4, 2, 3}));
    EXPECT_EQ(p.problem().op, pj::OpKind::adaptive_max_pool);
}

TEST(Threads, SetNumThreadsValidates) {
    EXPECT_THROW(pj::set_num_threads(-1), pj::Error);
    pj::set_num_threads(1);
    pj::set_num_threads(0);
}
