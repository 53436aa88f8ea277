// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include "CSystemShims.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

// The system call's number is the same on every architecture (the unified table, Linux 5.3); older kernel
// headers do not name it.
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int pbs_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

int pbs_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0U);
}

short pbs_posix_spawn_setsid(void) {
    return POSIX_SPAWN_SETSID;
}

long pbs_splice_to_pipe(int in, long long *offset, int out, unsigned long count) {
    loff_t position = (loff_t)*offset;
    ssize_t moved = splice(in, &position, out, NULL, (size_t)count, SPLICE_F_NONBLOCK);
    *offset = (long long)position;
    return (long)moved;
}

int pbs_bytes_readable(int fd) {
    int count = 0;
    return ioctl(fd, FIONREAD, &count) == 0 ? count : -1;
}
