/* What the board's own files share (not for the firmware). */
#ifndef ZQ_BOARD_MPS2_AN386_INTERNAL_H
#define ZQ_BOARD_MPS2_AN386_INTERNAL_H

#include <stdint.h>

/** The word the unused stack holds (startup.c paints it, board.c looks for it). */
#define BOARD_STACK_PAINT 0xC0DEF00Du

/** Says @p what and @p value on the console, then stops the board. */
__attribute__((noreturn)) void board_halt(const char *what, uint32_t value);
/** A fault's report: where, and the Configurable Fault Status Register. */
__attribute__((noreturn)) void board_fault(uint32_t pc, uint32_t lr, uint32_t cfsr);

#endif /* ZQ_BOARD_MPS2_AN386_INTERNAL_H */
