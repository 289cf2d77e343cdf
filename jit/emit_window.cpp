// The window emitter: a run of output rows per call (KernelArgs::rows), for both strategies. A lane is a channel
// (nxc), an output along the width (ncx), or a width tap of one window (ncx taps-as-lanes items); either way the
// code is the same loop nest over the plan's segments (or its computed windows):
// init each lane from the window's first real tap, merge every real tap (outer axes at run time, width taps
// unrolled or looped), store values and indices. Lanes whose elements are not adjacent in memory (ncx with a
// stride) are gathered through a stack area with exact-width moves, so nothing outside the tensors is read.
#include "jit/kernel.hpp"
#include "jit/vec_avx2.hpp"
#include "jit/vec_avx512.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>

namespace pooljit::jit {
namespace {

using namespace Xbyak;
using namespace Xbyak::util;

bool fits_i32(std::int64_t v) {
    return v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max();
}

constexpr int max_vectors = 4;

// Vector registers by role, handed out once each, so no number means two things.
struct VectorRoles {
    int acc[max_vectors] = {-1, -1, -1, -1}, raw[max_vectors] = {-1, -1, -1, -1}, idx[max_vectors] = {-1, -1, -1, -1};
    int fresh = -1, fresh_raw = -1, chan_base = -1, minus_one = -1, scratch = -1, empty_value = -1;
    int pair_hi = -1;  // ncx lanes at stride 2: the second of two loaded vectors (scratch is the first)
    int item_base = -1;  // window-relative indices: the call's base plus the window's index
    int rank = -1;       // taps-as-lanes items: the scan rank of the row each lane's maximum came from
    TraitResources trait;
    int used = 0;

    VectorRoles(int vectors, bool f16, bool indices, bool trait_needs_vectors, bool pairs, bool relative_indices,
                bool taps_as_lanes) {
        for (int v = 0; v < vectors; ++v) acc[v] = used++;
        if (f16)
            for (int v = 0; v < vectors; ++v) raw[v] = used++;
        if (indices)
            for (int v = 0; v < vectors; ++v) idx[v] = used++;
        fresh = used++;
        if (f16) fresh_raw = used++;
        if (indices) {
            chan_base = used++;
            minus_one = used++;
        }
        scratch = used++;
        empty_value = used++;
        if (pairs) pair_hi = used++;
        if (relative_indices) item_base = used++;
        if (taps_as_lanes) rank = used++;
        if (trait_needs_vectors) {
            trait.take = used++;
            trait.lane_mask = used++;
            trait.tail_mask = used++;
            trait.tap_index = used++;
            trait.wide_mask = used++;
        }
    }
};

// What one item computes: `lanes` lanes (channels or outputs), the elements of neighbouring lanes `lane_step`
// positions apart in memory (1: one contiguous vector load).
struct ItemShape {
    std::int64_t lanes = 1;
    std::int64_t lane_step = 1;
    std::int64_t outputs = 1;  // outputs along the width the item covers (dst advances by this many)
    const Segment* masked = nullptr;  // a masked segment (of one item): taps load and merge in some lanes only
    bool taps_as_lanes = false;       // one output; lanes are its window's width taps, one load per input row
};

bool has_taps_as_lanes(const KernelPlan& plan) {
    for (const Segment& s : plan.fast_segments)
        if (s.taps_as_lanes) return true;
    return false;
}

template <typename Ops>
class WindowEmitter : public CodeGenerator {
public:
    using Vmm = typename Ops::Vmm;

    // block_lanes: nxc, the channels of this entry's block (full or tail); ncx, unused (items carry lanes).
    WindowEmitter(const KernelPlan& plan, std::int64_t block_lanes)
        : CodeGenerator(4096, AutoGrow), plan_(plan), nxc_(plan.strategy == Strategy::nxc_channels),
          block_lanes_(block_lanes),
          regs_(plan.vectors_per_block, plan.dtype == DType::f16, plan.has_indices, Ops::needs_vector_masks,
                plan.strategy == Strategy::ncx_width, plan.index_relative_to_window, has_taps_as_lanes(plan)),
          ops_(*this, plan, resources()) {
        if (regs_.used > (Ops::vector_bytes == 64 ? 32 : 16))
            throw Error("jit: the plan needs " + std::to_string(regs_.used) + " vector registers");
        generate();
        readyRE();  // W^X: written as RW, then flipped to read-exec before anyone calls it
    }

