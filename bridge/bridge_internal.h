/* What bridge/'s files share (bridge.h is the API). */
#ifndef ZQ_BRIDGE_INTERNAL_H
#define ZQ_BRIDGE_INTERNAL_H

#include "bridge/bridge.h"

/* payload.c */
/* A room payload (@p json, one JSON value) as MQTT bytes in @p out. @return the length; 0 also
 * for an empty string (a legal MQTT payload: check @p len > 0 on the way in). */
size_t bridge_payload_to_mqtt(const char *json, size_t len, uint8_t *out, size_t cap);
/* An MQTT payload as one JSON value in @p out. @return its length; 0 when it has none (too
 * long, or @p binary: neither JSON nor UTF-8). */
size_t bridge_payload_from_mqtt(const uint8_t *payload, size_t len, char *out, size_t cap,
                                bool *binary);

/* to_mqtt.c: the room's messages to MQTT */
void bridge_send_message(bridge_t *g, uint64_t now, const brk_event_t *ev);
void bridge_on_puback(bridge_t *g, uint64_t now, uint16_t packet_id, bool refused);
void bridge_send_parked(bridge_t *g, uint64_t now);
/* Remembers what went to MQTT, for the 3.1.1 echo check. */
void bridge_echo_note(bridge_t *g, const char *topic, const uint8_t *payload, size_t len);
bool bridge_echo_take(bridge_t *g, const uint8_t *topic, size_t topic_len,
                      const uint8_t *payload, size_t len);

/* from_mqtt.c: MQTT's messages into the room */
void bridge_take_message(bridge_t *g, uint64_t now, const mqtt_message_t *m);
void bridge_ack_settled(bridge_t *g, uint64_t now);
void bridge_publish_parked(bridge_t *g, uint64_t now);
void bridge_on_reply(bridge_t *g, uint64_t now, const brk_event_t *ev);
void bridge_mqtt_subscribe(bridge_t *g);

#endif /* ZQ_BRIDGE_INTERNAL_H */
