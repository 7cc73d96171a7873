/* lwIP's compiler and platform glue for the MPS2-AN386 board (lwip/arch.h): newlib's headers,
 * a little-endian Cortex-M4, and assertions that stop the board with a console line. */
#ifndef ZQ_BOARD_ARCH_CC_H
#define ZQ_BOARD_ARCH_CC_H

#define BYTE_ORDER LITTLE_ENDIAN

void board_lwip_assert(const char *message, const char *file, int line);
#define LWIP_PLATFORM_ASSERT(x) board_lwip_assert((x), __FILE__, __LINE__)
#define LWIP_PLATFORM_DIAG(x) \
    do {                      \
    } while (0)

#endif /* ZQ_BOARD_ARCH_CC_H */
