/* Joins the Wi-Fi network of menuconfig as a station and waits for an IPv4 address. */
#ifndef ZQ_EXAMPLE_WIFI_H
#define ZQ_EXAMPLE_WIFI_H

/** Starts ESP-NETIF, the default event loop and the Wi-Fi station, and returns once DHCP gave
 *  the station an address. Reconnects by itself after a disconnection, forever. */
void wifi_join(void);

#endif /* ZQ_EXAMPLE_WIFI_H */
