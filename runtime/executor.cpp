// The executor: splits a tensor into kernel calls (a run of output rows with equal windows along h of one
// channel block, nxc, or of one channel, ncx; or, for ncx planes of one row, several planes of one image) and
// runs them on oneTBB. Tiles are (n, channel block) or (n, c); when there are too few tiles
// for the threads, output rows are split too, and then rows along the width where the plan allows. A problem
// too small to pay for waking a thread runs on the caller's. The generated code never depends on the thread
// count.
#include "runtime/executor.hpp"

#include "runtime/dispatch.hpp"
#include "runtime/float_environment.hpp"
#include "runtime/shared_units.hpp"
#include "runtime/threads.hpp"
#include "runtime/window_ranges.hpp"

#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace pooljit {
namespace {

// More calls than this per tile are made one by one (their templates would grow with the plane).
constexpr std::size_t max_tile_calls = 256;
struct TooManyTileCalls {};

// Everything a call needs that does not change between calls.
class RowRunner {
public:
    // call_blocks: the full channel blocks a call of the full entry sweeps (0: the plan's channel_sweep; fewer
    // only where the plan's sweep_splits allows).
    // record: instead of calling the kernel, each call's arguments go there with null tensor pointers and their
    // offsets (tile_calls_of).
    RowRunner(const Problem& p, const detail::Implementation& impl, const void* src, void* dst, void* indices,
              std::int64_t call_blocks = 0, std::vector<detail::TileCall>* record = nullptr)
        : p_(p), plan_(impl.plan), taps_d_(impl.plan.taps_d), taps_h_(impl.plan.taps_h), runs_h_(impl.plan.row_runs_h), src_(static_cast<const std::uint8_t*>(src)), dst_(static_cast<std::uint8_t*>(dst)),
          indices_(static_cast<std::uint8_t*>(indices)), full_(impl.kernel->full_block()), tail_(impl.kernel->tail_block()),
          tile_calls_(impl.tile_calls), record_(record), has_indices_(p.has_indices) {
        const int sr = p.spatial_rank;
        w_ = static_cast<std::size_t>(sr - 1);
        has_h_ = sr >= 2;
        has_d_ = sr >= 3;
        h_ = has_h_ ? w_ - 1 : 0;
        in_d_ = has_d_ ? p.in[0] : 1;
        in_h_ = has_h_ ? p.in[h_] : 1;
        out_d_ = has_d_ ? p.out[0] : 1;
        out_h_ = has_h_ ? p.out[h_] : 1;
        elem_ = static_cast<std::int64_t>(size_of(p.dtype));
        index_elem_ = static_cast<std::int64_t>(size_of(p.index_dtype));
        spatial_ = p.spatial_in_size();
        nxc_ = plan_.strategy == jit::Strategy::nxc_channels;
        planes_ = plan_.strategy == jit::Strategy::ncx_planes;
        // nxc: a call's channels are a sweep of full blocks (the last one possibly shorter), or the tail block.
        call_blocks_ = call_blocks > 0 && plan_.sweep_splits ? std::min(call_blocks, plan_.channel_sweep) : plan_.channel_sweep;
        full_blocks_ = p.channels / plan_.channel_block;
        blocks_ = nxc_ ? (full_blocks_ + call_blocks_ - 1) / call_blocks_ + (plan_.channel_tail > 0 ? 1 : 0) : p.channels;
        index_axis_ = p.op == OpKind::adaptive_max_pool ? 2 : p.axis;
        padded_channels_ = (p.channels + p.block - 1) / p.block * p.block;
        // Blocked pixels of a partial last block: its planes (the last channels) go to the tail entry.
        first_tail_plane_ = planes_ && plan_.blocked_pixels.tail_lanes > 0 ? p.channels - plan_.blocked_pixels.tail_planes
                                                                           : p.channels;
        rows_per_chunk_ = plan_.rows_per_chunk;
        if (plan_.ring_call_rows > 0) rows_per_ring_call_ = plan_.ring_call_rows;
    }

