/* Ed25519 signing (see ed25519.h), from RFC 8032 §5.1. The field GF(p), p = 2^255 - 19, in
 * sixteen 16-bit limbs kept in int64_t (products and their sums fit with room to spare); the
 * twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 in extended coordinates (§5.1.4), whose
 * addition law is complete, so one formula doubles and adds; scalars modulo the group order L
 * by a bitwise reduction that subtracts by masks. */
#include "zq/ed25519.h"

#include <stdbool.h>
#include <string.h>

#include "psa/crypto.h"

#if defined(PSA_WANT_ALG_SHA_512)

typedef int64_t fe[16];

typedef struct {
    fe x, y, z, t; /* x = X/Z, y = Y/Z, x y = T/Z */
} point_t;

/* Exponents, little-endian: p - 2 (inversion, by Fermat), (p + 3) / 8 (a square root
 * candidate, §5.1.3) and (p - 1) / 4 (2 to it is a square root of -1). */
static const uint8_t p_minus_2[32] = {
    0xeb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
static const uint8_t p_plus_3_div_8[32] = {
    0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f};
static const uint8_t p_minus_1_div_4[32] = {
    0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f};

/* L = 2^252 + 27742317777372353535851937790883648493 (§5.1), in 32-bit words, little-endian. */
static const uint32_t order[8] = {0x5cf5d3ed, 0x5812631a, 0xa2f79cd6, 0x14def9de,
                                  0,          0,          0,          0x10000000};

/* ---- The field ---------------------------------------------------------------------------- */

/* floor(v / 2^16), without shifting a negative number (implementation-defined in C): every v
 * here is far inside +-2^48. */
static int64_t floor16(int64_t v)
{
    return (int64_t)((uint64_t)(v + ((int64_t)1 << 48)) >> 16) - ((int64_t)1 << 32);
}

/* Each limb into [0, 2^16), what overflows the top one folded into the bottom: 2^256 is 38
 * modulo p. */
static void fe_carry(fe o)
{
    for (int i = 0; i < 16; i++) {
        int64_t c = floor16(o[i]);
        o[i] -= c * 65536;
        if (i < 15) {
            o[i + 1] += c;
        } else {
            o[0] += 38 * c;
        }
    }
}

static void fe_small(fe o, int64_t v)
{
    memset(o, 0, sizeof(fe));
    o[0] = v;
}

static void fe_add(fe o, const fe a, const fe b)
{
    for (int i = 0; i < 16; i++) {
        o[i] = a[i] + b[i];
    }
}

static void fe_sub(fe o, const fe a, const fe b)
{
    for (int i = 0; i < 16; i++) {
        o[i] = a[i] - b[i];
    }
}

/* o = a b; o may be a or b. */
static void fe_mul(fe o, const fe a, const fe b)
{
    int64_t t[31] = {0};
    for (int i = 0; i < 16; i++) {
        for (int j = 0; j < 16; j++) {
            t[i + j] += a[i] * b[j];
        }
    }
    for (int i = 0; i < 15; i++) {
        t[i] += 38 * t[i + 16];
    }
    memcpy(o, t, sizeof(fe));
    fe_carry(o);
    fe_carry(o);
}

/* o = a^e, e public (the exponents above). */
static void fe_pow(fe o, const fe a, const uint8_t e[32])
{
    fe c, base;
    memcpy(base, a, sizeof(fe));
    fe_small(c, 1);
    for (int i = 255; i >= 0; i--) {
        fe_mul(c, c, c);
        if ((e[i / 8] >> (i % 8)) & 1) {
            fe_mul(c, c, base);
        }
    }
    memcpy(o, c, sizeof(fe));
}

/* The unique representative below p, little-endian (§5.1.2). */
static void fe_pack(uint8_t out[32], const fe a)
{
    fe t, m;
    memcpy(t, a, sizeof(fe));
    for (int k = 0; k < 4; k++) {
        fe_carry(t);
    }
    for (int k = 0; k < 2; k++) { /* t < 2^256 < 3p: p off at most twice */
        int64_t borrow = 0;
        for (int i = 0; i < 16; i++) {
            int64_t limb = i == 0 ? 0xffed : i == 15 ? 0x7fff : 0xffff;
            int64_t v = t[i] - limb - borrow;
            borrow = (int64_t)((uint64_t)v >> 63);
            m[i] = v + borrow * 65536;
        }
        int64_t keep = -borrow; /* all ones when t < p */
        for (int i = 0; i < 16; i++) {
            t[i] = (t[i] & keep) | (m[i] & ~keep);
        }
    }
    for (int i = 0; i < 16; i++) {
        out[2 * i] = (uint8_t)(t[i] & 0xff);
        out[2 * i + 1] = (uint8_t)(t[i] >> 8);
    }
}

static bool fe_equal(const fe a, const fe b)
{
    uint8_t x[32], y[32];
    fe_pack(x, a);
    fe_pack(y, b);
    return memcmp(x, y, sizeof x) == 0; /* public values only */
}

static int fe_parity(const fe a)
{
    uint8_t x[32];
    fe_pack(x, a);
    return x[0] & 1;
}

/* ---- The curve ---------------------------------------------------------------------------- */

static fe curve_d2;  /* 2d, d = -121665/121666 (§5.1) */
static point_t base; /* B: y = 4/5, x positive (even) */
static bool constants_ready;

/* x of the point with this y, x even (§5.1.3's decoding, for a y known to be on the curve). */
static void recover_x(fe x, const fe y, const fe d)
{
    fe zero, one, y2, u, v, x2, check;
    fe_small(zero, 0);
    fe_small(one, 1);
    fe_mul(y2, y, y);
    fe_sub(u, y2, one);
    fe_mul(v, d, y2);
    fe_add(v, v, one);
    fe_pow(v, v, p_minus_2);
    fe_mul(x2, u, v);
    fe_pow(x, x2, p_plus_3_div_8);
    fe_mul(check, x, x);
    if (!fe_equal(check, x2)) {
        fe i, two;
        fe_small(two, 2);
        fe_pow(i, two, p_minus_1_div_4);
        fe_mul(x, x, i);
    }
    if (fe_parity(x)) {
        fe_sub(x, zero, x);
    }
}

static void set_up_constants(void)
{
    fe d, zero, den, five;
    fe_small(zero, 0);
    fe_small(d, 121665);
    fe_small(den, 121666);
    fe_pow(den, den, p_minus_2);
    fe_mul(d, d, den);
    fe_sub(d, zero, d);
    fe_add(curve_d2, d, d);
    fe_small(base.y, 4);
    fe_small(five, 5);
    fe_pow(five, five, p_minus_2);
    fe_mul(base.y, base.y, five);
    recover_x(base.x, base.y, d);
    fe_small(base.z, 1);
    fe_mul(base.t, base.x, base.y);
    constants_ready = true;
}

/* r = p + q (§5.1.4, complete for a = -1: doubles as well); r may be p or q. */
static void point_add(point_t *r, const point_t *p, const point_t *q)
{
    fe a, b, c, d, e, f, g, h, t;
    fe_sub(a, p->y, p->x);
    fe_sub(t, q->y, q->x);
    fe_mul(a, a, t);
    fe_add(b, p->y, p->x);
    fe_add(t, q->y, q->x);
    fe_mul(b, b, t);
    fe_mul(c, p->t, q->t);
    fe_mul(c, c, curve_d2);
    fe_mul(d, p->z, q->z);
    fe_add(d, d, d);
    fe_sub(e, b, a);
    fe_sub(f, d, c);
    fe_add(g, d, c);
    fe_add(h, b, a);
    fe_mul(r->x, e, f);
    fe_mul(r->y, g, h);
    fe_mul(r->z, f, g);
    fe_mul(r->t, e, h);
}

/* r = s when @p bit is 1, by a mask, not a branch. */
static void point_select(point_t *r, const point_t *s, int64_t bit)
{
    int64_t mask = -bit;
    int64_t *dst = &r->x[0];
    const int64_t *src = &s->x[0];
    for (size_t i = 0; i < 4 * 16; i++) {
        dst[i] ^= (dst[i] ^ src[i]) & mask;
    }
}

/* r = s B, s a 256-bit little-endian scalar: double, add, keep the sum by the bit. */
static void base_times(point_t *r, const uint8_t s[32])
{
    point_t q, sum;
    fe_small(q.x, 0);
    fe_small(q.y, 1);
    fe_small(q.z, 1);
    fe_small(q.t, 0);
    for (int i = 255; i >= 0; i--) {
        point_add(&q, &q, &q);
        point_add(&sum, &q, &base);
        point_select(&q, &sum, (s[i / 8] >> (i % 8)) & 1);
    }
    *r = q;
}

/* §5.1.2: y, with x's low bit in the top bit. */
static void point_pack(uint8_t out[32], const point_t *p)
{
    fe zi, x, y;
    fe_pow(zi, p->z, p_minus_2);
    fe_mul(x, p->x, zi);
    fe_mul(y, p->y, zi);
    fe_pack(out, y);
    out[31] ^= (uint8_t)(fe_parity(x) << 7);
}

/* ---- Scalars modulo L --------------------------------------------------------------------- */

/* out = in mod L, @p in of @p n bytes little-endian: bit by bit from the top, r = 2r + bit,
 * minus L when that does not borrow (r < L, so 2r + 1 < 2L: once is enough). */
static void reduce(uint8_t out[32], const uint8_t *in, size_t n)
{
    uint32_t r[8] = {0}, t[8];
    for (size_t bit = 8 * n; bit-- > 0;) {
        uint32_t carry = (in[bit / 8] >> (bit % 8)) & 1;
        for (int k = 0; k < 8; k++) {
            uint32_t top = r[k] >> 31;
            r[k] = (r[k] << 1) | carry;
            carry = top;
        }
        uint64_t borrow = 0;
        for (int k = 0; k < 8; k++) {
            uint64_t v = (uint64_t)r[k] - order[k] - borrow;
            t[k] = (uint32_t)v;
            borrow = v >> 63;
        }
        uint32_t keep = (uint32_t)0 - (uint32_t)borrow; /* all ones when r < L */
        for (int k = 0; k < 8; k++) {
            r[k] = (r[k] & keep) | (t[k] & ~keep);
        }
    }
    for (int k = 0; k < 8; k++) {
        for (int j = 0; j < 4; j++) {
            out[4 * k + j] = (uint8_t)(r[k] >> (8 * j));
        }
    }
}

static void words_of(uint32_t w[8], const uint8_t b[32])
{
    for (int k = 0; k < 8; k++) {
        w[k] = (uint32_t)b[4 * k] | (uint32_t)b[4 * k + 1] << 8 | (uint32_t)b[4 * k + 2] << 16 |
               (uint32_t)b[4 * k + 3] << 24;
    }
}

/* out = (a b + c) mod L, each 32 bytes little-endian (§5.1.6 step 5's S = r + k s). */
static void mul_add(uint8_t out[32], const uint8_t a[32], const uint8_t b[32],
                    const uint8_t c[32])
{
    uint32_t x[8], y[8], z[8], w[16] = {0};
    words_of(x, a);
    words_of(y, b);
    words_of(z, c);
    for (int i = 0; i < 8; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t v = (uint64_t)x[i] * y[j] + w[i + j] + carry;
            w[i + j] = (uint32_t)v;
            carry = v >> 32;
        }
        w[i + 8] = (uint32_t)carry;
    }
    uint64_t carry = 0;
    for (int k = 0; k < 16; k++) { /* a b < 2^509: adding c < 2^256 stays inside 512 bits */
        uint64_t v = (uint64_t)w[k] + (k < 8 ? z[k] : 0) + carry;
        w[k] = (uint32_t)v;
        carry = v >> 32;
    }
    uint8_t wide[64];
    for (int k = 0; k < 16; k++) {
        for (int j = 0; j < 4; j++) {
            wide[4 * k + j] = (uint8_t)(w[k] >> (8 * j));
        }
    }
    reduce(out, wide, sizeof wide);
}

