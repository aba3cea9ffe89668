/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the demo's parser and its twin with explicit error propagation
 * (bench/parser_explicit.bpf.c), so that the two differ only in how they
 * handle a broken invariant.  Include once per BPF object.
 */
#ifndef PARSER_COMMON_BPF_H
#define PARSER_COMMON_BPF_H

#define ETH_P_IP	0x0800
#define IP_MF		0x2000
#define IP_OFFSET	0x1fff

/* Global, so verified on its own: callers learn nothing about its result */
__noinline int port_class(__u32 port)
{
	if (port == 53)
		return CLASS_DNS;
	if (port == 80 || port == 443)
		return CLASS_WEB;
	if (port < 1024)
		return CLASS_OTHER_SYSTEM;
	return CLASS_OTHER;
}

#endif
