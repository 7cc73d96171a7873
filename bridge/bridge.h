/**
 * @file bridge.h
 * @brief A zq room's topics on an MQTT broker, both ways, with QoS 1 carried across. Sans-IO:
 *        the bridge sits between a broker (broker/brk.h, made with hold_qos1) and an MQTT
 *        client (stack/mqtt/mqtt.h), and is given each one's events.
 *
 * Topics. Room topic `sensors.kitchen` is MQTT `PREFIX/sensors/kitchen` (PREFIX by default
 * `zq/ROOM`): a zq topic in ZeroQ's dotted form has its dots made slashes; one with a '/' in
 * it (MQTT's form, which zq patterns also read) keeps it. Back from MQTT, PREFIX is taken off
 * and slashes become dots again (cmd/led is the demo actuator's cmd.led), unless the topic
 * has a '.' of its own. What goes which way: zq patterns (`--to-mqtt`, default `#`, every
 * topic) and MQTT filters (`--from-mqtt`, default `PREFIX/#`).
 *
 * Payloads. zq's are JSON values; MQTT's are bytes. To MQTT: a JSON string goes as its text
 * (so "on" is `on`), any other value as its JSON text. From MQTT: a payload that is one JSON
 * value goes as it is, other UTF-8 text as a JSON string, anything else is dropped and
 * counted (binary). The one thing not carried back and forth unchanged: a zq string whose
 * text is itself JSON ("21") returns as that value (21).
 *
 * Guarantees, QoS 1:
 * - zq to MQTT: a room message the bridge receives with QoS 1 is acknowledged to its
 *   publisher only after the MQTT broker's PUBACK (brk_message_done()); until then the
 *   publisher keeps it and, if the bridge restarts with its identity and resume points, sends
 *   it again. At most ZQ_MQTT_INFLIGHT_MAX are in flight to MQTT; beyond, the bridge stops
 *   reading the room (brk_hold_input()) and the publishers are slowed down, not dropped.
 * - MQTT to zq: an MQTT QoS 1 message is published into the room with QoS 1 and PUBACKed only
 *   once every receiver owed it acknowledged it (brk_publish_settled()), in the order the
 *   messages came (MQTT-4.6.0-2). A redelivery of one not yet acked is not published twice.
 * - What at-least-once leaves: a message MQTT had but whose PUBACK the bridge never read, and
 *   one the room had but whose PUBACK MQTT never got (a bridge killed in between), come again
 *   after the restart; the second with a new seq (a new epoch), so a room member sees it twice.
 * - QoS 0 is at most once both ways; what cannot be sent now (MQTT not connected, its output
 *   full, the room's ring full) is dropped and counted, never in silence.
 *
 * Retained messages and last values: every message to MQTT goes with RETAIN (cfg.retain),
 * MQTT's image of zq's last-value cache; retained messages from MQTT (on subscribing) are
 * published into the room, where the bridge's own last-value cache hands them to newcomers.
 *
 * Requests (MQTT 5): a message on `PREFIX/rpc/SERVICE` with a Response Topic is a request to
 * the room's SERVICE (brk_request()); the reply (or {"error":...} with a User Property
 * zq-error when no responder answered) goes to the Response Topic with the request's
 * Correlation Data, and the request is PUBACKed then. In 3.1.1 (no response topic) such a
 * message is dropped and counted.
 *
 * Echoes: a v5 bridge subscribes with No Local, so MQTT never hands back what it published.
 * 3.1.1 has no such option: a message back from MQTT that matches one of the last
 * BRIDGE_ECHO_RING the bridge published (topic and payload) is taken for its echo and dropped.
 *
 * @code
 * static bridge_t bridge;                       // large (parked messages): static
 * bridge_init(&bridge, &brk, &mqtt, &cfg);      // subscribes the room to cfg.to_mqtt
 * // each broker event:                bridge_on_brk_event(&bridge, now, &ev);
 * // each MQTT event (its callback):   bridge_on_mqtt_event(&bridge, now, &ev);
 * // after every input:                bridge_pump(&bridge, now);
 * @endcode
 */
#ifndef ZQ_BRIDGE_H
#define ZQ_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broker/brk.h"
#include "stack/mqtt/mqtt.h"
#include "zq/config.h"

#define BRIDGE_FILTERS_MAX 8
#define BRIDGE_PREFIX_MAX 128
#define BRIDGE_ECHO_RING 64
/* A request's reply goes back to MQTT: requests in flight at once. */
#define BRIDGE_REQUESTS_MAX ZQ_BRK_MAX_REQUESTS
#define BRIDGE_CORRELATION_MAX 64

typedef struct {
    const char *prefix;               /**< MQTT topic prefix, no trailing '/': "zq/ROOM" */
    const char *const *to_mqtt;       /**< zq patterns carried to MQTT; borrowed */
    size_t n_to_mqtt;
    const char *const *from_mqtt;     /**< MQTT filters carried into the room; borrowed */
    size_t n_from_mqtt;
    bool retain;                      /**< to MQTT with RETAIN */
    uint8_t version;                  /**< MQTT_V311 or MQTT_V5 */
} bridge_config_t;

