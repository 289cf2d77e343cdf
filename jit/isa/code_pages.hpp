// Executable memory for compiled kernels. An emitter writes its code into ordinary heap memory (Xbyak's AutoGrow
// buffer, allocated by emit_allocator() and never made executable); the finished entries of one kernel are
// copied into one run of pages taken from a pool and made read-exec with one mprotect. W^X holds throughout:
// no page is writable and executable at once. A run freed with its kernel is made read-write again and kept
// for the next kernel, so a cache miss costs that one mprotect, where an Xbyak buffer of its own per entry cost
// an mmap, a page fault and an mprotect each (about 3 us apiece on the KVM guests of docs/performance.md).
//
// The copy is exact only for position-independent code: jumps and data are addressed relative to rip within
// the entry. Emitters must not take a label's absolute address (Xbyak's mov(reg, label), putL) or call an
// absolute address: tests/isa/test_code_pages.cpp compares the bytes of two emissions of one plan held at once, and
// the JIT tests run every strategy's kernels from their copies.
#pragma once

#include <xbyak/xbyak.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace pooljit::jit {

// The allocator of emission buffers: 64-byte aligned heap memory, so that Xbyak's align() (which aligns the
// absolute address) pads the same as it would at the entry's 64-byte aligned place in the pages. It never
// changes protection (useProtect() is false): the buffer is written, read and freed, never run.
Xbyak::Allocator& emit_allocator();

// The executable copy of one kernel's entries. Not copyable or movable: the executor holds its entry addresses.
class ExecutableCode {
public:
    // Copies each entry to a 64-byte aligned offset of one run of pages, then makes the run read-exec. Throws
    // (std::bad_alloc, or pooljit::Error when the kernel refuses the protection change) with nothing held.
    explicit ExecutableCode(std::initializer_list<std::span<const std::uint8_t>> entries);
    ~ExecutableCode();
    ExecutableCode(const ExecutableCode&) = delete;
    ExecutableCode& operator=(const ExecutableCode&) = delete;

    std::size_t entries() const { return offsets_.size(); }
    const std::uint8_t* entry(std::size_t i) const { return run_ + offsets_[i]; }
    template <class Function>
    Function function(std::size_t i) const { return reinterpret_cast<Function>(run_ + offsets_[i]); }
    std::size_t entry_size(std::size_t i) const { return sizes_[i]; }
    std::size_t code_size() const;  // the entries' bytes, without the alignment between them

private:
    std::uint8_t* run_ = nullptr;
    std::size_t run_bytes_ = 0;
    std::vector<std::size_t> offsets_, sizes_;
};

// The pool's counters, for tests and the docs' measurements.
struct CodePageStats {
    std::size_t runs_in_use = 0;
    std::size_t free_runs = 0;      // freed runs kept mapped (read-write) for reuse
    std::size_t mapped_bytes = 0;   // every byte the pool has mapped and not returned to the kernel
};
CodePageStats code_page_stats();

}  // namespace pooljit::jit
