/* The --wrap targets: each counts, then calls the C library's own function. */
#include "heap_count.h"

#include <stddef.h>

volatile unsigned long heap_calls;
volatile bool heap_counting;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

void *__wrap_malloc(size_t n)
{
    heap_calls = heap_calls + heap_counting;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    heap_calls = heap_calls + heap_counting;
    return __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
    heap_calls = heap_calls + heap_counting;
    return __real_realloc(p, n);
}

void __wrap_free(void *p)
{
    heap_calls = heap_calls + (heap_counting && p != NULL);
    __real_free(p);
}
