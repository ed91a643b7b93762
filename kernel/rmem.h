/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem: remote RAM over RDMA as a block device.  Module-internal interfaces.
 */
#ifndef _RMEM_H
#define _RMEM_H

int rmem_nl_init(void);
void rmem_nl_exit(void);

#endif /* _RMEM_H */
