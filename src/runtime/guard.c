/* guard.c - see guard.h */
#define _GNU_SOURCE 1
#include "guard.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

static int active;
static char vrule[64], vdetail[512];

typedef cudaError_t (*launch_t)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
static struct {
	launch_t launch, launchpt, cudalaunch, coop;
	cudaError_t (*launchex)(const cudaLaunchConfig_t *, const void *, void **);
	cudaError_t (*memcpy)(void *, const void *, size_t, enum cudaMemcpyKind);
	cudaError_t (*memcpyasync)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
	cudaError_t (*memcpy2d)(void *, size_t, const void *, size_t, size_t, size_t, enum cudaMemcpyKind);
	cudaError_t (*memcpy2dasync)(void *, size_t, const void *, size_t, size_t, size_t, enum cudaMemcpyKind,
	                             cudaStream_t);
	cudaError_t (*tosymbol)(const void *, const void *, size_t, size_t, enum cudaMemcpyKind);
	cudaError_t (*tosymbolasync)(const void *, const void *, size_t, size_t, enum cudaMemcpyKind, cudaStream_t);
	cudaError_t (*memset)(void *, int, size_t);
	cudaError_t (*memset2d)(void *, size_t, int, size_t, size_t);
	cudaError_t (*memsetasync)(void *, int, size_t, cudaStream_t);
	cudaError_t (*mallocasync)(void **, size_t, cudaStream_t);
	cudaError_t (*freeasync)(void *, cudaStream_t);
	cudaError_t (*streamsync)(cudaStream_t);
	cudaError_t (*attributes)(struct cudaPointerAttributes *, const void *);
} real;

void
guardinit(void)
{
#define R(f, name) *(void **)&real.f = dlsym(RTLD_NEXT, name)
	R(launch, "__cudaLaunchKernel");
	R(launchpt, "__cudaLaunchKernel_ptsz");
	R(cudalaunch, "cudaLaunchKernel");
	R(coop, "cudaLaunchCooperativeKernel");
	R(launchex, "cudaLaunchKernelExC");
	R(memcpy, "cudaMemcpy");
	R(memcpyasync, "cudaMemcpyAsync");
	R(memcpy2d, "cudaMemcpy2D");
	R(memcpy2dasync, "cudaMemcpy2DAsync");
	R(tosymbol, "cudaMemcpyToSymbol");
	R(tosymbolasync, "cudaMemcpyToSymbolAsync");
	R(memset, "cudaMemset");
	R(memset2d, "cudaMemset2D");
	R(memsetasync, "cudaMemsetAsync");
	R(mallocasync, "cudaMallocAsync");
	R(freeasync, "cudaFreeAsync");
	R(streamsync, "cudaStreamSynchronize");
	R(attributes, "cudaPointerGetAttributes");
#undef R
}

void guardbegin(void) { active = 1; vrule[0] = 0; }
void guardend(void) { active = 0; }

int
guardviolation(char *rule, size_t rcap, char *detail, size_t dcap)
{
	if (!vrule[0])
		return 0;
	snprintf(rule, rcap, "%s", vrule);
	snprintf(detail, dcap, "%s", vdetail);
	return 1;
}

/* keep the first breach; 1 when the call must be refused */
static int
breach(const char *rule, const char *fmt, const char *what)
{
	if (!vrule[0]) {
		snprintf(vrule, sizeof vrule, "%s", rule);
		snprintf(vdetail, sizeof vdetail, fmt, what);
	}
	return 1;
}

static int
badstream(cudaStream_t s, const char *call)
{
	if (!active || s == 0 || s == cudaStreamLegacy)
		return 0;
	return breach("streams", "%s on a stream other than the default one: launch and copy on stream 0", call);
}

