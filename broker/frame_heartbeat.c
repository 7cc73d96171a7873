/* ZeroQ's control frames (PROTOCOL.md §1; zeroq-wire.md §3):
 *
 *   {"type":"__ping__"}    every 10 s, each side
 *   {"type":"__pong__"}    at once, in answer to a ping
 *   {"type":"__gossip__","peers":["idA","idB"]}
 *
 * zq never sends gossip (PROTOCOL.md §1: dialing gossiped ids is how ZeroQ meshes end in
 * glare); it only counts what a ZeroQ peer sends. */
#include "broker/frame_internal.h"

static void put_typed_only(json_writer_t *w, brk_frame_type_t type)
{
    brk_codec_begin(w, type);
    json_object_end(w);
}

void brk_ping_write(json_writer_t *w)
{
    put_typed_only(w, BRK_FRAME_PING);
}

void brk_pong_write(json_writer_t *w)
{
    put_typed_only(w, BRK_FRAME_PONG);
}

/* As ZeroQ's receiver: a non-array "peers" is an empty list, and only string ids count. */
size_t brk_gossip_count(json_value_t obj)
{
    json_value_t peers;
    json_value_t id;
    json_iter_t it;
    size_t n = 0;
    if (brk_codec_get(obj, "peers", &peers) != ZQ_OK || json_type(peers) != JSON_ARRAY) {
        return 0;
    }
    json_iter_init(&it, peers);
    while (json_iter_next(&it, NULL, &id)) {
        n += json_type(id) == JSON_STRING;
    }
    return n;
}
