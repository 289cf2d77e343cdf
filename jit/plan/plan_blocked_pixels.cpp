// Blocked pixels (KernelPlan::blocked_pixels): nCx8c / nCx16c u8/s8 max pools folded into lanes (folds_blocks), planned
// as the lane-axis problem of blocks_folded(), several pixels a vector.
#include "jit/plan/plan.hpp"
#include "jit/plan/planner.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace pooljit::jit {
namespace {

// Each run of output rows is code of its own (straight along the rows of its windows): the top and bottom rows
// whose windows reach into the padding, and the rows between.
constexpr std::size_t max_runs = 16;
// Loads the code holds, over every run's chunks at the row's ends and its looped chunk: a window of 9 x 9 in
// 5 pairs holds 90 a chunk.
constexpr std::int64_t max_loads = 8192;
// Displacements from a row's pointer: the window's rows and pairs, 32-bit.
constexpr std::int64_t max_displacement = std::int64_t{1} << 30;
constexpr std::int64_t max_kernel = 64;

std::size_t lanes_axis(const Problem& q) { return static_cast<std::size_t>(q.spatial_rank - 1); }

}  // namespace

bool blocks_as_lanes(const Problem& q) {
    if (q.layout != Layout::ncx || q.block != 1 || q.spatial_rank < 2 || q.op != OpKind::max_pool || q.has_indices ||
        (q.dtype != DType::u8 && q.dtype != DType::s8))
        return false;
    const std::size_t l = lanes_axis(q), w = l - 1;
    return (q.in[l] == 8 || q.in[l] == 16) && q.out[l] == q.in[l] && q.kernel[l] == 1 && q.stride[l] == 1 &&
           q.dilation[l] == 1 && q.pad_begin[l] == 0 && q.pad_end[l] == 0 && q.src_strides.spatial[l] == 1 &&
           q.dst_strides.spatial[l] == 1 && q.src_strides.spatial[w] == q.in[l] && q.dst_strides.spatial[w] == q.in[l] &&
           (q.stride[w] == 1 || q.stride[w] == 2 || q.out[w] == 1);
}

BlockedPixels blocked_pixels_of(const Problem& q, int vector_bytes) {
    const std::size_t l = lanes_axis(q), w = l - 1;
    BlockedPixels bp;
    bp.block = static_cast<int>(q.in[l]);
    bp.vector_bytes = vector_bytes;
    bp.in_w = q.in[w];
    bp.out_w = q.out[w];
    bp.kernel_w = static_cast<int>(std::min(q.kernel[w], max_kernel + 1));
    bp.dilation_w = static_cast<int>(std::min(q.dilation[w], max_displacement));
    bp.pad_w = q.pad_begin[w];
    bp.stride_w = q.out[w] == 1 ? 1 : static_cast<int>(q.stride[w]);  // one output: its window from pixel -pad_w
    if (q.spatial_rank == 3) {
        bp.in_h = q.in[0];
        bp.out_h = q.out[0];
        bp.kernel_h = static_cast<int>(std::min(q.kernel[0], max_kernel + 1));
        bp.stride_h = static_cast<int>(std::min(q.stride[0], max_displacement));
        bp.dilation_h = static_cast<int>(std::min(q.dilation[0], max_displacement));
        bp.pad_h = q.pad_begin[0];
        bp.src_row_bytes = q.src_strides.spatial[0];  // bytes: 1-byte data
        bp.dst_row_bytes = q.dst_strides.spatial[0];
    }
    // Runs of output rows with equal real rows (one run of one row's taps where there is no h axis).
    for (std::int64_t oy = 0; oy < bp.out_h; ++oy) {
        const WindowTaps t = q.spatial_rank == 3 ? window_taps(oy, bp.in_h, q.kernel[0], q.stride[0], q.dilation[0], bp.pad_h)
                                                 : WindowTaps{0, 1};
        if (!bp.runs.empty() && bp.runs.back().tap_begin == t.begin && bp.runs.back().tap_end == t.end) {
            ++bp.runs.back().count;
        } else {
            if (bp.runs.size() > max_runs) break;  // too many: blocked_pixels_fit says no
            bp.runs.push_back({oy, 1, t.begin, t.end});
        }
    }
    // The width taps' offsets from s x, in pixels; at stride 2 neighbours pair (the odd pixels of the pair at o are
    // tap o + 1).
    std::set<std::int64_t> offsets;
    for (std::int64_t t = 0; t < std::min<std::int64_t>(q.kernel[w], max_kernel); ++t)
        offsets.insert(t * q.dilation[w] - bp.pad_w);
    // A window of the whole row: its taps every pixel of [0, in_w), one output.
    bp.whole_row = bp.out_w == 1 && q.dilation[w] == 1 && bp.pad_w >= 0 && q.kernel[w] - bp.pad_w >= bp.in_w;
    for (auto it = offsets.begin(); it != offsets.end();) {
        const std::int64_t o = *it++;
        const bool odd = bp.stride_w == 2 && it != offsets.end() && *it == o + 1;
        if (odd) ++it;
        bp.pairs.push_back({o, odd});
    }
    // Shifted taps where every tap lies within the chunks a register window holds.
    bp.shifted = !bp.whole_row && bp.chunks_back() <= bp.reach_chunks() && bp.chunks_ahead() <= bp.reach_chunks();
    return bp;
}

std::int64_t BlockedPixels::interior_begin() const {
    const std::int64_t span = stride_w * pixels(), first = pairs.empty() ? 0 : pairs.front().offset;
    return first >= 0 ? 0 : (-first + span - 1) / span;
}

