#include "browser_check.h"

#include <stdio.h>
#include <string.h>

#include "stack/ice/stun.h"

size_t browser_check(const ice_credentials_t *cred, uint8_t *buf, size_t cap)
{
    char username[ZQ_ICE_UFRAG_MAX + 8];
    int ulen = snprintf(username, sizeof username, "%s:Brws", cred->ufrag);
    static const uint8_t tid[STUN_TID_LEN] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    stun_builder_t b;
    stun_build_start(&b, buf, cap, STUN_BINDING_REQUEST, tid);
    stun_put_attr(&b, STUN_ATTR_USERNAME, username, (size_t)ulen);
    stun_put_u32(&b, STUN_ATTR_PRIORITY, 1845501695u);
    stun_put_u64(&b, STUN_ATTR_ICE_CONTROLLING, 0x0102030405060708ULL);
    stun_put_integrity(&b, (const uint8_t *)cred->pwd, strlen(cred->pwd));
    stun_put_fingerprint(&b);
    return stun_build_finish(&b);
}
