// The window emitter: a run of output rows per call (KernelArgs::rows), for both strategies. A lane is a channel
// (nxc), an output along the width (ncx), or a width tap of one window (ncx taps-as-lanes items); either way the
// code is the same loop nest over the plan's segments (or its computed windows):
// init each lane from the window's first real tap, merge every real tap (outer axes at run time, width taps
// unrolled or looped), store values and indices. Lanes whose elements are not adjacent in memory (ncx with a
// stride) are gathered through a stack area with exact-width moves, so nothing outside the tensors is read.
// This file holds that loop nest (rows, segments, an item's taps), the entries' data and compile(); the class
// and where its other parts live are in window_emitter.hpp.
#include "jit/emit/window_emitter.hpp"
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace pooljit::jit {

// One item: init, merge every real tap, store. taps < 0: the count is in slot_item_taps (computed windows).
// Float rows come in two copies: the fast one, for rows whose input holds no NaN (one max or one ordered
// compare per tap), and the exact one, which applies the NaN policy (two dependent compares per tap).
template <typename Ops>
void WindowEmitter<Ops>::emit_item(const ItemShape& s, std::int64_t taps) {
    if (s.whole_plane) {
        emit_whole_plane(s);
        return;
    }
    emit_window_taps(s, s.taps_as_lanes ? 1 : taps, !exact_row());
    store_item(s);
}

template <typename Ops>
void WindowEmitter<Ops>::emit_window_taps(const ItemShape& s, std::int64_t taps, bool fast) {
    // Tap indices count from the window's first tap when the plan says so, else from the plane's start.
    if (plan_.index_relative_to_window) xor_(tap_index_, tap_index_);
    else mov(tap_index_, window_index_);
    if (s.masked != nullptr && !(fast && plan_.unroll_width_taps))
        throw Error("jit: a masked item needs the fast path with unrolled width taps");
    if (s.taps_as_lanes && (!fast || plan_.index_relative_to_window ||
                            s.lanes > plan_.lanes || (!plan_.taps_as_lanes_ranked && plan_.lanes != register_lanes())))
        throw Error("jit: a taps-as-lanes item needs the fast path, spatial indices and a window of at most one vector");
    if (fast) init_lowest(s);
    else init_from_first_tap(s, window_);

    // A masked item's tap masks are the same on every pass of the outer loops: loaded once, before them.
    if constexpr (!Ops::needs_vector_masks) {
        if (s.masked != nullptr) {
            std::vector<std::uint64_t> masks;
            for (int t = 0; t < s.masked->taps; ++t)
                for (int v = 0; v < vectors(s); ++v) {
                    const std::uint64_t bits = lane_bits(s, v, t);
                    const bool whole_register = bits == (std::uint64_t{1} << register_lanes()) - 1;
                    if (bits != 0 && !whole_register && std::find(masks.begin(), masks.end(), bits) == masks.end())
                        masks.push_back(bits);
                }
            ops_.pin_masks(masks);
        }
    }
    // Outer axes loop at run time (their real taps vary by row); an axis the problem lacks has no loop. Fast
    // items of rows whose windows hold the plan's unrolled outer taps merge them in straight-line code instead.
    const bool d_axis = plan_.spatial_rank >= 3, h_axis = plan_.spatial_rank >= 2;
    const bool unrolled_width = taps >= 0 && (plan_.unroll_width_taps || s.taps_as_lanes);
    Label d_loop, h_loop, outer_loops, window_done;
    if (fast && h_axis && plan_.unrolled_taps_h > 0 && unrolled_width) {
        cmp(qword[rsp + slot_taps_h], static_cast<std::int32_t>(plan_.unrolled_taps_h));
        jne(outer_loops, T_NEAR);
        if (d_axis) {
            cmp(qword[rsp + slot_taps_d], static_cast<std::int32_t>(plan_.unrolled_taps_d));
            jne(outer_loops, T_NEAR);
        }
        merge_unrolled_window(s, taps, fast);
        jmp(window_done, T_NEAR);
        place(outer_loops);
    }
    mov(d_ptr_, window_);
    mov(ptr[rsp + slot_d_index], tap_index_);
    start_outer_d_count();
    place(d_loop);
    {
        mov(h_ptr_, d_ptr_);
        mov(h_index_, ptr[rsp + slot_d_index]);
        if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
        place(h_loop);
        {
            if (merges_row_in_chains(s, taps, fast)) {
                merge_row_in_chains(s, taps, false);
            } else if (taps >= 0 && (plan_.unroll_width_taps || s.taps_as_lanes)) {
                for (std::int64_t t = 0; t < taps; ++t) {
                    if (t + 1 < taps && merges_tap_pairs(s, fast)) {
                        merge_tap_pair(s, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), static_cast<int>(t));
                        ++t;
                        continue;
                    }
                    mov(tap_index_, h_index_);
                    add_imm(tap_index_, wrap_mul(t, plan_.index_tap_step_w));
                    merge_tap(s, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), fast, static_cast<int>(t));
                }
            } else {
                Label w_loop;
                mov(tap_ptr_, h_ptr_);
                mov(tap_index_, h_index_);
                if (taps >= 0) mov(tap_count_, taps);
                else mov(tap_count_, ptr[rsp + slot_item_taps]);
                place(w_loop);
                merge_tap(s, tap_ptr_, 0, fast);
                add_imm(tap_ptr_, plan_.src_tap_stride_w);
                add_imm(tap_index_, plan_.index_tap_step_w);
                dec(tap_count_);
                jnz(w_loop, T_NEAR);
            }
            if (h_axis) {
                add_imm(h_ptr_, plan_.src_tap_stride_h);
                add_imm(h_index_, plan_.index_tap_step_h);
                dec(h_count_);
                jnz(h_loop, T_NEAR);
            }
        }
        if (d_axis) {
            add_imm(d_ptr_, plan_.src_tap_stride_d);
            mov(scratch_, ptr[rsp + slot_d_index]);
            add_imm(scratch_, plan_.index_tap_step_d);
            mov(ptr[rsp + slot_d_index], scratch_);
            dec(qword[rsp + slot_d_count]);
            jnz(d_loop, T_NEAR);
        }
    }
    place(window_done);
    if constexpr (!Ops::needs_vector_masks) ops_.unpin_masks();
}

