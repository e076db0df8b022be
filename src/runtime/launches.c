/* launches.c - see launches.h */
#include "launches.h"

#include <dlfcn.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda.h>
#include <cupti.h> /* with the launch calls' parameters (generated_cuda_meta.h) */

enum { MAXALLOWED = 256 };

static struct {
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*enable)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
	CUptiResult (*version)(uint32_t *);
	CUptiResult (*error)(CUptiResult, const char **);
	CUresult (*funcname)(const char **, CUfunction);
	CUresult (*init)(unsigned);
	CUpti_SubscriberHandle sub;
	int subscribed, active;
	char allowed[16384], *pattern[MAXALLOWED];
	int npattern;
	double first; /* the host's ms at this call's first launch, 0 before it */
	char status[200], vdetail[512]; /* the first refusal of this call */
} W = { .status = "none: not armed (trusted code, or no CUPTI was found)" };

/* every call that starts work on the device: kernels (checked by name),
 * graphs and host functions (refused in a candidate's call) */
static const CUpti_CallbackId driverkernel[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice, CUPTI_DRIVER_TRACE_CBID_cuLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync,
};
static const CUpti_CallbackId driverother[] = {
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback, CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz,
};
/* CUDA 13's <<<>>> is __cudaLaunchKernel, with ids of its own (a CUPTI
 * of CUDA 12 has none: those it does not know are left out) */
static const CUpti_CallbackId runtimekernel[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernelMultiDevice_v9000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
static const CUpti_CallbackId runtimeother[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000, CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_ptsz_v7000,
};
#define COUNT(a) (int)(sizeof(a) / sizeof(a)[0])

static int
among(CUpti_CallbackId id, const CUpti_CallbackId *ids, int n)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* the CUfunction a driver launch names, where CUPTI gave no symbol name */
static const char *
driverfunc(CUpti_CallbackId id, const void *params)
{
	CUfunction f = NULL;
	const char *name = NULL;

	if (!params || !W.funcname)
		return NULL;
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: f = ((const cuLaunchKernel_params *)params)->f; break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: f = ((const cuLaunchKernel_ptsz_params *)params)->f; break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: f = ((const cuLaunchKernelEx_params *)params)->f; break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: f = ((const cuLaunchKernelEx_ptsz_params *)params)->f; break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
		f = ((const cuLaunchCooperativeKernel_params *)params)->f;
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
		f = ((const cuLaunchCooperativeKernel_ptsz_params *)params)->f;
		break;
	}
	return f && W.funcname(&name, f) == CUDA_SUCCESS ? name : NULL;
}

static int
allowed(const char *name)
{
	for (int i = 0; name && i < W.npattern; i++)
		if (fnmatch(W.pattern[i], name, 0) == 0)
			return 1;
	return 0;
}

static void
refuse(const char *what, const char *name)
{
	if (!W.vdetail[0])
		snprintf(W.vdetail, sizeof W.vdetail, "the call launched %s%.400s", what, name ? name : "");
}

static void CUPTIAPI
onlaunch(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *d = data;
	const char *name;
	int driver = dom == CUPTI_CB_DOMAIN_DRIVER_API;

	(void)user;
	if (!W.active || !d || d->callbackSite != CUPTI_API_ENTER)
		return;
	if (!W.first) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		W.first = (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
	}
	if (driver ? among(id, driverother, COUNT(driverother)) : among(id, runtimeother, COUNT(runtimeother))) {
		refuse("a CUDA graph or a host function: ", d->functionName);
		return;
	}
	name = d->symbolName && *d->symbolName ? d->symbolName : driver ? driverfunc(id, d->functionParams) : NULL;
	if (!allowed(name))
		refuse(name ? "a kernel that is not the candidate's: " : "a kernel whose name the driver did not give",
		       name);
}

