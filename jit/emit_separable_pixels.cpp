// Separable pixels (KernelPlan::separable on a channels-last plan): the separable rows of emit_separable.cpp
// with a pixel of the call's channel block (vectors_per_block vectors of compare lanes) for each lane. Per pass
// over a group of output rows, each input row the group reads is copied once, pixel by pixel, into one padded
// row (the empty value, the max's identity, before and after the input: no border items), and the maxima of
// every output's width taps are taken from it into a buffer of row maxima; then each output row merges its
// taps_h buffered rows in row order. Every buffer is contiguous: a block's column of pixels, a whole pixel
// apart in the input, fell into a few L1 sets where the pixel is a multiple of 1 KiB (SPPF's 512 f32 channels),
// and the column ring that walked it missed L1 on most taps. A tap reads a whole pixel vector as it was stored,
// so one padded row serves every input row (the store forwards). Rows first, each merge keeping the earlier on
// ties, then the rows in order: the window's first maximum in scan order, as the rings. Float input is watched
// for NaN while it is copied; a group that saw one sends the whole call to the row code, which applies the NaN
// policy (rows already stored are stored again, the same).
#include "jit/window_emitter.hpp"
#include "jit/vec_avx2.hpp"
#include "jit/vec_avx512.hpp"

#include <algorithm>
#include <vector>