// Fast plain items of plans with row_chains: a kernel row's unrolled width taps in two chains of maxima.
template <typename Ops>
bool WindowEmitter<Ops>::merges_row_in_chains(const ItemShape& s, std::int64_t taps, bool fast) const {
    return plan_.row_chains > 1 && fast && taps >= 2 && plan_.unroll_width_taps && !plan_.has_indices &&
           !raw_bits() && !s.taps_as_lanes && !s.whole_plane && s.masked == nullptr && !merges_tap_pairs(s, fast);
}

// The row's taps [0, half) into chain 0 and [half, taps) into chain 1, each started by its first tap's load
// (the watch adding every load, as merge_tap does), then chain 1 into chain 0 and chain 0 into the accumulator:
// max_fast keeps its first operand on ties, so each merge keeps the earlier taps' maximum unless a later one is
// greater, and the row's maximum is the first in scan order (KernelPlan::row_chains).
template <typename Ops>
void WindowEmitter<Ops>::merge_row_in_chains(const ItemShape& s, std::int64_t taps, bool first_row) {
    const std::int64_t half = (taps + 1) / 2;
    for (std::int64_t t = 0; t < taps; ++t) {
        const int chain = t < half ? 0 : 1;
        const bool starts = t == 0 || t == half;
        for (int v = 0; v < vectors(s); ++v) {
            const Vmm target = vec(regs_.row_chain[chain * max_vectors + v]);
            const Vmm loaded = starts ? target : vec(regs_.fresh);
            load_item_vector(s, v, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), loaded, false, -1, static_cast<int>(t));
            if (plan_.watch_rows_for_nan && tap_watched(static_cast<int>(t))) ops_.note_nan(vec(next_watch(v)), loaded);
            if (!starts) ops_.max_fast(target, loaded);
        }
    }
    for (int v = 0; v < vectors(s); ++v) {
        ops_.max_fast(vec(regs_.row_chain[v]), vec(regs_.row_chain[max_vectors + v]));
        // A window's first row in straight-line code: the accumulator holds the lowest value (or the first tap),
        // which the row's maximum replaces or ties.
        if (first_row) vmovaps(vec(regs_.acc[v]), vec(regs_.row_chain[v]));
        else ops_.max_fast(vec(regs_.acc[v]), vec(regs_.row_chain[v]));
    }
}