    KernelFn entry() const { return getCode<KernelFn>(); }

private:
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
                         slot_gather = 64, slot_bounce = 128, slot_saved_dst = 192, slot_rows = 200,
                         slot_row_src = 208, slot_row_dst = 216, slot_row_indices = 224, slot_channel_index_base = 232,
                         slot_src_row_step = 240, slot_dst_row_step = 248, slot_indices_row_step = 256,
                         slot_index_base_row_step = 264, slot_channel_index_base_row_step = 272, frame_bytes = 280;

    TraitResources resources() const {
        TraitResources r = regs_.trait;
        r.scratch = scratch_;
        r.bounce = slot_bounce;
        return r;
    }

    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(plan_.dtype)); }
    std::int64_t index_elem() const { return static_cast<std::int64_t>(size_of(plan_.index_dtype)); }
    bool f16() const { return plan_.dtype == DType::f16; }
    static Vmm vec(int i) { return Vmm(i); }
    Vmm value_reg(int v) const { return vec(f16() ? regs_.raw[v] : regs_.acc[v]); }
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

    // Vector v of an item whose lane 0 is at base + offset, into dst (raw: f16 bits): one load; at lane stride 2,
    // two loads and a deinterleave; else lane by lane into the gather area. In a masked item (tap >= 0) only
    // elements inside the input are loaded.
    void load_item_vector(const ItemShape& s, int v, const Reg64& base, std::int64_t offset, const Vmm& dst, bool raw,
                          int tap = -1) {
        const bool masked = s.masked != nullptr && tap >= 0;
        const auto load = [&](const Vmm& to, const Address& a, int n, std::uint64_t bits) {
            if constexpr (!Ops::needs_vector_masks) {
                if (masked) {
                    ops_.load_value_lanes(to, a, bits);
                    return;
                }
            }
            if (raw) ops_.load_raw(to, a, n);
            else ops_.load_value(to, a, n);
        };
        const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
        if (s.lane_step == 1 || s.lanes == 1) {  // one lane: no neighbour to gather
            load(dst, at(base, offset + first_lane * elem()), valid(s, v), masked ? lane_bits(s, v, tap) : 0);
            return;
        }
        if (s.lane_step == 2) {
            // valid lanes span 2 * valid - 1 elements: all real taps of real outputs, nothing past them.
            const std::int64_t start = offset + first_lane * 2 * elem();
            const int span = 2 * valid(s, v) - 1;
            const int capacity = register_lanes();
            const int low = std::min(capacity, span);
            load(vec(regs_.scratch), at(base, start), low, masked ? span_bits(s, first_lane * 2, low, tap) : 0);
            if (span > capacity)
                load(vec(regs_.pair_hi), at(base, start + capacity * elem()), span - capacity,
                     masked ? span_bits(s, first_lane * 2 + capacity, span - capacity, tap) : 0);
            ops_.deinterleave_even(dst, vec(regs_.scratch), vec(regs_.pair_hi));
            return;
        }
        for (int lane = 0; lane < valid(s, v); ++lane) {
            if (masked && !tap_inside(s, (first_lane + lane) * s.lane_step, tap)) continue;
            const std::int64_t off = wrap_add(offset, wrap_mul(first_lane + lane, s.lane_step, elem()));
            const Address from = at(base, off);
            copy_bytes(*this, rsp + slot_gather + lane * static_cast<int>(elem()), from.getRegExp(),
                       static_cast<int>(elem()), scratch_);
        }
        load(dst, ptr[rsp + slot_gather], plan_.lanes, all_lanes(s, v));  // stale lanes of the area are never stored
    }

    void init_from_first_tap(const ItemShape& s, const Reg64& base) {
        for (int v = 0; v < vectors(s); ++v) {
            load_item_vector(s, v, base, 0, vec(regs_.acc[v]), false);
            if (f16()) load_item_vector(s, v, base, 0, vec(regs_.raw[v]), true);
            if (plan_.has_indices) ops_.broadcast_gpr(vec(regs_.idx[v]), tap_index_, plan_.index_lanes_64);
        }
    }

