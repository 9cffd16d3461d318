// CRC-32C for tus block checksums: a checksum that costs next to nothing per byte, so checking every block
// of an upload does not compete with sending it. Written for Skylift from the polynomial's definition.
// This file: the table version and the choice of version; the x86-64 instruction versions are in crc32c_x86.c.
#include "CCRC32C.h"
#include "crc32c_internal.h"

#include <pthread.h>

#define POLY 0x82F63B78u

static uint32_t table[256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
        table[n] = c;
    }
}

uint32_t skylift_crc32c_portable(uint32_t crc, const void *data, size_t length) {
    pthread_once(&table_once, make_table);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    while (length--) c = table[(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}

int skylift_crc32c_level(void) { return skylift_crc32c_cpu_level(); }

int skylift_crc32c_hardware(void) { return skylift_crc32c_level() > 0; }

/// `level` no higher than the CPU's.
static uint32_t crc_at(int level, uint32_t crc, const void *data, size_t length) {
    return level > 0 ? skylift_crc32c_cpu(level, crc, data, length) : skylift_crc32c_portable(crc, data, length);
}

uint32_t skylift_crc32c_with(int level, uint32_t crc, const void *data, size_t length) {
    int best = skylift_crc32c_level();
    return crc_at(level < best ? level : best, crc, data, length);
}

uint32_t skylift_crc32c(uint32_t crc, const void *data, size_t length) {
    return crc_at(skylift_crc32c_level(), crc, data, length);
}