// Every tap of a window that holds unrolled_taps_d x unrolled_taps_h outer rows of `taps` width taps, in scan
// order from window_ (its first tap; tap_index_ that tap's index): h_ptr_ and h_index_ walk the rows, one
// add each between rows, so no displacement grows with the row stride.
template <typename Ops>
void WindowEmitter<Ops>::merge_unrolled_window(const ItemShape& s, std::int64_t taps, bool fast) {
    const std::int64_t rows_d = plan_.spatial_rank >= 3 ? plan_.unrolled_taps_d : 1, rows_h = plan_.unrolled_taps_h;
    const bool indices = plan_.has_indices;
    mov(h_ptr_, window_);
    if (indices) mov(h_index_, tap_index_);
    // Prefetches in items (plan.prefetch_in_items: no other output row reads these rows): the item's stretch of
    // each row, up to the next item's first tap, prefetch_distance ahead.
    const std::int64_t stretch_bytes = s.lanes * s.lane_step * elem();
    for (std::int64_t d = 0; d < rows_d; ++d) {
        for (std::int64_t h = 0; h < rows_h; ++h) {
            if (fast && spread_prefetch())
                for (std::int64_t offset = 0; offset < stretch_bytes; offset += 64)
                    prefetcht0(ptr[h_ptr_ + static_cast<std::int32_t>(plan_.prefetch_distance + offset)]);
            // Full windows (plan.watch_shared_rows_h is 0 otherwise): row h is the kernel's row h.
            window_row_h_ = fast && rows_d == 1 ? h : -1;
            const bool chains = merges_row_in_chains(s, taps, fast);
            if (chains) merge_row_in_chains(s, taps, d == 0 && h == 0);
            for (std::int64_t t = 0; t < (chains ? 0 : taps); ++t) {
                // The window's first tap: every lane's first real tap in a plain item (the lowest value it would
                // be merged with changes nothing: the first maximum is kept on ties either way).
                first_tap_moves_ = fast && d == 0 && h == 0 && t == 0 && !indices && !raw_bits() && s.masked == nullptr &&
                                   !s.taps_as_lanes;
                if (t + 1 < taps && merges_tap_pairs(s, fast)) {
                    merge_tap_pair(s, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), static_cast<int>(t));
                    ++t;
                    continue;
                }
                if (indices) {
                    mov(tap_index_, h_index_);
                    add_imm(tap_index_, wrap_mul(t, plan_.index_tap_step_w));
                }
                merge_tap(s, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), fast, static_cast<int>(t));
            }
            first_tap_moves_ = false;
            window_row_h_ = -1;
            if (h + 1 == rows_h && d + 1 == rows_d) break;
            // The next row: one tap on along h, or the first row of the next tap along d.
            const bool next_plane = h + 1 == rows_h;
            const std::int64_t back = wrap_mul(rows_h - 1, plan_.src_tap_stride_h);
            add_imm(h_ptr_, next_plane ? wrap_add(plan_.src_tap_stride_d, -back) : plan_.src_tap_stride_h);
            if (indices)
                add_imm(h_index_, next_plane ? wrap_add(plan_.index_tap_step_d, -wrap_mul(rows_h - 1, plan_.index_tap_step_h))
                                             : plan_.index_tap_step_h);
        }
    }
}

// The call's first row has no row before it in the call: its shared rows (plan.watch_shared_rows_h) go into
// the watch here, every position of each (full windows only: other calls loop over their rows, watching all).
template <typename Ops>
void WindowEmitter<Ops>::watch_first_row_shared_rows() {
    Label partial_windows;
    cmp(qword[rsp + slot_taps_h], static_cast<std::int32_t>(plan_.unrolled_taps_h));
    jne(partial_windows, T_NEAR);
    const ItemShape s = single_output_shape();
    mov(row_src_, ptr[rsp + slot_row_src]);
    for (std::int64_t h = 0; h < plan_.watch_shared_rows_h; ++h) {
        Label position;
        mov(window_, row_src_);
        add_imm(window_, wrap_mul(h, plan_.src_tap_stride_h));
        mov(tap_count_, plan_.in_width);
        place(position);
        for_each_channel_block([&] {
            for (int v = 0; v < vectors(s); ++v) {
                load_item_vector(s, v, window_, 0, vec(regs_.fresh), false);
                ops_.note_nan(vec(next_watch(v)), vec(regs_.fresh));
            }
        });
        add_imm(window_, plan_.src_step_w);
        dec(tap_count_);
        jnz(position, T_NEAR);
    }
    place(partial_windows);
}