    // The fast path starts from the type's lowest value (and the first tap's index) and merges every tap, the
    // first included, so the window is read once: a strict compare keeps the first index when every element is
    // the lowest, whose bits are then the accumulator's. It runs only on input without NaN; the exact path
    // starts from the first element. f16 keeps raw bits beside the compare value and starts from the element.
    // In a masked item a lane's first real tap may be a later one: its index is the one kept on ties.
    void init_lowest(const ItemShape& s) {
        if (s.taps_as_lanes) vpxord(vec(regs_.rank), vec(regs_.rank), vec(regs_.rank));  // the window's first row
        for (int v = 0; v < vectors(s); ++v) {
            vmovaps(vec(regs_.acc[v]), vec(regs_.empty_value));
            if (!plan_.has_indices) continue;
            ops_.broadcast_gpr(vec(regs_.idx[v]), tap_index_, plan_.index_lanes_64);
            if constexpr (!Ops::needs_vector_masks) {
                if (s.masked == nullptr) continue;
                std::uint64_t covered = lane_bits(s, v, 0);
                for (int t = 1; t < s.masked->taps && covered != all_lanes(s, v); ++t) {
                    const std::uint64_t first_here = lane_bits(s, v, t) & ~covered;
                    if (first_here == 0) continue;
                    covered |= first_here;
                    mov(tap_count_, tap_index_);
                    add_imm(tap_count_, wrap_mul(t, plan_.index_tap_step_w));
                    ops_.broadcast_gpr_lanes(vec(regs_.idx[v]), tap_count_, plan_.index_lanes_64, first_here);
                }
            }
        }
    }

    // Merges the tap at base + offset (its index in tap_index_) into every vector of the item. The fast path
    // compares as if no NaN were present and notes any NaN it loads; the exact path applies the NaN policy.
    void merge_tap(const ItemShape& s, const Reg64& base, std::int64_t offset, bool fast, int tap = -1) {
        if (plan_.has_indices) ops_.prepare_tap_index(tap_index_);
        if constexpr (!Ops::needs_vector_masks) {
            if (s.taps_as_lanes) {
                merge_row_of_taps(s, base, offset);
                return;
            }
        }
        for (int v = 0; v < vectors(s); ++v) {
            if constexpr (!Ops::needs_vector_masks) {
                if (s.masked != nullptr && tap >= 0) {
                    // Fast rows only (no NaN, no f16): merged in the lanes where the tap is inside the input.
                    const std::uint64_t bits = lane_bits(s, v, tap);
                    if (bits == 0) continue;
                    load_item_vector(s, v, base, offset, vec(regs_.fresh), false, tap);
                    if (!plan_.has_indices) {
                        ops_.max_fast_lanes(vec(regs_.acc[v]), vec(regs_.fresh), bits);
                        continue;
                    }
                    ops_.compute_take_fast_lanes(vec(regs_.fresh), vec(regs_.acc[v]), bits);
                    ops_.blend_take(vec(regs_.acc[v]), vec(regs_.fresh));
                    ops_.blend_take_index(vec(regs_.idx[v]));
                    continue;
                }
            }
            load_item_vector(s, v, base, offset, vec(regs_.fresh), false);
            if (fast && !plan_.has_indices && !f16()) {
                ops_.max_fast(vec(regs_.acc[v]), vec(regs_.fresh));
                continue;
            }
            if (f16()) load_item_vector(s, v, base, offset, vec(regs_.fresh_raw), true);
            if (fast) ops_.compute_take_fast(vec(regs_.fresh), vec(regs_.acc[v]));
            else ops_.compute_take(vec(regs_.fresh), vec(regs_.acc[v]));
            ops_.blend_take(vec(regs_.acc[v]), vec(regs_.fresh));
            if (f16()) ops_.blend_take(vec(regs_.raw[v]), vec(regs_.fresh_raw));
            if (plan_.has_indices) ops_.blend_take_index(vec(regs_.idx[v]));
        }
    }

    // Taps-as-lanes items (fast rows only): one input row of the window, its width taps in the lanes. Integer
    // maxima without indices need no scan rank (equal values have equal bits); floats keep it for +0 and -0.
    void merge_row_of_taps(const ItemShape& s, const Reg64& row, std::int64_t offset) {
        if constexpr (!Ops::needs_vector_masks) {
            load_item_vector(s, 0, row, offset, vec(regs_.fresh), false);
            if (!plan_.has_indices && !plan_.is_float) {
                ops_.max_fast(vec(regs_.acc[0]), vec(regs_.fresh));
                return;
            }
            ops_.compute_take_fast(vec(regs_.fresh), vec(regs_.acc[0]));
            ops_.blend_take(vec(regs_.acc[0]), vec(regs_.fresh));
            if (plan_.has_indices) ops_.blend_take_index(vec(regs_.idx[0]));
            lea(scratch_, ptr[row + static_cast<std::int32_t>(offset)]);  // offset is 0: rows are whole vectors
            sub(scratch_, window_);
            ops_.blend_take_rank(vec(regs_.rank), scratch_);
        }
    }

