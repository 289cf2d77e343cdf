// Separable pixels (KernelPlan::separable on a channels-last plan): the separable rows of emit_separable.cpp
// with a pixel of the call's channel block (vectors_per_block vectors of compare lanes) for each lane. Per pass
// over a group of output rows, each input row the group reads is copied once, pixel by pixel, into one padded
// row (the empty value, the max's identity, before and after the input: no border items), and the maxima of
// every output's width taps are taken from it into a buffer of row maxima; then each output row merges its
// taps_h buffered rows in row order. Every buffer is contiguous: a block's column of pixels, a whole pixel
// apart in the input, fell into a few L1 sets where the pixel is a multiple of 1 KiB (SPPF's 512 f32 channels),
// and the column ring that walked it missed L1 on most taps. A tap reads a whole pixel vector as it was stored,
// so one padded row serves every input row (the store forwards). Rows first, each merge keeping the earlier on
// ties, then the rows in order: the window's first maximum in scan order, as the rings (output rows one row of
// maxima apart merge in pairs that share all but one row, paired_output_rows). Float input is watched
// for NaN while it is copied; a group that saw one sends the whole call to the row code, which applies the NaN
// policy (rows already stored are stored again, the same). Direct rows (stride 1 along the width, at most 5
// taps, data loaded as stored) skip the copy: each run of outputs with the same taps (the plan's width runs)
// reads the input row itself, and the stored maxima are watched (each is NaN exactly where its first tap is),
// with the few positions that no output reads first loaded once more after the row. bf16 pixels load their
// vectors in widened pairs (sep.widened_pairs): the buffers hold each pair's even elements, then its odd ones,
// and the stores interleave them back.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace pooljit::jit {

// Channels last: the padded row of positions (a pixel; with indices, then a vector of index lanes), in whole
// cache lines.
template <typename Ops>
std::int64_t WindowEmitter<Ops>::separable_pixels_padded_bytes() const {
    return (plan_.separable.row_lanes() * separable_position_bytes() + 63) / 64 * 64;
}

// The padding around the input in the padded row at tap_ptr_ (the empty value), stored once a call: the copies
// only write the input's pixels.
template <typename Ops>
void WindowEmitter<Ops>::store_separable_padding() {
    const SeparableRows& sep = plan_.separable;
    const std::int64_t position = separable_position_bytes();
    for (std::int64_t p = 0; p < sep.row_lanes(); ++p) {
        if (p == sep.pad_lanes) p = std::min(sep.row_lanes(), sep.pad_lanes + plan_.in_width);
        if (p == sep.row_lanes()) break;
        for (int v = 0; v < separable_block_vectors(); ++v)
            vmovups(ptr[tap_ptr_ + static_cast<std::int32_t>(p * position + v * Ops::vector_bytes)], vec(regs_.empty_value));
    }
}

// `count` pixels from window_ into the padded row from indices_, through the accumulators; floats' loaded vectors
// summed among themselves first, then into the watch (one running sum's add per vector was a chain of its
// latency).
template <typename Ops>
void WindowEmitter<Ops>::separable_copy_pixels(int count) {
    const int V = separable_block_vectors();
    const std::int64_t L = plan_.lanes, position = separable_position_bytes(), vector_storage = L * elem();
    std::vector<int> accs = separable_accumulators();
    accs.resize(accs.size() / static_cast<std::size_t>(V) * static_cast<std::size_t>(V));
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    const int per_load = plan_.separable.widened_pairs ? 2 : 1;
    for (int i = 0; i < count; ++i)
        for (int v = 0; v < V; v += per_load) {
            const std::int64_t back = separable_back_read_bytes(v);
            const Address from = at(window_, wrap_mul(i, plan_.src_step_w) + v * vector_storage - back);
            if (per_load == 2) ops_.load_widened_pair(acc(i * V + v), acc(i * V + v + 1), from, 2 * static_cast<int>(L));
            else ops_.load_value(acc(i * V + v), from, back > 0 ? static_cast<int>(L) : separable_pixel_lanes(v));
            for (int k = v; k < v + per_load; ++k)
                vmovups(ptr[indices_ + static_cast<std::int32_t>(i * position + k * Ops::vector_bytes)], acc(i * V + k));
        }
    if (!plan_.is_float) return;
    const int n = count * V;
    for (int width = 1; width < n; width *= 2)
        for (int i = 0; i + width < n; i += 2 * width) ops_.note_nan(acc(i), acc(i + width));
    ops_.note_nan(vec(regs_.plane_sum), acc(0));
}