template <typename Ops>
void WindowEmitter<Ops>::emit_segment(const Segment& seg) {
    if (plan_.width_ranges) {
        emit_segment_in_range(seg);
        return;
    }
    ItemShape s = shape_of(seg);
    s.tail_reads_back = tail_reads_back(seg);
    if (seg.taps == 0) {
        repeat(seg.repeat, [&] {
            for_each_channel_block([&] { store_empty_item(s); });
            advance_outputs(s.outputs);
        });
        return;
    }
    mov(window_, row_src_);
    add_imm(window_, wrap_mul(seg.first_position, plan_.src_step_w));
    mov(window_index_, ptr[rsp + slot_index_base]);
    add_imm(window_index_, wrap_mul(seg.first_position, plan_.index_mult_w));
    const auto item = [&] {
        emit_swept_item(s, seg.taps);
        advance_outputs(s.outputs);
        add_imm(window_, wrap_mul(seg.item_step, plan_.src_step_w));
        add_imm(window_index_, wrap_mul(seg.item_step, plan_.index_mult_w));
    };
    // With a shared watch, the row's first item watches every width tap: no output before it loaded any.
    item_first_tap_w_ = plan_.watch_shared_taps_w > 0 ? first_width_tap(seg) : 0;
    watch_every_width_tap_ = true;
    if (row_first_item_ && plan_.watch_shared_taps_w > 0 && !exact_row()) {
        item();
        watch_every_width_tap_ = false;
        repeat(seg.repeat - 1, item);
    } else {
        watch_every_width_tap_ = row_first_item_;
        repeat(seg.repeat, item);
    }
    watch_every_width_tap_ = true;
    row_first_item_ = false;
}

// The segment's items among the call's outputs [out_begin, out_end) (channels last: item k is output
// seg.out_begin + k), from the first of them on; nothing when the two do not meet. The pointers are set from
// the row's bases, so segments need not follow each other.
template <typename Ops>
void WindowEmitter<Ops>::emit_segment_in_range(const Segment& seg) {
    if (!nxc_) throw Error("jit: width ranges are for channels-last rows");
    ItemShape s = shape_of(seg);
    s.tail_reads_back = tail_reads_back(seg);
    Label loop, skip;
    const Reg64& first = tap_ptr_;
    mov(first, ptr[rsp + slot_out_begin]);
    mov(scratch_, seg.out_begin);
    cmp(first, scratch_);
    cmovl(first, scratch_);
    mov(item_count_, ptr[rsp + slot_out_end]);
    mov(scratch_, seg.out_begin + seg.repeat);
    cmp(item_count_, scratch_);
    cmovg(item_count_, scratch_);
    sub(item_count_, first);
    jle(skip, T_NEAR);
    mov(dst_, first);
    mul_imm(dst_, plan_.dst_out_stride_w);
    add(dst_, ptr[rsp + slot_row_dst]);
    if (plan_.has_indices) {
        mov(indices_, first);
        mul_imm(indices_, plan_.indices_out_stride_w);
        add(indices_, ptr[rsp + slot_row_indices]);
    }
    if (seg.taps > 0) {
        // The first item's window starts item_step positions on per item skipped.
        add_imm(first, -seg.out_begin);
        mul_imm(first, seg.item_step);
        add_imm(first, seg.first_position);
        mov(window_index_, first);
        mul_imm(window_index_, plan_.index_mult_w);
        add(window_index_, ptr[rsp + slot_index_base]);
        mul_imm(first, plan_.src_step_w);
        lea(window_, ptr[row_src_ + first]);
    }
    const auto item = [&] {
        emit_swept_item(s, seg.taps);
        advance_outputs(s.outputs);
        add_imm(window_, wrap_mul(seg.item_step, plan_.src_step_w));
        add_imm(window_index_, wrap_mul(seg.item_step, plan_.index_mult_w));
    };
    if (seg.taps > 0 && plan_.watch_shared_taps_w > 0 && !exact_row()) {
        // The call's first item of the segment: the output before it may lie outside the call's outputs.
        item_first_tap_w_ = first_width_tap(seg);
        item();
        dec(item_count_);
        jz(skip, T_NEAR);
        watch_every_width_tap_ = false;
    }
    place(loop);
    if (seg.taps == 0) {
        for_each_channel_block([&] { store_empty_item(s); });
        advance_outputs(s.outputs);
    } else {
        item();
    }
    dec(item_count_);
    jnz(loop, T_NEAR);
    place(skip);
    watch_every_width_tap_ = true;
}

