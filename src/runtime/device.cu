/*
 * device.cu - device.h on the GPU, through the CUDA runtime. Built once
 * per build (nvcc -c, with -fmad=false: draw.h must round as the CPU
 * does) and linked into every variant's harness.
 */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <string.h>

#include "device.h"
#include "../lib/draw.h"

static unsigned long long *scratch; /* one word on the device for hashes and checks */
static int chosen;                  /* dv_init's device */
static struct cmpsums *cmpscratch;
static cudaEvent_t ev0, ev1;
static int coverblocks, coverthreads; /* the launch cover's grid: every thread slot of every SM */

__global__ void
drawkernel(void *p, int dt, size_t n, uint64_t seed, struct rt_dist d)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		rt_draw(p, dt, i, seed, d);
}

__global__ void
hashkernel(const unsigned char *p, size_t n, uint64_t salt, unsigned long long *out)
{
	size_t words = (n + 7) / 8;
	unsigned long long h = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
		uint64_t w = 0;
		if (8 * i + 8 <= n)
			w = ((const uint64_t *)p)[i];
		else
			for (size_t k = 0; 8 * i + k < n; k++)
				w |= (uint64_t)p[8 * i + k] << (8 * k);
		h += rt_hashword((salt << 40) + i, w);
	}
	for (int off = 16; off > 0; off /= 2)
		h += __shfl_down_sync(0xffffffffu, h, off);
	if ((threadIdx.x & 31) == 0)
		atomicAdd(out, h);
}

__global__ void
checkkernel(const unsigned char *p, size_t n, unsigned char byte, unsigned long long *out)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		if (p[i] != byte)
			*out = 1;
}

/* compare.c's check of one output, every element: the count by draw.h's
 * rule, the sums as compare.c makes them (-fmad=false: no fused ops) */
__global__ void
comparekernel(const void *got, const void *want, int dt, size_t n, double atol, double rtol, struct cmpsums *out)
{
	unsigned long long bad = 0;
	double num = 0, den = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		double g = rt_loadgot(got, want, dt, i), w = rt_load(want, dt, i);
		if (isfinite(g) && isfinite(w)) {
			double d = fabs(g - w);
			num += d * d;
			den += w * w;
		}
		bad += (unsigned long long)rt_elembad(g, w, atol, rtol);
	}
	for (int off = 16; off > 0; off /= 2) {
		bad += __shfl_down_sync(0xffffffffu, bad, off);
		num += __shfl_down_sync(0xffffffffu, num, off);
		den += __shfl_down_sync(0xffffffffu, den, off);
	}
	if ((threadIdx.x & 31) == 0) {
		atomicAdd(&out->bad, bad);
		atomicAdd(&out->num, num);
		atomicAdd(&out->den, den);
	}
}

static unsigned
blocksfor(size_t n)
{
	size_t b = (n + 255) / 256;
	return (unsigned)(b < 1 ? 1 : b > 8192 ? 8192 : b);
}

__global__ void
gatherkernel(unsigned char *dst, const unsigned char *src, size_t elem, size_t count, size_t step)
{
	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < count; k += (size_t)gridDim.x * blockDim.x)
		for (size_t b = 0; b < elem; b++)
			dst[k * elem + b] = src[k * step * elem + b];
}

extern "C" int
dv_gather(void *host, const void *src, size_t elem, size_t count, size_t step)
{
	static unsigned char *buf;
	static size_t cap;
	int e;

	if (count * elem > cap) {
		if (buf)
			cudaFree(buf);
		buf = NULL;
		cap = 0;
		if ((e = (int)cudaMalloc(&buf, count * elem)) != 0)
			return e;
		cap = count * elem;
	}
	gatherkernel<<<blocksfor(count), 256>>>(buf, (const unsigned char *)src, elem, count, step);
	if ((e = (int)cudaGetLastError()) != 0)
		return e;
	return (int)cudaMemcpy(host, buf, count * elem, cudaMemcpyDeviceToHost);
}