// `total` steps of `body` over `unroll` items at a time (a loop on tap_count_), then the rest; `advance` after
// each full step.
template <typename Ops>
template <typename Body, typename Advance>
void WindowEmitter<Ops>::separable_steps(std::int64_t total, int unroll, Body&& body, Advance&& advance) {
    const std::int64_t full = total / unroll, rest = total % unroll;
    if (full > 0) {
        Label loop;
        mov(tap_count_, full);
        place(loop);
        body(unroll);
        advance(unroll);
        dec(tap_count_);
        jnz(loop, T_NEAR);
    }
    if (rest > 0) body(static_cast<int>(rest));
}

// The input row at row_src_ into the padded row at `padded`, after its padding positions: `unroll` pixels a
// step (window_ walks the input, indices_ the padded row).
template <typename Ops>
void WindowEmitter<Ops>::separable_copy_input_row(const Reg64& padded, int unroll) {
    const std::int64_t position = separable_position_bytes();
    mov(window_, row_src_);
    lea(indices_, ptr[padded + static_cast<std::int32_t>(plan_.separable.pad_lanes * position)]);
    separable_steps(plan_.in_width, unroll, [&](int count) { separable_copy_pixels(count); }, [&](int count) {
        add_imm(window_, wrap_mul(count, plan_.src_step_w));
        add(indices_, static_cast<std::int32_t>(count * position));
    });
}

// An output row's merges of its later rows of maxima: `merge_row` once for each of taps_h - 1 rows, h_ptr_ on
// the row (maxima_bytes apart, from window_'s row).
template <typename Ops>
template <typename MergeRow>
void WindowEmitter<Ops>::separable_merge_rows(std::int64_t maxima_bytes, MergeRow&& merge_row) {
    Label merge_loop, merged;
    mov(item_count_, ptr[rsp + slot_taps_h]);
    dec(item_count_);
    jz(merged, T_NEAR);
    mov(h_ptr_, window_);
    place(merge_loop);
    add(h_ptr_, static_cast<std::int32_t>(maxima_bytes));
    merge_row();
    dec(item_count_);
    jnz(merge_loop, T_NEAR);
    place(merged);
}

