// Planes in registers (Strategy::ncx_planes, AVX-512): a call computes whole planes of one image. Each plane's
// input is loaded into PlanePlan::registers vector registers once; each vector of outputs (flat across the
// plane's rows) takes its windows' taps from them by the plan's permutes, tap by tap in each lane's scan order,
// and is stored whole. A row of 7 outputs otherwise costs a row loop, a NaN scan and a half-empty vector per
// tap; here a plane costs its loads, one permute and one max per gather, and its stores.
//
// u8/s8 planes keep byte lanes (64 outputs a vector), gathered by byte permutes (AVX512_VBMI's vpermi2b: the
// planner takes them only for a core that has it). Float planes are watched for NaN while they load (a running sum) and, when one is seen, run the exact copy of
// the gathers (two dependent compares per tap under the NaN policy) instead of the fast one (one max, or one
// ordered compare with indices). Both copies start each lane from its window's first real tap. f16 (values only)
// computes in f32 lanes, converted as the plane loads and back as each vector stores; its exact copy reloads the
// plane with each NaN lane as the f32 NaN 0x7FC00000 | its 16 bits, and stores a NaN maximum's low 16 bits.
#include "jit/isa/code_pages.hpp"
#include "jit/emit/plane_kernel.hpp"
#include "jit/isa/vec_avx512.hpp"

#include <pooljit/types.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace pooljit::jit {
namespace {

// The gathers' tables, outside the code (written as data, not byte by byte through the assembler): per gather
// 64 bytes of source lanes and, with indices, 64 bytes of spatial indices; then 128 bytes of zeros (the lane
// offsets the index store adds).
std::int32_t plane_table_offset(const KernelPlan& plan, std::size_t g) {
    return static_cast<std::int32_t>(g * (plan.has_indices ? 128 : 64));
}

struct alignas(64) TableLine {
    std::uint8_t bytes[64];
};

std::vector<TableLine> plane_tables(const KernelPlan& plan) {
    const std::size_t gathers = plan.plane.gathers.size();
    std::vector<TableLine> lines(static_cast<std::size_t>(plane_table_offset(plan, gathers)) / 64 + 2, TableLine{});
    const int source_bytes = lane_bytes(plan.compare) == 1 ? 1 : lane_bytes(plan.compare) == 8 ? 8 : 4;
    const auto put = [&](std::size_t line, int lane, std::int64_t value, int bytes) {
        std::uint8_t* at = lines[line].bytes + lane * bytes;
        if (bytes == 8) std::memcpy(at, &value, 8);
        else if (bytes == 1) *at = static_cast<std::uint8_t>(value);
        else {
            const auto narrow = static_cast<std::int32_t>(value);
            std::memcpy(at, &narrow, 4);
        }
    };
    for (std::size_t g = 0; g < gathers; ++g) {
        const PlaneGather& gather = plan.plane.gathers[g];
        const std::size_t line = static_cast<std::size_t>(plane_table_offset(plan, g)) / 64;
        for (int j = 0; j < plan.lanes; ++j) {
            put(line, j, gather.source[static_cast<std::size_t>(j)], source_bytes);
            if (plan.has_indices) put(line + 1, j, gather.index[static_cast<std::size_t>(j)], plan.index_lanes_64 ? 8 : 4);
        }
    }
    return lines;
}

template <typename Ops>
class PlaneEmitter : public Xbyak::CodeGenerator {
public:
    using Vmm = typename Ops::Vmm;