void
launchallow(const char *patterns)
{
	char *s;

	snprintf(W.allowed, sizeof W.allowed, "%s", patterns);
	W.npattern = 0;
	for (s = strtok(W.allowed, "\n"); s && W.npattern < MAXALLOWED; s = strtok(NULL, "\n"))
		W.pattern[W.npattern++] = s;
}

/* the ids of ids[n] this CUPTI enabled */
static int
enableall(CUpti_CallbackDomain dom, const CUpti_CallbackId *ids, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		k += W.enable(1, W.sub, dom, ids[i]) == CUPTI_SUCCESS;
	return k;
}

/* subscribe and enable the launch calls */
static int
subscribe(void)
{
	CUptiResult e;
	const char *why = "?";
	uint32_t v = 0;
	int k;

	if ((e = W.subscribe(&W.sub, onlaunch, NULL)) != CUPTI_SUCCESS) {
		if (W.error)
			W.error(e, &why);
		snprintf(W.status, sizeof W.status, "none: CUPTI's subscription failed: %.120s", why);
		return -1;
	}
	/* the driver's own launch calls, which every launch reaches, must be
	 * had; an id a CUPTI older than the headers does not know is skipped */
	k = enableall(CUPTI_CB_DOMAIN_DRIVER_API, driverkernel, COUNT(driverkernel));
	if (k < COUNT(driverkernel)) {
		snprintf(W.status, sizeof W.status, "none: CUPTI enabled %d of the driver's %d kernel launch calls", k,
		         COUNT(driverkernel));
		return -1;
	}
	k += enableall(CUPTI_CB_DOMAIN_DRIVER_API, driverother, COUNT(driverother));
	k += enableall(CUPTI_CB_DOMAIN_RUNTIME_API, runtimekernel, COUNT(runtimekernel));
	k += enableall(CUPTI_CB_DOMAIN_RUNTIME_API, runtimeother, COUNT(runtimeother));
	W.version(&v);
	snprintf(W.status, sizeof W.status, "driver (CUPTI %u, %d of %d launch calls)", v, k,
	         COUNT(driverkernel) + COUNT(driverother) + COUNT(runtimekernel) + COUNT(runtimeother));
	return 0;
}

int
launchwatch(const char *cupti)
{
	void *lib, *cuda;

	if (!(lib = dlopen(cupti, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(W.status, sizeof W.status, "none: cannot load CUPTI: %.160s", dlerror());
		return -1;
	}
	*(void **)&W.subscribe = dlsym(lib, "cuptiSubscribe");
	*(void **)&W.enable = dlsym(lib, "cuptiEnableCallback");
	*(void **)&W.version = dlsym(lib, "cuptiGetVersion");
	*(void **)&W.error = dlsym(lib, "cuptiGetResultString");
	if (!W.subscribe || !W.enable || !W.version) {
		snprintf(W.status, sizeof W.status, "none: '%.120s' is not CUPTI's callback API", cupti);
		return -1;
	}
	if (!(cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) || !(*(void **)&W.init = dlsym(cuda, "cuInit")) ||
	    W.init(0) != CUDA_SUCCESS) {
		snprintf(W.status, sizeof W.status, "none: the CUDA driver did not initialise");
		return -1;
	}
	*(void **)&W.funcname = dlsym(cuda, "cuFuncGetName");
	if (subscribe() < 0)
		return -1;
	W.subscribed = 1;
	return 0;
}

void
launchbegin(void)
{
	W.active = W.subscribed;
	W.vdetail[0] = 0;
	W.first = 0;
}

double
launchfirst(void)
{
	return W.first;
}

void
launchend(void)
{
	W.active = 0;
}

int
launchviolation(char *rule, size_t rcap, char *detail, size_t dcap)
{
	if (!W.vdetail[0])
		return 0;
	snprintf(rule, rcap, "launches");
	snprintf(detail, dcap, "%s", W.vdetail);
	return 1;
}

const char *
launchstatus(void)
{
	return W.status;
}
