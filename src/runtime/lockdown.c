/* lockdown.c - see lockdown.h */
#define _GNU_SOURCE 1
#include "lockdown.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <link.h>
#include <sys/mman.h>

/* each loaded object's RELRO range read-only again, as the dynamic linker
 * left it: a page made writable before the lockdown (a Python entry
 * point's first calls run before it) must not stay so after, when making
 * it writable is refused */
static int
relroone(struct dl_phdr_info *info, size_t size, void *data)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)size;
	(void)data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo, hi;
		if (ph->p_type != PT_GNU_RELRO)
			continue;
		lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(page - 1);
		hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(uintptr_t)(page - 1);
		if (hi > lo)
			mprotect((void *)lo, hi - lo, PROT_READ);
	}
	return 0;
}

void
lockrelro(void)
{
	dl_iterate_phdr(relroone, NULL);
}

#if defined(__x86_64__) && defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>

static pid_t mainthread;
static volatile int denied = -1;     /* the main thread's first refused call since the reset */

static void
onsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	if ((pid_t)syscall(SYS_gettid) == mainthread && denied < 0)
		denied = si->si_syscall;
	uc->uc_mcontext.gregs[REG_RAX] = si->si_syscall == SYS_clone3 ? -ENOSYS : -EPERM;
}

/* a small assembler for classic BPF: jumps to labels, resolved at the end */
enum { MAXINS = 160, MAXLABELS = 16 };
struct prog {
	struct sock_filter ins[MAXINS];
	int n, target[MAXINS], at[MAXLABELS];
};

static void
emit(struct prog *p, unsigned short code, unsigned k, int jt, int jf)
{
	/* jt, jf: label numbers + 1 (0: fall through) */
	p->ins[p->n] = (struct sock_filter)BPF_JUMP(code, k, 0, 0);
	p->target[p->n] = jt << 8 | jf;
	p->n++;
}

static void label(struct prog *p, int l) { p->at[l] = p->n; }
static void ld(struct prog *p, unsigned off) { emit(p, BPF_LD | BPF_W | BPF_ABS, off, 0, 0); }
static void ret(struct prog *p, unsigned v) { emit(p, BPF_RET | BPF_K, v, 0, 0); }

static void
resolve(struct prog *p)
{
	for (int i = 0; i < p->n; i++) {
		int jt = p->target[i] >> 8, jf = p->target[i] & 0xff;
		if (jt)
			p->ins[i].jt = (unsigned char)(p->at[jt - 1] - i - 1);
		if (jf)
			p->ins[i].jf = (unsigned char)(p->at[jf - 1] - i - 1);
	}
}

enum { L_TRAP, L_ALLOW, L_CLONE, L_EXEC, L_WX, L_FD, L_DUP2, L_FCNTL, L_SIGSYS };
#define NR offsetof(struct seccomp_data, nr)
#define ARG(k) offsetof(struct seccomp_data, args[k]) /* the low 32 bits (little endian) */
#define IS(nr, l) emit(p, BPF_JMP | BPF_JEQ | BPF_K, (nr), (l) + 1, 0)

static void
prologue(struct prog *p)
{
	ld(p, offsetof(struct seccomp_data, arch));
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, L_TRAP + 1);
	ld(p, NR);
	emit(p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* x32 */, L_TRAP + 1, 0);
}

/* every thread */
static void
common(struct prog *p)
{
	static const int banned[] = { SYS_fork, SYS_vfork, SYS_execve, SYS_execveat, SYS_socket, SYS_socketpair,
	                              SYS_connect, SYS_bind, SYS_listen, SYS_accept, SYS_accept4, SYS_ptrace,
	                              SYS_process_vm_readv, SYS_process_vm_writev, SYS_memfd_create,
	                              SYS_userfaultfd, SYS_bpf, SYS_perf_event_open, SYS_io_uring_setup,
	                              SYS_io_uring_enter, SYS_io_uring_register, SYS_mount, SYS_umount2,
	                              SYS_pivot_root, SYS_unshare, SYS_setns, SYS_keyctl, SYS_add_key,
	                              SYS_request_key, SYS_init_module, SYS_finit_module, SYS_kexec_load };
	prologue(p);
	for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
		IS((unsigned)banned[i], L_TRAP);
	IS(SYS_clone, L_CLONE);
	IS(SYS_clone3, L_TRAP);
	IS(SYS_mmap, L_EXEC);
	IS(SYS_mprotect, L_EXEC);
	IS(SYS_pkey_mprotect, L_EXEC);
	IS(SYS_close, L_FD);
#ifdef SYS_close_range
	IS(SYS_close_range, L_FD);
#endif
	IS(SYS_dup2, L_DUP2);
	IS(SYS_dup3, L_DUP2);
	IS(SYS_rt_sigaction, L_SIGSYS);
	ret(p, SECCOMP_RET_ALLOW);
	label(p, L_SIGSYS); /* the handler that names refused calls stays ours */
	ld(p, ARG(0));
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, SIGSYS, L_TRAP + 1, L_ALLOW + 1);
	label(p, L_CLONE);
	ld(p, ARG(0));
	emit(p, BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, L_ALLOW + 1, L_TRAP + 1);
	label(p, L_EXEC);
	ld(p, ARG(2));
	emit(p, BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, L_TRAP + 1, L_ALLOW + 1);
	label(p, L_DUP2);
	ld(p, ARG(1));
	emit(p, BPF_JMP | BPF_JGE | BPF_K, 7, L_ALLOW + 1, L_TRAP + 1);
	label(p, L_FD);
	ld(p, ARG(0));
	emit(p, BPF_JMP | BPF_JGE | BPF_K, 7, L_ALLOW + 1, L_TRAP + 1);
	label(p, L_TRAP);
	ret(p, SECCOMP_RET_TRAP);
	label(p, L_ALLOW);
	ret(p, SECCOMP_RET_ALLOW);
}

