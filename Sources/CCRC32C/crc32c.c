// CRC-32C for tus block checksums: a checksum that costs next to nothing per byte, so checking every block
// of an upload does not compete with sending it. Written for Skylift from the polynomial's definition.
#include "CCRC32C.h"

#include <pthread.h>
#include <string.h>

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

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    uint64_t c = ~crc;
    while (length > 0 && ((uintptr_t)p & 7) != 0) {
        c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
        length--;
    }
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        length -= 8;
    }
    while (length-- > 0) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return ~(uint32_t)c;
}

static int has_sse42 = -1;

static void check_cpu(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    has_sse42 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2) ? 1 : 0;
}

static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

int skylift_crc32c_hardware(void) {
    pthread_once(&cpu_once, check_cpu);
    return has_sse42;
}

uint32_t skylift_crc32c(uint32_t crc, const void *data, size_t length) {
    return skylift_crc32c_hardware() ? crc32c_sse42(crc, data, length) : skylift_crc32c_portable(crc, data, length);
}
#else
int skylift_crc32c_hardware(void) { return 0; }

uint32_t skylift_crc32c(uint32_t crc, const void *data, size_t length) {
    return skylift_crc32c_portable(crc, data, length);
}
#endif
