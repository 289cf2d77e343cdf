#include "runtime/window_ranges.hpp"

#include "runtime/dispatch.hpp"
#include "runtime/executor.hpp"
#include "runtime/shared_units.hpp"
#include "runtime/threads.hpp"
#include "runtime/tune.hpp"

#include <tbb/task_arena.h>

#include <exception>

namespace pooljit::detail {
namespace {

// Pixels a range holds at least: shorter ranges make the merge's buffer longer than their own input.
constexpr std::int64_t min_range_pixels = 16;
// Ranges a thread takes: two, so that a thread that comes late leaves one to the others.
constexpr std::int64_t ranges_per_thread = 2;
// The buffer of the ranges' maxima stays this small (it is read once more, by the merge on one thread); a problem
// of more channels has calls wide enough split by channels.
constexpr std::int64_t max_range_buffer_bytes = std::int64_t{4} << 20;
// Images whose input is beyond about an L2 (this fraction of it) take ranges even where their channel blocks are
// enough calls for the threads, as long as a thread's share fits in its L2: a thread's share of every pixel, a
// column of lines a pixel's bytes apart, then misses where a range of whole pixels stays. Xeon 2 (Emerald Rapids,
// 2 MiB L2), 2 threads, lowest of 4 alternating runs, ranges against the channel split: PointNet 1x1024x1024 nxc
// f32 (4 MiB) 66.1 -> 40.4-48.5 us, bf16 (2 MiB) 32.4 -> 27.1-28.7; u8 (1 MiB) 6.9 -> 7.2-7.9, the merge and the
// calls costing more than the columns. Shares beyond the L2 stream either way: 1x64x100000 f32 on the AVX2 form
// (12.8 MiB a thread) ran 1032 us split by channels and 1151-1197 in ranges.
constexpr double min_l2_fraction_for_ranges = 0.75;

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

// Whether the rules run an image of `pixels` pixels as ranges on `threads` threads: ranges=on; or channel blocks
// fewer than the threads; or an input beyond about an L2 whose share a thread fits in one.
bool rules_take_ranges(const Problem& p, const Implementation& impl, std::int64_t pixels, std::int64_t threads) {
    if (impl.choice.ranges == PlanChoice::Switch::on) return true;
    const std::int64_t blocks = p.channels / impl.plan.channel_block + (impl.plan.channel_tail > 0 ? 1 : 0);
    if (blocks < threads) return true;
    const double image_bytes = static_cast<double>(pixels) * static_cast<double>(p.channels) * static_cast<double>(size_of(p.dtype));
    const auto l2 = static_cast<double>(jit::l2_cache_bytes());
    return image_bytes >= min_l2_fraction_for_ranges * l2 && image_bytes <= l2 * static_cast<double>(threads);
}

}  // namespace

std::shared_ptr<WindowRanges> make_window_ranges(const Problem& p, const Implementation& impl, jit::Isa cap,
                                                 bool byte_permutes) {
    if (!impl.kernel || !impl.plan.window_ranges || p.channels <= 0) return nullptr;
    const std::int64_t threads = effective_threads();
    if (threads < 2 || !rules_take_ranges(p, impl, p.spatial_in_size(), threads)) return nullptr;
    auto r = std::make_shared<WindowRanges>();
    r->pixels = p.spatial_in_size();
    r->count = std::min(threads * ranges_per_thread, r->pixels / min_range_pixels);
    if (r->count < 2) return nullptr;
    r->length = (r->pixels + r->count - 1) / r->count;
    const auto elem = static_cast<std::int64_t>(size_of(p.dtype));
    if (p.channels > max_range_buffer_bytes / elem / r->count) return nullptr;
    r->row_bytes = (p.channels * elem + 63) / 64 * 64;
    try {
        r->range = range_problem(p, r->length);
        r->merge = merge_problem(p, r->count, r->row_bytes / elem);
        // The implementation's ISA form; the kernels' own windows are not split again.
        PlanChoice form;
        form.isa = impl.plan.isa == jit::Isa::avx2 ? PlanChoice::Isa::avx2 : PlanChoice::Isa::avx512;
        form.ranges = PlanChoice::Switch::off;
        r->range_impl = choose_implementation(r->range, cap, form, byte_permutes);
        r->merge_impl = choose_implementation(r->merge, cap, form, byte_permutes);
    } catch (const std::exception&) {
        return nullptr;  // the channels stay split
    }
    r->maxima.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, static_cast<std::size_t>(r->count * r->row_bytes))));
    if (!r->maxima) return nullptr;  // no memory for the buffer: the channels stay split, the code serves as made
    return r;
}

const WindowRanges* window_ranges_for(const Problem& p, const Implementation& impl, int threads) {
    const WindowRanges* r = impl.window_ranges.get();
    if (r == nullptr || threads <= 1 || p.batch != 1) return nullptr;
    return rules_take_ranges(p, impl, r->pixels, threads) ? r : nullptr;
}

bool execute_window_ranges(const Problem& p, const WindowRanges& r, const void* src, void* dst, int threads,
                           bool own_arena) {
    if (r.busy.test_and_set(std::memory_order_acquire)) return false;
    struct Release {
        const WindowRanges& r;
        ~Release() { r.busy.clear(std::memory_order_release); }
    } release{r};
    const auto elem = static_cast<std::int64_t>(size_of(p.dtype));
    const auto* in = static_cast<const std::uint8_t*>(src);
    const std::int64_t stride = pixel_stride(p);
    const auto run_range = [&](std::int64_t range_index) {
        execute_problem_split(r.range, *r.range_impl, in + r.start(range_index) * stride * elem,
                              r.maxima.get() + range_index * r.row_bytes, nullptr, 1, false);
    };
    if (own_arena) arena_for(threads).execute([&] { run_in_shares(r.count, threads, run_range); });
    else run_in_shares(r.count, threads, run_range);
    execute_problem_split(r.merge, *r.merge_impl, r.maxima.get(), dst, nullptr, 1, false);
    return true;
}

}  // namespace pooljit::detail