std::int64_t BlockedPixels::interior_end() const {
    // Chunk c is whole (its G outputs) and its last pair's vectors end inside the row: s c G + o + s G <= in_w.
    const std::int64_t g = pixels(), span = stride_w * g, last = pairs.empty() ? 0 : pairs.back().offset;
    const std::int64_t room = in_w - last - span;
    const std::int64_t by_input = room < 0 ? 0 : room / span + 1;
    return std::max(interior_begin(), std::min(out_w / g, by_input));
}

std::vector<BlockedPixels::ShiftedTap> BlockedPixels::shifted_taps() const {
    std::vector<ShiftedTap> taps;
    for (const BlockedPixelPair& pair : pairs)
        for (std::int64_t o = pair.offset; o <= pair.offset + (pair.odd ? 1 : 0); ++o) {
            const int phase = static_cast<int>(((o % stride_w) + stride_w) % stride_w);
            taps.push_back({phase, (o - phase) / stride_w});
        }
    return taps;
}

// The chunk a tap's m outputs fall in (floor(m / G)), and whether its shift reads the chunk after it too.
static std::int64_t chunk_of(std::int64_t m, std::int64_t g) { return m >= 0 ? m / g : -((-m + g - 1) / g); }

std::int64_t BlockedPixels::chunks_back() const {
    std::int64_t back = 0;
    for (const ShiftedTap& t : shifted_taps()) back = std::max(back, -chunk_of(t.m, pixels()));
    return back;
}

std::int64_t BlockedPixels::chunks_ahead() const {
    std::int64_t ahead = 0;
    for (const ShiftedTap& t : shifted_taps()) {
        const std::int64_t chunk = chunk_of(t.m, pixels());
        ahead = std::max(ahead, chunk + (t.m != chunk * pixels() ? 1 : 0));
    }
    return ahead;
}

std::int64_t BlockedPixels::shifted_loop_chunks() const {
    const std::int64_t span = stride_w * pixels(), ahead = chunks_ahead();
    std::int64_t looped = 0;
    while (looped < chunks() && (looped + ahead) * span + span <= in_w && (looped + 1) * pixels() <= out_w) ++looped;
    return looped;
}

bool blocked_pixels_fit(const Problem& q) {
    if (!blocks_as_lanes(q)) return false;
    const std::size_t l = lanes_axis(q), w = l - 1;
    const bool whole_row = q.out[w] == 1 && q.dilation[w] == 1 && q.pad_begin[w] >= 0 && q.kernel[w] - q.pad_begin[w] >= q.in[w];
    if ((q.kernel[w] > max_kernel && !whole_row) || (q.spatial_rank == 3 && q.kernel[0] > max_kernel)) return false;
    // A row's bytes, input and output, as displacements.
    if (q.in[w] >= max_displacement / q.in[l] || q.out[w] >= max_displacement / q.in[l]) return false;
    // Width taps and rows a window spans, as displacements from a row's pointer.
    const std::int64_t b = q.in[l];
    if (q.dilation[w] >= max_displacement || q.pad_begin[w] >= max_displacement) return false;
    // Kernels of at most max_kernel taps (a whole row's loads read the row, not its taps): no overflow.
    if (!whole_row && (q.kernel[w] - 1) * q.dilation[w] + q.pad_begin[w] >= max_displacement / b) return false;
    if (q.spatial_rank == 3) {
        const std::int64_t pitch = std::max(q.src_strides.spatial[0], q.dst_strides.spatial[0]);
        if (q.dilation[0] >= max_displacement || q.stride[0] >= max_displacement || pitch >= max_displacement ||
            (q.kernel[0] - 1) * q.dilation[0] >= max_displacement / std::max<std::int64_t>(pitch, 1))
            return false;
    }
    for (const int vector_bytes : {32, 64}) {
        const BlockedPixels bp = blocked_pixels_of(q, vector_bytes);
        if (bp.runs.size() > max_runs) return false;
        if (bp.whole_row) continue;  // a loop over each window row's vectors
        const std::int64_t chunk_kinds = bp.chunks() - (bp.interior_end() - bp.interior_begin()) + 1;
        std::int64_t loads = 0;
        for (const BlockedPixelRun& run : bp.runs)
            // A row of no real window rows stores every chunk's empty value: one a chunk.
            loads += chunk_kinds * std::max<std::int64_t>(run.tap_end - run.tap_begin, 1) * bp.stride_w *
                     static_cast<std::int64_t>(bp.pairs.size());
        if (loads > max_loads) return false;
    }
    return true;
}

// The lane-axis problem of blocked u8/s8: its own code, whole planes (channel blocks) a call.
void Planner::choose_blocked_pixels() {
    take_plane_code();
    const int vector_bytes = caps_.vector_bytes >= 64 ? 64 : 32;
    plan_.blocked_pixels = blocked_pixels_of(p_, vector_bytes);
    if (options_.folded_block_tail > 0) {
        plan_.blocked_pixels.tail_lanes = options_.folded_block_tail;
        plan_.blocked_pixels.tail_planes = options_.folded_block_planes;
        plan_.channel_tail = options_.folded_block_tail;  // the kernel has a tail entry
    }
    plan_.compare = p_.dtype == DType::u8 ? CompareType::u8 : CompareType::s8;
    plan_.lanes = vector_bytes;
    plan_.scan_rows_for_nan = plan_.watch_rows_for_nan = false;
    const BlockedPixels& bp = plan_.blocked_pixels;
    chose("blocked_byte_pixels", std::to_string(bp.pixels()) + " pixels of " + std::to_string(bp.block) +
                                     " bytes a vector, " + std::to_string(bp.pairs.size()) + " load pairs a window row, " +
                                     std::to_string(bp.runs.size()) + " runs of output rows");
}

}  // namespace pooljit::jit