/* the main thread, on top */
static void
mainonly(struct prog *p)
{
	static const int banned[] = { SYS_clone, SYS_clone3, SYS_open, SYS_openat, SYS_openat2, SYS_creat,
	                              SYS_dup, SYS_dup2, SYS_dup3, SYS_pipe, SYS_pipe2 };
	prologue(p);
	for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
		IS((unsigned)banned[i], L_TRAP);
	IS(SYS_mprotect, L_WX);
	IS(SYS_pkey_mprotect, L_WX);
	IS(SYS_fcntl, L_FCNTL);
	ret(p, SECCOMP_RET_ALLOW);
	label(p, L_WX);
	ld(p, ARG(2));
	emit(p, BPF_JMP | BPF_JSET | BPF_K, PROT_WRITE | PROT_EXEC, L_TRAP + 1, L_ALLOW + 1);
	label(p, L_FCNTL);
	ld(p, ARG(1));
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, F_DUPFD, L_TRAP + 1, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, F_DUPFD_CLOEXEC, L_TRAP + 1, L_ALLOW + 1);
	label(p, L_TRAP);
	ret(p, SECCOMP_RET_TRAP);
	label(p, L_ALLOW);
	ret(p, SECCOMP_RET_ALLOW);
}

static int
install(void (*build)(struct prog *), unsigned flags)
{
	struct prog p;
	struct sock_fprog fp;

	memset(&p, 0, sizeof p);
	build(&p);
	resolve(&p);
	fp.len = (unsigned short)p.n;
	fp.filter = p.ins;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fp);
}

void
lockdown(char *status, size_t cap)
{
	struct sigaction sa;

	mainthread = (pid_t)syscall(SYS_gettid);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = onsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(status, cap, "none: %s", strerror(errno));
		return;
	}
	if (install(common, SECCOMP_FILTER_FLAG_TSYNC) != 0) {
		snprintf(status, cap, "none: seccomp refused (%s)", strerror(errno));
		return;
	}
	if (install(mainonly, 0) != 0) {
		snprintf(status, cap, "seccomp (every thread; the main thread's own filter refused: %s)", strerror(errno));
		return;
	}
	snprintf(status, cap, "seccomp");
}

void
lockdownreset(void)
{
	denied = -1;
}

/* the name of a refused call, for the teacher */
static const char *
callname(int nr)
{
	static const struct { int nr; const char *name; } names[] = {
		{ SYS_clone, "clone (a thread or process)" }, { SYS_clone3, "clone3 (a thread or process)" },
		{ SYS_fork, "fork" }, { SYS_vfork, "vfork" }, { SYS_execve, "execve" }, { SYS_execveat, "execveat" },
		{ SYS_socket, "socket" }, { SYS_connect, "connect" }, { SYS_open, "open" }, { SYS_openat, "openat" },
		{ SYS_creat, "creat" }, { SYS_mprotect, "mprotect" }, { SYS_pkey_mprotect, "pkey_mprotect" },
		{ SYS_mmap, "mmap of executable memory" }, { SYS_dup, "dup" }, { SYS_dup2, "dup2" }, { SYS_dup3, "dup3" },
		{ SYS_pipe, "pipe" }, { SYS_pipe2, "pipe2" }, { SYS_fcntl, "fcntl (F_DUPFD)" }, { SYS_close, "close" },
		{ SYS_ptrace, "ptrace" }, { SYS_memfd_create, "memfd_create" }, { SYS_bpf, "bpf" },
		{ SYS_process_vm_readv, "process_vm_readv" }, { SYS_process_vm_writev, "process_vm_writev" },
		{ SYS_rt_sigaction, "sigaction on SIGSYS" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].nr == nr)
			return names[i].name;
	return NULL;
}

int
lockdownviolation(char *rule, size_t rcap, char *detail, size_t dcap)
{
	const char *name;

	if (denied < 0)
		return 0;
	name = callname(denied);
	snprintf(rule, rcap, "lockdown");
	snprintf(detail, dcap, "the host code called %s (system call %d), which the sandbox refuses: no threads, "
	         "processes, files, sockets, or code pages made writable or executable", name ? name : "a system call",
	         denied);
	return 1;
}

#else

void
lockdown(char *status, size_t cap)
{
	snprintf(status, cap, "%s", LOCKDOWN_UNSUPPORTED);
}

void lockdownreset(void) {}
int lockdownviolation(char *rule, size_t rcap, char *detail, size_t dcap) { (void)rule; (void)rcap; (void)detail; (void)dcap; return 0; }

#endif