namespace pooljit::jit {

template <typename Ops>
void WindowEmitter<Ops>::emit_separable_pixels(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    if (!nxc_ || plan_.has_indices || f16() || plan_.spatial_rank != 2 || sep.phases != 1 || sep.row_step < 1 ||
        block_lanes_ != plan_.channel_block || sweep_ != 1)
        throw Error("jit: separable pixels are channels-last 2-D values, one full block a call");
    const int V = plan_.vectors_per_block;
    const std::int64_t L = plan_.lanes, vb = Ops::vector_bytes, pixel = std::int64_t{V} * vb;
    if (block_lanes_ != std::int64_t{V} * L) throw Error("jit: separable pixels fill whole registers with channels");
    const std::int64_t padded_bytes = (sep.row_lanes() * pixel + 63) / 64 * 64, maxima_bytes = sep.maxima_vectors * vb;
    const std::int64_t vector_storage = L * elem();  // input bytes of one vector of channels
    const std::vector<int> accs = separable_accumulators();
    const auto acc = [&](int i) { return vec(accs[static_cast<std::size_t>(i)]); };
    // Pixels (or outputs) a step takes: the plan's accumulators are a whole number of blocks.
    const int unroll = static_cast<int>(accs.size()) / V;
    if (unroll < 1 || unroll * V != static_cast<int>(accs.size()))
        throw Error("jit: separable pixels take whole blocks of accumulators");
    const bool watch = plan_.is_float;
    const Vmm fresh = vec(regs_.fresh), empty = vec(regs_.empty_value);

    // Registers: row_src_ the input row being copied; dst_ the output row; tap_ptr_ the padded row;
    // window_index_ the rows of maxima; d_ptr_ rows left in the call; h_index_ rows of this group; h_count_,
    // tap_count_ and item_count_ loop counters; window_, h_ptr_ and indices_ moving pointers; tap_index_ an
    // output row's start.
    const Reg64 &padded = tap_ptr_, &maxima = window_index_, &group = h_index_;
    begin_separable_call(other_calls, padded_bytes);

    // The padding around the input, stored once a call: the copies only write the input's pixels.
    for (std::int64_t p = 0; p < sep.row_lanes(); ++p) {
        if (p == sep.pad_lanes) p = std::min(sep.row_lanes(), sep.pad_lanes + plan_.in_width);
        if (p == sep.row_lanes()) break;
        for (int v = 0; v < V; ++v) vmovups(ptr[padded + static_cast<std::int32_t>(p * pixel + v * vb)], empty);
    }

    Label group_loop;
    begin_separable_group(group_loop);

    // Each input row of the group, (group - 1) * row_step + taps_h of them one tap stride apart: copied into the
    // padded row, then its maxima into the group's next row of maxima.
    {
        // `count` pixels from window_ into the padded row from indices_; floats' loaded vectors summed among
        // themselves first, then into the watch (one running sum's add per vector was a chain of its latency).
        const auto copy_pixels = [&](int count) {
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    ops_.load_value(acc(i * V + v), at(window_, wrap_mul(i, plan_.src_step_w) + v * vector_storage), static_cast<int>(L));
                    vmovups(ptr[indices_ + static_cast<std::int32_t>(i * pixel + v * vb)], acc(i * V + v));
                }
            if (!watch) return;
            const int n = count * V;
            for (int width = 1; width < n; width *= 2)
                for (int i = 0; i + width < n; i += 2 * width) ops_.note_nan(acc(i), acc(i + width));
            ops_.note_nan(vec(regs_.plane_sum), acc(0));
        };
        // The maxima of `count` outputs' width taps from window_ (the first output's window in the padded row)
        // into h_ptr_. Paired windows (stride 1): output i + 1's taps 0 .. k - 2 are output i's taps 1 .. k - 1,
        // whose maximum is taken once; output i merges it after its own first tap, output i + 1 its last tap after
        // it (each merge keeps the earlier on ties: the scan order's first maximum, as one window at a time).
        const auto reduce_outputs = [&](int count) {
            const auto tap = [&](std::int64_t position, int v) {
                return ptr[window_ + static_cast<std::int32_t>(position * pixel + v * vb)];
            };
            int unpaired = 0;
            if (sep.paired_width_windows)
                for (; unpaired + 1 < count; unpaired += 2)
                    for (int v = 0; v < V; ++v) {
                        const Vmm left = acc(unpaired * V + v), shared = acc((unpaired + 1) * V + v);
                        vmovups(shared, tap(unpaired + 1, v));
                        for (std::int64_t t = 2; t < plan_.kernel_w; ++t) {
                            vmovups(fresh, tap(unpaired + t, v));
                            ops_.max_fast(shared, fresh);
                        }
                        vmovups(left, tap(unpaired, v));
                        ops_.max_fast(left, shared);
                        vmovups(fresh, tap(unpaired + plan_.kernel_w, v));
                        ops_.max_fast(shared, fresh);
                    }
            for (std::int64_t t = 0; t < plan_.kernel_w; ++t)
                for (int i = unpaired; i < count; ++i)
                    for (int v = 0; v < V; ++v) {
                        const std::int64_t position = i * plan_.stride_w + t * plan_.dilation_w;
                        const auto offset = static_cast<std::int32_t>(position * pixel + v * vb);
                        if (t == 0) {
                            vmovups(acc(i * V + v), ptr[window_ + offset]);
                            continue;
                        }
                        vmovups(fresh, ptr[window_ + offset]);
                        ops_.max_fast(acc(i * V + v), fresh);
                    }
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v)
                    vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(i * pixel + v * vb)], acc(i * V + v));
        };
        // `total` steps of `body` over `unroll` items at a time (a loop), then the rest; `advance` after each.
        const auto in_steps = [&](std::int64_t total, auto&& body, auto&& advance) {
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
        };

        Label input_row;
        separable_group_input_rows(h_count_);
        mov(h_ptr_, maxima);
        place(input_row);
        mov(window_, row_src_);
        lea(indices_, ptr[padded + static_cast<std::int32_t>(sep.pad_lanes * pixel)]);
        in_steps(plan_.in_width, copy_pixels, [&](int count) {
            add_imm(window_, wrap_mul(count, plan_.src_step_w));
            add(indices_, static_cast<std::int32_t>(count * pixel));
        });
        mov(window_, padded);
        in_steps(plan_.out_width, reduce_outputs, [&](int count) {
            add(window_, static_cast<std::int32_t>(count * plan_.stride_w * pixel));
            add(h_ptr_, static_cast<std::int32_t>(count * pixel));
        });
        // The rest's maxima were stored from h_ptr_ too: on to the next row of maxima from the row's start.
        const std::int64_t rest = plan_.out_width % unroll;
        add(h_ptr_, static_cast<std::int32_t>(maxima_bytes - (plan_.out_width - rest) * pixel));
        close_separable_input_rows(input_row, other_calls);
    }

    // Output rows of the group: row i merges maxima rows i * row_step .. i * row_step + taps_h - 1, in order,
    // `unroll` outputs at a time (window_ the first row's, h_ptr_ the row being merged).
    {
        const auto merge_outputs = [&](int count) {
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) vmovups(acc(i * V + v), ptr[window_ + static_cast<std::int32_t>(i * pixel + v * vb)]);
            Label merge_loop, merged;
            mov(item_count_, ptr[rsp + slot_taps_h]);
            dec(item_count_);
            jz(merged, T_NEAR);
            mov(h_ptr_, window_);
            place(merge_loop);
            add(h_ptr_, static_cast<std::int32_t>(maxima_bytes));
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v) {
                    vmovups(fresh, ptr[h_ptr_ + static_cast<std::int32_t>(i * pixel + v * vb)]);
                    ops_.max_fast(acc(i * V + v), fresh);
                }
            dec(item_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            for (int i = 0; i < count; ++i)
                for (int v = 0; v < V; ++v)
                    ops_.store_value(at(dst_, wrap_mul(i, plan_.dst_out_stride_w) + v * vector_storage), acc(i * V + v),
                                     vec(regs_.scratch), static_cast<int>(L));
        };
        Label output_row;
        mov(indices_, maxima);  // the group's next output row's first row of maxima
        mov(h_count_, group);
        place(output_row);
        mov(tap_index_, dst_);
        mov(window_, indices_);
        const std::int64_t full = plan_.out_width / unroll, rest = plan_.out_width % unroll;
        if (full > 0) {
            Label loop;
            mov(tap_count_, full);
            place(loop);
            merge_outputs(unroll);
            add(window_, static_cast<std::int32_t>(unroll * pixel));
            add_imm(dst_, wrap_mul(unroll, plan_.dst_out_stride_w));
            dec(tap_count_);
            jnz(loop, T_NEAR);
        }
        if (rest > 0) merge_outputs(static_cast<int>(rest));
        mov(dst_, tap_index_);
        add(dst_, ptr[rsp + slot_dst_row_step]);
        add(indices_, static_cast<std::int32_t>(sep.row_step * maxima_bytes));
        dec(h_count_);
        jnz(output_row, T_NEAR);
    }

    next_separable_group(group_loop, done);
}

template void WindowEmitter<Avx512Ops>::emit_separable_pixels(Label&, Label&);
template void WindowEmitter<Avx2Ops>::emit_separable_pixels(Label&, Label&);

}  // namespace pooljit::jit
