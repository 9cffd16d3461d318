#ifndef SKYLIFT_CCRC32C_H
#define SKYLIFT_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, RFC 3720) of `length` bytes at `data`, continuing
/// from `crc`: the checksum of the bytes before them, 0 for none. The fastest way the CPU offers (checked once at
/// run time, see skylift_crc32c_level), else a table.
uint32_t skylift_crc32c(uint32_t crc, const void *data, size_t length);

/// The table version alone, whatever the CPU offers (for tests comparing both).
uint32_t skylift_crc32c_portable(uint32_t crc, const void *data, size_t length);

/// 1 when skylift_crc32c uses a CPU instruction, 0 when it uses the table.
int skylift_crc32c_hardware(void);

/// How skylift_crc32c computes: 0 a table; on x86-64 1 the SSE4.2 `crc32` instruction, 2 carry-less
/// multiplication folding 16 bytes at a time (PCLMULQDQ), 3 and 4 the same on 256- and 512-bit registers
/// (VPCLMULQDQ with AVX2, with AVX-512).
int skylift_crc32c_level(void);

/// skylift_crc32c computed at `level` (see skylift_crc32c_level), or at the best level the CPU has when it lacks
/// that one: for tests holding every version to the same values.
uint32_t skylift_crc32c_with(int level, uint32_t crc, const void *data, size_t length);

#endif
