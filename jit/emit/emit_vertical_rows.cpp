// Vertical rows (KernelPlan::vertical_rows): channels-last integer rows whose pixels end inside a vector. Each
// output row first merges its window's real input rows (the call's taps_h of them, a tap stride apart from the
// row's source) into one row on the stack, flat over the row's bytes: whole vectors from the row's start, every
// row's load at the same offset, a partial last vector read back to end at the row's end. The row code then
// computes the output row from that stack row, which it reads as an input of one row (slot_taps_h is 1 for the
// call: begin_vertical_rows keeps the real count in slot_vertical_taps). Integers only: the rows merged first give
// the same maximum as the scan order (equal integers have equal bits).
//
// The stack row has a cache line of room on either side: the row code's reads of a partial vector may start
// before a pixel (a register read back to end at its last channel).
#include "jit/emit/window_emitter.hpp"
#include "jit/isa/vec_avx2.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <vector>

namespace pooljit::jit {

template <typename Ops>
int WindowEmitter<Ops>::vertical_rows_frame_bytes() const {
    // The slots, a line of room, up to a line to align the row, the row, a line of room; a multiple of 16 plus 8
    // keeps rsp 16-byte aligned after the six pushes.
    const std::int64_t bytes = separable_area + 64 + 63 + plan_.vertical_rows.row_bytes + 64;
    return static_cast<int>((bytes + 15) / 16 * 16 + 8);
}

// The call's real rows into slot_vertical_taps; the row code sees one (an empty window stays empty).
template <typename Ops>
void WindowEmitter<Ops>::begin_vertical_rows() {
    Label empty;
    mov(scratch_, ptr[rsp + slot_taps_h]);
    mov(ptr[rsp + slot_vertical_taps], scratch_);
    test(scratch_, scratch_);
    jz(empty, T_NEAR);
    mov(qword[rsp + slot_taps_h], 1);
    place(empty);
}

// The row at row_src_ merged with the window's later rows into the stack row; row_src_ then points at it.
template <typename Ops>
void WindowEmitter<Ops>::emit_vertical_rows() {
    const VerticalRows& vr = plan_.vertical_rows;
    if (!nxc_ || plan_.has_indices || plan_.is_float || !vr.enabled() || sweep_ != 1 ||
        block_lanes_ != plan_.channel_block || vr.row_bytes % elem() != 0 || vr.row_bytes < Ops::vector_bytes)
        throw Error("jit: vertical rows are channels-last integer rows without indices, one block of every channel a call");
    const std::int64_t vb = Ops::vector_bytes, lanes = vb / elem(), row_lanes = vr.row_bytes / elem();
    const std::int64_t full = row_lanes / lanes, tail = row_lanes % lanes;
    if (lanes != plan_.lanes) throw Error("jit: vertical rows merge a register of compare lanes as stored");
    std::vector<Vmm> accs;
    for (int v = 0; v < plan_.vectors_per_block; ++v) accs.push_back(vec(regs_.acc[v]));
    const Vmm fresh = vec(regs_.fresh);
    const auto row_start = [&](const Reg64& r) {
        lea(r, ptr[rsp + separable_area + 64 + 63]);
        and_(r, -64);
    };
    ops_.forget_mask();
    mov(window_, row_src_);
    row_start(h_ptr_);

    // `count` vectors from window_ + offset merged over the window's rows into h_ptr_ + offset: straight-line
    // rows where the window has all vr.taps of them, else a loop.
    const auto merge = [&](int count, std::int32_t offset) {
        const auto at_vector = [&](const Reg64& base, int u) { return ptr[base + offset + u * static_cast<std::int32_t>(vb)]; };
        const auto merge_row = [&] {
            for (int u = 0; u < count; ++u) ops_.max_fast_earlier(accs[static_cast<std::size_t>(u)], at_vector(tap_ptr_, u), fresh);
        };
        for (int u = 0; u < count; ++u) ops_.load_value(accs[static_cast<std::size_t>(u)], at_vector(window_, u), static_cast<int>(lanes));
        mov(tap_ptr_, window_);
        Label rows_loop, merged;
        mov(tap_count_, ptr[rsp + slot_vertical_taps]);
        if (vr.taps >= 2) {
            cmp(tap_count_, vr.taps);
            jne(rows_loop, T_NEAR);
            for (int t = 1; t < vr.taps; ++t) {
                add_imm(tap_ptr_, plan_.src_tap_stride_h);
                merge_row();
            }
            jmp(merged, T_NEAR);
        }
        place(rows_loop);
        dec(tap_count_);
        jz(merged, T_NEAR);
        add_imm(tap_ptr_, plan_.src_tap_stride_h);
        merge_row();
        jmp(rows_loop, T_NEAR);
        place(merged);
        for (int u = 0; u < count; ++u) vmovups(at_vector(h_ptr_, u), accs[static_cast<std::size_t>(u)]);
    };

    // Whole vectors, `unroll` a step, then the rest; a partial last vector is the row's last whole vector read
    // back from its end (the row holds one at least), its lanes before the end merged again to the same values.
    const int unroll = static_cast<int>(accs.size());
    const std::int64_t steps = full / unroll, rest = full % unroll;
    if (steps > 0) {
        Label step_loop;
        mov(item_count_, steps);
        place(step_loop);
        merge(unroll, 0);
        add(window_, static_cast<std::int32_t>(unroll * vb));
        add(h_ptr_, static_cast<std::int32_t>(unroll * vb));
        dec(item_count_);
        jnz(step_loop, T_NEAR);
    }
    if (rest > 0) {
        merge(static_cast<int>(rest), 0);
        add(window_, static_cast<std::int32_t>(rest * vb));
        add(h_ptr_, static_cast<std::int32_t>(rest * vb));
    }
    if (tail > 0) merge(1, static_cast<std::int32_t>(tail * elem() - vb));
    ops_.forget_mask();
    row_start(row_src_);
}

// For the two traits compile() picks; emit_window.cpp instantiates the rest of the class.
template int WindowEmitter<Avx512Ops>::vertical_rows_frame_bytes() const;
template void WindowEmitter<Avx512Ops>::begin_vertical_rows();
template void WindowEmitter<Avx512Ops>::emit_vertical_rows();
template int WindowEmitter<Avx2Ops>::vertical_rows_frame_bytes() const;
template void WindowEmitter<Avx2Ops>::begin_vertical_rows();
template void WindowEmitter<Avx2Ops>::emit_vertical_rows();

}  // namespace pooljit::jit