    std::int64_t tiles() const { return p_.batch * blocks_; }
    std::int64_t images() const { return p_.batch; }
    std::int64_t channel_blocks() const { return blocks_; }
    // Channels last: the full channel blocks of a pixel.
    std::int64_t full_blocks() const { return full_blocks_; }
    bool channels_last() const { return nxc_; }
    // Channels last, the blocks of a few rows innermost (KernelPlan::channel_blocks_innermost).
    bool blocks_innermost() const { return nxc_ && plan_.channel_blocks_innermost; }
    // A column ring or separable pixels: each call walks one block's run of rows (the calls carry their state).
    bool calls_walk_rows() const { return plan_.ring_rows > 0 || plan_.separable.enabled(); }
    // Rows that a call which starts a band of output rows computes before its first output row's maxima are
    // whole: the ring's or the separable buffers' rows but one (byte pairs buffer nothing).
    std::int64_t refilled_rows() const {
        if (plan_.ring_rows > 0) return plan_.ring_rows - 1;
        return plan_.separable.enabled() && !plan_.separable.byte_pairs ? plan_.separable.window_rows - 1 : 0;
    }
    // Outputs of a row that a call may compute on their own (1: the kernel computes whole rows only).
    std::int64_t splittable_width() const { return plan_.width_ranges ? p_.out[w_] : 1; }
    // Bytes a call of the whole problem moves: every input, output and index element once.
    double bytes() const {
        const double planes = static_cast<double>(p_.batch) * static_cast<double>(p_.channels);
        const double out_elems = planes * static_cast<double>(out_d_ * out_h_ * p_.out[w_]);
        return planes * static_cast<double>(spatial_) * static_cast<double>(elem_) +
               out_elems * static_cast<double>(elem_ + (has_indices_ ? index_elem_ : 0));
    }
    // Calls a tile splits into along its output rows: none for kernels of whole planes.
    std::int64_t rows() const { return planes_ ? 1 : out_d_ * out_h_; }

    // Tiles [begin, end). ncx planes of one output row, and planes of kernels that compute whole planes, go to
    // the kernel together, one plane per kernel row; otherwise each tile's rows go in runs of rows with equal
    // windows along h.
    void run_tiles(std::int64_t begin, std::int64_t end) const {
        // A column ring (or separable pixels) walks each block's rows in one call: tile by tile; so does a block
        // that lies apart from the others, where it has rows to walk (of one output row, blocks in turn make the
        // same calls in the same order, for less of the executor's time).
        if (nxc_ && blocks_ > 1 && !calls_walk_rows() && (plan_.channel_blocks_innermost || rows() == 1)) {
            for (std::int64_t t = begin; t < end;) {
                const std::int64_t n = t / blocks_, block = t % blocks_;
                const std::int64_t count = std::min(end - t, blocks_ - block);
                run_blocks(n, block, block + count);
                t += count;
            }
            return;
        }
        if (plan_.stacked_planes) {
            // Planes that stack: each image's planes of the range in one call of all their rows.
            const std::int64_t C = p_.channels;
            const Steps steps = row_steps(runs_h_.front().position_step);
            for (std::int64_t t = begin; t < end;) {
                const std::int64_t n = t / C, c = t % C;
                const std::int64_t count = std::min(end - t, C - c);
                call(n, c, 0, 0, count * out_h_, steps);
                t += count;
            }
            return;
        }
        if (!nxc_ && !tile_calls_.empty()) {
            run_tile_calls(begin, end);
            return;
        }
        if (nxc_ || rows() != 1) {
            // The tile's (n, block) counted, not divided out per tile (no tile: no block count to divide by).
            if (begin >= end) return;
            std::int64_t n = begin / blocks_, block = begin % blocks_;
            for (std::int64_t t = begin; t < end; ++t) {
                run_rows(n, block, 0, rows());
                if (++block == blocks_) {
                    block = 0;
                    ++n;
                }
            }
            return;
        }
        // Planes of one output row each: a call's rows are consecutive channels of one image.
        const std::int64_t C = p_.channels;
        const Steps steps{jit::wrap_mul(p_.src_strides.c, elem_), jit::wrap_mul(p_.dst_strides.c, elem_),
                          jit::wrap_mul(p_.indices_strides.c, index_elem_), 0, index_axis_ <= 1 ? spatial_ : 0};
        for (std::int64_t t = begin; t < end;) {
            const std::int64_t n = t / C, c = t % C;
            // One image per call (axis-1 indices restart), the tail entry's planes in calls of their own.
            const std::int64_t count = std::min({end - t, C - c, c < first_tail_plane_ ? first_tail_plane_ - c : C - c});
            call(n, c, 0, 0, count, steps);
            t += count;
        }
    }

