// A plain C reader of pack format v1, for the benchmark: mmap, the end record's comment, the
// JSON index parsed into an open-addressing hash table. The practical limit for a reader of
// this format; no Swift.
#ifndef REFERENCE_READER_H
#define REFERENCE_READER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t offset;
    uint64_t size;
    uint32_t name_offset;
    uint32_t name_length;
} ref_entry;

typedef struct {
    const uint8_t *base;
    size_t size;
    ref_entry *entries;
    size_t count;
    char *names;
    uint32_t *slots;
    size_t mask;
} ref_pack;

/// Opens and indexes a pack; 0 on success, -1 on any error (not a pack, damaged, I/O).
int ref_open(const char *path, ref_pack *pack);

/// The data of `name`, or NULL; `*size` receives its size.
const uint8_t *ref_lookup(const ref_pack *pack, const char *name, size_t length, size_t *size);

void ref_close(ref_pack *pack);

#endif
