/**
 * @file err.h
 * @brief The one error enum of zq, and zq_strerror().
 *
 * 0 is success; every error is negative. "Would block" and "need more" are ordinary, non-fatal
 * answers that tell the caller to come back later, distinct from real failures. Failures of a
 * remote peer or of a protocol arrive as events of the layer concerned, not as return codes.
 */
#ifndef ZQ_ERR_H
#define ZQ_ERR_H

/* One row per error: name, value, text. The enum and zq_strerror() are both made from it. */
#define ZQ_ERR_TABLE(X)                                                                        \
    X(ZQ_OK, 0, "ok")                                                                          \
    X(ZQ_ERR_WOULD_BLOCK, -1, "would block: no room now, retry after the writable event")      \
    X(ZQ_ERR_NEED_MORE, -2, "need more input")                                                 \
    X(ZQ_ERR_INVALID_ARG, -3, "invalid argument")                                              \
    X(ZQ_ERR_NO_SPACE, -4, "output buffer too small")                                          \
    X(ZQ_ERR_CAPACITY, -5, "compile-time capacity exhausted")                                  \
    X(ZQ_ERR_MALFORMED, -6, "malformed input")                                                 \
    X(ZQ_ERR_TRUNCATED, -7, "input truncated")                                                 \
    X(ZQ_ERR_TOO_LONG, -8, "value longer than its configured maximum")                         \
    X(ZQ_ERR_INTEGRITY, -9, "message integrity check failed")                                  \
    X(ZQ_ERR_FINGERPRINT, -10, "fingerprint check failed")                                     \
    X(ZQ_ERR_UNSUPPORTED, -11, "not supported")                                                \
    X(ZQ_ERR_NOT_FOUND, -12, "not found")                                                      \
    X(ZQ_ERR_STATE, -13, "not allowed in the current state")                                   \
    X(ZQ_ERR_CRYPTO, -14, "cryptographic operation failed")                                    \
    X(ZQ_ERR_IO, -15, "input/output error")                                                    \
    X(ZQ_ERR_TIMEOUT, -16, "timed out")                                                        \
    X(ZQ_ERR_CLOSED, -17, "closed")                                                            \
    X(ZQ_ERR_SWITCHED_OFF, -18, "left out of this build by a feature switch (zq/config.h)")

typedef enum {
#define ZQ_ERR_ENUM_ROW(name, value, text) name = (value),
    ZQ_ERR_TABLE(ZQ_ERR_ENUM_ROW)
#undef ZQ_ERR_ENUM_ROW
} zq_err_t;

/** A short English description of @p err; never NULL, static storage. */
const char *zq_strerror(int err);

/** The enum name of @p err ("ZQ_ERR_CAPACITY"), for logs and tests; never NULL. */
const char *zq_errname(int err);

#endif /* ZQ_ERR_H */