    // Planar tiles [begin, end) from the calls made once for the whole tile: each call's arguments copied and
    // moved to the tile (a few adds, where making a call took a few hundred instructions: a third of the time of
    // adaptive 13 -> 2 bins over 256 planes went to making their calls).
    void run_tile_calls(std::int64_t begin, std::int64_t end) const {
        if (begin >= end) return;
        const std::int64_t C = p_.channels;
        std::int64_t n = begin / C, c = begin % C;
        for (std::int64_t t = begin; t < end; ++t) {
            const std::int64_t plane = n * C + c;
            const auto add = [&](const Problem::Strides& s, std::int64_t bytes) { return (n * s.n + c * s.c) * bytes; };
            const std::int64_t src_add = add(p_.src_strides, elem_), dst_add = add(p_.dst_strides, elem_);
            const std::int64_t indices_add = add(p_.indices_strides, index_elem_);
            const std::int64_t channel_add = index_axis_ == 0 ? plane * spatial_ : index_axis_ == 1 ? c * spatial_ : 0;
            for (const detail::TileCall& call : tile_calls_) {
                jit::KernelArgs args = call.args;
                args.src = src_ + (call.src_offset + src_add);
                args.dst = dst_ + (call.dst_offset + dst_add);
                args.indices = indices_ ? indices_ + (call.indices_offset + indices_add) : nullptr;
                args.channel_index_base += channel_add;
                full_(&args);
            }
            if (++c == C) {
                c = 0;
                ++n;
            }
        }
    }

