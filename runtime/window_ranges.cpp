#include "runtime/window_ranges.hpp"

#include "jit/isa/isa.hpp"
#include "runtime/cache.hpp"
#include "runtime/executor.hpp"
#include "runtime/shared_units.hpp"
#include "runtime/threads.hpp"

#include <tbb/task_arena.h>

#include <cstdlib>
#include <memory>

namespace pooljit::detail {
namespace {

// Pixels a range holds at least: shorter ranges make the merge's buffer longer than their own input.
constexpr std::int64_t min_range_pixels = 16;
// Ranges a thread takes: two, so that a thread that comes late leaves one to the others.
constexpr std::int64_t ranges_per_thread = 2;
// The ranges' maxima of every image stay this small (they are read once more, by the merge on one thread); a
// problem of more channels has calls wide enough split by channels.
constexpr std::int64_t max_range_buffer_bytes = std::int64_t{4} << 20;
// Images whose input is beyond about an L2 (this fraction of it) take ranges even where their channel blocks are
// enough calls for the threads, as long as a thread's share fits in its L2: a thread's share of every pixel, a
// column of lines a pixel's bytes apart, then misses where a range of whole pixels stays. Xeon 2 (Emerald Rapids,
// 2 MiB L2), 2 threads, lowest of 4 alternating runs, ranges against the channel split: PointNet 1x1024x1024 nxc
// f32 (4 MiB) 66.1 -> 40.4-48.5 us, bf16 (2 MiB) 32.4 -> 27.1-28.7; u8 (1 MiB) 6.9 -> 7.2-7.9, the merge and the
// calls costing more than the columns. Shares beyond the L2 stream either way: 1x64x100000 f32 on the AVX2 form
// (12.8 MiB a thread) ran 1032 us split by channels and 1151-1197 in ranges.
constexpr double min_l2_fraction_for_ranges = 0.75;

// A buffer of whole cache lines, so that no two ranges' rows share one.
struct FreeAligned {
    void operator()(void* p) const { std::free(p); }
};

std::int64_t pixel_stride(const Problem& p) { return p.src_strides.spatial[static_cast<std::size_t>(p.spatial_rank - 1)]; }

// One range: the whole-window pool of `length` pixels of one image, as the source holds them.
Problem range_problem(const Problem& p, std::int64_t length) {
    MaxPoolDesc d;
    d.src = {p.dtype, Layout::nxc, {1, p.channels, length}, {p.src_strides.n, 1, pixel_stride(p)}};
    d.kernel = {length};
    d.nan = p.nan;
    return resolve(d);
}

// The merge: the whole-window pool of an image's ranges (a row of channels each, row_elements apart) into the
// destination.
Problem merge_problem(const Problem& p, std::int64_t count, std::int64_t row_elements) {
    MaxPoolDesc d;
    d.src = {p.dtype, Layout::nxc, {1, p.channels, count}, {count * row_elements, 1, row_elements}};
    d.kernel = {count};
    d.nan = p.nan;
    d.dst_strides = {p.dst_strides.n, p.dst_strides.c, p.dst_strides.spatial[static_cast<std::size_t>(p.spatial_rank - 1)]};
    return resolve(d);
}

}  // namespace

// The problems and kernels of one range count: a range's pool and the merge (the batch is theirs, 1, whatever the
// caller's).
struct WindowRangeKernels {
    std::int64_t count = 0, row_bytes = 0;
    Problem range, merge;
    std::shared_ptr<const Implementation> range_impl, merge_impl;
};

namespace {

// The kernels for ranges.count ranges, from the implementation's list, or made (from the cache, in the
// implementation's ISA form) and added to it.
std::shared_ptr<const WindowRangeKernels> kernels_for(const Problem& p, const Implementation& impl, const WindowRanges& ranges) {
    {
        const std::lock_guard lock(impl.window_range_mutex);
        for (const auto& k : impl.window_range_kernels)
            if (k->count == ranges.count) return k;
    }
    auto k = std::make_shared<WindowRangeKernels>();
    k->count = ranges.count;
    const auto elem = static_cast<std::int64_t>(size_of(p.dtype));
    k->row_bytes = (p.channels * elem + 63) / 64 * 64;
    k->range = range_problem(p, ranges.length);
    k->merge = merge_problem(p, ranges.count, k->row_bytes / elem);
    PlanChoice form;
    form.isa = impl.plan.isa == jit::Isa::avx2 ? PlanChoice::Isa::avx2 : PlanChoice::Isa::avx512;
    k->range_impl = find_or_compile(k->range, form).impl;
    k->merge_impl = find_or_compile(k->merge, form).impl;
    const std::lock_guard lock(impl.window_range_mutex);
    impl.window_range_kernels.push_back(k);
    return k;
}

}  // namespace

std::optional<WindowRanges> window_ranges_for(const Problem& p, const Implementation& impl, int threads) {
    if (!impl.kernel || !impl.plan.window_ranges || threads <= 1 || p.batch <= 0 || p.channels <= 0 || p.batch >= threads)
        return std::nullopt;
    WindowRanges r;
    r.pixels = p.spatial_in_size();
    const std::int64_t wanted = (threads + p.batch - 1) / p.batch * ranges_per_thread;
    r.count = std::min(wanted, r.pixels / min_range_pixels);
    if (r.count < 2) return std::nullopt;
    r.length = (r.pixels + r.count - 1) / r.count;
    const auto elem = static_cast<std::int64_t>(size_of(p.dtype));
    const std::int64_t blocks = p.channels / impl.plan.channel_block + (impl.plan.channel_tail > 0 ? 1 : 0);
    if (p.batch * blocks >= threads) {
        const double image_bytes = static_cast<double>(r.pixels) * static_cast<double>(p.channels * elem);
        const auto l2 = static_cast<double>(jit::l2_cache_bytes());
        if (image_bytes < min_l2_fraction_for_ranges * l2 || image_bytes * static_cast<double>(p.batch) > l2 * threads)
            return std::nullopt;
    }
    if (p.channels > max_range_buffer_bytes / elem / r.count / p.batch) return std::nullopt;
    return r;
}

int execute_window_ranges(const Problem& p, const Implementation& impl, const WindowRanges& ranges, const void* src,
                          void* dst, int threads, bool own_arena) {
    const std::shared_ptr<const WindowRangeKernels> k = kernels_for(p, impl, ranges);
    const auto elem = static_cast<std::int64_t>(size_of(p.dtype));
    const std::int64_t row_bytes = k->row_bytes, image_bytes = row_bytes * ranges.count;
    const std::unique_ptr<std::uint8_t, FreeAligned> maxima(
        static_cast<std::uint8_t*>(std::aligned_alloc(64, static_cast<std::size_t>(image_bytes * p.batch))));
    if (!maxima) throw std::bad_alloc();
    const auto* in = static_cast<const std::uint8_t*>(src);
    auto* out = static_cast<std::uint8_t*>(dst);
    const std::int64_t stride = pixel_stride(p);

    const auto run_range = [&](std::int64_t unit) {
        const std::int64_t n = unit / ranges.count, r = unit % ranges.count;
        execute_problem_split(k->range, *k->range_impl, in + (n * p.src_strides.n + ranges.start(r) * stride) * elem,
                              maxima.get() + n * image_bytes + r * row_bytes, nullptr, 1, false);
    };
    const std::int64_t units = p.batch * ranges.count;
    if (own_arena) arena_for(threads).execute([&] { run_in_shares(units, threads, run_range); });
    else run_in_shares(units, threads, run_range);
    for (std::int64_t n = 0; n < p.batch; ++n)
        execute_problem_split(k->merge, *k->merge_impl, maxima.get() + n * image_bytes, out + n * p.dst_strides.n * elem,
                              nullptr, 1, false);
    return threads;
}

}  // namespace pooljit::detail
