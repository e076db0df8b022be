/*
 * device.h - what the harness (harness.c) asks of the device: memory,
 * drawing inputs with draw.h's generator, poison, guard bytes, hashes,
 * copies, the L2 flush, events around a call, and the oracle's output
 * check. device.cu implements it on the GPU through the CUDA runtime;
 * tests/unit/fakedevice.c on the CPU, host memory standing in for device
 * memory, so that the test suite runs the protocol without a GPU.
 *
 * Every function returns 0 or an error code for dv_error (a cudaError_t).
 */
#ifndef RETORT_DEVICE_H
#define RETORT_DEVICE_H

#include <stddef.h>
#include <stdint.h>

struct dvinfo {
	char name[128];
	char uuid[64];       /* GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, as nvidia-smi prints it */
	int major, minor, sms, driver, runtime;
	long l2;
	size_t flushbytes;   /* what a memset must cover to flush the L2 */
};

#ifdef __cplusplus
extern "C" {
#endif

/* a context on device; what it is, into info */
int dv_init(int device, struct dvinfo *info);
/* the driver initialised and the devices counted: no context, no device memory */
int dv_driver(void);
const char *dv_error(int code);
/* pending errors of the candidate's own calls (cudaGetLastError) */
int dv_lasterror(void);
int dv_alloc(void **p, size_t n);
void dv_free(void *p);
int dv_meminfo(size_t *freebytes, size_t *total);
int dv_memset(void *p, int byte, size_t n);
/* n elements of dtype dt drawn from seed as d says (draw.h) */
struct rt_dist;
int dv_draw(void *p, int dt, size_t n, uint64_t seed, const struct rt_dist *d);
/* draw.h's hash of n bytes, word indexes offset by salt << 40 */
int dv_hash(const void *p, size_t n, uint64_t salt, uint64_t *out);
/* *bad = 1 unless all n bytes at p are byte */
int dv_check(const void *p, size_t n, int byte, int *bad);
int dv_copy(void *dst, const void *src, size_t n);          /* device to device */
int dv_fetch(void *host, const void *src, size_t n);        /* device to host */
int dv_upload(void *dst, const void *host, size_t n);       /* host to device */
/* count elements of elem bytes to host: src's first and every step-th after */
int dv_gather(void *host, const void *src, size_t elem, size_t count, size_t step);
struct cmpsums; /* draw.h's */
/* got against want, n elements of dtype dt, by draw.h's rt_elembad: its counts into s */
int dv_compare(const void *got, const void *want, int dt, size_t n, double atol, double rtol, struct cmpsums *s);
int dv_sync(void);
/* host memory pinned where it can be (copies run faster) */
void dv_pin(void *host, size_t n);
/* device memory another process on the device can map: n bytes (rounded
 * up to the allocation granularity) and a file descriptor for them (*fd),
 * which travels to that process over a Unix socket; dv_openshared maps the
 * memory an fd names there, n bytes of it (an allocation smaller than that
 * is refused: the fd came from the candidate's process); dv_freeshared
 * undoes either. CUDA's driver allocations (cuMemCreate with POSIX file
 * descriptors): the runtime's cudaIpc handles name the exporter by its
 * process ID, which a PID namespace of its own makes wrong elsewhere
 * (bench/gpu-ipc-jail.cu). Exporting an allocation opens a
 * descriptor, which the lockdown refuses the main thread: dv_allocshared
 * runs on a thread of the harness's, started before it. Where the
 * platform has none of this (the CPU fake among them) they return an error
 * and the parent fetches held copies instead */
int dv_bind(void);  /* this thread on the device dv_init chose (before dv_allocshared) */
int dv_allocshared(void **p, size_t n, int *fd);
int dv_openshared(int fd, size_t n, void **p);
void dv_freeshared(void *p, size_t n);
/* events around fn(arg), then a device synchronize; the events' ms. On
 * the GPU the opening event follows the launch cover: the device kept busy
 * cover ms first, so that the host's way to the launch (a Python entry
 * point's interpreter and Triton's launcher: tens to hundreds of
 * microseconds) overlaps it instead of being timed as the kernel's, as
 * triton.testing.do_bench's flush overlaps it (bench/launch-cover.py
 * measures both). The host's time around dv_timed includes the cover.
 * dv_cover() is the least cover, 0 where there is no launch to cover (the
 * fake device). */
int dv_timed(void (*fn)(void *), void *arg, double cover, float *ms);
double dv_cover(void);

#ifdef __cplusplus
}
#endif

#endif