    // Output rows [begin, end) of one tile (rows count along h, then d), in runs of rows with equal windows along
    // h: the row coordinates are counted, not divided out per row (a call can be a few dozen instructions, as
    // long as two 64-bit divisions).
    void run_rows(std::int64_t tile, std::int64_t begin, std::int64_t end) const {
        run_rows(tile / blocks_, tile % blocks_, begin, end);
    }
    void run_rows(std::int64_t n, std::int64_t block, std::int64_t begin, std::int64_t end) const {
        // A ring of row maxima (or separable rows' buffer) carries from a row to the one ring_row_interval rows
        // on: one call per residue of a run's rows (rows of a dilated window, one apart, share no input row).
        const std::int64_t every = plan_.ring_rows > 0 || plan_.separable.enabled() ? plan_.ring_row_interval : 1;
        for (std::int64_t row = begin; row < end;) {
            const std::int64_t od = out_d_ == 1 ? 0 : row / out_h_, oh_begin = out_d_ == 1 ? row : row % out_h_;
            const std::int64_t oh_end = std::min(out_h_, oh_begin + (end - row));
            row += oh_end - oh_begin;
            if (runs_h_.empty()) {
                for (std::int64_t oh = oh_begin; oh < oh_end; ++oh) call(n, block, od, oh, 1, {});
                continue;
            }
            for (const jit::RowRun& r : runs_h_) {
                const std::int64_t run_begin = std::max(r.begin, oh_begin), run_end = std::min(r.end, oh_end);
                if (run_begin >= run_end) continue;
                const Steps steps = row_steps(r.position_step, every);
                for (std::int64_t first = run_begin; first < std::min(run_end, run_begin + every); ++first) {
                    // A 64-bit division costs as much as a short call: none without a ring's interval.
                    const std::int64_t count = every == 1 ? run_end - first : (run_end - first + every - 1) / every;
                    for (std::int64_t done = 0; done < count; done += rows_per_ring_call_)
                        call(n, block, od, first + done * every, std::min(rows_per_ring_call_, count - done), steps);
                }
            }
        }
    }
    // Channel blocks [first, last) of image n, the blocks innermost: every block of a few output rows before
    // the next rows, so the rows' input pixels are read whole, in order, while they are in cache. Block by
    // block over the whole image instead read a strided quarter of each pixel per pass, and the lines the
    // hardware prefetched for the neighbouring blocks were evicted before their pass (VGG pool3 nxc f32 ran
    // at half the speed of the same bytes in 64 channels).
    void run_blocks(std::int64_t n, std::int64_t first, std::int64_t last) const {
        for (std::int64_t od = 0; od < out_d_; ++od) {
            if (runs_h_.empty()) {
                for (std::int64_t oh = 0; oh < out_h_; ++oh)
                    for (std::int64_t block = first; block < last; ++block) call(n, block, od, oh, 1, {});
                continue;
            }
            for (const jit::RowRun& r : runs_h_) {
                const Steps steps = row_steps(r.position_step);
                for (std::int64_t oh = r.begin; oh < r.end; oh += rows_per_chunk_) {
                    const std::int64_t count = std::min(rows_per_chunk_, r.end - oh);
                    for (std::int64_t block = first; block < last; ++block) call(n, block, od, oh, count, steps);
                }
            }
        }
    }
    // One output row of image n, every channel block (channels last), blocks innermost as in run_blocks.
    void run_row_of_blocks(std::int64_t n, std::int64_t row) const {
        for (std::int64_t block = 0; block < blocks_; ++block) call(n, block, row / out_h_, row % out_h_, 1, {});
    }
    // Piece `piece` of `pieces` along the width of one output row of one tile (plans with width_ranges).
    void run_piece(std::int64_t tile, std::int64_t row, std::int64_t piece, std::int64_t pieces) const {
        const std::int64_t width = p_.out[w_];
        const auto edge = [&](std::int64_t b) { return width / pieces * b + std::min(b, width % pieces); };
        const Range outputs{edge(piece), edge(piece + 1)};
        call(tile / blocks_, tile % blocks_, row / out_h_, row % out_h_, 1, {}, outputs);
    }

private:
    struct Steps {
        std::int64_t src = 0, dst = 0, indices = 0, index_base = 0, channel_index_base = 0;
    };
    // Outputs along the width; end -1: the whole row.
    struct Range {
        std::int64_t begin, end;
    };

    // Between output rows along h `every` rows apart whose first taps are position_step input rows apart per row
    // (1-D rows have no h axis: the steps are never taken).
    Steps row_steps(std::int64_t position_step, std::int64_t every = 1) const {
        if (!has_h_) return {};
        // Modulo 2^64 (jit::wrap_mul): a call of one row never adds its steps, which can then pass 2^63.
        const std::int64_t rows_apart = jit::wrap_mul(every, position_step);
        return {jit::wrap_mul(rows_apart, p_.src_strides.spatial[h_], elem_),
                jit::wrap_mul(every, p_.dst_strides.spatial[h_], elem_),
                jit::wrap_mul(every, p_.indices_strides.spatial[h_], index_elem_),
                jit::wrap_mul(rows_apart, plan_.index_mult[h_]), 0};
    }

