// CRC-32C with x86-64 instructions. Written for Skylift from the polynomial's definition.
//
// Level 1 feeds 8 bytes at a time to the SSE4.2 `crc32` instruction: one instruction after another, each
// waiting for the last (about 10 GB/s here). Levels 2-4 fold instead: the CRC of a message is its polynomial
// times x^32 modulo P, so any 128-bit block A may be replaced by A * x^D mod P added to the block D bits further
// on, without changing the result. With A = H * x^64 + L (H the first 8 bytes, in the reflected bit order these
// CRCs use) that is H * (x^(D+64) mod P) + L * (x^D mod P): two independent carry-less 64 x 32-bit products,
// which PCLMULQDQ computes, on several blocks at once. What is left after folding everything into one block,
// plus the tail, goes through the `crc32` instruction. The multipliers are computed here from P at start-up.
#include "CCRC32C.h"
#include "crc32c_internal.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#define SSE42 __attribute__((target("sse4.2")))
#define FOLD __attribute__((target("sse4.2,pclmul")))
#define FOLD256 __attribute__((target("sse4.2,pclmul,avx2,vpclmulqdq")))
#define FOLD512 __attribute__((target("sse4.2,pclmul,avx2,avx512f,vpclmulqdq")))

/// x^n mod P, P = 0x1EDC6F41 in normal bit order (bit e is the coefficient of x^e).
static uint32_t x_power_mod_p(unsigned n) {
    uint64_t v = 1;
    while (n--) {
        v <<= 1;
        if (v >> 32) v ^= 0x11EDC6F41ull;
    }
    return (uint32_t)v;
}

static uint32_t reflect32(uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) if (v >> i & 1) r |= 1u << (31 - i);
    return r;
}

/// The multiplier that moves a reflected 64-bit half forward by x^e. A carry-less product of two reflected
/// 64-bit values lands one bit short of the 128-bit reflected layout, hence x^(e-1); a 32-bit remainder in a
/// reflected 64-bit lane sits in its high half.
static uint64_t multiplier(unsigned e) { return (uint64_t)reflect32(x_power_mod_p(e - 1)) << 32; }

/// Multipliers for folding by D = 128 << i bits, i = 0 ... 4 ([i][0] for the first 8 bytes, [i][1] the last 8).
static uint64_t fold_by[5][2];

static void make_multipliers(void) {
    for (int i = 0; i < 5; i++) {
        unsigned d = 128u << i;
        fold_by[i][0] = multiplier(d + 64);
        fold_by[i][1] = multiplier(d);
    }
}

SSE42 static uint32_t crc_serial(uint64_t c, const unsigned char *p, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        length -= 8;
    }
    while (length-- > 0) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c;
}

FOLD static __m128i multipliers128(int i) { return _mm_set_epi64x((long long)fold_by[i][1], (long long)fold_by[i][0]); }

FOLD static inline __m128i fold128(__m128i a, __m128i k, __m128i b) {
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11)), b);
}

/// Folds the 16-byte block `x` over the rest, 16 bytes at a time, then lets `crc32` finish.
FOLD static uint32_t finish(__m128i x, const unsigned char *p, size_t length) {
    __m128i k = multipliers128(0);
    for (; length >= 16; p += 16, length -= 16) x = fold128(x, k, _mm_loadu_si128((const void *)p));
    uint64_t c = __builtin_ia32_crc32di(0, (uint64_t)_mm_cvtsi128_si64(x));
    c = __builtin_ia32_crc32di(c, (uint64_t)_mm_extract_epi64(x, 1));
    return crc_serial(c, p, length);
}

/// Four 16-byte lanes, 64 bytes a round. `length` >= 64; `c` the state before (not inverted).
FOLD static uint32_t crc_fold128(uint32_t c, const unsigned char *p, size_t length) {
    __m128i x0 = _mm_loadu_si128((const void *)p), x1 = _mm_loadu_si128((const void *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const void *)(p + 32)), x3 = _mm_loadu_si128((const void *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)c));
    __m128i k = multipliers128(2);
    for (p += 64, length -= 64; length >= 64; p += 64, length -= 64) {
        x0 = fold128(x0, k, _mm_loadu_si128((const void *)p));
        x1 = fold128(x1, k, _mm_loadu_si128((const void *)(p + 16)));
        x2 = fold128(x2, k, _mm_loadu_si128((const void *)(p + 32)));
        x3 = fold128(x3, k, _mm_loadu_si128((const void *)(p + 48)));
    }
    k = multipliers128(0);
    x3 = fold128(fold128(fold128(x0, k, x1), k, x2), k, x3);
    return finish(x3, p, length);
}

FOLD256 static inline __m256i fold256(__m256i a, __m256i k, __m256i b) {
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_clmulepi64_epi128(a, k, 0x00), _mm256_clmulepi64_epi128(a, k, 0x11)), b);
}

