/*
 * fdpass.h - one descriptor over a Unix socket (SCM_RIGHTS), either way:
 * bench's parent and the harness it starts (sandbox.c, src/runtime/
 * harness.c) pass the candidate's device memory to the oracle's harness
 * this way. Header-only: the harness's runtime is built apart from the
 * tools' library.
 */
#ifndef RETORT_FDPASS_H
#define RETORT_FDPASS_H

#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* fd sent on sock with one byte; 0, or -1 */
static inline int
fdsend(int sock, int fd)
{
	char byte = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m;
	struct cmsghdr *cm;

	memset(&m, 0, sizeof m);
	memset(cbuf, 0, sizeof cbuf);
	m.msg_iov = &io;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof cbuf;
	cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sock >= 0 && sendmsg(sock, &m, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

/* the descriptor waiting on sock (close-on-exec), -1 when none is: any
 * others that came with it are closed */
static inline int
fdrecv(int sock)
{
	char byte, cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec io = { &byte, 1 };
	struct msghdr m;
	struct cmsghdr *cm;
	int fd = -1;

	memset(&m, 0, sizeof m);
	m.msg_iov = &io;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof cbuf;
	if (sock < 0 || recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
			int d;
			memcpy(&d, CMSG_DATA(cm) + k * sizeof(int), sizeof d);
			if (fd < 0)
				fd = d;
			else
				close(d);
		}
	}
	return fd;
}

#endif