    void call(std::int64_t n, std::int64_t block, std::int64_t od, std::int64_t oh, std::int64_t rows,
              const Steps& steps, Range outputs = {0, -1}) const {
        // A kernel of whole planes starts at the plane's first element, whatever its windows.
        const jit::OuterTaps td = !has_d_ || planes_ ? jit::OuterTaps{}
                                     : taps_d_.empty() ? jit::outer_taps_of(p_, 0, od)
                                                       : taps_d_[static_cast<std::size_t>(od)];
        const jit::OuterTaps th = !has_h_ || planes_ ? jit::OuterTaps{}
                                     : taps_h_.empty() ? jit::outer_taps_of(p_, h_, oh)
                                                       : taps_h_[static_cast<std::size_t>(oh)];
        const std::int64_t C = p_.channels;
        jit::KernelArgs args;
        // The call's first element of each tensor: (n, c0, the first real taps along d and h or the output row,
        // w = 0), through the tensor's strides.
        const std::int64_t first_block = std::min(block * call_blocks_, full_blocks_);
        const std::int64_t c0 = nxc_ ? first_block * plan_.channel_block : block;
        Problem::Spatial in_at{0, 0, 0}, out_at{0, 0, 0};
        if (has_d_) {
            in_at[0] = td.first_position;
            out_at[0] = od;
        }
        if (has_h_) {
            in_at[h_] = th.first_position;
            out_at[h_] = oh;
        }
        const std::int64_t src_offset = p_.offset(p_.src_strides, n, c0, in_at) * elem_;
        const std::int64_t dst_offset = p_.offset(p_.dst_strides, n, c0, out_at) * elem_;
        const std::int64_t indices_offset = has_indices_ ? p_.offset(p_.indices_strides, n, c0, out_at) * index_elem_ : 0;
        args.src = record_ ? nullptr : src_ + src_offset;
        args.dst = record_ ? nullptr : dst_ + dst_offset;
        args.indices = indices_ ? indices_ + indices_offset : nullptr;
        args.taps_d = td.count;
        args.taps_h = th.count;
        args.index_base = (has_d_ ? td.first_position * plan_.index_mult[0] : 0) +
                          (has_h_ ? th.first_position * plan_.index_mult[h_] : 0);
        args.channel_index_base = index_axis_ == 0 ? (n * C + c0) * spatial_ : index_axis_ == 1 ? c0 * spatial_ : 0;
        args.rows = rows;
        args.src_row_step = steps.src;
        args.dst_row_step = steps.dst;
        args.indices_row_step = has_indices_ ? steps.indices : 0;
        args.index_base_row_step = steps.index_base;
        args.channel_index_base_row_step = steps.channel_index_base;
        args.out_begin = outputs.begin;
        args.out_end = outputs.end < 0 ? p_.out[w_] : outputs.end;
        args.sweep_blocks = std::min(call_blocks_, full_blocks_ - first_block);
        const bool tail = nxc_ ? first_block == full_blocks_ : planes_ && c0 >= first_tail_plane_;
        if (record_) {
            if (record_->size() == max_tile_calls) throw TooManyTileCalls{};
            record_->push_back({args, src_offset, dst_offset, indices_offset});
            return;
        }
        (tail ? tail_ : full_)(&args);
        if (nxc_ && padded_channels_ > C && (tail || c0 + args.sweep_blocks * plan_.channel_block == C))
            zero_padded_lanes(args, C - c0);
    }

    // A blocked destination's last block: its lanes past C are written as 0 (indices too) in every output of the
    // call's rows, as oneDNN keeps its padded area. `valid`: the call's channels, the lanes before them.
    void zero_padded_lanes(const jit::KernelArgs& args, std::int64_t valid) const {
        const std::int64_t lanes = padded_channels_ - p_.channels;
        const std::int64_t dst_step = p_.dst_strides.spatial[w_] * elem_;
        const std::int64_t indices_step = p_.indices_strides.spatial[w_] * index_elem_;
        for (std::int64_t r = 0; r < args.rows; ++r)
            for (std::int64_t o = args.out_begin; o < args.out_end; ++o) {
                std::memset(args.dst + r * args.dst_row_step + o * dst_step + valid * elem_, 0,
                            static_cast<std::size_t>(lanes * elem_));
                if (args.indices)
                    std::memset(args.indices + r * args.indices_row_step + o * indices_step + valid * index_elem_, 0,
                                static_cast<std::size_t>(lanes * index_elem_));
            }
    }