FOLD256 static __m256i multipliers256(int i) { return _mm256_broadcastsi128_si256(multipliers128(i)); }

/// The two 16-byte lanes of `y` as one block.
FOLD256 static __m128i narrow256(__m256i y) {
    return fold128(_mm256_castsi256_si128(y), multipliers128(0), _mm256_extracti128_si256(y, 1));
}

/// Four 32-byte lanes, 128 bytes a round. `length` >= 128.
FOLD256 static uint32_t crc_fold256(uint32_t c, const unsigned char *p, size_t length) {
    __m256i y0 = _mm256_loadu_si256((const void *)p), y1 = _mm256_loadu_si256((const void *)(p + 32));
    __m256i y2 = _mm256_loadu_si256((const void *)(p + 64)), y3 = _mm256_loadu_si256((const void *)(p + 96));
    y0 = _mm256_xor_si256(y0, _mm256_zextsi128_si256(_mm_cvtsi32_si128((int)c)));
    __m256i k = multipliers256(3);
    for (p += 128, length -= 128; length >= 128; p += 128, length -= 128) {
        y0 = fold256(y0, k, _mm256_loadu_si256((const void *)p));
        y1 = fold256(y1, k, _mm256_loadu_si256((const void *)(p + 32)));
        y2 = fold256(y2, k, _mm256_loadu_si256((const void *)(p + 64)));
        y3 = fold256(y3, k, _mm256_loadu_si256((const void *)(p + 96)));
    }
    k = multipliers256(1);
    y3 = fold256(fold256(fold256(y0, k, y1), k, y2), k, y3);
    return finish(narrow256(y3), p, length);
}

FOLD512 static inline __m512i fold512(__m512i a, __m512i k, __m512i b) {
    // 0x96: a ^ b ^ c in one instruction.
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(a, k, 0x00), _mm512_clmulepi64_epi128(a, k, 0x11), b, 0x96);
}

/// Four 64-byte lanes, 256 bytes a round. `length` >= 256.
FOLD512 static uint32_t crc_fold512(uint32_t c, const unsigned char *p, size_t length) {
    __m512i z0 = _mm512_loadu_si512(p), z1 = _mm512_loadu_si512(p + 64);
    __m512i z2 = _mm512_loadu_si512(p + 128), z3 = _mm512_loadu_si512(p + 192);
    z0 = _mm512_xor_si512(z0, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)));
    __m512i k = _mm512_broadcast_i32x4(multipliers128(4));
    for (p += 256, length -= 256; length >= 256; p += 256, length -= 256) {
        z0 = fold512(z0, k, _mm512_loadu_si512(p));
        z1 = fold512(z1, k, _mm512_loadu_si512(p + 64));
        z2 = fold512(z2, k, _mm512_loadu_si512(p + 128));
        z3 = fold512(z3, k, _mm512_loadu_si512(p + 192));
    }
    k = _mm512_broadcast_i32x4(multipliers128(2));
    z3 = fold512(fold512(fold512(z0, k, z1), k, z2), k, z3);
    __m256i y = fold256(_mm512_castsi512_si256(z3), multipliers256(1), _mm512_extracti64x4_epi64(z3, 1));
    return finish(narrow256(y), p, length);
}

/// Whether the OS saves the registers that `mask` names in XCR0 (bits 1-2: SSE and AVX; 5-7: AVX-512).
static int os_saves(uint64_t mask) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((((uint64_t)hi << 32) | lo) & mask) == mask;
}

static int cpu_level;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void check_cpu(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_2)) return;
    cpu_level = 1;
    if (!(c & bit_PCLMUL)) return;
    make_multipliers();
    cpu_level = 2;
    unsigned b7 = 0, c7 = 0;
    if (!__get_cpuid_count(7, 0, &a, &b7, &c7, &d) || !(c7 & bit_VPCLMULQDQ)) return;
    if ((b7 & bit_AVX2) && os_saves(0x6)) cpu_level = 3;
    if (cpu_level == 3 && (b7 & bit_AVX512F) && os_saves(0xE6)) cpu_level = 4;
}

int skylift_crc32c_cpu_level(void) {
    pthread_once(&cpu_once, check_cpu);
    return cpu_level;
}

uint32_t skylift_crc32c_cpu(int level, uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    uint32_t c = ~crc;
    if (level >= 4 && length >= 256) return ~crc_fold512(c, p, length);
    if (level >= 3 && length >= 128) return ~crc_fold256(c, p, length);
    if (level >= 2 && length >= 64) return ~crc_fold128(c, p, length);
    return ~crc_serial(c, p, length);
}

#else
int skylift_crc32c_cpu_level(void) { return 0; }

uint32_t skylift_crc32c_cpu(int level, uint32_t crc, const void *data, size_t length) {
    (void)level;
    return skylift_crc32c_portable(crc, data, length);
}
#endif