    // Taps-as-lanes items: the window's first maximum in scan order, picked across the lanes, and its index.
    void store_first_maximum(const ItemShape& s) {
        if constexpr (!Ops::needs_vector_masks) {
            const Reg64 lane = tap_count_;  // free outside the width-tap loop
            const Vmm idx = vec(plan_.has_indices ? regs_.idx[0] : regs_.acc[0]);
            ops_.select_first_maximum(vec(regs_.acc[0]), plan_.has_indices ? &idx : nullptr, vec(regs_.rank),
                                      static_cast<int>(s.lanes), vec(regs_.empty_value), vec(regs_.fresh),
                                      vec(regs_.pair_hi), vec(regs_.scratch), lane);
            ops_.store_value(at(dst_, 0), vec(regs_.acc[0]), vec(regs_.scratch), 1);
            if (!plan_.has_indices) return;
            const int entry = plan_.wide_index_math ? 8 : 4;
            lea(big_offset_, ptr[rip + lane_table(1)]);
            const LaneAddress table = [&](int) { return ptr[big_offset_ + lane * entry]; };
            const LaneAddress out = [&](int) { return ptr[indices_]; };
            ops_.store_indices(out, table, idx, vec(regs_.chan_base), vec(regs_.minus_one), vec(regs_.scratch), 1, false);
        }
    }

    Label& lane_table(std::int64_t lane_step) { return lane_tables_[lane_step]; }

    void store_item(const ItemShape& s) {
        if (s.taps_as_lanes) {
            store_first_maximum(s);
            return;
        }
        // Only a row that holds a NaN can leave one in an accumulator (an all-NaN window under nan=ignore).
        const bool fix = exact_row() && plan_.nan == NanPolicy::ignore;
        int base = regs_.chan_base;
        if (plan_.has_indices && plan_.index_relative_to_window) {
            ops_.broadcast_gpr(vec(regs_.item_base), window_index_, plan_.wide_index_math);
            ops_.add_lanes(vec(regs_.item_base), vec(regs_.chan_base), plan_.wide_index_math);
            base = regs_.item_base;
        }
        for (int v = 0; v < vectors(s); ++v) {
            if (fix) {
                ops_.find_nan_lanes(vec(regs_.acc[v]));
                ops_.move_under_fix(value_reg(v), vec(regs_.empty_value));
            }
            const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
            ops_.store_value(at(dst_, first_lane * elem()), value_reg(v), vec(regs_.scratch), valid(s, v));
            if (!plan_.has_indices) continue;
            const std::int64_t entry = plan_.wide_index_math ? 8 : 4;
            lea(big_offset_, ptr[rip + lane_table(s.lane_step)]);
            const LaneAddress table = [&, first_lane, entry](int lane) {
                return ptr[big_offset_ + static_cast<std::int32_t>((first_lane + lane) * entry)];
            };
            const LaneAddress out = [&, first_lane](int lane) {
                return ptr[indices_ + static_cast<std::int32_t>((first_lane + lane) * index_elem())];
            };
            ops_.store_indices(out, table, vec(regs_.idx[v]), vec(base), vec(regs_.minus_one), vec(regs_.scratch),
                               valid(s, v), fix);
        }
    }

    // Empty windows: the lowest value and index -1 in every lane of the item.
    void store_empty_item(const ItemShape& s) {
        for (int v = 0; v < vectors(s); ++v) {
            const std::int64_t first_lane = std::int64_t{v} * plan_.lanes;
            ops_.store_value(at(dst_, first_lane * elem()), vec(regs_.empty_value), vec(regs_.scratch), valid(s, v));
        }
        if (!plan_.has_indices) return;
        for (std::int64_t lane = 0; lane < s.lanes; ++lane) {
            const auto off = static_cast<std::int32_t>(lane * index_elem());
            if (plan_.index_dtype == DType::s64) mov(qword[indices_ + off], -1);
            else mov(dword[indices_ + off], -1);
        }
    }

    void advance_outputs(std::int64_t outputs) {
        add_imm(dst_, outputs * plan_.dst_out_stride_w);
        if (plan_.has_indices) add_imm(indices_, outputs * plan_.dst_out_stride_w / elem() * index_elem());
    }

