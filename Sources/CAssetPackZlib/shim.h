#include <zlib.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>

/// Starts writing back a file range without waiting for it (Linux `sync_file_range` with
/// SYNC_FILE_RANGE_WRITE, which Swift's Glibc module does not export), so that the final fsync
/// of a freshly written pack has little left to do. Returns -1 with errno set on failure.
static inline int assetpack_start_writeback(int descriptor, long long offset, long long length) {
    return (int)syscall(SYS_sync_file_range, descriptor, offset, length, 2 /* SYNC_FILE_RANGE_WRITE */);
}
#endif

/// Asks the CPU to start loading the cache line at `address` (a hint; never faults).
static inline void assetpack_prefetch(const void *address) { __builtin_prefetch(address); }
