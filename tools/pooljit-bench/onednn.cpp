// pooljit-bench's peer: oneDNN 2.6 pooling_v2_forward with algorithm::pooling_max.
#include "onednn.hpp"

#include <oneapi/dnnl/dnnl.hpp>

#include <fmt/core.h>

#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
#include <omp.h>
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
#include <oneapi/tbb/global_control.h>
#include <memory>
#endif

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace pj = pooljit;

namespace pooljit_bench {
namespace {

using tag = dnnl::memory::format_tag;
using data_type = dnnl::memory::data_type;

int configured_threads = 0;

const dnnl::engine& cpu_engine() {
    static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

std::optional<data_type> onednn_type(pj::DType dtype) {
    switch (dtype) {
        case pj::DType::f32: return data_type::f32;
        case pj::DType::bf16: return data_type::bf16;
        case pj::DType::f16: return data_type::f16;
        case pj::DType::s8: return data_type::s8;
        case pj::DType::u8: return data_type::u8;
        case pj::DType::s32: return data_type::s32;
        case pj::DType::f64:
        case pj::DType::s64: return std::nullopt;  // no such oneDNN 2.6 data type
    }
    return std::nullopt;
}

tag onednn_tag(pj::Layout layout, int spatial_rank) {
    static constexpr tag channels_last[] = {tag::nwc, tag::nhwc, tag::ndhwc};
    static constexpr tag planar[] = {tag::ncw, tag::nchw, tag::ncdhw};
    static constexpr tag blocks_of_8[] = {tag::nCw8c, tag::nChw8c, tag::nCdhw8c};
    static constexpr tag blocks_of_16[] = {tag::nCw16c, tag::nChw16c, tag::nCdhw16c};
    const tag* tags = layout == pj::Layout::nxc     ? channels_last
                      : layout == pj::Layout::nCx8c  ? blocks_of_8
                      : layout == pj::Layout::nCx16c ? blocks_of_16
                                                     : planar;
    return tags[spatial_rank - 1];
}

// oneDNN's memory descriptor of a tensor: by its layout's tag where dense, by its strides where a view of ncx or
// nxc (oneDNN takes any strides); a view of a blocked layout is not described here.
dnnl::memory::desc onednn_memory(const pj::TensorDesc& t, data_type dt, int spatial_rank) {
    if (t.strides.empty()) return dnnl::memory::desc(t.dims, dt, onednn_tag(t.layout, spatial_rank));
    if (t.layout == pj::Layout::nCx8c || t.layout == pj::Layout::nCx16c)
        throw dnnl::error(dnnl_unimplemented, "a view of a blocked layout");
    return dnnl::memory::desc(t.dims, dt, t.strides);
}

// oneDNN's descriptor for pooljit's resolved problem. oneDNN has no rounding mode: its output size is
// (in + padding_l + padding_r - ek) / s + 1, so padding_r is chosen to give pooljit's output size. Under
// ceil it may exceed pooljit's pads_end (the extra windows only see padding that is never selected); under
// floor it may be smaller, down to 0.
dnnl::pooling_v2_forward::desc onednn_desc(dnnl::prop_kind prop, const pj::Problem& p, data_type dt) {
    const pj::TensorDesc src = p.src_desc();
    const pj::TensorDesc dst = p.dst_desc();
    dnnl::memory::dims strides, kernel, dilation, padding_l, padding_r;
    for (int i = 0; i < p.spatial_rank; ++i) {
        const std::int64_t ek = (p.kernel[i] - 1) * p.dilation[i] + 1;
        strides.push_back(p.stride[i]);
        kernel.push_back(p.kernel[i]);
        dilation.push_back(p.dilation[i] - 1);  // oneDNN counts the gaps: 0 is dense
        padding_l.push_back(p.pad_begin[i]);
        padding_r.push_back(std::max<std::int64_t>(0, (p.out[i] - 1) * p.stride[i] + ek - p.in[i] - p.pad_begin[i]));
    }
    return {prop, dnnl::algorithm::pooling_max, onednn_memory(src, dt, p.spatial_rank),
            onednn_memory(dst, dt, p.spatial_rank), strides, kernel, dilation, padding_l, padding_r};
}

PeerTiming time_one(dnnl::prop_kind prop, const pj::Problem& p, data_type dt, const void* src,
                    const TimingPlan& base) {
    PeerTiming t;
    try {
        const auto desc = onednn_desc(prop, p, dt);
        const dnnl::pooling_v2_forward::primitive_desc pd(desc, cpu_engine());
        t.impl = pd.impl_info_str();
        const dnnl::pooling_v2_forward pooling(pd);
        dnnl::stream stream(cpu_engine());
        std::unordered_map<int, dnnl::memory> args{
            {DNNL_ARG_SRC, dnnl::memory(pd.src_desc(), cpu_engine(), const_cast<void*>(src))},
            {DNNL_ARG_DST, dnnl::memory(pd.dst_desc(), cpu_engine())},
        };
        if (prop == dnnl::prop_kind::forward_training) {
            args.emplace(DNNL_ARG_WORKSPACE, dnnl::memory(pd.workspace_desc(), cpu_engine()));
        }
        const auto run = [&] {
            pooling.execute(stream, args);
            stream.wait();
        };
        run();  // first touch of dst and the workspace
        const auto start = std::chrono::steady_clock::now();
        run();
        const double one_run_us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        const Timing timing = measure("onednn", capped_plan(base, one_run_us), timed_loop(run));
        t.us = timing.median_us;
        t.error = timing.error;
    } catch (const dnnl::error& e) {
        t.impl = e.status == dnnl_unimplemented ? "n/a:unimpl" : "n/a:error";
        t.error = e.what();
    }
    return t;
}

}  // namespace

bool onednn_built() { return true; }

std::string onednn_description() {
    const dnnl::version_t* v = dnnl::version();
    std::string threading;
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    threading = fmt::format("OpenMP runtime, omp_set_num_threads({})", configured_threads);
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
    threading = fmt::format("oneTBB runtime, tbb::global_control max_allowed_parallelism={}", configured_threads);
#else
    threading = "sequential runtime (1 thread)";
#endif
    const std::string hash = v->hash && std::string_view(v->hash) != "N/A" ? fmt::format(" ({})", v->hash) : "";
    return fmt::format("oneDNN {}.{}.{}{}: pooling_v2_forward max, forward_inference; +ws: forward_training with "
                       "its workspace; {}",
                       v->major, v->minor, v->patch, hash, threading);
}

void onednn_set_threads(int threads) {
    configured_threads = threads;
#if DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_OMP
    omp_set_num_threads(threads);
#elif DNNL_CPU_THREADING_RUNTIME == DNNL_RUNTIME_TBB
    static std::unique_ptr<oneapi::tbb::global_control> limit;
    limit = std::make_unique<oneapi::tbb::global_control>(oneapi::tbb::global_control::max_allowed_parallelism,
                                                          static_cast<std::size_t>(threads));
#endif
}

PeerResult onednn_time(const pj::Problem& problem, const void* src, const TimingPlan& plan) {
    PeerResult result;
    if (problem.op != pj::OpKind::max_pool) {
        result.inference.impl = "n/a:adaptive";
        return result;
    }
    const std::optional<data_type> dt = onednn_type(problem.dtype);
    if (!dt) {
        result.inference.impl = std::string("n/a:") + pj::to_string(problem.dtype);
        return result;
    }
    result.inference = time_one(dnnl::prop_kind::forward_inference, problem, *dt, src, plan);
    if (problem.has_indices) result.training = time_one(dnnl::prop_kind::forward_training, problem, *dt, src, plan);
    return result;
}

}  // namespace pooljit_bench
