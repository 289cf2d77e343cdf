// pooljit-bench's second peer: XNNPACK's max_pooling2d_nhwc operator as Debian 12 ships it (a 2022 snapshot:
// create, setup with the thread pool, run).
#include "xnnpack.hpp"

#include "buffers.hpp"

#include <pthreadpool.h>
#include <xnnpack.h>

#include <casegen/casegen.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

#ifndef POOLJIT_XNNPACK_VERSION
#define POOLJIT_XNNPACK_VERSION "(version unknown)"
#endif

namespace pj = pooljit;

namespace pooljit_bench {
namespace {

struct ThreadPoolDeleter {
    void operator()(pthreadpool_t pool) const { pthreadpool_destroy(pool); }
};
struct OperatorDeleter {
    void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using ThreadPool = std::unique_ptr<std::remove_pointer_t<pthreadpool_t>, ThreadPoolDeleter>;
using Operator = std::unique_ptr<std::remove_pointer_t<xnn_operator_t>, OperatorDeleter>;

ThreadPool thread_pool;  // null: XNNPACK runs on the calling thread

const char* status_name(xnn_status status) {
    switch (status) {
        case xnn_status_success: return "success";
        case xnn_status_uninitialized: return "uninitialized";
        case xnn_status_invalid_parameter: return "invalid_parameter";
        case xnn_status_invalid_state: return "invalid_state";
        case xnn_status_unsupported_parameter: return "unsupported_parameter";
        case xnn_status_unsupported_hardware: return "unsupported_hardware";
        case xnn_status_out_of_memory: return "out_of_memory";
    }
    return "unknown_status";
}

// The pool's workers spin-wait for the next job after each one (a million iterations in Debian 12's
// pthreadpool): left spinning, they would take a core from the measurements that follow (on two cores, half the
// machine). An empty job with PTHREADPOOL_FLAG_YIELD_WORKERS sends them to a kernel wait instead. A range of one
// item would run on the calling thread without waking them, hence one item per thread.
void put_workers_to_sleep() {
    if (!thread_pool) return;
    pthreadpool_parallelize_1d(
        thread_pool.get(), [](void*, std::size_t) {}, nullptr, pthreadpool_get_threads_count(thread_pool.get()),
        PTHREADPOOL_FLAG_YIELD_WORKERS);
}

xnn_status initialize_once() {
    static const xnn_status status = xnn_initialize(nullptr);
    return status;
}

// XNNPACK's parameters of a 2-D problem; index 0 is the height, 1 the width.
struct Geometry {
    std::uint32_t kernel[2]{}, stride[2]{}, dilation[2]{}, pad_before[2]{}, pad_after[2]{};
};

// Fills dimension `i` (0: height, 1: width) of `g`, or says why XNNPACK would not compute pooljit's values.
//
// XNNPACK has no rounding mode: its output size is (pad_before + in + pad_after - ek) / s + 1, so pad_after is
// chosen to give pooljit's output size (under ceil it may exceed pooljit's pads_end, under floor it may be
// smaller). Nor does it skip padded taps: its indirection buffer (one input pointer per output and tap, built at
// setup) points each of them at some input element, which is pooljit's value only if it is one of the window's
// own taps. This replays how Debian 12's snapshot fills that buffer along one dimension and declines the problem
// if any window would read an element outside its taps:
// - without dilation in either dimension, a padded tap reads the nearest border element;
// - with dilation in either dimension, every padded tap of output o reads o * s - pad_before % d (plus d when
//   that is negative), in both dimensions;
// - along the width without dilation, neighbouring outputs share the pointers of their overlapping taps when
//   s < k (the output after o starts s pointers later), so the last output to write a shared pointer decides it.
std::string map_dimension(const pj::Problem& p, int i, bool any_dilation, Geometry& g) {
    const std::int64_t in = p.in[i], out = p.out[i], k = p.kernel[i], s = p.stride[i], d = p.dilation[i];
    const std::int64_t pad_before = p.pad_begin[i];
    const std::int64_t extent = (k - 1) * d + 1;
    const std::int64_t pad_after = std::max<std::int64_t>(0, (out - 1) * s + extent - in - pad_before);
    constexpr std::int64_t u32_max = std::numeric_limits<std::uint32_t>::max();
    for (const std::int64_t v : {k, s, d, pad_before, pad_after}) {
        if (v > u32_max) return "range";
    }
    if ((pad_before + in + pad_after - extent) / s + 1 != out) return "shape";

    const std::int64_t step = i == 1 && d == 1 ? std::min(s, k) : k;  // pointers from one output to the next
    std::vector<std::int64_t> pointers(static_cast<std::size_t>((out - 1) * step + k));
    for (std::int64_t o = 0; o < out; ++o) {
        for (std::int64_t j = 0; j < k; ++j) {
            std::int64_t x = o * s + j * d - pad_before;
            if (x < 0 || x >= in) {
                if (any_dilation) {
                    const std::int64_t adjusted_pad = pad_before % d;
                    x = o * s + (o * s < adjusted_pad ? d : 0) - adjusted_pad;
                } else {
                    x = x < 0 ? 0 : in - 1;
                }
            }
            pointers[static_cast<std::size_t>(o * step + j)] = x;
        }
    }
    for (std::int64_t o = 0; o < out; ++o) {
        const std::int64_t first = o * s - pad_before;
        for (std::int64_t j = 0; j < k; ++j) {
            const std::int64_t x = pointers[static_cast<std::size_t>(o * step + j)];
            const bool own_tap = x >= 0 && x < in && x >= first && (x - first) % d == 0 && (x - first) / d < k;
            if (!own_tap) return any_dilation ? "padding-dilated" : "padding";
        }
    }
    g.kernel[i] = static_cast<std::uint32_t>(k);
    g.stride[i] = static_cast<std::uint32_t>(s);
    g.dilation[i] = static_cast<std::uint32_t>(d);
    g.pad_before[i] = static_cast<std::uint32_t>(pad_before);
    g.pad_after[i] = static_cast<std::uint32_t>(pad_after);
    return {};
}

// Why XNNPACK cannot compute exactly `p`, or empty when it can (then `g` holds its parameters).
std::string unsupported_reason(const pj::Problem& p, Geometry& g) {
    if (p.op != pj::OpKind::max_pool) return "adaptive";
    if (p.has_indices) return "indices";  // its argmax pooling is f32 only, without padding choices or dilation
    if (p.layout == pj::Layout::ncx) return "ncx";
    if (p.layout != pj::Layout::nxc) return "blocked";
    // Views: XNNPACK takes a pixel stride for its input and its output (a channel slice of a concat buffer),
    // whose rows and images are then dense in pixels.
    const auto pixel_view = [&](const pj::Problem::Strides& s, const pj::Problem::Spatial& dims) {
        return s.c == 1 && s.spatial[0] == dims[1] * s.spatial[1] && s.n == dims[0] * s.spatial[0];
    };
    if (!pixel_view(p.src_strides, p.in) || !pixel_view(p.dst_strides, p.out)) return "view";
    if (p.spatial_rank != 2) return fmt::format("{}-D", p.spatial_rank);
    switch (p.dtype) {
        case pj::DType::f32:
        case pj::DType::f16:
        case pj::DType::u8:
        case pj::DType::s8: break;
        default: return pj::to_string(p.dtype);
    }
    if (p.batch == 0 || p.channels == 0) return "empty";  // XNNPACK takes no operator without channels
    const bool any_dilation = p.dilation[0] > 1 || p.dilation[1] > 1;
    for (int i = 0; i < 2; ++i) {
        std::string why = map_dimension(p, i, any_dilation, g);
        if (!why.empty()) return why;
    }
    return {};
}

// Channels and the pixel strides (in elements) of XNNPACK's input and output.
struct Pixels {
    std::size_t channels, input_stride, output_stride;
};

// One of the xnn_create_max_pooling2d_nhwc_* functions on `g`, output range [low, high].
template <typename Create, typename Bound>
xnn_status create_with(Create create, const Geometry& g, const Pixels& px, Bound low, Bound high, xnn_operator_t* op) {
    return create(g.pad_before[0], g.pad_after[1], g.pad_after[0], g.pad_before[1],  // top, right, bottom, left
                  g.kernel[0], g.kernel[1], g.stride[0], g.stride[1], g.dilation[0], g.dilation[1], px.channels,
                  px.input_stride, px.output_stride, low, high, 0, op);
}

// The operator with its output range left open, so that it clamps nothing.
xnn_status create_operator(pj::DType dtype, const Geometry& g, const Pixels& px, xnn_operator_t* op) {
    constexpr float infinity = std::numeric_limits<float>::infinity();
    switch (dtype) {
        case pj::DType::f32: return create_with(xnn_create_max_pooling2d_nhwc_f32, g, px, -infinity, infinity, op);
        case pj::DType::f16: return create_with(xnn_create_max_pooling2d_nhwc_f16, g, px, -infinity, infinity, op);
        case pj::DType::u8:
            return create_with(xnn_create_max_pooling2d_nhwc_u8, g, px, std::uint8_t{0}, std::uint8_t{255}, op);
        case pj::DType::s8:
            return create_with(xnn_create_max_pooling2d_nhwc_s8, g, px, std::int8_t{-128}, std::int8_t{127}, op);
        default: return xnn_status_unsupported_parameter;
    }
}

xnn_status setup_operator(xnn_operator_t op, const pj::Problem& p, const void* src, void* dst) {
    const auto batch = static_cast<std::size_t>(p.batch);
    const auto height = static_cast<std::size_t>(p.in[0]), width = static_cast<std::size_t>(p.in[1]);
    switch (p.dtype) {
        case pj::DType::f32:
            return xnn_setup_max_pooling2d_nhwc_f32(op, batch, height, width, static_cast<const float*>(src),
                                                    static_cast<float*>(dst), thread_pool.get());
        case pj::DType::f16:
            return xnn_setup_max_pooling2d_nhwc_f16(op, batch, height, width, src, dst, thread_pool.get());
        case pj::DType::u8:
            return xnn_setup_max_pooling2d_nhwc_u8(op, batch, height, width, static_cast<const std::uint8_t*>(src),
                                                   static_cast<std::uint8_t*>(dst), thread_pool.get());
        case pj::DType::s8:
            return xnn_setup_max_pooling2d_nhwc_s8(op, batch, height, width, static_cast<const std::int8_t*>(src),
                                                   static_cast<std::int8_t*>(dst), thread_pool.get());
        default: return xnn_status_unsupported_parameter;
    }
}

std::string element_text(pj::DType dtype, const std::uint8_t* at) {
    switch (dtype) {
        case pj::DType::f32: {
            float v;
            std::memcpy(&v, at, sizeof v);
            return fmt::format("{}", v);
        }
        case pj::DType::u8: return fmt::format("{}", *at);
        case pj::DType::s8: return fmt::format("{}", static_cast<std::int8_t>(*at));
        default: {
            std::uint16_t bits;
            std::memcpy(&bits, at, sizeof bits);
            return fmt::format("0x{:04x}", bits);
        }
    }
}

// Empty when XNNPACK wrote pooljit's bytes in every element of dst (a view's gaps are not compared); otherwise
// how many elements differ and the first of them.
std::string compare_outputs(const pj::TensorDesc& dst, const std::uint8_t* xnnpack, const std::uint8_t* pooljit) {
    const std::size_t element = pj::size_of(dst.dtype);
    const std::vector<std::int64_t> offsets = pj::casegen::element_offsets(dst);
    std::size_t differing = 0;
    std::int64_t first = -1;
    for (const std::int64_t e : offsets) {
        const std::size_t at = static_cast<std::size_t>(e) * element;
        if (std::memcmp(xnnpack + at, pooljit + at, element) != 0 && differing++ == 0) first = e;
    }
    if (differing == 0) return {};
    const std::size_t at = static_cast<std::size_t>(first) * element;
    return fmt::format("dst: {} of {} elements differ; first at element offset {}: XNNPACK {}, pooljit {}", differing,
                       offsets.size(), first, element_text(dst.dtype, xnnpack + at), element_text(dst.dtype, pooljit + at));
}

}  // namespace

bool xnnpack_built() { return true; }

std::string xnnpack_description() {
    const std::string threading = thread_pool
        ? fmt::format("pthreadpool of {} threads", pthreadpool_get_threads_count(thread_pool.get()))
        : std::string("on the calling thread (no pthreadpool)");
    return fmt::format("XNNPACK {}: max_pooling2d_nhwc (nxc 2-D, f32 f16 u8 s8, no indices), output compared with "
                       "pooljit's; {}",
                       POOLJIT_XNNPACK_VERSION, threading);
}

void xnnpack_set_threads(int threads) {
    thread_pool.reset(threads > 1 ? pthreadpool_create(static_cast<std::size_t>(threads)) : nullptr);
}

XnnpackResult xnnpack_time(const pj::Problem& problem, const void* src, const void* pooljit_dst,
                           std::size_t dst_bytes, const TimingPlan& base, std::size_t buffer_offset) {
    XnnpackResult result;
    Geometry geometry;
    if (std::string why = unsupported_reason(problem, geometry); !why.empty()) {
        result.status = "n/a:" + why;
        return result;
    }
    if (const xnn_status status = initialize_once(); status != xnn_status_success) {
        result.status = fmt::format("n/a:init:{}", status_name(status));
        return result;
    }
    xnn_operator_t raw = nullptr;
    const Pixels pixels{static_cast<std::size_t>(problem.channels), static_cast<std::size_t>(problem.src_strides.spatial[1]),
                        static_cast<std::size_t>(problem.dst_strides.spatial[1])};
    if (const xnn_status status = create_operator(problem.dtype, geometry, pixels, &raw); status != xnn_status_success) {
        result.status = fmt::format("n/a:create:{}", status_name(status));
        return result;
    }
    const Operator op(raw);

    // XNNPACK may read up to XNN_EXTRA_BYTES past the end of its input (whole vectors on a channel tail): it
    // reads a copy of pooljit's bytes with that much room after them.
    const std::size_t src_bytes = pj::casegen::byte_size(problem.src_desc());
    TensorBuffer input(src_bytes + XNN_EXTRA_BYTES, buffer_offset);
    std::memcpy(input.data(), src, src_bytes);
    TensorBuffer output(dst_bytes, buffer_offset);
    if (const xnn_status status = setup_operator(op.get(), problem, input.data(), output.data());
        status != xnn_status_success) {
        result.status = fmt::format("n/a:setup:{}", status_name(status));
        return result;
    }
    result.status = std::string("xnn:") + pj::to_string(problem.dtype);

    const auto run = [&] {
        const xnn_status status = xnn_run_operator(op.get(), thread_pool.get());
        if (status != xnn_status_success) throw std::runtime_error(fmt::format("xnn_run_operator: {}", status_name(status)));
    };
    try {
        run();  // first touch of the output, and the values compared
        result.mismatch = compare_outputs(problem.dst_desc(), output.data(), static_cast<const std::uint8_t*>(pooljit_dst));
        const auto start = std::chrono::steady_clock::now();
        run();
        const double one_run_us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        const Timing timing = measure("xnnpack", capped_plan(base, one_run_us), timed_loop(run));
        result.us = timing.median_us;
        result.error = timing.error;
    } catch (const std::exception& e) {
        result.error = e.what();
    }
    put_workers_to_sleep();
    return result;
}

}  // namespace pooljit_bench
