// Separable rows (KernelPlan::separable): planar 2-D calls without indices whose windows along h share input
// rows. Per pass over a group of output rows, each input row the group reads is converted once into a padded
// row of compare lanes (the empty value, the max's identity, on both sides), the maxima of every output's
// width taps are taken from it with plain loads (no border items, no gathers) into a buffer of row maxima, and
// each output row merges its taps_h buffered rows in row order. Rows first, each merge keeping the earlier on
// ties (vmax keeps its second operand), then the rows in order: the window's first maximum in scan order (kh,
// kw), as the rings. Float input is watched for NaN while it is converted; a group that saw one sends the
// whole call to the row code, which applies the NaN policy (rows already stored are stored again, the same).
#include "jit/window_emitter.hpp"
#include "jit/vec_avx2.hpp"
#include "jit/vec_avx512.hpp"

#include <algorithm>
#include <vector>

namespace pooljit::jit {

template <typename Ops>
std::int64_t WindowEmitter<Ops>::separable_buffer_bytes() const {
    const SeparableRows& sep = plan_.separable;
    if (!sep.enabled()) return 0;
    const std::int64_t rows = sep.group_rows + sep.window_rows - 1;
    return sep.row_lanes * lane_bytes(plan_.compare) + rows * sep.maxima_vectors * Ops::vector_bytes;
}

template <typename Ops>
int WindowEmitter<Ops>::frame_size() const {
    if (!plan_.separable.enabled()) return frame_bytes;
    // The slots, the buffers and room to align them to a cache line; a multiple of 16 plus 8 keeps rsp
    // 16-byte aligned after the six pushes.
    const std::int64_t bytes = separable_area + separable_buffer_bytes() + 64;
    return static_cast<int>((bytes + 15) / 16 * 16 + 8);
}

// Accumulators for separable rows: the plan's, then registers no role of this plan takes (the rows need no
// index, raw or ring registers), up to 8 maxima in flight.
template <typename Ops>
std::vector<int> WindowEmitter<Ops>::separable_accumulators() const {
    std::vector<int> accs;
    for (int v = 0; v < plan_.vectors_per_block; ++v) accs.push_back(regs_.acc[v]);
    for (int r = regs_.used; r < Ops::caps.vector_registers && accs.size() < 8; ++r) accs.push_back(r);
    return accs;
}

template <typename Ops>
void WindowEmitter<Ops>::emit_separable(Label& other_calls, Label& done) {
    const SeparableRows& sep = plan_.separable;
    if (nxc_ || plan_.has_indices || f16() || plan_.spatial_rank != 2 || plan_.stride_w > 2)
        throw Error("jit: separable rows are planar 2-D values of at most stride 2 along the width");
    const std::int64_t lb = lane_bytes(plan_.compare), L = plan_.lanes, vb = Ops::vector_bytes;
    if (L * lb != vb) throw Error("jit: separable rows fill whole registers with compare lanes");
    const std::int64_t maxima_bytes = sep.maxima_vectors * vb;
    const std::vector<int> accs = separable_accumulators();
    const int V = static_cast<int>(accs.size());
    const bool watch = plan_.is_float;
    const Vmm fresh = vec(regs_.fresh), empty = vec(regs_.empty_value);

    // Registers: row_src_ the input row being converted; dst_ the output row; tap_ptr_ the padded row;
    // window_index_ the buffer of row maxima; d_ptr_ rows left in the call; h_index_ rows of this group;
    // h_count_, tap_count_ and item_count_ loop counters; window_, h_ptr_ and indices_ moving pointers.
    const Reg64 &row = tap_ptr_, &maxima = window_index_, &rows_left = d_ptr_, &group = h_index_;

    // Calls the buffer serves: real taps along h, and rows one tap stride apart (or one row).
    mov(scratch_, ptr[rsp + slot_taps_h]);
    test(scratch_, scratch_);
    jz(other_calls, T_NEAR);
    Label one_row;
    mov(scratch_, ptr[rsp + slot_rows]);
    cmp(scratch_, 1);
    je(one_row, T_NEAR);
    mov(scratch_, ptr[rsp + slot_src_row_step]);
    mov(big_offset_, plan_.src_tap_stride_h);
    cmp(scratch_, big_offset_);
    jne(other_calls, T_NEAR);
    place(one_row);

    // The buffers, aligned to a cache line: the padded row, then the row maxima.
    lea(row, ptr[rsp + separable_area + 63]);
    and_(row, -64);
    lea(maxima, ptr[row + static_cast<std::int32_t>(sep.row_lanes * lb)]);
    // The padding before the input's first element never changes: stored once per call.
    for (std::int64_t lane = 0; lane < sep.pad_lanes; lane += L)
        vmovups(ptr[row + static_cast<std::int32_t>(lane * lb)], empty);

    mov(rows_left, ptr[rsp + slot_rows]);
    mov(row_src_, ptr[rsp + slot_row_src]);
    mov(dst_, ptr[rsp + slot_row_dst]);
    if (watch) ops_.begin_nan_watch(vec(regs_.plane_sum));

    Label group_loop;
    place(group_loop);
    mov(group, sep.group_rows);
    cmp(rows_left, group);
    cmovl(group, rows_left);

    // Input rows of the group: group + taps_h - 1 of them, each converted and reduced along the width.
    {
        Label input_row;
        mov(h_count_, group);
        add(h_count_, ptr[rsp + slot_taps_h]);
        dec(h_count_);
        mov(indices_, maxima);  // the next row of maxima
        place(input_row);
        // Convert: whole vectors, then the partial one; each noted for NaN.
        const std::int64_t full = plan_.in_width / L, rest = plan_.in_width % L;
        const auto convert = [&](std::int64_t count_valid, const Address& from, const Address& to) {
            ops_.load_value(fresh, from, static_cast<int>(count_valid));
            if (watch) ops_.note_nan(vec(regs_.plane_sum), fresh);
            vmovups(to, fresh);
        };
        mov(window_, row_src_);
        lea(h_ptr_, ptr[row + static_cast<std::int32_t>(sep.pad_lanes * lb)]);
        if (full > 0) {
            Label convert_loop;
            mov(tap_count_, full);
            place(convert_loop);
            convert(L, ptr[window_], ptr[h_ptr_]);
            add(window_, static_cast<std::int32_t>(L * elem()));
            add(h_ptr_, static_cast<std::int32_t>(vb));
            dec(tap_count_);
            jnz(convert_loop, T_NEAR);
        }
        if (rest > 0) convert(rest, ptr[window_], ptr[h_ptr_]);
        // The padding after the input's last element: over the partial vector's other lanes, to the lanes the
        // taps read (row_lanes less its vector of slack, which each store may reach into).
        for (std::int64_t lane = sep.pad_lanes + plan_.in_width; lane < sep.row_lanes - L; lane += L)
            vmovups(ptr[row + static_cast<std::int32_t>(lane * lb)], empty);

        // The maxima of each output's width taps, V vectors at a time.
        const auto reduce_block = [&](int vectors) {
            for (int v = 0; v < vectors; ++v) vmovaps(vec(accs[static_cast<std::size_t>(v)]), empty);
            for (std::int64_t t = 0; t < plan_.kernel_w; ++t)
                for (int v = 0; v < vectors; ++v) {
                    const std::int64_t lane = std::int64_t{v} * L * plan_.stride_w + t * plan_.dilation_w;
                    const auto offset = static_cast<std::int32_t>(lane * lb);
                    if (plan_.stride_w == 1) {
                        vmovups(fresh, ptr[window_ + offset]);
                    } else {
                        vmovups(vec(regs_.scratch), ptr[window_ + offset]);
                        vmovups(vec(regs_.pair_hi), ptr[window_ + offset + static_cast<std::int32_t>(vb)]);
                        ops_.deinterleave_even(fresh, vec(regs_.scratch), vec(regs_.pair_hi));
                    }
                    ops_.max_fast(vec(accs[static_cast<std::size_t>(v)]), fresh);
                }
            for (int v = 0; v < vectors; ++v)
                vmovups(ptr[h_ptr_ + static_cast<std::int32_t>(v * vb)], vec(accs[static_cast<std::size_t>(v)]));
        };
        mov(window_, row);
        mov(h_ptr_, indices_);
        const std::int64_t blocks = sep.maxima_vectors / V, tail = sep.maxima_vectors % V;
        if (blocks > 0) {
            Label block_loop;
            mov(tap_count_, blocks);
            place(block_loop);
            reduce_block(V);
            add(window_, static_cast<std::int32_t>(V * L * plan_.stride_w * lb));
            add(h_ptr_, static_cast<std::int32_t>(V * vb));
            dec(tap_count_);
            jnz(block_loop, T_NEAR);
        }
        if (tail > 0) reduce_block(static_cast<int>(tail));

        add(indices_, static_cast<std::int32_t>(maxima_bytes));
        add_imm(row_src_, plan_.src_tap_stride_h);
        dec(h_count_);
        jnz(input_row, T_NEAR);
    }
    if (watch) {
        const Vmm sum = vec(regs_.plane_sum);
        ops_.jump_if_nan_seen(&sum, 1, other_calls);
    }

    // Output rows of the group: row i merges maxima rows i .. i + taps_h - 1, in order.
    {
        Label output_row;
        mov(h_ptr_, maxima);  // the group's next output row's first row of maxima
        mov(item_count_, group);
        place(output_row);
        const auto merge_block = [&](int vectors, std::int64_t first_vector) {
            const auto column = static_cast<std::int32_t>(first_vector * vb);
            for (int v = 0; v < vectors; ++v)
                vmovups(vec(accs[static_cast<std::size_t>(v)]), ptr[h_ptr_ + column + static_cast<std::int32_t>(v * vb)]);
            Label merge_loop, merged;
            mov(tap_count_, ptr[rsp + slot_taps_h]);
            dec(tap_count_);
            jz(merged, T_NEAR);
            lea(window_, ptr[h_ptr_ + column]);
            place(merge_loop);
            add(window_, static_cast<std::int32_t>(maxima_bytes));
            for (int v = 0; v < vectors; ++v) {
                vmovups(fresh, ptr[window_ + static_cast<std::int32_t>(v * vb)]);
                ops_.max_fast(vec(accs[static_cast<std::size_t>(v)]), fresh);
            }
            dec(tap_count_);
            jnz(merge_loop, T_NEAR);
            place(merged);
            for (int v = 0; v < vectors; ++v) {
                const std::int64_t first_lane = (first_vector + v) * L;
                const int valid_lanes = static_cast<int>(std::min<std::int64_t>(L, plan_.out_width - first_lane));
                ops_.store_value(ptr[dst_ + static_cast<std::int32_t>(first_lane * elem())],
                                 vec(accs[static_cast<std::size_t>(v)]), vec(regs_.scratch), valid_lanes);
            }
        };
        // Straight code for the row's vectors, V at a time (a row of maxima is at most the buffer).
        for (std::int64_t first = 0; first < sep.maxima_vectors; first += V)
            merge_block(static_cast<int>(std::min<std::int64_t>(V, sep.maxima_vectors - first)), first);
        add(dst_, ptr[rsp + slot_dst_row_step]);
        add(h_ptr_, static_cast<std::int32_t>(maxima_bytes));
        dec(item_count_);
        jnz(output_row, T_NEAR);
    }

    // The next group starts at the input row after this group's first `group` rows.
    sub(rows_left, group);
    jz(done, T_NEAR);
    mov(scratch_, ptr[rsp + slot_taps_h]);
    dec(scratch_);
    mul_imm(scratch_, plan_.src_tap_stride_h);
    sub(row_src_, scratch_);
    jmp(group_loop, T_NEAR);
}

template std::int64_t WindowEmitter<Avx512Ops>::separable_buffer_bytes() const;
template int WindowEmitter<Avx512Ops>::frame_size() const;
template std::vector<int> WindowEmitter<Avx512Ops>::separable_accumulators() const;
template void WindowEmitter<Avx512Ops>::emit_separable(Label&, Label&);
template std::int64_t WindowEmitter<Avx2Ops>::separable_buffer_bytes() const;
template int WindowEmitter<Avx2Ops>::frame_size() const;
template std::vector<int> WindowEmitter<Avx2Ops>::separable_accumulators() const;
template void WindowEmitter<Avx2Ops>::emit_separable(Label&, Label&);

}  // namespace pooljit::jit
