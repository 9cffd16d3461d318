#ifndef SKYLIFT_CRC32C_INTERNAL_H
#define SKYLIFT_CRC32C_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The best version this CPU (and its OS, for the wide registers) can run: see skylift_crc32c_level. */
int skylift_crc32c_cpu_level(void);

/* The CRC with CPU instructions at `level` (1 ... skylift_crc32c_cpu_level()). */
uint32_t skylift_crc32c_cpu(int level, uint32_t crc, const void *data, size_t length);

#endif
