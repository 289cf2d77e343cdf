// Memory against an inaccessible page: an access one byte outside the buffer faults. Generated code is
// invisible to ASan; these buffers are how the tests see its reads and writes.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <system_error>
#include <vector>

namespace pooljit::test {

enum class GuardSide { after_end, before_start };

inline const char* to_string(GuardSide side) {
    return side == GuardSide::after_end ? "guard after end" : "guard before start";
}

// `bytes` of read-write memory with a PROT_NONE page directly after its last byte (after_end) or directly
// before its first byte (before_start). A zero-byte buffer still has a non-null address, at the guard.
class GuardedBuffer {
public:
    GuardedBuffer(std::size_t bytes, GuardSide side) : bytes_(bytes) {
        const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        const std::size_t data_bytes = (bytes + page - 1) / page * page;
        map_bytes_ = data_bytes + page;
        void* map = ::mmap(nullptr, map_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (map == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
        map_ = static_cast<std::uint8_t*>(map);
        std::uint8_t* guard = side == GuardSide::after_end ? map_ + data_bytes : map_;
        if (::mprotect(guard, page, PROT_NONE) != 0) {
            const int err = errno;
            ::munmap(map_, map_bytes_);
            throw std::system_error(err, std::generic_category(), "mprotect");
        }
        data_ = side == GuardSide::after_end ? guard - bytes : guard + page;
    }
    ~GuardedBuffer() { ::munmap(map_, map_bytes_); }
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;

    std::uint8_t* data() const { return data_; }
    std::size_t size() const { return bytes_; }
    std::vector<std::uint8_t> bytes() const { return {data_, data_ + bytes_}; }

private:
    std::size_t bytes_;
    std::size_t map_bytes_ = 0;
    std::uint8_t* map_ = nullptr;
    std::uint8_t* data_ = nullptr;
};

}  // namespace pooljit::test