template <typename Ops>
void WindowEmitter<Ops>::emit_separable_pixels(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    if (!nxc_ || plan_.has_indices || plan_.spatial_rank != 2 || sep.phases != 1 || sep.row_step < 1 ||
        (block_lanes_ != plan_.channel_block && !(sep.partial_tail && block_lanes_ == plan_.channel_tail)) ||
        sweep_ != 1)
        throw Error("jit: separable pixels are channels-last 2-D values, one block (or a partial tail) a call");
    const int V = separable_block_vectors();
    const std::int64_t L = plan_.lanes, vb = Ops::vector_bytes, pixel = std::int64_t{V} * vb;
    if (block_lanes_ != std::int64_t{V} * L &&
        (block_lanes_ > std::int64_t{V} * L || block_lanes_ <= std::int64_t{V - 1} * L || sep.widened_pairs))
        throw Error("jit: separable pixels fill whole registers with channels, or end in a partial vector loaded as "
                    "it is");
    if (sep.partial_reads_back && !Ops::needs_vector_masks)
        throw Error("jit: separable pixels read a partial vector back on a trait without opmasks only");
    const std::int64_t padded_bytes = separable_pixels_padded_bytes(), maxima_bytes = sep.maxima_vectors * vb;
    const std::int64_t vector_storage = L * elem();  // input bytes of one vector of channels
    // A tail of fewer vectors than the plan's takes as many of the accumulators as hold whole blocks of its own.
    std::vector<int> accs = separable_accumulators();
    accs.resize(accs.size() / static_cast<std::size_t>(V) * static_cast<std::size_t>(V));
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    // Pixels (or outputs) a step takes: the plan's accumulators are a whole number of blocks.
    const int unroll = static_cast<int>(accs.size()) / V;
    if (unroll < 1 || unroll * V != static_cast<int>(accs.size()))
        throw Error("jit: separable pixels take whole blocks of accumulators");
    const Vmm fresh = vec(regs_.fresh);
    // Widened pairs (sep.widened_pairs): vectors a load, and the second register a fresh pair takes.
    const int per_load = sep.widened_pairs ? 2 : 1;
    const Vmm second_fresh = vec(regs_.scratch);
    if (V % per_load != 0) throw Error("jit: separable pixels load widened pairs of a pixel's vectors");

    // Registers: row_src_ the input row being copied; dst_ the output row; tap_ptr_ the padded row;
    // window_index_ the rows of maxima; d_ptr_ rows left in the call; h_index_ rows of this group; h_count_,
    // tap_count_ and item_count_ loop counters; window_, h_ptr_ and indices_ moving pointers; tap_index_ an
    // output row's start.
    const Reg64 &padded = tap_ptr_, &maxima = window_index_, &group = h_index_;
    begin_separable_call(other_calls, padded_bytes);

    if (!sep.direct_rows) store_separable_padding();

    Label group_loop;
    begin_separable_group(group_loop);

    // Each input row of the group, (group - 1) * row_step + taps_h of them one tap stride apart: copied into the
    // padded row, then its maxima into the group's next row of maxima (direct rows: the maxima from the input row
    // itself, run by run of equal taps).
    {
        const bool direct = sep.direct_rows;
        // The maxima of `count` outputs' `taps` width taps from window_ (the first output's first tap: in the
        // padded row, or in the input for direct rows) into h_ptr_. Paired windows (stride 1): output i + d's taps
        // 0 .. k - 2 are output i's taps 1 .. k - 1 (d the dilation), whose maximum is taken once; output i merges
        // it after its own first tap, output i + d its last tap after it (each merge keeps the earlier on ties: the
        // scan order's first maximum, as one window at a time). Each maximum starts from its first tap and a NaN
        // there stays (max_fast keeps the maximum on NaN): direct rows' stored maxima are summed into the NaN
        // watch, a tree among themselves first.
        const auto reduce_outputs = [&](int count, std::int64_t taps) {
            // The tap at `position` (counted in pixels from window_): vectors v .. v + per_load - 1 into
            // to(0) .. to(per_load - 1). A widened pair is one load from the input; the padded row holds it split.
            const auto load_tap = [&](const auto& to, std::int64_t position, int v) {
                if (direct && per_load == 2)
                    ops_.load_widened_pair(to(0), to(1), at(window_, wrap_mul(position, plan_.src_step_w) + v * vector_storage),
                                           2 * static_cast<int>(L));
                else if (direct)
                    ops_.load_value(to(0),
                                    at(window_, wrap_mul(position, plan_.src_step_w) + v * vector_storage -
                                                    separable_back_read_bytes(v)),
                                    separable_back_read_bytes(v) > 0 ? static_cast<int>(L) : separable_pixel_lanes(v));
                else
                    for (int k = 0; k < per_load; ++k)
                        vmovups(to(k), ptr[window_ + static_cast<std::int32_t>(position * pixel + (v + k) * vb)]);
            };
            const auto fresh_regs = [&](int k) { return k == 0 ? fresh : second_fresh; };
            const auto accs_of = [&](std::int64_t output, int v) {
                return [&, output, v](int k) { return acc(static_cast<int>(output * V + v + k)); };
            };
            const auto merge = [&](const auto& into, const auto& from) {
                for (int k = 0; k < per_load; ++k) ops_.max_fast(into(k), from(k));
            };
            // Pairs d = dilation apart, in chunks of 2d outputs: output i and i + d (i + 1 without dilation).
            const std::int64_t d = plan_.dilation_w;
            int unpaired = 0;
            if (sep.paired_width_windows && taps >= 2)
                for (; unpaired + 2 * d <= count; unpaired += static_cast<int>(2 * d))
                    for (std::int64_t j = 0; j < d; ++j)
                        for (int v = 0; v < V; v += per_load) {
                            const std::int64_t first = unpaired + j;
                            const auto left = accs_of(first, v), shared = accs_of(first + d, v);
                            load_tap(shared, first + d, v);
                            for (std::int64_t t = 2; t < taps; ++t) {
                                load_tap(fresh_regs, first + t * d, v);
                                merge(shared, fresh_regs);
                            }
                            load_tap(left, first, v);
                            merge(left, shared);
                            load_tap(fresh_regs, first + taps * d, v);
                            merge(shared, fresh_regs);
                        }
            for (std::int64_t t = 0; t < taps; ++t)
                for (int i = unpaired; i < count; ++i)
                    for (int v = 0; v < V; v += per_load) {
                        const std::int64_t position = i * plan_.stride_w + t * plan_.dilation_w;
                        if (t == 0) {
                            load_tap(accs_of(i, v), position, v);
                            continue;
                        }
                        load_tap(fresh_regs, position, v);
                        merge(accs_of(i, v), fresh_regs);
                    }
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v)
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(i * pixel + v * vb)], acc(i * V + v));
            if (!direct || !plan_.is_float) return;
            const int n = count * V;
            for (int width = 1; width < n; width *= 2)
                for (int i = 0; i + width < n; i += 2 * width) ops_.note_nan(acc(i), acc(i + width));
            ops_.note_nan(vec(regs_.plane_sum), acc(0));
        };
        Label input_row;
        separable_group_input_rows(h_count_);
        mov(h_ptr_, maxima);
        place(input_row);
        if (direct) {
            for (const WidthRun& run : plan_.width_runs) {
                const std::int64_t outputs = run.out_end - run.out_begin, taps = run.tap_end - run.tap_begin;
                if (taps <= 0) {  // windows wholly in the padding: the empty value
                    separable_steps(outputs, unroll, [&](int count) {
                        for (int i = 0; i < count; ++i)
                            for (int v = 0; v < V; ++v)
                                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(i * pixel + v * vb)], vec(regs_.empty_value));
                    }, [&](int count) { add(h_ptr_, static_cast<std::int32_t>(count * pixel)); });
                } else {
                    mov(window_, row_src_);
                    add_imm(window_, wrap_mul(run.out_begin - plan_.pad_w + run.tap_begin * plan_.dilation_w, plan_.src_step_w));
                    separable_steps(outputs, unroll, [&](int count) { reduce_outputs(count, taps); }, [&](int count) {
                        add_imm(window_, wrap_mul(count, plan_.src_step_w));
                        add(h_ptr_, static_cast<std::int32_t>(count * pixel));
                    });
                }
                if (const std::int64_t rest = outputs % unroll; rest > 0) add(h_ptr_, static_cast<std::int32_t>(rest * pixel));
            }
            add(h_ptr_, static_cast<std::int32_t>(maxima_bytes - plan_.out_width * pixel));
            // The positions that no output reads as its first tap, one by one.
            if (plan_.is_float)
                for (const std::int64_t x : direct_row_unwatched_pixels(plan_.width_runs, plan_.dilation_w, plan_.pad_w,
                                                                        std::numeric_limits<std::size_t>::max()))
                    for (int v = 0; v < V; ++v) {
                        ops_.load_value(fresh,
                                        at(row_src_, wrap_mul(x, plan_.src_step_w) + v * vector_storage -
                                                         separable_back_read_bytes(v)),
                                        separable_back_read_bytes(v) > 0 ? static_cast<int>(L) : separable_pixel_lanes(v));
                        ops_.note_nan(vec(regs_.plane_sum), fresh);
                    }
        } else {
            separable_copy_input_row(padded, unroll);
            mov(window_, padded);
            separable_steps(plan_.out_width, unroll, [&](int count) { reduce_outputs(count, plan_.kernel_w); }, [&](int count) {
                add(window_, static_cast<std::int32_t>(count * plan_.stride_w * pixel));
                add(h_ptr_, static_cast<std::int32_t>(count * pixel));
            });
            // The rest's maxima were stored from h_ptr_ too: on to the next row of maxima from the row's start.
            const std::int64_t rest = plan_.out_width % unroll;
            add(h_ptr_, static_cast<std::int32_t>(maxima_bytes - (plan_.out_width - rest) * pixel));
        }
        close_separable_input_rows(input_row, other_calls);
    }

    // Output rows of the group: row i merges maxima rows i * row_step .. i * row_step + taps_h - 1, in order,
    // `unroll` outputs at a time (window_ the first row's, h_ptr_ the row being merged).
    {
        // Widened pairs are interleaved back as they are stored, which clobbers both.
        const auto store_outputs = [&](const Reg64& row_dst, int count, int first) {
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; v += per_load) {
                    const Address to = at(row_dst, wrap_mul(i, plan_.dst_out_stride_w) + v * vector_storage);
                    if (per_load == 2) {
                        ops_.store_widened_pair(to, acc((first + i) * V + v), acc((first + i) * V + v + 1), 2 * static_cast<int>(L));
                        continue;
                    }
                    if constexpr (Ops::needs_vector_masks) {
                        if (separable_back_read_bytes(v) > 0) {
                            ops_.store_value_top(to, acc((first + i) * V + v), vec(regs_.scratch), separable_pixel_lanes(v));
                            continue;
                        }
                    }
                    ops_.store_value(to, acc((first + i) * V + v), vec(regs_.scratch), separable_pixel_lanes(v));
                }
        };
        const auto merge_outputs = [&](int count) {
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) vmovups(acc(i * V + v), ptr[window_ + static_cast<std::int32_t>(i * pixel + v * vb)]);
            separable_merge_rows(maxima_bytes, [&] {
                for (int i = 0; i < count; ++i)
                    for (int v = 0; v < V; ++v) {
                        vmovups(fresh, ptr[h_ptr_ + static_cast<std::int32_t>(i * pixel + v * vb)]);
                        ops_.max_fast(acc(i * V + v), fresh);
                    }
            });
            store_outputs(dst_, count, 0);
        };
        // Output rows i and i + 1 (paired_output_rows): `count` outputs of each, the maximum of rows i + 1 .. i +
        // taps_h - 1 taken once into the first `count` blocks of accumulators (shared), then row i's merged before
        // it (into the next `count` blocks) and row i + taps_h after it: each merge keeps the earlier on ties, as
        // one row at a time. dst_ is row i's outputs; row i + 1's are a row step on, dst_ stepped there and back
        // (the trait's scratch GPR may load a store mask, so it holds no pointer here).
        const auto merge_output_pairs = [&](int count) {
            const auto load = [&](const Reg64& row, std::int64_t row_offset, int i, int v) {
                return ptr[row + static_cast<std::int32_t>(row_offset + i * pixel + v * vb)];
            };
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) vmovups(acc(i * V + v), load(window_, maxima_bytes, i, v));
            Label merged;
            lea(h_ptr_, ptr[window_ + static_cast<std::int32_t>(maxima_bytes)]);
            mov(item_count_, ptr[rsp + slot_taps_h]);
            sub(item_count_, 2);
            jz(merged, T_NEAR);
            Label merge_loop;
            place(merge_loop);
            add(h_ptr_, static_cast<std::int32_t>(maxima_bytes));
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    vmovups(fresh, load(h_ptr_, 0, i, v));
                    ops_.max_fast(acc(i * V + v), fresh);
                }
            dec(item_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    vmovups(acc((count + i) * V + v), load(window_, 0, i, v));
                    ops_.max_fast(acc((count + i) * V + v), acc(i * V + v));
                }
            store_outputs(dst_, count, count);
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    vmovups(fresh, load(h_ptr_, maxima_bytes, i, v));
                    ops_.max_fast(acc(i * V + v), fresh);
                }
            add(dst_, ptr[rsp + slot_dst_row_step]);
            store_outputs(dst_, count, 0);
            sub(dst_, ptr[rsp + slot_dst_row_step]);
        };
        // `step` outputs a step along the row from window_ and dst_, then the rest.
        const auto along_row = [&](int step, const auto& merge) {
            separable_steps(plan_.out_width, step, merge, [&](int count) {
                add(window_, static_cast<std::int32_t>(count * pixel));
                add_imm(dst_, wrap_mul(count, plan_.dst_out_stride_w));
            });
        };
        Label output_row, rows_done;
        mov(indices_, maxima);  // the group's next output row's first row of maxima
        mov(h_count_, group);
        if (sep.paired_output_rows)
            separable_output_pairs(h_count_, indices_, maxima_bytes, output_row, rows_done, [&] {
                mov(tap_index_, dst_);
                mov(window_, indices_);
                along_row(static_cast<int>(accs.size()) / (2 * V), merge_output_pairs);
                mov(dst_, tap_index_);
                add(dst_, ptr[rsp + slot_dst_row_step]);
                add(dst_, ptr[rsp + slot_dst_row_step]);
            });
        place(output_row);
        mov(tap_index_, dst_);
        mov(window_, indices_);
        along_row(unroll, merge_outputs);
        mov(dst_, tap_index_);
        add(dst_, ptr[rsp + slot_dst_row_step]);
        add(indices_, static_cast<std::int32_t>(sep.row_step * maxima_bytes));
        dec(h_count_);
        jnz(output_row, T_NEAR);
        place(rows_done);
    }

    next_separable_group(group_loop, done);
}