/* ---- Signatures ----------------------------------------------------------------------------- */

/* SHA-512 of the concatenation of up to three parts (the empty ones skipped). */
static void sha512(uint8_t out[64], const uint8_t *p1, size_t n1, const uint8_t *p2, size_t n2,
                   const uint8_t *p3, size_t n3)
{
    psa_hash_operation_t op = PSA_HASH_OPERATION_INIT;
    size_t got = 0;
    (void)psa_hash_setup(&op, PSA_ALG_SHA_512);
    (void)psa_hash_update(&op, p1, n1);
    if (n2 > 0) {
        (void)psa_hash_update(&op, p2, n2);
    }
    if (n3 > 0) {
        (void)psa_hash_update(&op, p3, n3);
    }
    (void)psa_hash_finish(&op, out, 64, &got);
}

/* §5.1.5: h = SHA-512(seed); s = h[0..31] with bits 0-2 and 255 cleared, bit 254 set. */
static void expand(const uint8_t seed[32], uint8_t h[64])
{
    if (!constants_ready) {
        set_up_constants();
    }
    sha512(h, seed, 32, NULL, 0, NULL, 0);
    h[0] &= 248;
    h[31] &= 127;
    h[31] |= 64;
}

zq_err_t zq_ed25519_public(const uint8_t seed[ZQ_ED25519_SEED_LEN],
                           uint8_t pub[ZQ_ED25519_PUBLIC_LEN])
{
    uint8_t h[64];
    point_t a;
    expand(seed, h);
    base_times(&a, h);
    point_pack(pub, &a);
    memset(h, 0, sizeof h);
    return ZQ_OK;
}