template <typename Ops>
void WindowEmitter<Ops>::emit_row() {
    row_first_item_ = true;
    if (plan_.computed_windows) emit_computed_walk();
    else
        for (const Segment& seg : !exact_row() && !plan_.fast_segments.empty() ? plan_.fast_segments : plan_.segments)
            emit_segment(seg);
}

// Hints only: a prefetch past the end of the caller's tensor reads nothing and cannot fault.
template <typename Ops>
void WindowEmitter<Ops>::prefetch_ahead() {
    if (spread_prefetch()) return;
    for (std::int64_t offset = 0; offset < plan_.prefetch_bytes; offset += 64)
        prefetcht0(ptr[row_src_ + static_cast<std::int32_t>(plan_.prefetch_distance + offset)]);
}

template <typename Ops>
void WindowEmitter<Ops>::store_empty_row() {
    if (plan_.width_ranges) {
        Segment whole_row;
        whole_row.repeat = plan_.out_width;
        emit_segment_in_range(whole_row);
        return;
    }
    if (nxc_ || plan_.computed_windows) {
        const ItemShape s = single_output_shape();
        repeat(plan_.out_width, [&] {
            for_each_channel_block([&] { store_empty_item(s); });
            advance_outputs(s.outputs);
        });
        return;
    }
    for (const Segment& seg : plan_.segments)
        repeat(seg.repeat, [&] {
            store_empty_item(shape_of(seg));
            advance_outputs(seg.outputs_per_item);
        });
}

template <typename Ops>
void WindowEmitter<Ops>::load_constants() {
    broadcast_empty_value(ops_, vec(regs_.empty_value), lane_format(plan_));
    if (plan_.has_indices) ops_.broadcast_constant64(vec(regs_.minus_one), ~std::uint64_t{0});
}

template <typename Ops>
void WindowEmitter<Ops>::generate() {
    for (const Reg64& r : {rbx, rbp, r12, r13, r14, r15}) push(r);
    // Frames of separable buffers span many pages: each is touched from the top down as rsp passes it, so a
    // thread whose stack is too small faults on its guard page instead of writing past it.
    constexpr int page_bytes = 4096;
    int unprobed = frame_size();
    for (; unprobed > page_bytes; unprobed -= page_bytes) {
        sub(rsp, page_bytes);
        or_(dword[rsp], 0);
    }
    sub(rsp, unprobed);
    load_constants();
    for (const auto& [field, slot] : {std::pair{offsetof(KernelArgs, taps_h), slot_taps_h},
                                      std::pair{offsetof(KernelArgs, taps_d), slot_taps_d},
                                      std::pair{offsetof(KernelArgs, index_base), slot_index_base},
                                      std::pair{offsetof(KernelArgs, src), slot_row_src},
                                      std::pair{offsetof(KernelArgs, dst), slot_row_dst},
                                      std::pair{offsetof(KernelArgs, indices), slot_row_indices},
                                      std::pair{offsetof(KernelArgs, channel_index_base), slot_channel_index_base},
                                      std::pair{offsetof(KernelArgs, rows), slot_rows},
                                      std::pair{offsetof(KernelArgs, src_row_step), slot_src_row_step},
                                      std::pair{offsetof(KernelArgs, dst_row_step), slot_dst_row_step},
                                      std::pair{offsetof(KernelArgs, indices_row_step), slot_indices_row_step},
                                      std::pair{offsetof(KernelArgs, index_base_row_step), slot_index_base_row_step},
                                      std::pair{offsetof(KernelArgs, channel_index_base_row_step),
                                                slot_channel_index_base_row_step},
                                      std::pair{offsetof(KernelArgs, out_begin), slot_out_begin},
                                      std::pair{offsetof(KernelArgs, out_end), slot_out_end}}) {
        mov(scratch_, ptr[args_ + static_cast<std::int32_t>(field)]);
        mov(ptr[rsp + slot], scratch_);
    }
    if (plan_.vertical_rows.enabled()) begin_vertical_rows();
    if (sweep_ > 1) {
        // The blocks this call sweeps, and the bytes they span (each swept item steps back by those).
        mov(scratch_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, sweep_blocks))]);
        mov(ptr[rsp + slot_sweep_blocks], scratch_);
        for (const auto& [step, slot] : {std::pair{plan_.sweep_src_step, slot_sweep_bytes},
                                         std::pair{plan_.sweep_dst_step, slot_sweep_dst_bytes},
                                         std::pair{plan_.sweep_indices_step, slot_sweep_index_bytes}}) {
            if (slot == slot_sweep_index_bytes && !plan_.has_indices) continue;
            mov(scratch_, ptr[rsp + slot_sweep_blocks]);
            mul_imm(scratch_, step);
            mov(ptr[rsp + slot], scratch_);
        }
    }
    // The args pointer is not needed any more: rdi becomes the row's source base.

    Label row_loop, empty_row, row_done, done;
    if (byte_rows()) {
        emit_byte_rows(done);
    } else {
        emit_row_code(row_loop, empty_row, row_done, done);
    }

    place(done);
    add(rsp, frame_size());
    for (const Reg64& r : {r15, r14, r13, r12, rbp, rbx}) pop(r);
    vzeroupper();
    ret();

    emit_data();
}