/* the driver's calls for shareable memory, through the runtime (no -lcuda) */
static struct {
	CUresult (*granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
	CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
	CUresult (*access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
	CUresult (*exportfd)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
	CUresult (*importfd)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
	CUresult (*unmap)(CUdeviceptr, size_t);
	CUresult (*addrfree)(CUdeviceptr, size_t);
	CUresult (*release)(CUmemGenericAllocationHandle);
	int device, looked;
} vmm;

static int
vmmlookup(void)
{
	static const char *const names[] = { "cuMemGetAllocationGranularity", "cuMemCreate", "cuMemAddressReserve",
	                                     "cuMemMap", "cuMemSetAccess", "cuMemExportToShareableHandle",
	                                     "cuMemImportFromShareableHandle", "cuMemUnmap", "cuMemAddressFree",
	                                     "cuMemRelease" };
	void **fns[] = { (void **)&vmm.granularity, (void **)&vmm.create, (void **)&vmm.reserve, (void **)&vmm.map,
	                 (void **)&vmm.access, (void **)&vmm.exportfd, (void **)&vmm.importfd, (void **)&vmm.unmap,
	                 (void **)&vmm.addrfree, (void **)&vmm.release };
	cudaDriverEntryPointQueryResult q;

	if (vmm.looked)
		return vmm.looked > 0 ? 0 : (int)cudaErrorNotSupported;
	vmm.looked = -1;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (cudaGetDriverEntryPointByVersion(names[i], fns[i], 12000, cudaEnableDefault, &q) != cudaSuccess ||
		    q != cudaDriverEntryPointSuccess || !*fns[i])
			return (int)cudaErrorNotSupported;
	if (cudaGetDevice(&vmm.device) != cudaSuccess)
		return (int)cudaErrorNotSupported;
	vmm.looked = 1;
	return 0;
}

/* the allocation's properties on this device, and n rounded up to its granularity */
static int
vmmprop(CUmemAllocationProp *prop, size_t *n)
{
	size_t g = 0;

	memset(prop, 0, sizeof *prop);
	prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = vmm.device;
	prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	if (vmm.granularity(&g, prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !g)
		return (int)cudaErrorNotSupported;
	*n = (*n + g - 1) / g * g;
	return 0;
}

/* handle's memory mapped at a new address, n bytes, readable (and writable) here */
static int
vmmmap(CUmemGenericAllocationHandle handle, size_t n, int writable, void **p)
{
	CUdeviceptr d = 0;
	CUmemAccessDesc acc;

	memset(&acc, 0, sizeof acc);
	acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	acc.location.id = vmm.device;
	acc.flags = writable ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_READ;
	if (vmm.reserve(&d, n, 0, 0, 0) != CUDA_SUCCESS)
		return (int)cudaErrorMemoryAllocation;
	if (vmm.map(d, n, 0, handle, 0) != CUDA_SUCCESS) {
		vmm.addrfree(d, n);
		return (int)cudaErrorInvalidValue;
	}
	if (vmm.access(d, n, &acc, 1) != CUDA_SUCCESS) {
		vmm.unmap(d, n);
		vmm.addrfree(d, n);
		return (int)cudaErrorInvalidValue;
	}
	*p = (void *)d;
	return 0;
}

extern "C" int
dv_bind(void)
{
	return (int)cudaSetDevice(chosen);
}

extern "C" int
dv_allocshared(void **p, size_t n, int *fd)
{
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	int e;

	*p = NULL;
	*fd = -1;
	if ((e = vmmlookup()) != 0 || (e = vmmprop(&prop, &n)) != 0)
		return e;
	if (vmm.create(&h, n, &prop, 0) != CUDA_SUCCESS)
		return (int)cudaErrorMemoryAllocation;
	if ((e = vmmmap(h, n, 1, p)) == 0 &&
	    vmm.exportfd(fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) != CUDA_SUCCESS) {
		dv_freeshared(*p, n);
		*p = NULL;
		*fd = -1;
		e = (int)cudaErrorNotSupported;
	}
	vmm.release(h); /* the mapping (and the fd) keep the memory */
	return e;
}

extern "C" int
dv_openshared(int fd, size_t n, void **p)
{
	CUmemAllocationProp prop;
	CUmemGenericAllocationHandle h;
	int e;

	*p = NULL;
	if ((e = vmmlookup()) != 0 || (e = vmmprop(&prop, &n)) != 0)
		return e;
	if (vmm.importfd(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) != CUDA_SUCCESS)
		return (int)cudaErrorInvalidValue;
	e = vmmmap(h, n, 0, p);
	vmm.release(h);
	return e;
}

extern "C" void
dv_freeshared(void *p, size_t n)
{
	CUmemAllocationProp prop;

	if (!p || vmmlookup() != 0 || vmmprop(&prop, &n) != 0)
		return;
	vmm.unmap((CUdeviceptr)p, n);
	vmm.addrfree((CUdeviceptr)p, n);
}

extern "C" int
dv_init(int device, struct dvinfo *info)
{
	struct cudaDeviceProp p;
	int n = 0;
	cudaError_t e;

	if ((e = cudaGetDeviceCount(&n)) != cudaSuccess)
		return (int)e;
	if (device >= n)
		return (int)cudaErrorInvalidDevice;
	chosen = device;
	if ((e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&p, device)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&scratch, sizeof *scratch)) != cudaSuccess ||
	    (e = cudaMalloc((void **)&cmpscratch, sizeof *cmpscratch)) != cudaSuccess ||
	    (e = cudaEventCreate(&ev0)) != cudaSuccess || (e = cudaEventCreate(&ev1)) != cudaSuccess)
		return (int)e;
	snprintf(info->name, sizeof info->name, "%s", p.name);
	{
		const unsigned char *u = (const unsigned char *)p.uuid.bytes;
		snprintf(info->uuid, sizeof info->uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		         u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	}
	info->major = p.major;
	info->minor = p.minor;
	info->sms = p.multiProcessorCount;
	coverthreads = p.maxThreadsPerBlock < p.maxThreadsPerMultiProcessor ? p.maxThreadsPerBlock :
	               p.maxThreadsPerMultiProcessor;
	coverblocks = p.multiProcessorCount * (p.maxThreadsPerMultiProcessor / coverthreads);
	info->l2 = p.l2CacheSize;
	/* twice the L2, and at least the 256 MiB do_bench and KernelBench clear */
	info->flushbytes = 2 * (size_t)p.l2CacheSize > ((size_t)256 << 20) ? 2 * (size_t)p.l2CacheSize : (size_t)256 << 20;
	cudaDriverGetVersion(&info->driver);
	cudaRuntimeGetVersion(&info->runtime);
	return 0;
}

extern "C" int
dv_driver(void)
{
	int n = 0;

	return (int)cudaGetDeviceCount(&n);
}

extern "C" const char *
dv_error(int code)
{
	return cudaGetErrorString((cudaError_t)code);
}

extern "C" int dv_lasterror(void) { return (int)cudaGetLastError(); }
extern "C" int dv_alloc(void **p, size_t n) { return (int)cudaMalloc(p, n ? n : 1); }
extern "C" void dv_free(void *p) { cudaFree(p); }
extern "C" int dv_meminfo(size_t *f, size_t *t) { return (int)cudaMemGetInfo(f, t); }
extern "C" int dv_memset(void *p, int byte, size_t n) { return (int)cudaMemset(p, byte, n); }
extern "C" int dv_copy(void *d, const void *s, size_t n) { return (int)cudaMemcpy(d, s, n, cudaMemcpyDeviceToDevice); }
extern "C" int dv_fetch(void *h, const void *s, size_t n) { return (int)cudaMemcpy(h, s, n, cudaMemcpyDeviceToHost); }
extern "C" int dv_upload(void *d, const void *h, size_t n) { return (int)cudaMemcpy(d, h, n, cudaMemcpyHostToDevice); }
extern "C" int dv_sync(void) { return (int)cudaDeviceSynchronize(); }

extern "C" void
dv_pin(void *host, size_t n)
{
	if (n && cudaHostRegister(host, n, cudaHostRegisterDefault) != cudaSuccess)
		cudaGetLastError(); /* pageable, then: slower, and the error is cleared */
}

extern "C" int
dv_draw(void *p, int dt, size_t n, uint64_t seed, const struct rt_dist *d)
{
	if (!n)
		return 0;
	drawkernel<<<blocksfor(n), 256>>>(p, dt, n, seed, *d);
	return (int)cudaGetLastError();
}

/* the word the kernel just launched reduced into scratch (zeroed before it) */
static int
scratchword(unsigned long long *v)
{
	cudaError_t e;

	if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaMemcpy(v, scratch, sizeof *v, cudaMemcpyDeviceToHost)) != cudaSuccess)
		return (int)e;
	return 0;
}