static int
ondevice(const void *p)
{
	struct cudaPointerAttributes a;

	if (!real.attributes || real.attributes(&a, p) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeDevice;
}

/* a copy must land in device memory, from the host or the device */
static int
badcopy(void *dst, const void *src, enum cudaMemcpyKind kind, const char *call)
{
	if (!active)
		return 0;
	if (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice) {
		if (dst && !ondevice(dst))
			return breach("host_compute", "%s into host memory: the work stays on the GPU", call);
		if (kind == cudaMemcpyDeviceToDevice && !ondevice(src))
			return breach("host_compute", "%s from host memory as if it were the device's", call);
		return 0;
	}
	return breach("host_compute", "%s to the host (device to host, or host to host): the work stays on the GPU",
	              call);
}

/* a memset must land in device memory */
static int
badset(void *p, const char *call)
{
	return active && p && !ondevice(p) && breach("host_compute", "%s on host memory: the work stays on the GPU", call);
}

#define NOTPERMITTED cudaErrorNotPermitted
#define FORWARD(f, ...) (real.f ? real.f(__VA_ARGS__) : cudaErrorNotSupported)

cudaError_t
__cudaLaunchKernel(const void *k, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s)
{
	return badstream(s, "a kernel launch") ? NOTPERMITTED : FORWARD(launch, k, g, b, args, shm, s);
}

cudaError_t
__cudaLaunchKernel_ptsz(const void *k, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s)
{
	if (active && breach("streams", "%s", "a launch on the per-thread default stream: use the legacy default stream"))
		return NOTPERMITTED;
	return FORWARD(launchpt, k, g, b, args, shm, s);
}

cudaError_t
cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s)
{
	return badstream(s, "cudaLaunchKernel") ? NOTPERMITTED : FORWARD(cudalaunch, f, g, b, args, shm, s);
}

cudaError_t
cudaLaunchCooperativeKernel(const void *f, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s)
{
	return badstream(s, "cudaLaunchCooperativeKernel") ? NOTPERMITTED : FORWARD(coop, f, g, b, args, shm, s);
}

cudaError_t
cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **args)
{
	return c && badstream(c->stream, "cudaLaunchKernelEx") ? NOTPERMITTED : FORWARD(launchex, c, f, args);
}

cudaError_t
cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
	return badcopy(d, s, k, "cudaMemcpy") ? NOTPERMITTED : FORWARD(memcpy, d, s, n, k);
}

cudaError_t
cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st)
{
	return badstream(st, "cudaMemcpyAsync") || badcopy(d, s, k, "cudaMemcpyAsync") ? NOTPERMITTED
	       : FORWARD(memcpyasync, d, s, n, k, st);
}

cudaError_t
cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k)
{
	return badcopy(d, s, k, "cudaMemcpy2D") ? NOTPERMITTED : FORWARD(memcpy2d, d, dp, s, sp, w, h, k);
}

cudaError_t
cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k,
                  cudaStream_t st)
{
	return badstream(st, "cudaMemcpy2DAsync") || badcopy(d, s, k, "cudaMemcpy2DAsync") ? NOTPERMITTED
	       : FORWARD(memcpy2dasync, d, dp, s, sp, w, h, k, st);
}

cudaError_t
cudaMemcpyToSymbol(const void *sym, const void *s, size_t n, size_t off, enum cudaMemcpyKind k)
{
	return badcopy(NULL, s, k, "cudaMemcpyToSymbol") ? NOTPERMITTED : FORWARD(tosymbol, sym, s, n, off, k);
}

cudaError_t
cudaMemcpyToSymbolAsync(const void *sym, const void *s, size_t n, size_t off, enum cudaMemcpyKind k, cudaStream_t st)
{
	return badstream(st, "cudaMemcpyToSymbolAsync") || badcopy(NULL, s, k, "cudaMemcpyToSymbolAsync")
	       ? NOTPERMITTED : FORWARD(tosymbolasync, sym, s, n, off, k, st);
}

cudaError_t
cudaMemset(void *p, int v, size_t n)
{
	return badset(p, "cudaMemset") ? NOTPERMITTED : FORWARD(memset, p, v, n);
}

cudaError_t
cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h)
{
	return badset(p, "cudaMemset2D") ? NOTPERMITTED : FORWARD(memset2d, p, pitch, v, w, h);
}

cudaError_t
cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
	return badstream(s, "cudaMemsetAsync") || badset(p, "cudaMemsetAsync") ? NOTPERMITTED
	       : FORWARD(memsetasync, p, v, n, s);
}

cudaError_t
cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
	return badstream(s, "cudaMallocAsync") ? NOTPERMITTED : FORWARD(mallocasync, p, n, s);
}

cudaError_t
cudaFreeAsync(void *p, cudaStream_t s)
{
	return badstream(s, "cudaFreeAsync") ? NOTPERMITTED : FORWARD(freeasync, p, s);
}

cudaError_t
cudaStreamSynchronize(cudaStream_t s)
{
	return badstream(s, "cudaStreamSynchronize") ? NOTPERMITTED : FORWARD(streamsync, s);
}
