/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the demo's BPF program and its loader */
#ifndef PARSER_H
#define PARSER_H

enum service_class {
	CLASS_DNS,
	CLASS_WEB,
	CLASS_OTHER_SYSTEM,
	CLASS_OTHER,
	NR_CLASSES,
};

/* Exception cookies: the broken invariant, by layer (high byte) */
enum parser_cookie {
	E_ETH_TRUNCATED	= 0x101,
	E_NOT_IPV4	= 0x102,
	E_IP_TRUNCATED	= 0x201,
	E_IP_VERSION	= 0x202,
	E_IP_HDR_LEN	= 0x203,
	E_IP_TTL	= 0x204,
	E_IP_FRAGMENT	= 0x205,
	E_L4_TRUNCATED	= 0x301,
	E_L4_PROTO	= 0x302,
	E_CLASS_RANGE	= 0x303,
};

#endif