typedef struct {
    uint32_t to_mqtt;          /**< room messages published to MQTT */
    uint32_t from_mqtt;        /**< MQTT messages published into the room */
    uint32_t mqtt_acked;       /**< QoS 1 room messages MQTT PUBACKed (and we acked) */
    uint32_t mqtt_refused;     /**< ... refused by the broker (v5 reason >= 0x80): acked
                                    all the same, or they would hold the room forever */
    uint32_t room_acked;       /**< MQTT QoS 1 messages PUBACKed once the room had them */
    uint32_t redeliveries;     /**< MQTT redeliveries of a message not yet acked: skipped */
    uint32_t echoes;           /**< our own publishes back from MQTT (3.1.1): dropped */
    uint32_t dropped_qos0;     /**< QoS 0 that could not go on now, either way */
    uint32_t dropped_topic;    /**< a topic with no form on the other side (a wildcard, too
                                    long, not UTF-8) */
    uint32_t dropped_binary;   /**< MQTT payloads neither JSON nor UTF-8 */
    uint32_t dropped_request;  /**< requests without a response topic, or beyond
                                    BRIDGE_REQUESTS_MAX (answered "busy" then) */
    uint32_t requests;         /**< requests from MQTT answered (a reply or an error) */
} bridge_stats_t;

/* A room message MQTT's in-flight table had no room for: sent after the next PUBACK. */
typedef struct {
    bool used;
    uint8_t qos;
    uint32_t handle;
    size_t payload_len;
    char topic[ZQ_MQTT_TOPIC_MAX + 1];
    uint8_t payload[ZQ_BRK_FRAME_MAX];
} bridge_parked_out_t;

/* A room QoS 1 message on its way to MQTT: its packet id and the broker's handle. */
typedef struct {
    uint16_t packet_id;
    uint32_t handle;
} bridge_out_t;

/* An MQTT QoS 1 message on its way into the room, in arrival order. */
typedef struct {
    uint16_t packet_id;
    bool published;            /* in the room with seq; else parked in text[] */
    bool request;              /* a request: acked when its reply goes */
    uint64_t seq;
    uint32_t handle;           /* request: brk_request()'s */
    size_t topic_len, payload_len;
    char text[ZQ_BRK_NAME_MAX + 1 + ZQ_BRK_FRAME_MAX]; /* parked: topic, NUL, payload */
} bridge_in_t;

typedef struct {
    bool used;
    uint32_t handle;
    uint8_t qos;
    char response_topic[ZQ_MQTT_TOPIC_MAX + 1];
    uint8_t correlation[BRIDGE_CORRELATION_MAX];
    size_t correlation_len;
} bridge_request_t;

typedef struct {
    bridge_config_t cfg;
    brk_t *brk;                      /* borrowed */
    mqtt_client_t *mqtt;             /* borrowed */
    bridge_out_t out[ZQ_MQTT_INFLIGHT_MAX];
    size_t n_out;
    bridge_parked_out_t parked;
    bridge_in_t in[ZQ_MQTT_RX_INFLIGHT_MAX]; /* a ring: the oldest at in_head */
    size_t in_head, n_in;
    bridge_request_t requests[BRIDGE_REQUESTS_MAX];
    uint64_t echo[BRIDGE_ECHO_RING];
    size_t echo_next;
    bridge_stats_t stats;
    char topic[ZQ_MQTT_TOPIC_MAX + ZQ_BRK_NAME_MAX + 2]; /* the topic being mapped */
    char payload[ZQ_BRK_FRAME_MAX];                      /* the payload being converted */
} bridge_t;

/** @p cfg and what it points to are borrowed for the bridge's life. Subscribes @p brk to
 *  cfg->to_mqtt. @return ZQ_OK, or brk_subscribe()'s error for a bad pattern. */
zq_err_t bridge_init(bridge_t *g, brk_t *brk, mqtt_client_t *mqtt, const bridge_config_t *cfg);

/** Every broker event, in order. */
void bridge_on_brk_event(bridge_t *g, uint64_t now, const brk_event_t *ev);

/** Every MQTT event (from the client's callback). A CONNACK that accepted subscribes to
 *  cfg->from_mqtt (and, in v5, PREFIX/rpc/+). */
void bridge_on_mqtt_event(bridge_t *g, uint64_t now, const mqtt_event_t *ev);

/** After every input: PUBACKs what the room now has, publishes what was parked, and holds the
 *  room's input while MQTT cannot take more. */
void bridge_pump(bridge_t *g, uint64_t now);

/** The MQTT connection is gone: subscriptions are sent again at the next CONNACK. */
void bridge_mqtt_down(bridge_t *g);

/** The MQTT topic of room topic @p topic (@p len bytes) into @p out (NUL-terminated).
 *  @return its length, 0 when it has none (too long, a wildcard, not UTF-8). */
size_t bridge_topic_to_mqtt(const bridge_config_t *cfg, const char *topic, size_t len, char *out,
                            size_t cap);

/** The room topic of MQTT topic @p topic into @p out. @return its length, 0 when none. */
size_t bridge_topic_from_mqtt(const bridge_config_t *cfg, const char *topic, size_t len,
                              char *out, size_t cap);

#endif /* ZQ_BRIDGE_H */
