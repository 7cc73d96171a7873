/* Counts calls to the C heap, to prove that zq and mbedTLS make none. Only in a binary linked
 * with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free (tests/CMakeLists.txt adds
 * the options with heap_count.c): every call from any object in it then reaches the wrappers. */
#ifndef ZQ_HEAP_COUNT_H
#define ZQ_HEAP_COUNT_H

#include <stdbool.h>

/* volatile: the compiler treats malloc as unable to read them, and would drop the stores. */

/** Heap calls made while heap_counting was true (free(NULL) is not one). */
extern volatile unsigned long heap_calls;

/** Whether the wrappers count. */
extern volatile bool heap_counting;

#endif
