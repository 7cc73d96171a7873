/**
 * @file firmware_config.h
 * @brief zq's capacities in the firmware image (ZQ_CONFIG_FILE): the footprint images' device
 *        configuration (config/zq_device_config.h: 4 peers, 2 KiB SCTP windows), so the
 *        image that runs is the one docs/footprint.md prices, with zq's log to the info
 *        level on the console (the footprint images log nothing).
 */
#ifndef ZQ_FIRMWARE_CONFIG_H
#define ZQ_FIRMWARE_CONFIG_H

#include "zq_device_config.h"

#undef ZQ_LOG_LEVEL
#define ZQ_LOG_LEVEL 3 /* ZQ_LOG_INFO: warnings and what a peer did */

/* zq_firmware_wss (firmware/zq_image.cmake): with TLS in its mbedTLS, TURN over TCP and TLS
 * too (port/relay carries the stream), for networks that drop UDP. */
#if defined(ZQ_FIRMWARE_WSS)
#undef ZQ_NODE_TURN_STREAM
#define ZQ_NODE_TURN_STREAM 1
#endif

#endif /* ZQ_FIRMWARE_CONFIG_H */
