#include "reference_reader.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The same hash as the Swift reader: eight bytes at a time, multiply-xorshift, avalanche. */
static uint64_t hash_bytes(const uint8_t *bytes, size_t length) {
    uint64_t hash = 0x243F6A8885A308D3ULL ^ ((uint64_t)length * 0x9E3779B97F4A7C15ULL);
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        hash = (hash ^ word) * 0x9E3779B97F4A7C15ULL;
        hash ^= hash >> 32;
    }
    if (i < length) {
        uint64_t word = 0;
        if (length >= 8) {
            memcpy(&word, bytes + length - 8, 8);
            word >>= 8 * (8 - (length - i));
        } else {
            for (unsigned shift = 0; i < length; i++, shift += 8) word |= (uint64_t)bytes[i] << shift;
        }
        hash = (hash ^ word) * 0x9E3779B97F4A7C15ULL;
        hash ^= hash >> 32;
    }
    hash ^= hash >> 33;
    hash *= 0xBF58476D1CE4E5B9ULL;
    return hash ^ (hash >> 29);
}

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
    char *path;
    size_t path_length;
    size_t path_capacity;
    ref_pack *pack;
    size_t capacity;
    size_t names_length;
    size_t names_capacity;
    int depth;
} parser;

static void skip_space(parser *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t')) s->p++;
}

static int expect(parser *s, char c) {
    skip_space(s);
    if (s->p >= s->end || *s->p != (uint8_t)c) return -1;
    s->p++;
    return 0;
}

static int append_path(parser *s, const uint8_t *bytes, size_t length) {
    if (s->path_length + length + 1 > s->path_capacity) {
        s->path_capacity = (s->path_length + length + 1) * 2;
        s->path = realloc(s->path, s->path_capacity);
        if (!s->path) return -1;
    }
    memcpy(s->path + s->path_length, bytes, length);
    s->path_length += length;
    return 0;
}

/* A string appended to the current path; the index writer escapes only '"', '\' and controls. */
static int parse_string(parser *s) {
    skip_space(s);
    if (s->p >= s->end || *s->p != '"') return -1;
    s->p++;
    while (s->p < s->end && *s->p != '"') {
        if (*s->p == '\\') {
            if (s->p + 1 >= s->end) return -1;
            uint8_t c = s->p[1];
            if (c == 'u') return -1; /* control characters never appear in valid names */
            if (append_path(s, &c, 1)) return -1;
            s->p += 2;
        } else {
            const uint8_t *start = s->p;
            while (s->p < s->end && *s->p != '"' && *s->p != '\\') s->p++;
            if (append_path(s, start, (size_t)(s->p - start))) return -1;
        }
    }
    if (s->p >= s->end) return -1;
    s->p++;
    return 0;
}

static int parse_number(parser *s, uint64_t *value) {
    skip_space(s);
    uint64_t v = 0;
    const uint8_t *start = s->p;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') v = v * 10 + (uint64_t)(*s->p++ - '0');
    if (s->p == start) return -1;
    *value = v;
    return 0;
}

static int add_entry(parser *s, uint64_t offset, uint64_t size) {
    ref_pack *pack = s->pack;
    if (pack->count == s->capacity) {
        s->capacity = s->capacity ? s->capacity * 2 : 1024;
        pack->entries = realloc(pack->entries, s->capacity * sizeof(ref_entry));
        if (!pack->entries) return -1;
    }
    if (s->names_length + s->path_length > s->names_capacity) {
        s->names_capacity = (s->names_length + s->path_length) * 2 + 4096;
        pack->names = realloc(pack->names, s->names_capacity);
        if (!pack->names) return -1;
    }
    memcpy(pack->names + s->names_length, s->path, s->path_length);
    ref_entry *entry = &pack->entries[pack->count++];
    entry->offset = offset;
    entry->size = size;
    entry->name_offset = (uint32_t)s->names_length;
    entry->name_length = (uint32_t)s->path_length;
    s->names_length += s->path_length;
    if (offset > pack->size || size > pack->size - offset) return -1;
    return 0;
}