    const Problem& p_;
    const jit::KernelPlan& plan_;
    const std::vector<jit::OuterTaps>& taps_d_;
    const std::vector<jit::OuterTaps>& taps_h_;
    const std::vector<jit::RowRun>& runs_h_;
    const std::uint8_t* src_;
    std::uint8_t* dst_;
    std::uint8_t* indices_;
    jit::KernelFn full_, tail_;
    const std::vector<detail::TileCall>& tile_calls_;
    std::vector<detail::TileCall>* record_;
    bool has_indices_;
    std::size_t w_ = 0, h_ = 0;
    bool has_h_ = false, has_d_ = false, nxc_ = true, planes_ = false;
    std::int64_t in_d_ = 1, in_h_ = 1, out_d_ = 1, out_h_ = 1, elem_ = 1, index_elem_ = 1, spatial_ = 1, blocks_ = 1;
    std::int64_t rows_per_chunk_ = 1, call_blocks_ = 1, full_blocks_ = 0, padded_channels_ = 0, first_tail_plane_ = 0;
    std::int64_t rows_per_ring_call_ = std::numeric_limits<std::int64_t>::max();
    int index_axis_ = 0;
};

// About this many units of work per thread (PlanChoice::grain overrides), so that uneven rows and a busy or late
// thread even out.
constexpr std::int64_t tasks_per_thread = 4;
// The kernel's expected time on one thread: the bytes it moves and the vector max operations the plan counts
// (KernelPlan::vector_ops_per_image), at rates fitted to the one-thread times of the suite's 59 cells under 40 us
// on Zen 4 (f32, bf16, u8; ncx and nxc): estimates within 1.3x of the time (rms of the log ratio 0.29). Meant to
// rank short problems, not to time them: DRAM-sized ones run slower than estimated, and get every thread anyway.
constexpr double expected_bytes_per_ns = 180.0;
constexpr double expected_vector_ops_per_ns = 3.0;
constexpr double estimate_error = 1.3;
// What waking threads costs: a first worker, then each further one. Waking a oneTBB worker and joining it cost
// 1.2-2.4 us on Zen 4 (2 vCPUs): 1x512x14x14 f32 nxc k2 s2 (expected 5.2 us) ran 4.5 us on one thread and 3.7
// on two; 1x192x28x28 u8 nxc k3 s1 p1 (Inception, expected 6.6) 3.3 on one and 3.6-4.5 on two, its column ring
// refilled in 8 bands of rows; adaptive 1x256x13x13 to 1x1 f32 ncx (expected 3.2) 2.5 on one and 2.5-2.8 on
// two. On a 16-core Xeon VM, 7-7.3 us problems ran 9-10.6 us on 16 threads (VGG pool5 f32 nxc, Inception u8
// nxc): about 0.5 us for each thread beyond the first.
constexpr double first_worker_ns = 2000.0;
constexpr double further_worker_ns = 500.0;
// A row split along the width gives each call at least this many outputs.
constexpr std::int64_t min_piece_outputs = 32;

// The finest split that gives every thread about tasks_per_thread units: whole tiles; else output rows (of
// every channel block of an image together, channels last, so the blocks of a row stay in order); else
// pieces of rows along the width, where the plan computes them (one image of a 1-D signal in few channel
// blocks is a single tile of a single row).
void run_parallel(const RowRunner& runner, int threads, int tasks_each) {
    const std::int64_t target = (tasks_each > 0 ? tasks_each : tasks_per_thread) * threads;
    const std::int64_t tiles = runner.tiles(), rows = runner.rows();
    const auto parallel = [&](std::int64_t units, auto&& unit) { detail::run_in_shares(units, threads, unit); };
    if (tiles >= target) {
        parallel(target, [&](std::int64_t u) { runner.run_tiles(tiles * u / target, tiles * (u + 1) / target); });
        return;
    }
    if (runner.blocks_innermost() && runner.channel_blocks() > 1 && !runner.calls_walk_rows() &&
        runner.images() * rows >= target) {
        parallel(runner.images() * rows, [&](std::int64_t u) { runner.run_row_of_blocks(u / rows, u % rows); });
        return;
    }
    const std::int64_t row_calls = tiles * rows;
    const std::int64_t pieces = std::min((target + row_calls - 1) / row_calls,
                                         std::max<std::int64_t>(1, runner.splittable_width() / min_piece_outputs));
    if (pieces <= 1) {
        // Bands of a tile's rows, as few as give every thread its tasks: a ring carries within a band. (One band
        // per thread, to spare rings their refills, measured no faster: SPPF u8 nxc, 25-28 us either way.)
        const std::int64_t bands = std::min(rows, (target + tiles - 1) / tiles);
        parallel(tiles * bands, [&](std::int64_t u) {
            const std::int64_t band = u % bands;
            const auto edge = [&](std::int64_t b) { return rows / bands * b + std::min(b, rows % bands); };
            runner.run_rows(u / bands, edge(band), edge(band + 1));
        });
        return;
    }
    parallel(row_calls * pieces, [&](std::int64_t u) {
        const std::int64_t call = u / pieces;
        runner.run_piece(call / rows, call % rows, u % pieces, pieces);
    });
}

// Full channel blocks a swept call covers on `threads` threads: the plan's sweep, unless the calls, their rows
// and the pieces of those rows are fewer than the threads (a global pool of one image is one call of every
// block: PointNet's 1024 channels ran no faster on 16 threads than on one); then one call per thread, the
// sweeps as long as that allows. A shorter sweep costs each call its long address-ordered streams (PointNet
// f32 on AVX2, one thread: 96 us in sweeps of 64 blocks, 112 in 32, 159 in 8), so rows and pieces go first
// and the threads get no more calls than they need.
std::int64_t call_blocks_for(const RowRunner& whole_sweeps, const jit::KernelPlan& plan, int threads) {
    if (!plan.sweep_splits || threads <= 1) return plan.channel_sweep;
    const std::int64_t pieces = std::max<std::int64_t>(1, whole_sweeps.splittable_width() / min_piece_outputs);
    const std::int64_t image_rows = whole_sweeps.images() * whole_sweeps.rows() * pieces;
    if (image_rows <= 0 || whole_sweeps.tiles() * whole_sweeps.rows() * pieces >= threads) return plan.channel_sweep;
    const std::int64_t calls_per_image_row = (threads + image_rows - 1) / image_rows;
    const std::int64_t blocks = (whole_sweeps.full_blocks() + calls_per_image_row - 1) / calls_per_image_row;
    return std::clamp<std::int64_t>(blocks, 1, plan.channel_sweep);
}

// The thread count with the least expected time: the kernel's time on one thread (expected_*_per_ns) shared by
// the threads, plus the work of refilling the rings (or separable buffers) of the bands that row splits make,
// plus the threads' waking. Leaving one thread has to win by more than the estimate's error (1.3x): on a 16-core
// Xeon VM, problems estimated at 5-7 us ran 1.2-1.35x slower on 16 threads than on one (Inception u8 nxc 5.0 ->
// 6.7 us, adaptive 1x512x13x13 to 7x7 f32 nxc 6.0 -> 7.2). Short problems stay on one thread; long ones get
// about sqrt(time / 0.5 us) threads (every thread of 16 from about 128 us on).
int threads_worth_waking(const RowRunner& runner, const detail::Implementation& impl, int available) {
    const double one_thread_ns = runner.bytes() / expected_bytes_per_ns + static_cast<double>(runner.images()) *
                                                                             impl.plan.vector_ops_per_image /
                                                                             expected_vector_ops_per_ns;
    const std::int64_t tasks_each = impl.choice.grain > 0 ? impl.choice.grain : tasks_per_thread;
    const double rows = static_cast<double>(runner.rows());
    int best = 1;
    double best_ns = one_thread_ns / estimate_error;
    for (int n = 2; n <= available; ++n) {
        const double wake_ns = first_worker_ns + further_worker_ns * (n - 2);
        if (wake_ns >= best_ns) break;  // only grows from here
        const std::int64_t target = tasks_each * n;
        double refill = 0;
        if (runner.calls_walk_rows() && runner.tiles() < target) {
            const double bands = std::min(rows, static_cast<double>((target + runner.tiles() - 1) / runner.tiles()));
            refill = (bands - 1) * static_cast<double>(runner.refilled_rows()) / rows;
        }
        const double ns = one_thread_ns * (1 + refill) / n + wake_ns;
        if (ns < best_ns) best = n, best_ns = ns;
    }
    return best;
}

}  // namespace