    // tables: plane_tables(plan), which must outlive the code.
    PlaneEmitter(const KernelPlan& plan, const void* tables)
        : CodeGenerator(8192, Xbyak::AutoGrow, &emit_allocator()), plan_(plan), ops_(*this, lane_format(plan), resources()), tables_(tables) {
        const int lanes = Ops::vector_bytes / lane_bytes(plan_.compare);
        const bool byte_lanes = lane_bytes(plan_.compare) == 1;
        if (plan_.strategy != Strategy::ncx_planes || plan_.lanes != lanes || lane_bytes(plan_.compare) == 2 ||
            (byte_lanes && plan_.has_indices) || (f16() && plan_.has_indices) || plan_.plane.registers < 1 ||
            plan_.plane.registers > first_role)
            throw Error("jit: planes in registers need whole registers of 32- or 64-bit lanes (or byte lanes without "
                        "indices), no f16 indices and at most " + std::to_string(first_role) + " registers of input");
        for (const PlaneGather& g : plan_.plane.gathers)
            if (g.first >= plan_.plane.registers || g.second >= plan_.plane.registers)
                throw Error("jit: a plane gather reads a register outside the plane");
        generate();
        ready();  // jumps resolved; the bytes are copied into executable pages (jit/code_pages.hpp)
    }

    std::span<const std::uint8_t> code() const { return {getCode(), getSize()}; }

private:
    using Reg64 = Xbyak::Reg64;
    using Label = Xbyak::Label;

    // General-purpose registers by role; rdi carries the KernelArgs pointer until the prologue has read it.
    const Reg64 args_ = rdi, channel_base_step_ = rdi;
    const Reg64 src_ = rsi, dst_ = rdx, indices_ = rcx, planes_ = r8, src_step_ = r9, dst_step_ = r10,
                indices_step_ = r11, channel_base_ = rax, scratch_ = rbx, tables_reg_ = r12;
    // Vector registers by role: the plane's input takes the first `registers`; the roles sit above the most a
    // plane may take.
    static constexpr int first_role = 16;
    static constexpr int acc_ = first_role, idx_ = first_role + 1, gathered_ = first_role + 2, sum_ = first_role + 3,
                         sum_odd_ = first_role + 4, empty_ = first_role + 5, minus_one_ = first_role + 6,
                         channel_lanes_ = first_role + 7, store_scratch_ = first_role + 8, raw_ = first_role + 9,
                         quiet_nan_ = first_role + 10;

    TraitResources resources() const {
        TraitResources r;
        r.scratch = rbx;
        return r;
    }
    static Vmm vec(int i) { return Vmm(i); }
    std::int64_t elem() const { return static_cast<std::int64_t>(size_of(plan_.dtype)); }
    bool f16() const { return plan_.dtype == DType::f16; }
    std::int64_t index_elem() const { return static_cast<std::int64_t>(size_of(plan_.index_dtype)); }
    int valid(std::int64_t count, std::int64_t v) const {
        return static_cast<int>(std::min<std::int64_t>(plan_.lanes, count - v * plan_.lanes));
    }
    Xbyak::Address source_table(std::size_t g) { return ptr[tables_reg_ + plane_table_offset(plan_, g)]; }
    Xbyak::Address index_table(std::size_t g) { return ptr[tables_reg_ + (plane_table_offset(plan_, g) + 64)]; }
    void place(Label& label) {
        L(label);
        ops_.forget_mask();
    }

    void load_plane() {
        const bool watch = plan_.is_float;
        if (watch) {
            ops_.begin_nan_watch(vec(sum_));
            ops_.begin_nan_watch(vec(sum_odd_));
        }
        for (int r = 0; r < plan_.plane.registers; ++r) {
            const int n = valid(plan_.plane.elements, r);
            for_each_piece(plan_.plane.src_rows, src_, r, n, [&](const Xbyak::Address& at, std::uint64_t bits, Piece piece) {
                if (piece == Piece::whole) ops_.load_value(vec(r), at, n);
                else if (piece == Piece::first) ops_.load_value_lanes(vec(r), at, bits);  // the other lanes 0
                else ops_.load_value_lanes_into(vec(r), at, bits, vec(raw_));
            });
            if (watch) ops_.note_nan(vec(r % 2 == 0 ? sum_ : sum_odd_), vec(r));  // two chains: half the latency
        }
    }

