// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD helper of the fault-injection test (tests-debug/): marks the
 * process for failslab and fail_page_alloc (make-it-fail, with their
 * task-filter on) once the program is loaded, and unmarks it when the
 * program exits, so that the injected failures hit what the program asks
 * of the kernel, not its execve or its exit.  Use with LD_BIND_NOW=1 and
 * LC_ALL=C, so that nothing is left to load from files meanwhile.
 *
 * Why so careful: the lab's root file system is 9p, and 9p does not
 * survive a failed allocation when it closes a file (a clunk that fails
 * leaves the mount returning EINVAL).  Every mapping is populated and
 * locked first for the same reason: a failed page-cache fill on a file
 * fault is a SIGBUS, not a test of rmem.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail_inject_fd = -1;

__attribute__((constructor)) static void fail_inject_start(void)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("fail_inject: mlockall");
	fail_inject_fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fail_inject_fd < 0 || write(fail_inject_fd, "1", 1) != 1)
		perror("fail_inject: /proc/self/make-it-fail");
}

__attribute__((destructor)) static void fail_inject_stop(void)
{
	if (fail_inject_fd >= 0 && pwrite(fail_inject_fd, "0", 1, 0) != 1)
		perror("fail_inject: /proc/self/make-it-fail");
}