// The reuse strategies' code (which leave other calls to the rows at row_loop) and the row code: each call's
// rows one at a time, to `done`.
template <typename Ops>
void WindowEmitter<Ops>::emit_row_code(Label& row_loop, Label& empty_row, Label& row_done, Label& done) {
    // Channels last, the tail block's calls run the row code (the buffers hold whole blocks), unless the plan
    // takes its partial vector into them (separable.partial_tail).
    const bool separable_block =
        block_lanes_ == plan_.channel_block || (plan_.separable.partial_tail && block_lanes_ == plan_.channel_tail);
    if (plan_.separable.enabled() && nxc_ && separable_block) {
        if (plan_.has_indices) emit_separable_pixel_indices(row_loop, done);
        else emit_separable_pixels(row_loop, done);
    }
    else if (separable_row_indices()) emit_separable_indices(row_loop, done);
    else if (plan_.separable.enabled() && !nxc_) emit_separable(row_loop, done);
    else if (plan_.ring_rows > 0 && nxc_) emit_column_ring(row_loop, done);
    else if (plan_.ring_rows > 0) emit_ring_rows(row_loop, done);
    // Shared watch rows: the sums run through the call, from the first row's shared rows.
    Vmm watch[max_vectors * max_watch_chains];
    int watches = 0;
    const bool watch_through_call = plan_.watch_rows_for_nan && plan_.watch_shared_rows_h > 0;
    if (plan_.watch_rows_for_nan) {
        for (int c = 0; c < plan_.watch_chains; ++c)
            for (int v = 0; v < plan_.vectors_per_block; ++v) watch[watches++] = vec(regs_.watch[c * max_vectors + v]);
    }
    if (watch_through_call) {
        for (int i = 0; i < watches; ++i) ops_.begin_nan_watch(watch[i]);
        watch_first_row_shared_rows();
    }
    place(row_loop);
    mov(dst_, ptr[rsp + slot_row_dst]);
    mov(indices_, ptr[rsp + slot_row_indices]);
    mov(row_src_, ptr[rsp + slot_row_src]);
    prefetch_ahead();
    if (plan_.has_indices) {
        mov(scratch_, ptr[rsp + slot_channel_index_base]);
        ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
    }
    mov(scratch_, ptr[rsp + slot_taps_h]);
    imul(scratch_, ptr[rsp + slot_taps_d]);
    test(scratch_, scratch_);
    jz(empty_row, T_NEAR);
    if (plan_.vertical_rows.enabled()) emit_vertical_rows();  // row_src_ becomes the merged row
    if (plan_.scan_rows_for_nan) {
        // NaN inputs are rare: one pass over the row's input decides which copy of the row code runs.
        Label exact_row;
        if (has_whole_plane(plan_)) nan_exit_ = &exact_row;
        else emit_nan_scan(exact_row);
        emit_row();
        nan_exit_ = nullptr;
        jmp(row_done, T_NEAR);
        place(exact_row);
        fast_row_ = false;
        emit_row();
        fast_row_ = true;
    } else if (plan_.watch_rows_for_nan) {
        // The fast copy watches what it loads; a row that loaded a NaN is computed again by the exact copy.
        // Through a call (shared rows), the first sum keeps the others' total, and after a NaN every later row
        // of the call runs the exact copy: it may have read that NaN in a row it did not watch.
        Label exact_row;
        if (!watch_through_call)
            for (int i = 0; i < watches; ++i) ops_.begin_nan_watch(watch[i]);
        emit_row();
        ops_.jump_if_nan_seen(watch, watches, exact_row);
        if (watch_through_call)
            for (int i = 1; i < watches; ++i) ops_.begin_nan_watch(watch[i]);
        jmp(row_done, T_NEAR);
        place(exact_row);
        mov(dst_, ptr[rsp + slot_row_dst]);  // the fast copy left them at the row's end
        mov(indices_, ptr[rsp + slot_row_indices]);
        fast_row_ = false;
        emit_row();
        fast_row_ = true;
        if (watch_through_call) ops_.mark_nan_seen(watch[0]);
    } else {
        emit_row();
    }
    jmp(row_done, T_NEAR);

    place(empty_row);
    store_empty_row();

    place(row_done);
    dec(qword[rsp + slot_rows]);
    jz(done, T_NEAR);
    step_row_slots();
    jmp(row_loop, T_NEAR);
}