static int parse_folder(parser *s) {
    if (++s->depth > 600 || expect(s, '{')) return -1;
    size_t prefix = s->path_length;
    skip_space(s);
    if (s->p < s->end && *s->p == '}') { s->p++; s->depth--; return 0; }
    for (;;) {
        if (parse_string(s) || expect(s, ':')) return -1;
        skip_space(s);
        if (s->p < s->end && *s->p == '{') {
            if (append_path(s, (const uint8_t *)"/", 1) || parse_folder(s)) return -1;
        } else {
            uint64_t number, offset, size, crc;
            if (expect(s, '[') || parse_number(s, &number) || expect(s, ',') || parse_number(s, &offset) ||
                expect(s, ',') || parse_number(s, &size) || expect(s, ',') || parse_number(s, &crc))
                return -1;
            /* Format 2: the entry's SHA-256, 64 hex digits in quotes, which a reader skips. */
            skip_space(s);
            if (s->p < s->end && *s->p == ',') {
                s->p++;
                skip_space(s);
                if (s->end - s->p < 66 || s->p[0] != '"' || s->p[65] != '"') return -1;
                s->p += 66;
            }
            if (expect(s, ']')) return -1;
            if (add_entry(s, offset, size)) return -1;
        }
        s->path_length = prefix;
        skip_space(s);
        if (s->p < s->end && *s->p == ',') { s->p++; continue; }
        if (expect(s, '}')) return -1;
        s->depth--;
        return 0;
    }
}

/* Skips a value of the index's metadata (strings and numbers only). */
static int skip_scalar(parser *s) {
    skip_space(s);
    if (s->p < s->end && *s->p == '"') {
        size_t saved = s->path_length;
        int result = parse_string(s);
        s->path_length = saved;
        return result;
    }
    uint64_t ignored;
    return parse_number(s, &ignored);
}

static int parse_index(parser *s) {
    if (expect(s, '{')) return -1;
    for (;;) {
        size_t saved = s->path_length;
        if (parse_string(s) || expect(s, ':')) return -1;
        int is_files = s->path_length - saved == 5 && memcmp(s->path + saved, "files", 5) == 0;
        s->path_length = saved;
        if (is_files ? parse_folder(s) : skip_scalar(s)) return -1;
        skip_space(s);
        if (s->p < s->end && *s->p == ',') { s->p++; continue; }
        return expect(s, '}');
    }
}

int ref_open(const char *path, ref_pack *pack) {
    memset(pack, 0, sizeof(*pack));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 22) { close(fd); return -1; }
    pack->size = (size_t)st.st_size;
    void *map = mmap(NULL, pack->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return -1;
    pack->base = map;
    /* The end record: our comment is short, so search the last 22 + 256 bytes. */
    const uint8_t *end = pack->base + pack->size;
    const uint8_t *record = NULL;
    for (const uint8_t *p = end - 22; p >= pack->base && p >= end - 22 - 256; p--) {
        if (p[0] == 'P' && p[1] == 'K' && p[2] == 5 && p[3] == 6 && (size_t)(p[20] | p[21] << 8) == (size_t)(end - p - 22)) {
            record = p;
            break;
        }
    }
    if (!record) { ref_close(pack); return -1; }
    unsigned long long offset, size;
    unsigned crc;
    char comment[256];
    size_t comment_length = (size_t)(end - record - 22);
    if (comment_length >= sizeof(comment)) { ref_close(pack); return -1; }
    memcpy(comment, record + 22, comment_length);
    comment[comment_length] = 0;
    if (sscanf(comment, "pack/1 offset=%llu size=%llu crc=%x", &offset, &size, &crc) != 3 || offset > pack->size ||
        size > pack->size - offset) {
        ref_close(pack);
        return -1;
    }
    const uint8_t *index = pack->base + offset;
    if (crc32(0, index, (uInt)size) != crc) { ref_close(pack); return -1; }
    parser s = {.p = index, .end = index + size, .pack = pack};
    int failed = parse_index(&s);
    free(s.path);
    if (failed) { ref_close(pack); return -1; }
    size_t capacity = 16;
    while (capacity < pack->count * 2) capacity <<= 1;
    pack->slots = calloc(capacity, sizeof(uint32_t));
    pack->mask = capacity - 1;
    for (size_t i = 0; i < pack->count; i++) {
        const ref_entry *entry = &pack->entries[i];
        size_t slot = hash_bytes((const uint8_t *)pack->names + entry->name_offset, entry->name_length) & pack->mask;
        while (pack->slots[slot]) slot = (slot + 1) & pack->mask;
        pack->slots[slot] = (uint32_t)i + 1;
    }
    return 0;
}

const uint8_t *ref_lookup(const ref_pack *pack, const char *name, size_t length, size_t *size) {
    size_t slot = hash_bytes((const uint8_t *)name, length) & pack->mask;
    for (;;) {
        uint32_t value = pack->slots[slot];
        if (!value) return NULL;
        const ref_entry *entry = &pack->entries[value - 1];
        if (entry->name_length == length && memcmp(pack->names + entry->name_offset, name, length) == 0) {
            *size = (size_t)entry->size;
            return pack->base + entry->offset;
        }
        slot = (slot + 1) & pack->mask;
    }
}

void ref_close(ref_pack *pack) {
    if (pack->base) munmap((void *)pack->base, pack->size);
    free(pack->entries);
    free(pack->names);
    free(pack->slots);
    memset(pack, 0, sizeof(*pack));
}