// Separable pixels with indices: the same passes, each maximum's index lanes (32-bit, beside 32-bit compare
// lanes) carried beside it. The padded row has one vector of index lanes a position after its pixels, stored
// once a call: the width part of the position's index (w x index_mult_w), broadcast. A row maximum takes the
// index lanes of the tap it took, plus its input row's part; each output row's merge takes a later row's
// maximum only where it is greater, so ties keep the earlier row and, within it, the earlier tap: the first
// maximum in scan order. Padding: the empty value, which a later real tap replaces only where it is greater.
// So a window that starts in the padding and whose real taps are all the empty value keeps a padded tap: the
// positions before the input carry the first input position's index, which is then that window's first real
// tap (the planner takes contiguous windows along the width with a real tap each). Positions after the input
// come after a window's real taps and are never taken.
template <typename Ops>
void WindowEmitter<Ops>::emit_separable_pixel_indices(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    if (!nxc_ || !plan_.has_indices || plan_.index_lanes_64 || plan_.index_relative_to_window ||
        lane_bytes(plan_.compare) != 4 || plan_.spatial_rank != 2 || sep.phases != 1 || sep.row_step < 1 ||
        plan_.dilation_w != 1 || block_lanes_ != plan_.channel_block || sweep_ != 1)
        throw Error("jit: separable pixels with indices are channels-last 2-D rows of 32-bit lanes, one full block a call");
    const int V = plan_.vectors_per_block;
    const std::int64_t L = plan_.lanes, vb = Ops::vector_bytes, pixel = std::int64_t{V} * vb;
    if (block_lanes_ != std::int64_t{V} * L) throw Error("jit: separable pixels fill whole registers with channels");
    // A padded position: its pixel, then its index lanes. A row of maxima: each output's V value vectors, then its
    // V index vectors.
    const std::int64_t position_bytes = separable_position_bytes();
    const std::int64_t output_bytes = 2 * pixel, maxima_bytes = sep.maxima_vectors * vb;
    const std::int64_t vector_storage = L * elem(), index_out_stride = plan_.indices_out_stride_w;
    const std::vector<int> accs = separable_accumulators();
    const int unroll = static_cast<int>(accs.size()) / V;
    if (unroll < 1 || unroll * V != static_cast<int>(accs.size()))
        throw Error("jit: separable pixels take whole blocks of accumulators");
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    const std::vector<int> idxs = separable_index_registers();
    const auto idx = [&](int i) { return vec(idxs[static_cast<std::size_t>(i)]); };
    // chan_base holds the input row's index part during the row passes, the channel part at the stores.
    const Vmm fresh = vec(regs_.fresh), row_part = vec(regs_.chan_base), scratch = vec(regs_.scratch);

    // Registers: as emit_separable_pixels, and tap_index_ the input row's index part (row passes) or the output
    // row's first row of maxima (merges); dst_ and indices_ the outputs from slot_sep_dst and slot_sep_indices,
    // big_offset_ the lane table. The call's row slots are left as they were, for the row code.
    const Reg64 &padded = tap_ptr_, &maxima = window_index_, &group = h_index_;
    Label leave;
    begin_separable_call(other_calls, separable_pixels_padded_bytes());
    for (const auto& [from, to] : {std::pair{slot_row_dst, slot_sep_dst}, std::pair{slot_row_indices, slot_sep_indices},
                                   std::pair{slot_index_base, slot_sep_index_base},
                                   std::pair{slot_channel_index_base, slot_sep_channel_base}}) {
        mov(scratch_, ptr[rsp + from]);
        mov(ptr[rsp + to], scratch_);
    }
    store_separable_padding();
    // The padded row's index lanes: position p holds the width part of input position clamp(p - pad, 0, in - 1).
    {
        const auto store_positions = [&](std::int64_t count, bool step) {
            if (count <= 0) return;
            Label loop;
            mov(tap_count_, count);
            place(loop);
            vmovups(ptr[h_ptr_], fresh);
            if (step) ops_.add_lanes(fresh, scratch, false);
            add(h_ptr_, static_cast<std::int32_t>(position_bytes));
            dec(tap_count_);
            jnz(loop, T_NEAR);
        };
        lea(h_ptr_, ptr[padded + static_cast<std::int32_t>(pixel)]);
        mov(scratch_, plan_.index_mult_w);
        ops_.broadcast_gpr(scratch, scratch_, false);
        ops_.zero_vector(fresh);
        store_positions(sep.pad_lanes, false);
        store_positions(plan_.in_width, true);
        mov(scratch_, wrap_mul(plan_.in_width - 1, plan_.index_mult_w));
        ops_.broadcast_gpr(fresh, scratch_, false);
        store_positions(sep.row_lanes() - sep.pad_lanes - plan_.in_width, false);
    }

    Label group_loop;
    begin_separable_group(group_loop);

    // Each input row of the group: copied into the padded row, then its maxima with their indices into the
    // group's next row of maxima.
    {
        // The maxima of `count` outputs' width taps from window_ (the first output's window in the padded row)
        // into h_ptr_, their indices plus the row's part.
        const auto value_at = [&](std::int64_t position, int v) {
            return ptr[window_ + static_cast<std::int32_t>(position * position_bytes + v * vb)];
        };
        const auto index_at = [&](std::int64_t position) {
            return ptr[window_ + static_cast<std::int32_t>(position * position_bytes + pixel)];
        };
        // Maximum i (value and index vector v) <- the tap at `position` where it is greater.
        const auto merge_tap = [&](int i, std::int64_t position) {
            vmovups(fresh, value_at(position, i % V));
            ops_.compute_take_fast(fresh, acc(i));
            ops_.take_fast(acc(i), fresh);
            ops_.blend_take_index_from(idx(i), index_at(position));
        };
        const auto reduce_outputs = [&](int count) {
            // Paired windows, as emit_separable_pixels: output i + 1's taps 0 .. k - 2 are output i's taps 1 .. k - 1,
            // merged once; output i merges them after its first tap, output i + 1 its last tap after them.
            int unpaired = 0;
            if (sep.paired_width_windows)
                for (; unpaired + 1 < count; unpaired += 2)
                    for (int v = 0; v < V; ++v) {
                        const int left = unpaired * V + v, shared = (unpaired + 1) * V + v;
                        vmovups(acc(shared), value_at(unpaired + 1, v));
                        vmovups(idx(shared), index_at(unpaired + 1));
                        for (std::int64_t t = 2; t < plan_.kernel_w; ++t) merge_tap(shared, unpaired + t);
                        vmovups(acc(left), value_at(unpaired, v));
                        vmovups(idx(left), index_at(unpaired));
                        ops_.compute_take_fast(acc(shared), acc(left));
                        ops_.take_fast(acc(left), acc(shared));
                        ops_.blend_take_index_from(idx(left), idx(shared));
                        merge_tap(shared, unpaired + plan_.kernel_w);
                    }
            for (std::int64_t t = 0; t < plan_.kernel_w; ++t)
                for (int i = unpaired; i < count; ++i)
                    for (int v = 0; v < V; ++v) {
                        const std::int64_t position = i * plan_.stride_w + t;
                        if (t > 0) {
                            merge_tap(i * V + v, position);
                            continue;
                        }
                        vmovups(acc(i * V + v), value_at(position, v));
                        vmovups(idx(i * V + v), index_at(position));
                    }
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    ops_.add_lanes(idx(i * V + v), row_part, false);
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(i * output_bytes + v * vb)], acc(i * V + v));
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(i * output_bytes + pixel + v * vb)], idx(i * V + v));
                }
        };

        Label input_row;
        mov(tap_index_, ptr[rsp + slot_sep_index_base]);
        separable_group_input_rows(h_count_);
        mov(h_ptr_, maxima);
        place(input_row);
        separable_copy_input_row(padded, unroll);
        ops_.broadcast_gpr(row_part, tap_index_, false);
        mov(window_, padded);
        separable_steps(plan_.out_width, unroll, reduce_outputs, [&](int count) {
            add(window_, static_cast<std::int32_t>(count * plan_.stride_w * position_bytes));
            add(h_ptr_, static_cast<std::int32_t>(count * output_bytes));
        });
        const std::int64_t rest = plan_.out_width % unroll;
        add(h_ptr_, static_cast<std::int32_t>(maxima_bytes - (plan_.out_width - rest) * output_bytes));
        add_imm(tap_index_, plan_.index_tap_step_h);
        close_separable_input_rows(input_row, leave);
    }

    // Output rows of the group: row i merges maxima rows i * row_step .. i * row_step + taps_h - 1 in order,
    // `unroll` outputs at a time (window_ the first row's, h_ptr_ the row being merged); the stores move dst_
    // and indices_ on output by output.
    {
        const std::int64_t entry = plan_.wide_index_math ? 8 : 4;
        const auto merge_outputs = [&](int count) {
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    vmovups(acc(i * V + v), ptr[window_ + static_cast<std::int32_t>(i * output_bytes + v * vb)]);
                    vmovups(idx(i * V + v), ptr[window_ + static_cast<std::int32_t>(i * output_bytes + pixel + v * vb)]);
                }
            separable_merge_rows(maxima_bytes, [&] {
                for (int i = 0; i < count; ++i)
                    for (int v = 0; v < V; ++v) {
                        vmovups(fresh, ptr[h_ptr_ + static_cast<std::int32_t>(i * output_bytes + v * vb)]);
                        ops_.compute_take_fast(fresh, acc(i * V + v));
                        ops_.take_fast(acc(i * V + v), fresh);
                        ops_.blend_take_index_from(idx(i * V + v),
                                                   ptr[h_ptr_ + static_cast<std::int32_t>(i * output_bytes + pixel + v * vb)]);
                    }
            });
            for (int i = 0; i < count; ++i) {
                for (int v = 0; v < V; ++v) {
                    const std::int64_t first_lane = std::int64_t{v} * L;
                    ops_.store_value(ptr[dst_ + static_cast<std::int32_t>(v * vector_storage)], acc(i * V + v), scratch,
                                     static_cast<int>(L));
                    lea(big_offset_, ptr[rip + lane_table(1)]);
                    const LaneAddress table = [&, first_lane, entry](int lane) {
                        return ptr[big_offset_ + static_cast<std::int32_t>((first_lane + lane) * entry)];
                    };
                    const LaneAddress out = [&, first_lane](int lane) {
                        return ptr[indices_ + static_cast<std::int32_t>((first_lane + lane) * index_elem())];
                    };
                    ops_.store_indices(out, table, idx(i * V + v), row_part, vec(regs_.minus_one), scratch,
                                       static_cast<int>(L), false);
                }
                add_imm(dst_, plan_.dst_out_stride_w);
                add_imm(indices_, index_out_stride);
            }
        };
        Label output_row;
        mov(tap_index_, maxima);  // the group's next output row's first row of maxima
        mov(h_count_, group);
        place(output_row);
        load_separable_output_row(row_part);
        mov(window_, tap_index_);
        separable_steps(plan_.out_width, unroll, merge_outputs,
                        [&](int count) { add(window_, static_cast<std::int32_t>(count * output_bytes)); });
        next_separable_output_row();
        add(tap_index_, static_cast<std::int32_t>(sep.row_step * maxima_bytes));
        dec(h_count_);
        jnz(output_row, T_NEAR);
    }

    close_separable_index_group(group, group_loop, done, leave, other_calls);
}

template std::int64_t WindowEmitter<Avx512Ops>::separable_pixels_padded_bytes() const;
template void WindowEmitter<Avx512Ops>::emit_separable_pixels(Label&, Label&);
template void WindowEmitter<Avx512Ops>::emit_separable_pixel_indices(Label&, Label&);
template std::int64_t WindowEmitter<Avx2Ops>::separable_pixels_padded_bytes() const;
template void WindowEmitter<Avx2Ops>::emit_separable_pixels(Label&, Label&);
template void WindowEmitter<Avx2Ops>::emit_separable_pixel_indices(Label&, Label&);

}  // namespace pooljit::jit