int execute_problem_split(const Problem& problem, const detail::Implementation& impl, const void* src, void* dst,
                          void* indices, int threads, bool small_problems_split) {
    const detail::ExactFloatCompares exact;  // the calling thread's part (workers set their own)
    if (!impl.kernel) {
        reference::execute(problem, src, dst, indices);
        return 1;
    }
    // Planned for blocked rows of bytes or the planes of a 3-D problem: the same fields scaled or shifted, a
    // copy and no checks (folds_blocks and folds_depth held at creation and read only what the cache key holds).
    const std::optional<Problem> folded = impl.plan.blocks_folded || impl.plan.depth_folded
                                              ? std::optional(jit::folded_problem(problem, impl.plan.blocks_folded, impl.plan.depth_folded))
                                              : std::nullopt;
    const Problem& p = folded ? *folded : problem;
    const RowRunner whole_sweeps(p, impl, src, dst, indices);
    const int requested = threads > 0 ? threads : num_threads();
    const int available = requested > 0 ? requested : tbb::this_task_arena::max_concurrency();
    const int used_by_time = small_problems_split ? available : threads_worth_waking(whole_sweeps, impl, available);
    // A measured choice names the threads itself (at most those available).
    const int used = impl.choice.threads > 0 ? std::min(available, impl.choice.threads) : used_by_time;
    if (const detail::WindowRanges* ranges = detail::window_ranges_for(p, impl, used);
        ranges != nullptr && detail::execute_window_ranges(p, *ranges, src, dst, used, requested > 0))
        return used;
    const RowRunner runner(p, impl, src, dst, indices, call_blocks_for(whole_sweeps, impl.plan, used));
    if (used <= 1 || runner.tiles() * runner.rows() * runner.splittable_width() <= 1) {
        // One thread: the kernel directly, no scheduler and no allocation.
        runner.run_tiles(0, runner.tiles());
        return 1;
    }
    // An arena of the threads worth waking, so no other thread steals the tasks; without a count set, the
    // caller's arena (its own task_arena, or oneTBB's default), with tasks for the threads worth waking.
    if (requested > 0) detail::arena_for(used).execute([&] { run_parallel(runner, used, impl.choice.grain); });
    else run_parallel(runner, used, impl.choice.grain);
    return used;
}

std::vector<detail::TileCall> tile_calls_of(const Problem& p, const detail::Implementation& impl) {
    const jit::KernelPlan& plan = impl.plan;
    std::vector<detail::TileCall> calls;
    if (!impl.kernel || plan.strategy != jit::Strategy::ncx_width || plan.stacked_planes) return calls;
    const RowRunner recorder(p, impl, nullptr, nullptr, nullptr, 0, &calls);
    if (recorder.rows() == 1 || p.channels == 0) return calls;  // the batch size does not matter: tile (0, 0)
    // Without per-row tables (outer axes beyond 2^16 output rows) the calls are too many anyway.
    if ((p.spatial_rank >= 2 && plan.taps_h.empty()) || (p.spatial_rank >= 3 && plan.taps_d.empty())) return calls;
    try {
        recorder.run_rows(0, 0, 0, recorder.rows());
    } catch (const TooManyTileCalls&) {
        calls.clear();
    }
    return calls;
}

int execute_problem(const Problem& p, const detail::Implementation& impl, const void* src, void* dst, void* indices) {
    return execute_problem_split(p, impl, src, dst, indices, 0, false);
}

}  // namespace pooljit
