// Row-maxima rings, planar (ncx fast rows of one item, windows that move one tap along h from a call's row to
// the next) and channels last (the column ring: each output column walked down a call's rows):
// a call of whole k-row windows keeps the maxima of each input row's width taps, per lane, in k x vectors
// registers. Each output row then computes one new input row's maxima and merges the k rows, instead of k rows
// of width taps. Rows first, then the rows' maxima in row order, each merge keeping the earlier value on ties,
// select the window's first maximum in scan order (kh, kw): the earliest row holding the maximum, and in it
// the earliest tap.
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

namespace pooljit::jit {

// The maxima of input row `row` of the current output row's windows (row_src_ is the window's first row), into
// ring row `row`: the fast code's item (lowest start, one max per tap, masked border lanes), for one row.
template <typename Ops>
void WindowEmitter<Ops>::ring_row_maxima(const Segment& seg, std::int64_t row) {
    const ItemShape s = shape_of(seg);
    const bool indices = plan_.has_indices;
    mov(window_, row_src_);
    add_imm(window_, wrap_add(wrap_mul(row, plan_.src_tap_stride_h), wrap_mul(seg.first_position, plan_.src_step_w)));
    if (indices) {
        // h_index_: the index of the row's first tap (lane 0's; the store adds each lane's offset).
        mov(h_index_, ptr[rsp + slot_index_base]);
        add_imm(h_index_, wrap_add(wrap_mul(row, plan_.index_tap_step_h), wrap_mul(seg.first_position, plan_.index_mult_w)));
        mov(tap_index_, h_index_);
    }
    init_lowest(s);
    for (std::int64_t t = 0; t < seg.taps; ++t) {
        if (indices && t > 0) {
            mov(tap_index_, h_index_);
            add_imm(tap_index_, wrap_mul(t, plan_.index_tap_step_w));
        }
        merge_tap(s, window_, wrap_mul(t, plan_.src_tap_stride_w), true, static_cast<int>(t));
    }
    for (int v = 0; v < vectors(s); ++v) {
        ops_.copy_vector(ring_reg(row, v), vec(regs_.acc[v]));
        if (indices) ops_.copy_vector(ring_index_reg(row, v), vec(regs_.idx[v]));
    }
}

// acc (and idx) <- the ring's rows merged in row order, each merge keeping the earlier on ties (a strict compare
// with indices; vmaxps keeps its second operand on equal values).
template <typename Ops>
void WindowEmitter<Ops>::merge_ring_rows(const ItemShape& s) {
    for (int v = 0; v < vectors(s); ++v) {
        ops_.copy_vector(vec(regs_.acc[v]), ring_reg(0, v));
        if (plan_.has_indices) ops_.copy_vector(vec(regs_.idx[v]), ring_index_reg(0, v));
        for (std::int64_t row = 1; row < plan_.ring_rows; ++row) {
            if (!plan_.has_indices) {
                ops_.max_fast(vec(regs_.acc[v]), ring_reg(row, v));
                continue;
            }
            ops_.compute_take_fast(ring_reg(row, v), vec(regs_.acc[v]));
            ops_.blend_take(vec(regs_.acc[v]), ring_reg(row, v));
            ops_.blend_take_index_from(vec(regs_.idx[v]), ring_index_reg(row, v));
        }
    }
}

// The ring one row on: row r takes row r + 1's maxima (and indices); the newest row is free for the next.
template <typename Ops>
void WindowEmitter<Ops>::shift_ring(const ItemShape& s) {
    for (std::int64_t row = 0; row + 1 < plan_.ring_rows; ++row)
        for (int v = 0; v < vectors(s); ++v) {
            ops_.copy_vector(ring_reg(row, v), ring_reg(row + 1, v));
            if (plan_.has_indices) ops_.copy_vector(ring_index_reg(row, v), ring_index_reg(row + 1, v));
        }
}

// Jumps to `other_calls` unless the call is one a ring serves: more than one row, every row's window whole
// along h (ring_rows taps), and the rows one tap stride apart.
template <typename Ops>
void WindowEmitter<Ops>::leave_unless_ring_call(Label& other_calls) {
    mov(scratch_, ptr[rsp + slot_taps_h]);
    cmp(scratch_, static_cast<std::int32_t>(plan_.ring_rows));
    jne(other_calls, T_NEAR);
    mov(scratch_, ptr[rsp + slot_rows]);
    cmp(scratch_, 1);
    je(other_calls, T_NEAR);
    mov(scratch_, ptr[rsp + slot_src_row_step]);
    mov(big_offset_, plan_.src_tap_stride_h);
    cmp(scratch_, big_offset_);
    jne(other_calls, T_NEAR);
}

// Calls whose rows all have whole windows along h, one tap stride apart, and more than one row take
// this loop; others go to `other_calls`. Float rows keep their NaN scan: a row holding a NaN runs the exact row
// code and leaves the ring stale, and the next fast row rebuilds it.
template <typename Ops>
void WindowEmitter<Ops>::emit_ring_rows(Label& other_calls, Label& done) {
    if constexpr (Ops::needs_vector_masks) {
        throw Error("jit: row-maxima rings need AVX-512's registers");
    } else {
        const std::int64_t k = plan_.ring_rows;
        const Segment& seg = plan_.fast_segments.empty() ? plan_.segments.front() : plan_.fast_segments.front();
        const ItemShape s = shape_of(seg);
        const bool indices = plan_.has_indices;
        if (regs_.ring < 0 || (indices && (plan_.index_lanes_64 || plan_.index_relative_to_window)))
            throw Error("jit: a row-maxima ring keeps indices in 32-bit lanes only");
        leave_unless_ring_call(other_calls);
        mov(qword[rsp + slot_ring_stale], 1);

        // A stale ring scans and computes the window's first k - 1 rows; a ring that holds them (scanned when
        // they came in) scans only the new row.
        Label row_loop, exact, row_done, ring_held, new_row;
        place(row_loop);
        mov(dst_, ptr[rsp + slot_row_dst]);
        mov(row_src_, ptr[rsp + slot_row_src]);
        if (indices) {
            mov(indices_, ptr[rsp + slot_row_indices]);
            mov(scratch_, ptr[rsp + slot_channel_index_base]);
            ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
        }
        prefetch_ahead();
        cmp(qword[rsp + slot_ring_stale], 0);
        je(ring_held, T_NEAR);
        if (plan_.scan_rows_for_nan) emit_nan_scan(exact);
        for (std::int64_t row = 0; row + 1 < k; ++row) ring_row_maxima(seg, row);
        mov(qword[rsp + slot_ring_stale], 0);
        jmp(new_row, T_NEAR);
        place(ring_held);
        if (plan_.scan_rows_for_nan) emit_nan_scan(exact, k - 1, 1);
        place(new_row);
        ring_row_maxima(seg, k - 1);
        merge_ring_rows(s);
        store_item(s);
        shift_ring(s);
        jmp(row_done, T_NEAR);

        if (plan_.scan_rows_for_nan) {
            place(exact);
            fast_row_ = false;
            emit_row();
            fast_row_ = true;
            mov(qword[rsp + slot_ring_stale], 1);
        }

        place(row_done);
        dec(qword[rsp + slot_rows]);
        jz(done, T_NEAR);
        step_row_slots();
        jmp(row_loop, T_NEAR);
    }
}

// The maxima of the width taps at h_ptr_ (one input row of a window, channels last, one output pixel of the
// call's channel block) into the ring's newest row; with indices, h_index_ is the row's first tap's index and
// each maximum's index goes beside it.
template <typename Ops>
void WindowEmitter<Ops>::column_row_maxima(const ItemShape& s, std::int64_t taps) {
    const std::int64_t newest = plan_.ring_rows - 1;
    if (plan_.has_indices) mov(tap_index_, h_index_);
    init_lowest(s);
    for (std::int64_t t = 0; t < taps; ++t) {
        if (plan_.has_indices && t > 0) {
            mov(tap_index_, h_index_);
            add_imm(tap_index_, wrap_mul(t, plan_.index_tap_step_w));
        }
        merge_tap(s, h_ptr_, wrap_mul(t, plan_.src_tap_stride_w), true, static_cast<int>(t));
    }
    for (int v = 0; v < vectors(s); ++v) {
        ops_.copy_vector(ring_reg(newest, v), vec(regs_.acc[v]));
        if (plan_.has_indices) ops_.copy_vector(ring_index_reg(newest, v), vec(regs_.idx[v]));
    }
}

// Column rings (channels last, the planar ring's order turned): a call of whole k-row windows on consecutive
// input rows walks each output column down the call's rows, keeping the maxima of the column window's k input
// rows in registers (with indices, each maximum's index beside it), so an output costs one new input row's
// width taps and k - 1 merges instead of k rows of taps. Rows first, then the rows' maxima in row order, ties
// keeping the earlier (a strict compare): the window's first maximum in scan order and its index, as the
// planar ring. Float calls scan all their input rows once; a call holding a NaN, of some outputs of its rows
// (a width range), or not of whole windows goes to the row code (`other_calls`).
template <typename Ops>
void WindowEmitter<Ops>::emit_column_ring(Label& other_calls, Label& done) {
    const std::int64_t k = plan_.ring_rows;
    const bool indices = plan_.has_indices;
    if (!nxc_ || regs_.ring < 0 || sweep_ != 1 || plan_.computed_windows ||
        (indices && (plan_.index_lanes_64 || plan_.index_relative_to_window)))
        throw Error("jit: a column ring serves one channel block, with indices in 32-bit lanes");
    leave_unless_ring_call(other_calls);
    if (plan_.width_ranges) {
        cmp(qword[rsp + slot_out_begin], 0);
        jne(other_calls, T_NEAR);
        mov(scratch_, ptr[rsp + slot_out_end]);
        mov(big_offset_, plan_.out_width);
        cmp(scratch_, big_offset_);
        jne(other_calls, T_NEAR);
    }
    mov(row_src_, ptr[rsp + slot_row_src]);
    if (plan_.scan_rows_for_nan) emit_nan_scan(other_calls, 0, scan_call_input_rows);
    if (indices) {
        // A call's channels are one block of one image: the channel part of its indices is the same in
        // every row.
        mov(scratch_, ptr[rsp + slot_channel_index_base]);
        ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
    }
    const std::int64_t index_bytes_per_output = plan_.indices_out_stride_w;
    for (const Segment& seg : plan_.segments) {
        // The ring's rows and the store keep the lanes where the loads put them (ItemShape::tail_reads_back).
        ItemShape s = single_output_shape();
        s.tail_reads_back = tail_reads_back(seg);
        // Per column, at the call's first row: d_ptr_, its output; window_, its window's first tap;
        // window_index_, that tap's spatial index; slot_column_indices, its index output.
        Label column, row;
        mov(d_ptr_, ptr[rsp + slot_row_dst]);
        add_imm(d_ptr_, wrap_mul(seg.out_begin, plan_.dst_out_stride_w));
        if (indices) {
            mov(scratch_, ptr[rsp + slot_row_indices]);
            add_imm(scratch_, wrap_mul(seg.out_begin, index_bytes_per_output));
            mov(ptr[rsp + slot_column_indices], scratch_);
        }
        if (seg.taps > 0) {
            mov(window_, row_src_);
            add_imm(window_, wrap_mul(seg.first_position, plan_.src_step_w));
            mov(window_index_, ptr[rsp + slot_index_base]);
            add_imm(window_index_, wrap_mul(seg.first_position, plan_.index_mult_w));
        }
        mov(item_count_, seg.repeat);
        place(column);
        mov(dst_, d_ptr_);
        if (indices) mov(indices_, ptr[rsp + slot_column_indices]);
        mov(h_ptr_, window_);
        mov(h_index_, window_index_);
        mov(h_count_, ptr[rsp + slot_rows]);
        const auto next_output_row = [&] {
            add(dst_, ptr[rsp + slot_dst_row_step]);
            if (indices) add(indices_, ptr[rsp + slot_indices_row_step]);
        };
        if (seg.taps == 0) {
            place(row);
            store_empty_item(s);
            next_output_row();
            dec(h_count_);
            jnz(row, T_NEAR);
        } else {
            // The window's first k - 1 rows go through the same loop, filling the ring without a store: one
            // copy of the row's taps in the code, whatever k.
            Label filling, shift;
            add_imm(h_count_, k - 1);
            mov(qword[rsp + slot_ring_fill], static_cast<std::int32_t>(k - 1));
            place(row);
            column_row_maxima(s, seg.taps);
            cmp(qword[rsp + slot_ring_fill], 0);
            jne(filling, T_NEAR);
            merge_ring_rows(s);
            store_item(s);
            next_output_row();
            jmp(shift, T_NEAR);
            place(filling);
            dec(qword[rsp + slot_ring_fill]);
            place(shift);
            shift_ring(s);
            add(h_ptr_, ptr[rsp + slot_src_row_step]);
            if (indices) add(h_index_, ptr[rsp + slot_index_base_row_step]);
            dec(h_count_);
            jnz(row, T_NEAR);
        }
        add_imm(d_ptr_, plan_.dst_out_stride_w);
        if (indices) {
            mov(scratch_, ptr[rsp + slot_column_indices]);
            add_imm(scratch_, index_bytes_per_output);
            mov(ptr[rsp + slot_column_indices], scratch_);
        }
        if (seg.taps > 0) {
            add_imm(window_, wrap_mul(seg.item_step, plan_.src_step_w));
            add_imm(window_index_, wrap_mul(seg.item_step, plan_.index_mult_w));
        }
        dec(item_count_);
        jnz(column, T_NEAR);
    }
    jmp(done, T_NEAR);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template void WindowEmitter<Avx512Ops>::merge_ring_rows(const ItemShape&);
template void WindowEmitter<Avx512Ops>::shift_ring(const ItemShape&);
template void WindowEmitter<Avx512Ops>::leave_unless_ring_call(Label&);
template void WindowEmitter<Avx512Ops>::ring_row_maxima(const Segment&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_ring_rows(Label&, Label&);
template void WindowEmitter<Avx2Ops>::merge_ring_rows(const ItemShape&);
template void WindowEmitter<Avx2Ops>::shift_ring(const ItemShape&);
template void WindowEmitter<Avx2Ops>::leave_unless_ring_call(Label&);
template void WindowEmitter<Avx2Ops>::ring_row_maxima(const Segment&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_ring_rows(Label&, Label&);
template void WindowEmitter<Avx512Ops>::column_row_maxima(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx512Ops>::emit_column_ring(Label&, Label&);
template void WindowEmitter<Avx2Ops>::column_row_maxima(const ItemShape&, std::int64_t);
template void WindowEmitter<Avx2Ops>::emit_column_ring(Label&, Label&);

}  // namespace pooljit::jit
