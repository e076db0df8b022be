/*
 * fake-harness.c - stands in for the CUDA harness in t-sandbox: it speaks
 * the same first reply, then probes what the sandbox lets it do.
 *
 *   probe SECRET HOST PORT REPO  ->  probe read=R write=W connect=C uid=U env=E
 *                                   scratch=S home=H dev=D proc=P repo=O etc=T usr=U
 *   forkbomb                          ->  forks until refused, then "forked N"
 *   daemon NAME                       ->  a child in a new session, named
 *                                        NAME, that waits forever: "daemon"
 *   hang                              ->  never answers
 *   fd                                ->  the descriptor that came over its
 *                                        socket (descriptor 6) sent back,
 *                                        then "fd", or "nofd"
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/lib/fdpass.h"

int
main(int argc, char **argv)
{
	FILE *cmd = fdopen(3, "r"), *rep = fdopen(4, "w");
	struct stat st;
	char word[64];

	if (!cmd || !rep || fstat(5, &st) < 0 || argc != 4 || !argv[1])
		return 2;
	fprintf(rep, "ready Fake GPU|9.0|52428800|132|13000|13000\n");
	fflush(rep);
	while (fscanf(cmd, "%63s", word) == 1) {
		if (!strcmp(word, "probe")) {
			char secret[4096], host[4096], repo[4096];
			int port, r, w, c, fd, s;
			struct sockaddr_in a;
			if (fscanf(cmd, "%4095s %4095s %d %4095s", secret, host, &port, repo) != 4)
				return 2;
			fd = open(secret, O_RDONLY);
			r = fd >= 0;
			if (fd >= 0)
				close(fd);
			fd = open(host, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			w = fd >= 0 && write(fd, "pwned\n", 6) == 6;
			if (fd >= 0)
				close(fd);
			s = socket(AF_INET, SOCK_STREAM, 0);
			memset(&a, 0, sizeof a);
			a.sin_family = AF_INET;
			a.sin_port = htons((unsigned short)port);
			a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			c = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0;
			{
				/* what the candidate may write: its folder, its home, and
				 * device nodes (CUDA opens /dev/nvidia* read-write) */
				char path[4200];
				int sc, hm, dv, pr;
				fd = open("inside", O_WRONLY | O_CREAT | O_TRUNC, 0644);
				sc = fd >= 0 && write(fd, "ok\n", 3) == 3;
				if (fd >= 0)
					close(fd);
				snprintf(path, sizeof path, "%s/.home-probe", getenv("HOME") ? getenv("HOME") : "/nonexistent");
				fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
				hm = fd >= 0;
				if (fd >= 0)
					close(fd);
				fd = open("/dev/null", O_WRONLY);
				dv = fd >= 0 && write(fd, "x", 1) == 1;
				if (fd >= 0)
					close(fd);
				/* /proc/self must name this process as getpid() knows it
				 * (in a PID namespace the CUDA driver fails otherwise) */
				{
					char self[64] = "";
					ssize_t n = readlink("/proc/self", self, sizeof self - 1);
					pr = n > 0 && atol(self) == (long)getpid();
				}
				fprintf(rep, "probe read=%d write=%d connect=%d uid=%d env=%s scratch=%d home=%d dev=%d proc=%d "
				        "repo=%d etc=%d usr=%d user=%s\n", r, w, c, (int)getuid(), getenv("RETORT_PLANTED") ? "leaked" : "clean",
				        sc, hm, dv, pr, access(repo, F_OK) == 0, access("/etc/passwd", F_OK) == 0,
				        access("/usr/bin", F_OK) == 0, getenv("USER") ? getenv("USER") : "-");
			}
		} else if (!strcmp(word, "forkbomb")) {
			int n = 0;
			while (n < 100000) {
				pid_t p = fork();
				if (p < 0)
					break;
				if (p == 0) {
					pause();
					_exit(0);
				}
				n++;
			}
			fprintf(rep, "forked %d\n", n);
		} else if (!strcmp(word, "daemon")) {
			char name[16];
			if (fscanf(cmd, "%15s", name) != 1)
				return 2;
			if (fork() == 0) {
				setsid(); /* out of the process group the sandbox kills */
				prctl(PR_SET_NAME, name);
				for (;;)
					pause();
			}
			fprintf(rep, "daemon\n");
		} else if (!strcmp(word, "fd")) {
			int fd = fdrecv(6);
			if (fd >= 0 && fdsend(6, fd) < 0)
				fd = -1;
			fprintf(rep, fd >= 0 ? "fd\n" : "nofd\n");
		} else if (!strcmp(word, "hang")) {
			for (;;)
				pause();
		} else if (!strcmp(word, "quit")) {
			break;
		}
		fflush(rep);
	}
	return 0;
}
