#include "jit/isa/code_pages.hpp"

#include <pooljit/types.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>

namespace pooljit::jit {
namespace {

// Entries start on a cache line: Xbyak's align(64) in an emission buffer pads to the same bytes there.
constexpr std::size_t entry_alignment = 64;
// Fresh runs are carved from chunks of this many pages, mapped and populated in one mmap: a median kernel is
// under 2 KiB of code, one page, so a chunk serves about 32 kernels for one mmap and no page faults.
constexpr std::size_t chunk_pages = 32;
// Freed runs are kept mapped up to this many bytes (the default cache's 1024 kernels of one page each); beyond
// it they go back to the kernel.
constexpr std::size_t max_free_bytes = std::size_t{4} << 20;

std::size_t round_up(std::size_t value, std::size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

std::size_t page_bytes() {
    static const std::size_t bytes = [] {
        const long size = sysconf(_SC_PAGESIZE);
        return size > 0 ? static_cast<std::size_t>(size) : std::size_t{4096};
    }();
    return bytes;
}

std::string errno_text() { return std::strerror(errno); }

class EmitAllocator final : public Xbyak::Allocator {
public:
    std::uint8_t* alloc(std::size_t size) override {
        void* p = std::aligned_alloc(entry_alignment, round_up(std::max<std::size_t>(size, 1), entry_alignment));
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<std::uint8_t*>(p);
    }
    void free(std::uint8_t* p) override { std::free(p); }
    bool useProtect() const override { return false; }
};

// Runs of pages, read-write while in the pool. Runs are reused only at their exact size: kernels come in a
// few sizes (one page for most), and a split or merge would buy little.
class PagePool {
public:
    std::uint8_t* take(std::size_t bytes) {
        std::lock_guard lock(mutex_);
        if (const auto found = free_.find(bytes); found != free_.end()) {
            std::uint8_t* run = found->second.back();
            found->second.pop_back();
            if (found->second.empty()) free_.erase(found);
            free_bytes_ -= bytes;
            --free_runs_;
            ++runs_in_use_;
            return run;
        }
        const std::size_t chunk_bytes = chunk_pages * page_bytes();
        if (bytes > chunk_bytes) {
            std::uint8_t* run = map_locked(bytes);
            ++runs_in_use_;
            return run;
        }
        if (chunk_left_ < bytes) {
            // A new chunk (mapped first: if that throws, the current one stays as it is); the rest of the current
            // one becomes a free run of its size.
            std::uint8_t* const chunk = map_locked(chunk_bytes);
            if (chunk_left_ > 0) keep_locked(chunk_next_, chunk_left_);
            chunk_next_ = chunk;
            chunk_left_ = chunk_bytes;
        }
        std::uint8_t* run = chunk_next_;
        chunk_next_ += bytes;
        chunk_left_ -= bytes;
        ++runs_in_use_;
        return run;
    }

    // A run back from use, read-write again. Called from destructors: never throws.
    void give(std::uint8_t* run, std::size_t bytes) noexcept {
        std::lock_guard lock(mutex_);
        --runs_in_use_;
        keep_locked(run, bytes);
    }

    // A run whose protection may be mixed (an mprotect failed): returned to the kernel, never reused.
    void discard(std::uint8_t* run, std::size_t bytes) noexcept {
        std::lock_guard lock(mutex_);
        --runs_in_use_;
        unmap_locked(run, bytes);
    }

    CodePageStats stats() {
        std::lock_guard lock(mutex_);
        return {runs_in_use_, free_runs_, mapped_bytes_};
    }

private:
    std::uint8_t* map_locked(std::size_t bytes) {
        void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) throw std::bad_alloc();
        mapped_bytes_ += bytes;
        return static_cast<std::uint8_t*>(p);
    }

    void unmap_locked(std::uint8_t* run, std::size_t bytes) noexcept {
        if (munmap(run, bytes) == 0) mapped_bytes_ -= bytes;
    }

    // Kept for reuse, or unmapped when the pool holds enough or the free list cannot grow.
    void keep_locked(std::uint8_t* run, std::size_t bytes) noexcept {
        if (free_bytes_ + bytes > max_free_bytes) {
            unmap_locked(run, bytes);
            return;
        }
        try {
            free_[bytes].push_back(run);
        } catch (const std::bad_alloc&) {
            unmap_locked(run, bytes);
            return;
        }
        free_bytes_ += bytes;
        ++free_runs_;
    }

    std::mutex mutex_;
    std::map<std::size_t, std::vector<std::uint8_t*>> free_;  // by run bytes
    std::size_t free_bytes_ = 0, free_runs_ = 0, runs_in_use_ = 0, mapped_bytes_ = 0;
    std::uint8_t* chunk_next_ = nullptr;
    std::size_t chunk_left_ = 0;
};

// Never destroyed: kernels held by static primitives (the cache's among them) free their runs during static
// destruction, in an order no one controls.
PagePool& pool() {
    static PagePool& instance = *new PagePool;
    return instance;
}

}  // namespace

Xbyak::Allocator& emit_allocator() {
    static EmitAllocator& instance = *new EmitAllocator;
    return instance;
}

ExecutableCode::ExecutableCode(std::initializer_list<std::span<const std::uint8_t>> entries) {
    std::size_t end = 0;
    for (const std::span<const std::uint8_t> code : entries) {
        end = round_up(end, entry_alignment);
        offsets_.push_back(end);
        sizes_.push_back(code.size());
        end += code.size();
    }
    run_bytes_ = round_up(std::max<std::size_t>(end, 1), page_bytes());
    run_ = pool().take(run_bytes_);
    // A reused run still holds its last kernel's code: every byte outside the entries becomes int3.
    std::size_t i = 0, written = 0;
    for (const std::span<const std::uint8_t> code : entries) {
        std::memset(run_ + written, 0xCC, offsets_[i] - written);
        if (!code.empty()) std::memcpy(run_ + offsets_[i], code.data(), code.size());
        written = offsets_[i] + code.size();
        ++i;
    }
    std::memset(run_ + written, 0xCC, run_bytes_ - written);
    if (mprotect(run_, run_bytes_, PROT_READ | PROT_EXEC) != 0) {
        const std::string why = errno_text();
        pool().discard(run_, run_bytes_);
        throw Error("jit: mprotect(read-exec) of " + std::to_string(run_bytes_) + " bytes of code failed: " + why);
    }
}

ExecutableCode::~ExecutableCode() {
    if (mprotect(run_, run_bytes_, PROT_READ | PROT_WRITE) == 0) pool().give(run_, run_bytes_);
    else pool().discard(run_, run_bytes_);
}

std::size_t ExecutableCode::code_size() const {
    std::size_t total = 0;
    for (const std::size_t size : sizes_) total += size;
    return total;
}

CodePageStats code_page_stats() { return pool().stats(); }

}  // namespace pooljit::jit