extern "C" int
dv_hash(const void *p, size_t n, uint64_t salt, uint64_t *out)
{
	unsigned long long h = 0;
	int e;

	if ((e = (int)cudaMemset(scratch, 0, sizeof *scratch)) != 0)
		return e;
	if (n)
		hashkernel<<<blocksfor((n + 7) / 8), 256>>>((const unsigned char *)p, n, salt, scratch);
	if ((e = scratchword(&h)) != 0)
		return e;
	*out = h;
	return 0;
}

extern "C" int
dv_check(const void *p, size_t n, int byte, int *bad)
{
	unsigned long long b = 0;
	int e;

	if ((e = (int)cudaMemset(scratch, 0, sizeof *scratch)) != 0)
		return e;
	if (n)
		checkkernel<<<blocksfor(n), 256>>>((const unsigned char *)p, n, (unsigned char)byte, scratch);
	if ((e = scratchword(&b)) != 0)
		return e;
	*bad = b != 0;
	return 0;
}

extern "C" int
dv_compare(const void *got, const void *want, int dt, size_t n, double atol, double rtol, struct cmpsums *s)
{
	cudaError_t e;

	if ((e = cudaMemset(cmpscratch, 0, sizeof *cmpscratch)) != cudaSuccess)
		return (int)e;
	if (n)
		comparekernel<<<blocksfor(n), 256>>>(got, want, dt, n, atol, rtol, cmpscratch);
	if ((e = cudaGetLastError()) != cudaSuccess ||
	    (e = cudaMemcpy(s, cmpscratch, sizeof *s, cudaMemcpyDeviceToHost)) != cudaSuccess)
		return (int)e;
	return 0;
}

/* the least launch cover (device.h): 200 us covered a Triton launch and
 * a PyTorch call on an H200 where 100 us did not (bench/launch-cover.py);
 * the harness lengthens a Python entry point's to its host's way.
 * It takes every thread slot of every SM, so that nothing else (work a
 * candidate slipped onto another stream) runs beside it unseen: such work
 * starts after the cover, and the parent's clock sees it as before. */
#define COVER_NS 200000ull

__global__ static void
coverkernel(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

extern "C" double dv_cover(void) { return COVER_NS / 1e6; }

extern "C" int
dv_timed(void (*fn)(void *), void *arg, double cover, float *ms)
{
	cudaError_t e;

	coverkernel<<<coverblocks, coverthreads>>>((unsigned long long)(cover * 1e6));
	cudaEventRecord(ev0, 0);
	if (fn)
		fn(arg);
	cudaEventRecord(ev1, 0);
	if ((e = cudaDeviceSynchronize()) != cudaSuccess || (e = cudaGetLastError()) != cudaSuccess)
		return (int)e;
	return (int)cudaEventElapsedTime(ms, ev0, ev1);
}