template <typename Ops>
void WindowEmitter<Ops>::emit_data() {
    ops_.emit_data();
    // Per-lane index offsets: lane j is j * lane_step * lane_index_unit past lane 0.
    const std::int64_t entries = std::int64_t{plan_.vectors_per_block} * plan_.lanes + 8;
    for (auto& [lane_step, label] : lane_tables_) {
        align(64);
        place(label);
        for (std::int64_t j = 0; j < entries; ++j) {
            const std::int64_t value = wrap_mul(j, lane_step, plan_.lane_index_unit);
            if (plan_.wide_index_math) dq(static_cast<std::uint64_t>(value));
            else dd(static_cast<std::uint32_t>(value));
        }
    }
    if (separable_row_indices()) {
        align(64);
        place(separable_index_row_);
        for (const std::int32_t value : separable_index_row()) dd(static_cast<std::uint32_t>(value));
    }
}

// The two traits compile() picks: every member defined in this file and the header (the other emit_*.cpp
// instantiate the members they define).
template class WindowEmitter<Avx512Ops>;
template class WindowEmitter<Avx2Ops>;

namespace {

template <typename Ops>
class WindowKernel final : public CompiledKernel {
public:
    explicit WindowKernel(const KernelPlan& plan) : code_(emit(plan)) {}
    KernelFn full_block() const override { return code_.function<KernelFn>(0); }
    KernelFn tail_block() const override { return code_.entries() > 1 ? code_.function<KernelFn>(1) : nullptr; }
    std::size_t code_size() const override { return code_.code_size(); }
    std::vector<CodeRegion> code_regions() const override {
        std::vector<CodeRegion> regions{{"full", code_.entry(0), code_.entry_size(0)}};
        if (code_.entries() > 1) regions.push_back({"tail", code_.entry(1), code_.entry_size(1)});
        return regions;
    }

private:
    // Both entries emitted, then copied into one run of executable pages; the emitters (and their references
    // into the plan) are gone when the kernel exists.
    static ExecutableCode emit(const KernelPlan& plan) {
        const WindowEmitter<Ops> full(plan, plan.channel_block, plan.channel_sweep);
        if (plan.channel_tail == 0) return ExecutableCode{full.code()};
        const WindowEmitter<Ops> tail(plan, plan.channel_tail);
        return ExecutableCode{full.code(), tail.code()};
    }

    ExecutableCode code_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile(const KernelPlan& plan) {
    if (plan.flat_planes.enabled()) return compile_flat_planes(plan);
    if (plan.byte_bands.enabled()) return plan.isa == Isa::avx2 ? compile_byte_shuffle_bands(plan) : compile_byte_bands(plan);
    if (plan.blocked_pixels.enabled()) return compile_blocked_pixels(plan);
    if (plan.strategy == Strategy::ncx_planes) return compile_planes(plan);
    if (plan.byte_planes.enabled()) return compile_byte_planes(plan);
    switch (plan.isa) {
        case Isa::avx512: return std::make_unique<WindowKernel<Avx512Ops>>(plan);
        case Isa::avx2: return std::make_unique<WindowKernel<Avx2Ops>>(plan);
        case Isa::ref: break;
    }
    throw Error("jit: no emitter for isa " + std::string(to_string(plan.isa)));
}

}  // namespace pooljit::jit
