#ifndef SKYLIFT_CCRC32C_H
#define SKYLIFT_CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78, RFC 3720) of `length` bytes at `data`, continuing
/// from `crc`: the checksum of the bytes before them, 0 for none. The SSE4.2 `crc32` instruction when the CPU
/// has it (checked once at run time), else a table.
uint32_t skylift_crc32c(uint32_t crc, const void *data, size_t length);

/// The table version alone, whatever the CPU offers (for tests comparing both).
uint32_t skylift_crc32c_portable(uint32_t crc, const void *data, size_t length);

/// 1 when skylift_crc32c uses a CPU instruction, 0 when it uses the table.
int skylift_crc32c_hardware(void);

#endif
