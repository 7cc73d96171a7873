/* What the C library expects from an OS, for the picolibc footprint images only: mbedTLS's
 * buffer allocator calls exit() on a corrupted arena, and picolibc's exit() ends in _exit().
 * (newlib-nano's images take the same stub from libnosys.) */
#include <stdnoreturn.h>

noreturn void _exit(int status);

noreturn void _exit(int status)
{
    (void)status;
    for (;;) {
    }
}
