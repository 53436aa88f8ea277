// SPDX-License-Identifier: Apache-2.0
// CSystemShims: the few Linux calls SystemSupport needs that Swift cannot make itself. Every symbol is
// prefixed `pbs_`; each one says why it exists. Only SystemSupport imports this module.
#pragma once

/// prctl(PR_SET_PDEATHSIG, signal): `signal` is sent to this process when the thread that created it ends
/// (its parent's only thread, for pb). 0, or -1 with errno set.
/// Why C: prctl(2) is variadic, which Swift cannot call.
int pbs_set_parent_death_signal(int signal);

/// pidfd_open(pid, 0): a descriptor (O_CLOEXEC) that polls readable once process `pid` has ended, or -1
/// with errno set (ENOSYS before Linux 5.3).
/// Why C: glibc before 2.36 has no wrapper, and syscall(2) is variadic.
int pbs_pidfd_open(int pid);

/// POSIX_SPAWN_SETSID, the posix_spawnattr_setflags(3) flag that makes the child a session leader.
/// Why C: glibc defines it only under _GNU_SOURCE, which Swift's Glibc module is built without.
short pbs_posix_spawn_setsid(void);

/// splice(2) of up to `count` bytes of file `in` at `*offset` (advanced by what moved) into pipe `out`, not
/// waiting for room in the pipe (SPLICE_F_NONBLOCK): the bytes moved, 0 at the file's end, or -1 with errno set
/// (EAGAIN: the pipe is full; EINVAL: the file cannot be spliced).
/// Why C: glibc declares splice(2) only under _GNU_SOURCE, which Swift's Glibc module is built without.
long pbs_splice_to_pipe(int in, long long *offset, int out, unsigned long count);

/// How many bytes a read of `fd` (a pipe, socket, terminal or regular file) would find now: ioctl(2) FIONREAD.
/// -1 with errno set when the descriptor cannot tell.
/// Why C: ioctl(2) is variadic, which Swift does not call.
int pbs_bytes_readable(int fd);
