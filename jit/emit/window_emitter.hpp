// The window emitter's class: the registers and stack slots by role and the small helpers every part of it
// uses. Its larger members live in emit_*.cpp by what they emit (emit_window.cpp: the loop nest over rows,
// segments and taps; emit_item_lanes.cpp: loads, merges and stores of an item's lanes; emit_computed_walk.cpp;
// emit_nan_scan.cpp), each file explicitly instantiating what it defines for the two traits compile() picks.
// Internal to jit/.
#pragma once

#include "jit/isa/code_pages.hpp"
#include "jit/emit/kernel.hpp"
#include "jit/plan/registers.hpp"
#include "jit/isa/vec_trait.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace pooljit::jit {

__extension__ typedef __int128 i128;  // input positions near the 64-bit limits

inline bool fits_i32(std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

// What one item computes: `lanes` lanes (channels or outputs), the elements of neighbouring lanes `lane_step`
// positions apart in memory (1: one contiguous vector load).
struct ItemShape {
    std::int64_t lanes = 1;
    std::int64_t lane_step = 1;
    std::int64_t outputs = 1;  // outputs along the width the item covers (dst advances by this many)
    const Segment* masked = nullptr;  // a masked segment (of one item): taps load and merge in some lanes only
    bool taps_as_lanes = false;       // one output; lanes are its window's width taps, one load per input row
    bool whole_plane = false;         // one output; lanes are the whole plane's elements, `lanes` of them
    bool whole_register_loads = false;  // Segment::whole_register_loads
    bool element_before_later_loads = false;  // Segment::element_before_later_loads
    bool element_before_first_load = false;   // Segment::element_before_first_load
    bool element_after_first_load = false;    // Segment::element_after_first_load
    // Channels last (KernelPlan::tail_back_reads): the partial vector loads the whole register that ends at the
    // block's last channel, its lanes at the register's top; the bytes before it lie inside the input.
    bool tail_reads_back = false;
};

template <typename Ops>
class WindowEmitter : public Xbyak::CodeGenerator {
public:
    using Vmm = typename Ops::Vmm;

    // block_lanes: nxc, the channels of this entry's block (full or tail); ncx, unused (items carry lanes).
    // sweep: nxc, the blocks one call covers, looped inside each output pixel (1 for the tail entry).
    WindowEmitter(const KernelPlan& plan, std::int64_t block_lanes, std::int64_t sweep = 1)
        : CodeGenerator(4096, Xbyak::AutoGrow, &emit_allocator()), plan_(plan), nxc_(plan.strategy == Strategy::nxc_channels),
          block_lanes_(block_lanes), sweep_(nxc_ ? sweep : 1),
          regs_(plan, Ops::caps), ops_(*this, lane_format(plan), resources()) {
        if (plan.isa != Ops::caps.isa) throw Error("jit: a plan for " + std::string(to_string(plan.isa)) + " given to the " + to_string(Ops::caps.isa) + " emitter");
        if (regs_.used > Ops::caps.vector_registers)
            throw Error("jit: the plan needs " + std::to_string(regs_.used) + " vector registers of " +
                        std::to_string(Ops::caps.vector_registers));
        generate();
        ready();  // jumps resolved; the bytes are copied into executable pages (jit/code_pages.hpp)
    }

    // The finished, position-independent code of this entry.
    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Address = Xbyak::Address;
    using Label = Xbyak::Label;
    using Reg64 = Xbyak::Reg64;

    // General-purpose registers by role. rdi carries the KernelArgs pointer until the prologue has copied what
    // it needs; from then on it is the row's source base.
    const Reg64 args_ = rdi, row_src_ = rdi;
    const Reg64 big_offset_ = rsi;  // offsets beyond 32 bits, table addresses, 64-bit constants
    const Reg64 dst_ = rdx, indices_ = rcx;
    const Reg64 tap_ptr_ = r8, tap_count_ = r9, item_count_ = r10, window_ = r11, tap_index_ = rax;
    const Reg64 window_index_ = rbx, d_ptr_ = r12, h_ptr_ = r13, scratch_ = r14, h_count_ = r15, h_index_ = rbp;
    // Stack slots.
    static constexpr int slot_d_index = 0, slot_d_count = 8, slot_taps_h = 16, slot_taps_d = 24,
                         slot_index_base = 32, slot_walk_position = 40, slot_items_left = 48, slot_item_taps = 56,
                         slot_gather = 64, slot_saved_dst = 192, slot_rows = 200,
                         slot_row_src = 208, slot_row_dst = 216, slot_row_indices = 224, slot_channel_index_base = 232,
                         slot_src_row_step = 240, slot_dst_row_step = 248, slot_indices_row_step = 256,
                         slot_index_base_row_step = 264, slot_channel_index_base_row_step = 272, slot_sweep_left = 280,
                         slot_sweep_channel_base = 288, slot_ring_stale = 296, slot_out_begin = 304,
                         slot_out_end = 312, slot_scan_steps = 320, slot_ring_fill = 328, slot_column_indices = 336,
                         slot_passes_left = 344, slot_sweep_blocks = 352, slot_sweep_bytes = 360,
                         slot_sweep_index_bytes = 368, slot_sep_dst = 376, slot_sep_indices = 384,
                         slot_sep_index_base = 392, slot_sep_channel_base = 400, slot_sweep_dst_bytes = 408,
                         slot_sep_prefetch_indices = 416, slot_vertical_taps = 424, frame_bytes = 440;
    // A multiple of 16 plus 8: rsp 16-byte aligned after the return address and the six pushes, so the gather
    // area sits where its vectors do not split cache lines.
    static_assert(frame_bytes % 16 == 8);
    // Separable rows: their buffers start here (then aligned to a cache line); frame_size() covers them. Tap passes
    // with indices keep their slots there (the pass's first tap index, its row's, the buffer and its end, and the
    // pass's tap indices as 32-bit values), then their index lanes (tap_pass_buffer_bytes covers both).
    static constexpr int separable_area = frame_bytes;
    static constexpr int slot_pass_index = separable_area, slot_pass_row_index = separable_area + 8,
                         slot_pass_buffer = separable_area + 16, slot_pass_buffer_end = separable_area + 24,
                         slot_pass_tap_indices = separable_area + 32, tap_pass_slot_bytes = 64;

    TraitResources resources() const {
        TraitResources r;
        r.take = regs_.trait.take;
        r.lane_mask = regs_.trait.lane_mask;
        r.tail_mask = regs_.trait.tail_mask;
        r.tap_index = regs_.trait.tap_index;
        r.wide_mask = regs_.trait.wide_mask;
        r.scratch = scratch_;
        return r;
    }

    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(plan_.dtype)); }
    std::int64_t index_elem() const { return static_cast<std::int64_t>(size_of(plan_.index_dtype)); }
    bool f16() const { return plan_.dtype == DType::f16; }
    // f16 exact rows carry each lane's raw bits beside its compare value (a NaN's bits survive); fast rows hold
    // no NaN, so their f32 maxima convert back exactly at the store.
    bool raw_bits() const { return f16() && exact_row(); }
    static Vmm vec(int i) { return Vmm(i); }
    // Items at lane stride 2 merge their taps in the trait's pair order and store_item restores lane order, where
    // index lanes (if any) match the compare lanes one to one: 64-bit index lanes beside half vectors of 32-bit
    // lanes take their masks from the register's low lanes, which pair order would not hold.
    bool in_pair_order(const ItemShape& s) const {
        return s.lane_step == 2 && s.lanes > 1 && plan_.lanes == register_lanes() && !even_element_loads(s);
    }
    // Items at lane stride 2 of plans with even_element_loads load each vector's span once and widen its even
    // elements: in lane order, no deinterleave.
    bool even_element_loads(const ItemShape& s) const {
        return plan_.even_element_loads && s.lane_step == 2 && s.lanes > 1 && s.masked == nullptr;
    }
    // Where the input row has room around the even-element span of vector v at width tap `width_tap` (-1: not
    // known) in every item of the segment: an element before its first element, or one after its last. Only the
    // first load of an item (tap 0, vector 0) can start the row; the plan says what lies around it.
    enum class EvenSpanRoom { none, before, after };
    EvenSpanRoom even_span_room(const ItemShape& s, int v, std::int64_t width_tap) const {
        if (v > 0 || width_tap > 0) return s.element_before_later_loads ? EvenSpanRoom::before : EvenSpanRoom::none;
        if (s.element_before_first_load) return EvenSpanRoom::before;  // and so every tap of the first vector
        return width_tap == 0 && s.element_after_first_load ? EvenSpanRoom::after : EvenSpanRoom::none;
    }
    // Vector v of the item and the next one load as a widened pair (plan.widened_pairs): v even, items of
    // consecutive lanes the row code merges itself.
    bool widened_pair(const ItemShape& s, int v) const {
        return plan_.widened_pairs && s.lane_step == 1 && !s.taps_as_lanes && s.masked == nullptr && !s.whole_plane &&
               v % 2 == 0 && v + 1 < vectors(s);
    }
    // Channels last: whether the segment's items read their partial vector back from its last channel, where the
    // block holds a register's bytes or the segment's first real tap has that many bytes of the row before it.
    bool tail_reads_back(const Segment& seg) const {
        if (!nxc_ || !plan_.tail_back_reads || seg.taps <= 0 || block_lanes_ % plan_.lanes == 0) return false;
        const std::int64_t before = Ops::vector_bytes - (block_lanes_ % plan_.lanes) * elem() -
                                    (block_lanes_ / plan_.lanes) * plan_.lanes * elem();
        if (before <= 0) return true;
        // Pixels of room the read needs, rounded up without an add that a stride near 2^63 would overflow.
        const std::int64_t step = plan_.src_step_w;
        return seg.first_position >= 0 && step > 0 && seg.first_position >= before / step + (before % step != 0 ? 1 : 0);
    }
    // Separable pixels: the vectors of the call's block (a tail's may be fewer than the plan's).
    int separable_block_vectors() const {
        return nxc_ ? static_cast<int>((block_lanes_ + plan_.lanes - 1) / plan_.lanes) : plan_.vectors_per_block;
    }
    // Separable pixels: the channels of the block's vector v (the last may be partial, loaded and stored masked).
    int separable_pixel_lanes(int v) const {
        return static_cast<int>(std::min<std::int64_t>(plan_.lanes, block_lanes_ - std::int64_t{v} * plan_.lanes));
    }
    // Separable pixels: vector v loads the whole register that ends at its last channel, this many bytes before
    // its first (0: it loads as it is; SeparableRows::partial_reads_back).
    std::int64_t separable_back_read_bytes(int v) const {
        const int lanes = separable_pixel_lanes(v);
        if (!plan_.separable.partial_reads_back || lanes >= plan_.lanes) return 0;
        return (plan_.lanes - lanes) * elem();
    }
    // Vector v of the item reads back (ItemShape::tail_reads_back): its load starts this many bytes before
    // its first lane's element (0: it does not).
    std::int64_t back_read_bytes(const ItemShape& s, int v) const {
        if (!s.tail_reads_back || valid(s, v) >= register_lanes()) return 0;
        return Ops::vector_bytes - valid(s, v) * elem();
    }
    // Fast values of whole vectors that load as stored (integer lanes as wide as the data, no indices): the load
    // folds into the max, which halves the macro-ops a tap. Integer ties have equal bits, so the memory operand
    // may win them; floats keep the separate load (a tie of +0 and -0 must keep the accumulator's).
    bool folds_tap_load(const ItemShape& s, int v, bool fast, int tap) const {
        if (!fast || plan_.has_indices || plan_.is_float || f16() || plan_.compare == CompareType::s64) return false;
        if (size_of(plan_.dtype) != static_cast<std::size_t>(lane_bytes(plan_.compare))) return false;
        if (s.taps_as_lanes || (s.masked != nullptr && tap >= 0)) return false;
        if (s.lane_step != 1 && s.lanes != 1) return false;
        return s.whole_register_loads || valid(s, v) == register_lanes() || back_read_bytes(s, v) > 0;
    }
    // Elements a widened pair of vectors v and v + 1 loads (whole registers where the plan keeps them in the row).
    int pair_valid(const ItemShape& s, int v) const {
        return s.whole_register_loads ? 2 * register_lanes() : valid(s, v) + valid(s, v + 1);
    }
    // The kernel tap (along the width) of a segment's first real tap; positions modulo 2^64 as the plan's.
    std::int64_t first_width_tap(const Segment& seg) const {
        const std::int64_t window_start = wrap_add(wrap_mul(seg.out_begin, plan_.stride_w), -plan_.pad_w);
        return wrap_add(seg.first_position, wrap_mul(window_start, -1)) / plan_.dilation_w;
    }
    // Watched rows: whether the load of width tap `tap` (counted from the item's first real tap; -1: a tap loop)
    // goes into the watch. Not where an earlier output, or output row, of the call loaded the same input.
    bool tap_watched(int tap) const {
        if (tap < 0) return true;
        if (window_row_h_ >= 0 && window_row_h_ < plan_.watch_shared_rows_h) return false;
        return watch_every_width_tap_ || item_first_tap_w_ + tap >= plan_.watch_shared_taps_w;
    }
    // Watched rows: the running sum vector v's next load goes into (its sums in turn, in the order of the code).
    int next_watch(int v) {
        const int chain = watch_turn_[v]++ % plan_.watch_chains;
        return regs_.watch[chain * max_vectors + v];
    }
    // Compare-type lanes a register holds (plan_.lanes is half that with 64-bit index lanes beside 32-bit).
    int register_lanes() const { return Ops::vector_bytes / lane_bytes(plan_.compare); }
    int vectors(const ItemShape& s) const { return static_cast<int>((s.lanes + plan_.lanes - 1) / plan_.lanes); }
    int valid(const ItemShape& s, int v) const {
        return static_cast<int>(std::min<std::int64_t>(plan_.lanes, s.lanes - std::int64_t{v} * plan_.lanes));
    }

    // A jump target: the trait's knowledge of which partial-vector mask is loaded does not survive it.
    void place(Label& label) {
        L(label);
        ops_.forget_mask();
    }

    Address at(const Reg64& base, std::int64_t offset) {
        if (fits_i32(offset)) return ptr[base + static_cast<std::int32_t>(offset)];
        mov(big_offset_, offset);
        return ptr[base + big_offset_];
    }

    void add_imm(const Reg64& r, std::int64_t v) {
        if (v == 0) return;
        if (fits_i32(v)) add(r, static_cast<std::int32_t>(v));
        else {
            mov(big_offset_, v);
            add(r, big_offset_);
        }
    }

    // r = r * v (modulo 2^64).
    void mul_imm(const Reg64& r, std::int64_t v) {
        if (fits_i32(v)) imul(r, r, static_cast<std::int32_t>(v));
        else {
            mov(big_offset_, v);
            imul(r, big_offset_);
        }
    }

    // Masked items: whether the tap `tap` of lane `lane` lies inside the input, and the lanes of vector v (or
    // elements of a span of `count` elements from lane `first_lane`'s) where it does.
    bool tap_inside(const ItemShape& s, std::int64_t first_element_offset, int tap) const {
        const std::int64_t pos = s.masked->first_position + first_element_offset + std::int64_t{tap} * plan_.dilation_w;
        return pos >= 0 && pos < plan_.in_width;
    }
    std::uint64_t lane_bits(const ItemShape& s, int v, int tap) const {
        std::uint64_t bits = 0;
        for (int j = 0; j < valid(s, v); ++j)
            if (tap_inside(s, (std::int64_t{v} * plan_.lanes + j) * s.lane_step, tap)) bits |= std::uint64_t{1} << j;
        return bits;
    }
    std::uint64_t span_bits(const ItemShape& s, std::int64_t first_element, int count, int tap) const {
        std::uint64_t bits = 0;
        for (int e = 0; e < count; ++e)
            if (tap_inside(s, first_element + e, tap)) bits |= std::uint64_t{1} << e;
        return bits;
    }
    std::uint64_t all_lanes(const ItemShape& s, int v) const { return (std::uint64_t{1} << valid(s, v)) - 1; }

    Label& lane_table(std::int64_t lane_step) { return lane_tables_[lane_step]; }

    void advance_outputs(std::int64_t outputs) {
        add_imm(dst_, wrap_mul(outputs, plan_.dst_out_stride_w));
        if (plan_.has_indices) add_imm(indices_, wrap_mul(outputs, plan_.indices_out_stride_w));
    }

    ItemShape shape_of(const Segment& seg) const {
        if (nxc_) return {block_lanes_, 1, 1};
        if (seg.taps_as_lanes) {
            ItemShape s{seg.taps, 1, 1, nullptr, true};
            s.whole_register_loads = seg.whole_register_loads;
            return s;
        }
        if (seg.whole_plane) return {seg.taps, 1, 1, nullptr, false, true};
        ItemShape s{seg.outputs_per_item, seg.lane_step, seg.outputs_per_item, seg.masked ? &seg : nullptr};
        s.whole_register_loads = seg.whole_register_loads;
        s.element_before_later_loads = seg.element_before_later_loads;
        s.element_before_first_load = seg.element_before_first_load;
        s.element_after_first_load = seg.element_after_first_load;
        return s;
    }
    ItemShape single_output_shape() const { return nxc_ ? ItemShape{block_lanes_, 1, 1} : ItemShape{1, 1, 1}; }

    // A window's loop along d counts its real taps (the call's taps_d) in a stack slot; none without a d axis.
    void start_outer_d_count() {
        if (plan_.spatial_rank < 3) return;
        mov(scratch_, ptr[rsp + slot_taps_d]);
        mov(ptr[rsp + slot_d_count], scratch_);
    }

    // The end of a window's outer loops without indices (the NaN scan, tap passes): h_ptr_ one tap row on while
    // h_count_ lasts, then d_ptr_ one tap plane on while the d count slot lasts; an axis the plan lacks has none.
    void close_outer_rows(Label& h_loop, Label& d_loop) {
        if (plan_.spatial_rank >= 2) {
            add_imm(h_ptr_, plan_.src_tap_stride_h);
            dec(h_count_);
            jnz(h_loop, T_NEAR);
        }
        if (plan_.spatial_rank >= 3) {
            add_imm(d_ptr_, plan_.src_tap_stride_d);
            dec(qword[rsp + slot_d_count]);
            jnz(d_loop, T_NEAR);
        }
    }

    // Repeats `body` count times (a loop when count > 1).
    template <typename Body>
    void repeat(std::int64_t count, Body body) {
        if (count <= 0) return;
        if (count == 1) {
            body();
            return;
        }
        Label loop;
        mov(item_count_, count);
        place(loop);
        body();
        dec(item_count_);
        jnz(loop, T_NEAR);
    }

    // A maximum spread across every lane of m: to `zero` when it is a float zero (either sign), whose bits the
    // first element equal to it decides. bits: a scratch register; fresh is clobbered.
    void jump_if_float_zero(const Vmm& m, const Reg64& bits, Label& zero) {
        const Vmm fresh = vec(regs_.fresh);
        ops_.zero_vector(fresh);
        ops_.equal_lanes(bits, fresh, m);
        test(bits, bits);
        jnz(zero, T_NEAR);
    }

    // `body` (one item, or one empty item, of an output pixel) once per channel block the call sweeps: the
    // window, the destinations and the channel part of the indices one block further each time, and back
    // after. A run-time loop of the call's KernelArgs::sweep_blocks, so the code does not grow with the sweep
    // and a call may cover fewer blocks.
    template <typename Body>
    void for_each_channel_block(Body body) {
        if (sweep_ <= 1) {
            body();
            return;
        }
        const std::int64_t channel_step = wrap_mul(block_lanes_, plan_.channel_index_stride);
        const bool step_channel_base = plan_.has_indices && channel_step != 0;
        const auto set_channel_base = [&](int slot) {
            mov(scratch_, ptr[rsp + slot]);
            ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
        };
        Label loop;
        mov(scratch_, ptr[rsp + slot_sweep_blocks]);
        mov(ptr[rsp + slot_sweep_left], scratch_);
        if (step_channel_base) {
            mov(scratch_, ptr[rsp + slot_channel_index_base]);
            mov(ptr[rsp + slot_sweep_channel_base], scratch_);
        }
        place(loop);
        body();
        for (std::int64_t j = 0; j < plan_.sweep_prefetch_pixels; ++j)
            prefetcht0(ptr[window_ + static_cast<std::int32_t>(plan_.sweep_prefetch_distance + j * plan_.sweep_prefetch_pixel_bytes)]);
        add_imm(window_, plan_.sweep_src_step);
        add_imm(dst_, plan_.sweep_dst_step);
        if (plan_.has_indices) add_imm(indices_, plan_.sweep_indices_step);
        if (step_channel_base) {
            mov(scratch_, ptr[rsp + slot_sweep_channel_base]);
            add_imm(scratch_, channel_step);
            mov(ptr[rsp + slot_sweep_channel_base], scratch_);
            ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
        }
        dec(qword[rsp + slot_sweep_left]);
        jnz(loop, T_NEAR);
        sub(window_, ptr[rsp + slot_sweep_bytes]);
        sub(dst_, ptr[rsp + slot_sweep_dst_bytes]);
        if (plan_.has_indices) sub(indices_, ptr[rsp + slot_sweep_index_bytes]);
        if (step_channel_base) set_channel_base(slot_channel_index_base);
    }

    // emit_item_lanes.cpp
    void load_item_vector(const ItemShape& s, int v, const Reg64& base, std::int64_t offset, const Vmm& dst, bool raw,
                          int tap = -1, std::int64_t width_tap = -1);
    void init_from_first_tap(const ItemShape& s, const Reg64& base);
    void init_lowest(const ItemShape& s);
    void merge_loaded_values(int v, const Vmm& fresh, bool fast, int tap);
    void merge_tap(const ItemShape& s, const Reg64& base, std::int64_t offset, bool fast, int tap = -1,
                   bool index_prepared = false);
    bool merges_tap_pairs(const ItemShape& s, bool fast) const;
    void merge_tap_pair(const ItemShape& s, const Reg64& base, std::int64_t offset, int tap);
    void merge_row_of_taps(const ItemShape& s, const Reg64& row, std::int64_t offset);
    void store_first_maximum(const ItemShape& s);
    void search_window_rows(const ItemShape& s);
    void store_item(const ItemShape& s);
    void store_empty_item(const ItemShape& s);

    // emit_computed_walk.cpp
    void ceil_div_rax(std::uint64_t divisor);
    void compute_window(Label& empty);
    void emit_computed_walk();

    // emit_nan_scan.cpp. rows: -1, the row's windows; scan_call_input_rows, every input row of a column ring's
    // call (its rows plus ring_rows - 1); else that many rows from first_row.
    static constexpr std::int64_t scan_call_input_rows = -2;
    void emit_nan_scan(Label& has_nan, std::int64_t first_row = 0, std::int64_t rows = -1);

    // emit_whole_plane.cpp
    void emit_whole_plane(const ItemShape& s);
    void emit_whole_plane_straight_maximum(const ItemShape& s, std::int64_t vectors_in_plane, bool watch);
    void emit_whole_plane_straight_search(const ItemShape& s, std::int64_t vectors_in_plane, const Reg64& offset);
    void merge_whole_plane_pair(const Vmm& m0, const Vmm& m1, const Address& from, bool watch, const Vmm& s0, const Vmm& s1);
    void emit_whole_plane_loop_maximum(const ItemShape& s, bool watch);
    void emit_whole_plane_loop_search(const ItemShape& s, const Reg64& offset);

    // emit_row_ring.cpp
    Vmm ring_reg(std::int64_t row, int v) const {
        return vec(regs_.ring + static_cast<int>(row) * plan_.vectors_per_block + v);
    }
    // Rings with indices: the index of each row maximum, after the ring's values.
    Vmm ring_index_reg(std::int64_t row, int v) const { return ring_reg(plan_.ring_rows + row, v); }
    void merge_ring_rows(const ItemShape& s);
    void shift_ring(const ItemShape& s);
    void leave_unless_ring_call(Label& other_calls);
    void ring_row_maxima(const Segment& seg, std::int64_t row);
    void emit_ring_rows(Label& other_calls, Label& done);
    void column_row_maxima(const ItemShape& s, std::int64_t taps);
    void emit_column_ring(Label& other_calls, Label& done);

    // emit_separable.cpp
    std::int64_t separable_buffer_bytes() const;
    int frame_size() const;
    std::vector<int> separable_accumulators() const;
    std::vector<int> separable_index_registers() const;
    void begin_separable_call(Label& other_calls, std::int64_t padded_bytes);
    void begin_separable_group(Label& group_loop);
    void separable_group_input_rows(const Reg64& r);
    void next_separable_group(Label& group_loop, Label& done);
    void close_separable_input_rows(Label& input_row, Label& other_calls);
    void separable_output_pairs(const Reg64& rows_left, const Reg64& first_maxima, std::int64_t maxima_bytes,
                                Label& single_rows, Label& done, const std::function<void()>& merge_pair);
    // Lane `lane` of phase `phase` in a padded row of separable rows, from the buffer's start.
    std::int64_t separable_phase_lane(int phase, std::int64_t lane) const {
        const SeparableRows& sep = plan_.separable;
        return phase * sep.phase_lanes + sep.lead_lanes[static_cast<std::size_t>(phase)] + lane;
    }
    void convert_separable_rows(Label& nan_exit);
    void load_separable_output_row(const Vmm& channel_part);
    void next_separable_output_row();
    void close_separable_index_group(const Reg64& group, Label& group_loop, Label& done, Label& leave, Label& other_calls);
    void emit_separable(Label& other_calls, Label& done);
    // emit_separable_indices.cpp
    bool separable_row_indices() const { return !nxc_ && plan_.separable.enabled() && plan_.has_indices; }
    std::vector<std::int32_t> separable_index_row() const;
    void emit_separable_indices(Label& other_calls, Label& done);
    // Planar byte rows: separable rows serve every call (no row code in byte lanes), to `done`.
    void emit_byte_rows(Label& done);
    void emit_byte_pairs(Label& done);
    void emit_row_code(Label& row_loop, Label& empty_row, Label& row_done, Label& done);
    bool byte_rows() const { return !nxc_ && plan_.separable.enabled() && lane_bytes(plan_.compare) == 1; }

    // emit_separable_pixels.cpp
    // Bytes of one position of the padded row: a pixel of the block's compare lanes, then (with indices) a vector of
    // its index lanes.
    std::int64_t separable_position_bytes() const {
        return (separable_block_vectors() + (plan_.has_indices ? 1 : 0)) * std::int64_t{Ops::vector_bytes};
    }
    std::int64_t separable_pixels_padded_bytes() const;
    void store_separable_padding();
    void separable_copy_pixels(int count);
    void separable_copy_input_row(const Reg64& padded, int unroll);
    template <typename Body, typename Advance>
    void separable_steps(std::int64_t total, int unroll, Body&& body, Advance&& advance);
    template <typename MergeRow>
    void separable_merge_rows(std::int64_t maxima_bytes, MergeRow&& merge_row);
    void emit_separable_pixels(Label& other_calls, Label& done);
    // Vertical rows (emit_vertical_rows.cpp): the call's real window rows in slot_vertical_taps, slot_taps_h 1.
    void begin_vertical_rows();
    void emit_vertical_rows();
    int vertical_rows_frame_bytes() const;
    void emit_separable_pixel_indices(Label& other_calls, Label& done);

    // emit_tap_passes.cpp
    void emit_swept_item(const ItemShape& s, std::int64_t taps);
    void emit_tap_passes(const ItemShape& s, std::int64_t taps);
    void emit_tap_pass(const ItemShape& s, std::int64_t taps);
    bool tap_passes_with_indices() const { return plan_.tap_pass_taps > 0 && plan_.has_indices && sweep_ > 1; }
    std::int64_t tap_pass_buffer_bytes() const;
    void start_tap_pass_indices(const ItemShape& s);
    void store_tap_pass_indices(const ItemShape& s);
    void store_lane_indices(const ItemShape& s, int v, const Vmm& base, bool fix);

    // emit_window.cpp
    void emit_item(const ItemShape& s, std::int64_t taps);
    void emit_window_taps(const ItemShape& s, std::int64_t taps, bool fast);
    void merge_unrolled_window(const ItemShape& s, std::int64_t taps, bool fast);
    bool merges_row_in_chains(const ItemShape& s, std::int64_t taps, bool fast) const;
    void merge_row_in_chains(const ItemShape& s, std::int64_t taps, bool first_row);
    void emit_segment(const Segment& seg);
    void emit_segment_in_range(const Segment& seg);
    void emit_row();
    void prefetch_ahead();
    // The row's prefetches go into the fast items' unrolled windows (plan.prefetch_in_items), each item its own
    // stretch of every row it reads, instead of one burst at the row's start.
    bool spread_prefetch() const { return plan_.prefetch_in_items && plan_.prefetch_distance > 0; }
    void store_empty_row();
    // The call's next row: its pointers and index bases in their slots, one step on. Without indices only the
    // data pointers move: each step is a read-modify-write of a stack slot, which rows of a few vectors (a global
    // pool's planes) paid for three times over on slots only indices read.
    void step_row_slots() {
        for (const auto& [slot, step] : {std::pair{slot_row_src, slot_src_row_step}, std::pair{slot_row_dst, slot_dst_row_step},
                                         std::pair{slot_row_indices, slot_indices_row_step},
                                         std::pair{slot_index_base, slot_index_base_row_step},
                                         std::pair{slot_channel_index_base, slot_channel_index_base_row_step}}) {
            if (!plan_.has_indices && slot != slot_row_src && slot != slot_row_dst) continue;
            mov(scratch_, ptr[rsp + step]);
            add(ptr[rsp + slot], scratch_);
        }
    }
    void watch_first_row_shared_rows();
    void load_constants();
    void generate();
    void emit_data();

    const KernelPlan& plan_;
    const bool nxc_;
    const std::int64_t block_lanes_;
    const std::int64_t sweep_;
    VectorRoles regs_;
    Ops ops_;
    std::map<std::int64_t, Label> lane_tables_;
    Label separable_index_row_;  // separable rows with indices: the index row (separable_index_row)
    bool fast_row_ = true;  // emitting the copy of the row code for input without NaN (scanned float rows)
    int watch_turn_[max_vectors] = {};
    // Shared watch (plan.watch_shared_*): the first kernel tap along the width of the item being emitted, whether
    // that item watches every width tap (its row's first), and the window row merge_unrolled_window is at (-1:
    // the window's rows loop, every row watched).
    std::int64_t item_first_tap_w_ = 0;
    bool watch_every_width_tap_ = true, row_first_item_ = true;
    std::int64_t window_row_h_ = -1;  // loads of each vector of the block noted so far (next_watch)
    // merge_unrolled_window is at the window's first tap in a fast item without indices, raw bits or masks:
    // the accumulators take that tap as it is (a move) rather than its max with the lowest value.
    bool first_tap_moves_ = false;
    // Where the fast copy of a whole-plane row goes when its item sees a NaN (the item is its own NaN scan).
    Label* nan_exit_ = nullptr;
    // The code being emitted applies the NaN policy per tap: float rows that are not scanned, and the copy
    // of scanned rows that runs when the scan saw a NaN. Integer rows have one copy, with nothing to apply.
    bool exact_row() const {
        return plan_.is_float && !((plan_.scan_rows_for_nan || plan_.watch_rows_for_nan) && fast_row_);
    }
};

}  // namespace pooljit::jit