    // One item: init, merge every real tap, store. taps < 0: the count is in slot_item_taps (computed windows).
    // Float rows come in two copies: the fast one, for rows whose input holds no NaN (one max or one ordered
    // compare per tap), and the exact one, which applies the NaN policy (two dependent compares per tap).
    void emit_item(const ItemShape& s, std::int64_t taps) {
        emit_window_taps(s, s.taps_as_lanes ? 1 : taps, !exact_row());
        store_item(s);
    }

    void emit_window_taps(const ItemShape& s, std::int64_t taps, bool fast) {
        // Tap indices count from the window's first tap when the plan says so, else from the plane's start.
        if (plan_.index_relative_to_window) xor_(tap_index_, tap_index_);
        else mov(tap_index_, window_index_);
        if (s.masked != nullptr && !(fast && plan_.unroll_width_taps && plan_.fast_starts_from_lowest))
            throw Error("jit: a masked item needs the fast path with unrolled width taps");
        if (s.taps_as_lanes && (!fast || !plan_.fast_starts_from_lowest || Ops::needs_vector_masks ||
                                plan_.index_relative_to_window || s.lanes > plan_.lanes))
            throw Error("jit: a taps-as-lanes item needs the AVX-512 fast path and a window of at most one vector");
        if (fast && plan_.fast_starts_from_lowest) init_lowest(s);
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
        // Outer axes loop at run time (their real taps vary by row); an axis the problem lacks has no loop.
        const bool d_axis = plan_.spatial_rank >= 3, h_axis = plan_.spatial_rank >= 2;
        Label d_loop, h_loop;
        mov(d_ptr_, window_);
        mov(ptr[rsp + slot_d_index], tap_index_);
        if (d_axis) {
            mov(scratch_, ptr[rsp + slot_taps_d]);
            mov(ptr[rsp + slot_d_count], scratch_);
        }
        place(d_loop);
        {
            mov(h_ptr_, d_ptr_);
            mov(h_index_, ptr[rsp + slot_d_index]);
            if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
            place(h_loop);
            {
                if (taps >= 0 && (plan_.unroll_width_taps || s.taps_as_lanes)) {
                    for (std::int64_t t = 0; t < taps; ++t) {
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
        if constexpr (!Ops::needs_vector_masks) ops_.unpin_masks();
    }

    ItemShape shape_of(const Segment& seg) const {
        if (nxc_) return {block_lanes_, 1, 1};
        if (seg.taps_as_lanes) return {seg.taps, 1, 1, nullptr, true};
        return {seg.outputs_per_item, seg.lane_step, seg.outputs_per_item, seg.masked ? &seg : nullptr};
    }
    ItemShape single_output_shape() const { return nxc_ ? ItemShape{block_lanes_, 1, 1} : ItemShape{1, 1, 1}; }

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

    void emit_segment(const Segment& seg) {
        const ItemShape s = shape_of(seg);
        if (seg.taps == 0) {
            repeat(seg.repeat, [&] {
                store_empty_item(s);
                advance_outputs(s.outputs);
            });
            return;
        }
        mov(window_, row_src_);
        add_imm(window_, wrap_mul(seg.first_position, plan_.src_step_w));
        mov(window_index_, ptr[rsp + slot_index_base]);
        add_imm(window_index_, wrap_mul(seg.first_position, plan_.index_mult_w));
        repeat(seg.repeat, [&] {
            emit_item(s, seg.taps);
            advance_outputs(s.outputs);
            add_imm(window_, wrap_mul(seg.item_step, plan_.src_step_w));
            add_imm(window_index_, wrap_mul(seg.item_step, plan_.index_mult_w));
        });
    }

    // r = r * v (modulo 2^64).
    void mul_imm(const Reg64& r, std::int64_t v) {
        if (fits_i32(v)) imul(r, r, static_cast<std::int32_t>(v));
        else {
            mov(big_offset_, v);
            imul(r, big_offset_);
        }
    }

    // rax = (rax - 1) / divisor + 1 for rax >= 1 (unsigned: the ceiling of the original rax / divisor).
    // Clobbers rdx and scratch; dst_ (rdx) is saved by the caller.
    void ceil_div_rax(std::uint64_t divisor) {
        if (divisor == 1) return;
        dec(rax);
        xor_(edx, edx);
        mov(scratch_, divisor);
        div(scratch_);
        inc(rax);
    }

    // The window of the output at slot_walk_position, into window_, window_index_ and slot_item_taps; jumps to
    // `empty` when it has no real tap. Max pooling (position p = o * stride in padded coordinates, below
    // pad + in): first tap kb = p >= pad ? 0 : ceil((pad - p) / d), end ke = min(k, ceil((pad + in - p) / d)).
    // Adaptive (position o): [o*in/out, ceil((o+1)*in/out)) from 128-bit products.
    void compute_window(Label& empty) {
        const ComputedWindows& w = plan_.walk;
        mov(ptr[rsp + slot_saved_dst], dst_);  // mul and div use rdx
        if (w.adaptive) {
            mov(rax, ptr[rsp + slot_walk_position]);
            mov(scratch_, w.in);
            mul(scratch_);
            mov(scratch_, w.out);
            div(scratch_);
            mov(window_index_, rax);  // first position
            mov(rax, ptr[rsp + slot_walk_position]);
            inc(rax);
            mov(scratch_, w.in);
            mul(scratch_);
            mov(scratch_, w.out - 1);
            add(rax, scratch_);
            adc(rdx, 0);
            mov(scratch_, w.out);
            div(scratch_);
            sub(rax, window_index_);  // taps (never 0: adaptive windows are never empty)
            mov(ptr[rsp + slot_item_taps], rax);
            mov(rax, window_index_);
        } else {
            Label starts_inside, first_found;
            mov(window_, ptr[rsp + slot_walk_position]);
            mov(rax, w.pad);
            cmp(window_, rax);
            jae(starts_inside, T_NEAR);
            sub(rax, window_);
            ceil_div_rax(w.dilation);
            jmp(first_found, T_NEAR);
            place(starts_inside);
            xor_(eax, eax);
            place(first_found);
            mov(window_index_, rax);  // kb
            mov(rax, w.pad + w.in);
            sub(rax, window_);
            ceil_div_rax(w.dilation);
            mov(scratch_, w.kernel);
            cmp(rax, scratch_);
            cmova(rax, scratch_);  // ke
            mov(dst_, ptr[rsp + slot_saved_dst]);
            sub(rax, window_index_);
            jbe(empty, T_NEAR);  // ke <= kb
            mov(ptr[rsp + slot_item_taps], rax);
            // first position = p + kb * d - pad
            mov(rax, window_index_);
            mul_imm(rax, static_cast<std::int64_t>(w.dilation));
            add(rax, window_);
            mov(scratch_, w.pad);
            sub(rax, scratch_);
        }
        mov(dst_, ptr[rsp + slot_saved_dst]);
        mov(window_index_, rax);
        mul_imm(window_index_, plan_.index_mult_w);
        add(window_index_, ptr[rsp + slot_index_base]);
        mul_imm(rax, plan_.src_step_w);
        lea(window_, ptr[row_src_ + rax]);
    }

    // Computed windows: empty outputs before and after, one output per item in between.
    void emit_computed_walk() {
        const ComputedWindows& w = plan_.walk;
        const ItemShape s = single_output_shape();
        const auto store_empties = [&](std::int64_t count) {
            repeat(count, [&] {
                store_empty_item(s);
                advance_outputs(s.outputs);
            });
        };
        store_empties(w.empty_before);
        if (w.computed > 0) {
            Label item_loop, empty_item, next_item;
            mov(scratch_, w.adaptive ? static_cast<std::uint64_t>(w.empty_before) : w.first_padded_position);
            mov(ptr[rsp + slot_walk_position], scratch_);
            mov(scratch_, w.computed);
            mov(ptr[rsp + slot_items_left], scratch_);
            place(item_loop);
            compute_window(empty_item);
            emit_item(s, -1);
            jmp(next_item, T_NEAR);
            place(empty_item);
            store_empty_item(s);
            place(next_item);
            advance_outputs(s.outputs);
            mov(scratch_, w.adaptive ? std::uint64_t{1} : w.stride);
            add(ptr[rsp + slot_walk_position], scratch_);
            dec(qword[rsp + slot_items_left]);
            jnz(item_loop, T_NEAR);
        }
        store_empties(w.empty_after);
    }

    void emit_row() {
        if (plan_.computed_windows) emit_computed_walk();
        else
            for (const Segment& seg : !exact_row() && !plan_.fast_segments.empty() ? plan_.fast_segments : plan_.segments)
                emit_segment(seg);
    }

    // Jumps to `has_nan` when any element of the input rows this call reads (every real d and h tap row, the
    // whole width) is NaN: a running sum per accumulator register turns NaN (so does +inf meeting -inf, or an
    // overflow, which only costs the exact path). Elements no window reads may also send the row there.
    void emit_nan_scan(Label& has_nan) {
        const bool d_axis = plan_.spatial_rank >= 3, h_axis = plan_.spatial_rank >= 2;
        // nxc: one position (a block of channels, vectors_per_block vectors) per step along the width;
        // ncx: vectors_per_block vectors of consecutive elements per step, then a partial step.
        const std::int64_t step_lanes = nxc_ ? block_lanes_ : std::int64_t{plan_.vectors_per_block} * plan_.lanes;
        const std::int64_t full_steps = nxc_ ? plan_.in_width : plan_.in_width / step_lanes;
        const std::int64_t rest = nxc_ ? 0 : plan_.in_width % step_lanes;
        const std::int64_t step_bytes = nxc_ ? plan_.src_step_w : step_lanes * elem();
        const int sums = plan_.vectors_per_block;
        Vmm sum_regs[max_vectors];
        for (int v = 0; v < sums; ++v) {
            sum_regs[v] = vec(regs_.acc[v]);
            ops_.begin_nan_watch(sum_regs[v]);
        }
        const auto add_step = [&](const Reg64& base, std::int64_t lanes) {
            const ItemShape shape{lanes, 1, 1};
            for (int v = 0; v < vectors(shape); ++v) {
                load_item_vector(shape, v, base, 0, vec(regs_.fresh), false);
                ops_.note_nan(sum_regs[v], vec(regs_.fresh));
            }
        };
        Label d_loop, h_loop, w_loop;
        mov(d_ptr_, row_src_);
        if (d_axis) {
            mov(scratch_, ptr[rsp + slot_taps_d]);
            mov(ptr[rsp + slot_d_count], scratch_);
        }
        place(d_loop);
        mov(h_ptr_, d_ptr_);
        if (h_axis) mov(h_count_, ptr[rsp + slot_taps_h]);
        place(h_loop);
        mov(tap_ptr_, h_ptr_);
        if (full_steps > 0) {
            mov(tap_count_, full_steps);
            place(w_loop);
            add_step(tap_ptr_, step_lanes);
            add_imm(tap_ptr_, step_bytes);
            dec(tap_count_);
            jnz(w_loop, T_NEAR);
        }
        if (rest > 0) add_step(tap_ptr_, rest);
        if (h_axis) {
            add_imm(h_ptr_, plan_.src_tap_stride_h);
            dec(h_count_);
            jnz(h_loop, T_NEAR);
        }
        if (d_axis) {
            add_imm(d_ptr_, plan_.src_tap_stride_d);
            dec(qword[rsp + slot_d_count]);
            jnz(d_loop, T_NEAR);
        }
        ops_.jump_if_nan_seen(sum_regs, sums, has_nan);
    }

    void store_empty_row() {
        if (nxc_ || plan_.computed_windows) {
            const ItemShape s = single_output_shape();
            repeat(plan_.out_width, [&] {
                store_empty_item(s);
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

    void load_constants() {
        // Empty-window value in the store domain (raw bits for f16).
        const Vmm empty = vec(regs_.empty_value);
        switch (plan_.dtype) {
            case DType::f32: case DType::bf16: ops_.broadcast_constant32(empty, 0xFF800000u); break;
            case DType::f16: ops_.broadcast_constant32(empty, 0xFC00u); break;
            case DType::s8: ops_.broadcast_constant32(empty, plan_.compare == CompareType::s8 ? 0x80808080u : 0xFFFFFF80u); break;
            case DType::u8: ops_.broadcast_constant32(empty, 0u); break;
            case DType::s32: ops_.broadcast_constant32(empty, 0x80000000u); break;
            case DType::f64: ops_.broadcast_constant64(empty, 0xFFF0000000000000ull); break;
            case DType::s64: ops_.broadcast_constant64(empty, 0x8000000000000000ull); break;
        }
        if (plan_.has_indices) ops_.broadcast_constant64(vec(regs_.minus_one), ~std::uint64_t{0});
    }

    void generate() {
        for (const Reg64& r : {rbx, rbp, r12, r13, r14, r15}) push(r);
        sub(rsp, frame_bytes);
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
                                                    slot_channel_index_base_row_step}}) {
            mov(scratch_, ptr[args_ + static_cast<std::int32_t>(field)]);
            mov(ptr[rsp + slot], scratch_);
        }
        // The args pointer is not needed any more: rdi becomes the row's source base.

        Label row_loop, empty_row, row_done, done;
        place(row_loop);
        mov(dst_, ptr[rsp + slot_row_dst]);
        mov(indices_, ptr[rsp + slot_row_indices]);
        mov(row_src_, ptr[rsp + slot_row_src]);
        if (plan_.has_indices) {
            mov(scratch_, ptr[rsp + slot_channel_index_base]);
            ops_.broadcast_gpr(vec(regs_.chan_base), scratch_, plan_.wide_index_math);
        }
        mov(scratch_, ptr[rsp + slot_taps_h]);
        imul(scratch_, ptr[rsp + slot_taps_d]);
        test(scratch_, scratch_);
        jz(empty_row, T_NEAR);
        if (plan_.scan_rows_for_nan) {
            // NaN inputs are rare: one pass over the row's input decides which copy of the row code runs.
            Label exact_row;
            emit_nan_scan(exact_row);
            emit_row();
            jmp(row_done, T_NEAR);
            place(exact_row);
            fast_row_ = false;
            emit_row();
            fast_row_ = true;
        } else {
            emit_row();
        }
        jmp(row_done, T_NEAR);

        place(empty_row);
        store_empty_row();

        place(row_done);
        dec(qword[rsp + slot_rows]);
        jz(done, T_NEAR);
        for (const auto& [slot, step] : {std::pair{slot_row_src, slot_src_row_step}, std::pair{slot_row_dst, slot_dst_row_step},
                                         std::pair{slot_row_indices, slot_indices_row_step},
                                         std::pair{slot_index_base, slot_index_base_row_step},
                                         std::pair{slot_channel_index_base, slot_channel_index_base_row_step}}) {
            mov(scratch_, ptr[rsp + step]);
            add(ptr[rsp + slot], scratch_);
        }
        jmp(row_loop, T_NEAR);

        place(done);
        add(rsp, frame_bytes);
        for (const Reg64& r : {r15, r14, r13, r12, rbp, rbx}) pop(r);
        vzeroupper();
        ret();

        emit_data();
    }

    void emit_data() {
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
    }

    const KernelPlan& plan_;
    const bool nxc_;
    const std::int64_t block_lanes_;
    VectorRoles regs_;
    Ops ops_;
    std::map<std::int64_t, Label> lane_tables_;
    bool fast_row_ = true;  // emitting the copy of the row code for input without NaN (scanned float rows)
    // The code being emitted applies the NaN policy per tap: float rows that are not scanned, and the copy
    // of scanned rows that runs when the scan saw a NaN. Integer rows have one copy, with nothing to apply.
    bool exact_row() const { return plan_.is_float && !(plan_.scan_rows_for_nan && fast_row_); }
};

template <typename Ops>
class WindowKernel final : public CompiledKernel {
public:
    explicit WindowKernel(const KernelPlan& plan) : plan_(plan), full_(plan_, plan_.channel_block) {
        if (plan_.channel_tail > 0) tail_ = std::make_unique<WindowEmitter<Ops>>(plan_, plan_.channel_tail);
    }
    KernelFn full_block() const override { return full_.entry(); }
    KernelFn tail_block() const override { return tail_ ? tail_->entry() : nullptr; }
    std::size_t code_size() const override { return full_.getSize() + (tail_ ? tail_->getSize() : 0); }
    std::vector<CodeRegion> code_regions() const override {
        std::vector<CodeRegion> regions{{"full", full_.getCode(), full_.getSize()}};
        if (tail_) regions.push_back({"tail", tail_->getCode(), tail_->getSize()});
        return regions;
    }

private:
    KernelPlan plan_;  // the emitters keep references into it
    WindowEmitter<Ops> full_;
    std::unique_ptr<WindowEmitter<Ops>> tail_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile(const KernelPlan& plan) {
    switch (plan.isa) {
        case Isa::avx512: return std::make_unique<WindowKernel<Avx512Ops>>(plan);
        case Isa::avx2: return std::make_unique<WindowKernel<Avx2Ops>>(plan);
        case Isa::ref: break;
    }
    throw Error("jit: no emitter for isa " + std::string(to_string(plan.isa)));
}

}  // namespace pooljit::jit