zq_err_t zq_ed25519_sign(const uint8_t seed[ZQ_ED25519_SEED_LEN], const uint8_t *msg, size_t len,
                         uint8_t sig[ZQ_ED25519_SIG_LEN])
{
    uint8_t h[64], pub[32], wide[64], r[32], k[32];
    point_t p;
    expand(seed, h);
    base_times(&p, h);
    point_pack(pub, &p);
    sha512(wide, h + 32, 32, msg, len, NULL, 0); /* r = SHA-512(prefix || M) mod L */
    reduce(r, wide, sizeof wide);
    base_times(&p, r);
    point_pack(sig, &p); /* R = r B */
    sha512(wide, sig, 32, pub, 32, msg, len); /* k = SHA-512(R || A || M) mod L */
    reduce(k, wide, sizeof wide);
    mul_add(sig + 32, k, h, r); /* S = (r + k s) mod L */
    memset(h, 0, sizeof h);
    memset(r, 0, sizeof r);
    memset(wide, 0, sizeof wide);
    return ZQ_OK;
}

#else /* !PSA_WANT_ALG_SHA_512 */

zq_err_t zq_ed25519_public(const uint8_t seed[ZQ_ED25519_SEED_LEN],
                           uint8_t pub[ZQ_ED25519_PUBLIC_LEN])
{
    (void)seed;
    (void)pub;
    return ZQ_ERR_UNSUPPORTED;
}

zq_err_t zq_ed25519_sign(const uint8_t seed[ZQ_ED25519_SEED_LEN], const uint8_t *msg, size_t len,
                         uint8_t sig[ZQ_ED25519_SIG_LEN])
{
    (void)seed;
    (void)msg;
    (void)len;
    (void)sig;
    return ZQ_ERR_UNSUPPORTED;
}

#endif /* PSA_WANT_ALG_SHA_512 */