    // whole: a vector's one piece from lane 0 (one plain load or store of its elements: dense planes); first and
    // later: the pieces of a vector in several, under lane masks.
    enum class Piece { whole, first, later };
    // The pieces of register (or output vector) v's n elements in a plane whose rows lie as `rows` says, from
    // `base`: each piece's address (its first lane's element less its lane), its lanes and its kind.
    template <typename Each>
    void for_each_piece(const PlaneRows& rows, const Reg64& base, std::int64_t v, int n, Each&& each) {
        const std::vector<PlanePiece> pieces = plane_pieces(rows, v * plan_.lanes, n);
        const auto bits_of = [](const PlanePiece& q) {
            const std::uint64_t span = q.lanes >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << q.lanes) - 1;
            return span << q.lane;
        };
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const PlanePiece& q = pieces[i];
            const auto at = ptr[base + static_cast<std::int32_t>((q.offset - q.lane) * elem())];
            each(at, bits_of(q), pieces.size() == 1 && q.lane == 0 ? Piece::whole : i == 0 ? Piece::first : Piece::later);
        }
    }

    // f16's exact copy: the plane again, each NaN lane as 0x7FC00000 | its raw bits (a NaN to every compare,
    // whose low 16 bits are the element's).
    void reload_f16_plane_exact() {
        ops_.broadcast_constant32(vec(quiet_nan_), 0x7FC00000u);
        for (int r = 0; r < plan_.plane.registers; ++r) {
            const int n = valid(plan_.plane.elements, r);
            for_each_piece(plan_.plane.src_rows, src_, r, n, [&](const Xbyak::Address& at, std::uint64_t bits, Piece piece) {
                if (piece == Piece::whole) ops_.load_raw(vec(raw_), at, n);
                else if (piece == Piece::first) ops_.zero_vector(vec(raw_));
                if (piece != Piece::whole) ops_.load_raw_lanes_into(vec(raw_), at, bits);
            });
            vpord(vec(raw_), vec(raw_), vec(quiet_nan_));
            ops_.find_nan_lanes(vec(r));
            ops_.move_under_fix(vec(r), vec(raw_));
        }
    }

    // f16's exact copy: a vector of maxima as f16, a NaN lane as its low 16 bits (output vector v, n lanes).
    void store_f16_exact(std::int64_t v, const Vmm& acc, int n) {
        const Xbyak::Ymm half(store_scratch_);
        vcvtps2ph(half, acc, 0);  // exact for every value that came from an f16
        vpmovzxwd(vec(raw_), half);
        ops_.find_nan_lanes(acc);
        ops_.broadcast_constant32(vec(store_scratch_), 0x0000FFFFu);
        vpandd(vec(store_scratch_), acc, vec(store_scratch_));
        ops_.move_under_fix(vec(raw_), vec(store_scratch_));
        for_each_piece(plan_.plane.dst_rows, dst_, v, n, [&](const Xbyak::Address& at, std::uint64_t bits, Piece piece) {
            if (piece == Piece::whole) ops_.store_raw_f16(at, vec(raw_), vec(store_scratch_), n);
            else ops_.store_raw_f16_lanes(at, vec(raw_), bits);
        });
    }

    // Every output vector of the plane: each lane from its first real tap, then the later taps merged, stored.
    void emit_gathers(bool fast) {
        const std::vector<PlaneGather>& gathers = plan_.plane.gathers;
        const Vmm acc = vec(acc_), idx = vec(idx_), fresh = vec(gathered_);
        const bool fix_all_nan = !fast && plan_.is_float && plan_.nan == NanPolicy::ignore;
        std::size_t g = 0;
        const std::int64_t vectors = (plan_.plane.outputs + plan_.lanes - 1) / plan_.lanes;
        for (std::int64_t v = 0; v < vectors; ++v) {
            // Lanes without a real tap keep the empty window's value and index.
            vmovdqa64(acc, vec(empty_));
            if (plan_.has_indices) vmovdqa64(idx, vec(minus_one_));
            const int n = valid(plan_.plane.outputs, v);
            std::uint64_t empty_lanes = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
            for (; g < gathers.size() && gathers[g].vector == v; ++g) {
                const PlaneGather& gather = gathers[g];
                if (gather.tap == 0) empty_lanes &= ~gather.lanes_mask;
                ops_.permute_pair(fresh, source_table(g), vec(gather.first), vec(gather.second));
                if (gather.tap == 0) {
                    ops_.copy_lanes(acc, fresh, gather.lanes_mask);
                    if (plan_.has_indices) ops_.copy_index_lanes(idx, index_table(g), gather.lanes_mask);
                } else if (fast && !plan_.has_indices) {
                    ops_.max_fast_lanes(acc, fresh, gather.lanes_mask);
                } else {
                    if (fast) ops_.compute_take_fast_lanes(fresh, acc, gather.lanes_mask);
                    else ops_.compute_take_lanes(fresh, acc, gather.lanes_mask);
                    ops_.blend_take(acc, fresh);
                    if (plan_.has_indices) ops_.blend_take_index_from(idx, index_table(g));
                }
            }
            if (fix_all_nan) {
                // nan=ignore: a window of only NaN kept its first NaN; it is an empty window.
                ops_.find_nan_lanes(acc);
                ops_.move_under_fix(acc, vec(empty_));
            }
            // Empty windows store index -1, not -1 plus the channel's part.
            const bool fix_indices = plan_.has_indices && (fix_all_nan || empty_lanes != 0);
            if (plan_.has_indices && empty_lanes != 0) ops_.set_fix_lanes(empty_lanes, fix_all_nan);
            if (f16() && !fast) {
                store_f16_exact(v, acc, n);
            } else {
                for_each_piece(plan_.plane.dst_rows, dst_, v, n, [&](const Xbyak::Address& at, std::uint64_t bits, Piece piece) {
                    if (piece == Piece::whole) ops_.store_value(at, acc, vec(store_scratch_), n);
                    else ops_.store_value_lanes(at, acc, vec(store_scratch_), bits);
                });
            }
            if (plan_.has_indices) {
                const std::int64_t first = v * plan_.lanes;
                const std::int64_t entry = plan_.wide_index_math ? 8 : 4;
                ops_.store_indices(
                    [&](int lane) { return ptr[indices_ + static_cast<std::int32_t>((first + lane) * index_elem())]; },
                    [&](int lane) {
                        const auto zeros = plane_table_offset(plan_, plan_.plane.gathers.size());
                        return ptr[tables_reg_ + (zeros + static_cast<std::int32_t>(lane * entry))];
                    },
                    idx,
                    vec(channel_lanes_), vec(minus_one_), vec(store_scratch_), n, fix_indices);
            }
        }
    }

    // Integer values without indices merge by lane masks alone: every opmask may hold one, loaded before the
    // plane loop (VGG pool5 u8 in byte lanes: 6 masks a plane, reloaded in turn through the 4 registers).
    bool lane_masks_only() const { return !plan_.is_float && !plan_.has_indices; }
    // The partial-vector masks of the plane's loads and stores and the gathers' lane masks, most used first.
    std::vector<std::uint64_t> masks_by_use() const {
        const std::uint64_t all = plan_.lanes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << plan_.lanes) - 1;
        std::vector<std::pair<std::uint64_t, int>> uses;
        const auto use = [&](std::uint64_t bits) {
            if (bits == all) return;
            for (auto& [mask, count] : uses)
                if (mask == bits) return void(++count);
            uses.push_back({bits, 1});
        };
        const auto first_lanes = [](int n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; };
        // A vector's loads or stores: one partial-vector mask, or a mask a piece.
        const auto use_pieces = [&](const PlaneRows& rows, std::int64_t v, int n) {
            const std::vector<PlanePiece> pieces = plane_pieces(rows, v * plan_.lanes, n);
            if (pieces.size() == 1 && pieces[0].lane == 0) return use(first_lanes(n));
            for (const PlanePiece& q : pieces) use(first_lanes(q.lanes) << q.lane);
        };
        for (int r = 0; r < plan_.plane.registers; ++r) use_pieces(plan_.plane.src_rows, r, valid(plan_.plane.elements, r));
        for (const PlaneGather& g : plan_.plane.gathers) use(g.lanes_mask);
        for (std::int64_t v = 0; v * plan_.lanes < plan_.plane.outputs; ++v)
            use_pieces(plan_.plane.dst_rows, v, valid(plan_.plane.outputs, v));
        std::stable_sort(uses.begin(), uses.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
        std::vector<std::uint64_t> masks;
        for (const auto& [mask, count] : uses) masks.push_back(mask);
        return masks;
    }

    void generate() {
        if (lane_masks_only()) ops_.use_every_opmask_for_lanes();
        push(rbx);
        push(r12);
        mov(tables_reg_, reinterpret_cast<std::uint64_t>(tables_));
        mov(src_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src))]);
        mov(dst_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst))]);
        mov(indices_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, indices))]);
        mov(planes_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, rows))]);
        mov(src_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, src_row_step))]);
        mov(dst_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, dst_row_step))]);
        mov(indices_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, indices_row_step))]);
        mov(channel_base_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, channel_index_base))]);
        mov(channel_base_step_, ptr[args_ + static_cast<std::int32_t>(offsetof(KernelArgs, channel_index_base_row_step))]);
        broadcast_empty_value(ops_, vec(empty_), lane_format(plan_));
        if (plan_.has_indices) ops_.broadcast_constant64(vec(minus_one_), ~std::uint64_t{0});

        Label plane_loop, exact, next, done;
        test(planes_, planes_);
        jz(done, T_NEAR);
        if (lane_masks_only()) ops_.pin_masks(masks_by_use());
        place(plane_loop);
        if (plan_.has_indices) ops_.broadcast_gpr(vec(channel_lanes_), channel_base_, plan_.wide_index_math);
        load_plane();
        if (plan_.is_float) {
            const Vmm sums[2] = {vec(sum_), vec(sum_odd_)};
            ops_.jump_if_nan_seen(sums, 2, exact);
        }
        emit_gathers(true);
        if (plan_.is_float) {
            jmp(next, T_NEAR);
            place(exact);
            if (f16()) reload_f16_plane_exact();
            emit_gathers(false);
        }
        place(next);
        add(src_, src_step_);
        add(dst_, dst_step_);
        add(indices_, indices_step_);
        add(channel_base_, channel_base_step_);
        dec(planes_);
        jnz(plane_loop, T_NEAR);
        place(done);
        pop(r12);
        pop(rbx);
        vzeroupper();
        ret();

        emit_data();
    }

    void emit_data() { ops_.emit_data(); }

    const KernelPlan& plan_;
    Ops ops_;
    const void* tables_;
};

class PlaneKernel final : public CompiledKernel {
public:
    explicit PlaneKernel(const KernelPlan& plan)
        : tables_(plane_tables(plan)), code_{PlaneEmitter<Avx512Ops>(plan, tables_.data()).code()} {}
    KernelFn full_block() const override { return code_.function<KernelFn>(0); }
    KernelFn tail_block() const override { return nullptr; }
    std::size_t code_size() const override { return code_.code_size(); }
    std::vector<CodeRegion> code_regions() const override { return {{"full", code_.entry(0), code_.entry_size(0)}}; }

private:
    std::vector<TableLine> tables_;  // the code holds their address
    ExecutableCode code_;
};

}  // namespace

std::unique_ptr<CompiledKernel> compile_planes(const KernelPlan& plan) {
    if (plan.isa != Isa::avx512) throw Error("jit: planes in registers need AVX-512 (opmasks, two-register permutes)");
    return std::make_unique<PlaneKernel>(plan);
}

}  // namespace pooljit::jit
