/*
 * calibrate.cu - the GPU's measured ceilings, for bench's % of speed of
 * light: memory bandwidth the way the best kernels move memory (the
 * fastest of cudaMemcpy and a vectorized copy kernel, bytes read plus
 * written; a streaming read; a streaming write; each over several grid
 * sizes), fp32 and fp64 FMA throughput, and bf16 tensor-core GEMM
 * throughput through cuBLAS. Prints one JSON object. Trusted code: bench
 * --calibrate runs it once per GPU and build, with that GPU alone visible
 * (device 0, or DEVICE).
 *
 * usage: calibrate [DEVICE]
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "calibrate: %s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <typename T>
__global__ void fma_loop(T *out, int iters, T a, T b)
{
	T x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
	for (int i = 0; i < iters; i++) {
		x0 = x0 * a + b; x1 = x1 * a + b; x2 = x2 * a + b; x3 = x3 * a + b;
		x4 = x4 * a + b; x5 = x5 * a + b; x6 = x6 * a + b; x7 = x7 * a + b;
	}
	if (x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 == (T)1234.5)
		out[blockIdx.x] = x0; /* keeps the loop alive */
}

/* streams n float4s once, as a read-only reduction kernel would */
__global__ void read_loop(const float4 *__restrict__ x, size_t n, float *out)
{
	float s = 0;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = __ldcs(x + i);
		s += v.x + v.y + v.z + v.w;
	}
	if (s == 1234.5f)
		out[0] = s; /* keeps the loads alive */
}

/* streams n float4s out, as an elementwise kernel's stores would */
__global__ void write_loop(float4 *__restrict__ y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		__stcs(y + i, make_float4(1, 2, 3, (float)i));
}

/* copies n float4s, read once and written once */
__global__ void copy_loop(const float4 *__restrict__ x, float4 *__restrict__ y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		__stcs(y + i, __ldcs(x + i));
}

static float
median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

/* f's time in ms: the median of 5 runs after 2 to warm up, between events */
template <typename F>
static float
timed(F f)
{
	static cudaEvent_t a, b;
	std::vector<float> ms;

	if (!a) {
		CK(cudaEventCreate(&a));
		CK(cudaEventCreate(&b));
	}
	for (int r = 0; r < 7; r++) {
		float t;
		CK(cudaEventRecord(a));
		f();
		CK(cudaEventRecord(b));
		CK(cudaEventSynchronize(b));
		CK(cudaEventElapsedTime(&t, a, b));
		if (r > 1)
			ms.push_back(t);
	}
	return median(ms);
}

template <typename T>
static double
fmapeak(int sms)
{
	T *out;
	const int iters = 1 << 14, blocks = sms * 16, threads = 256;
	float ms;

	CK(cudaMalloc(&out, blocks * sizeof(T)));
	ms = timed([&] { fma_loop<T><<<blocks, threads>>>(out, iters, (T)0.999, (T)0.001); });
	cudaFree(out);
	return 2.0 * 8 * iters * (double)blocks * threads / (ms * 1e-3) / 1e12;
}

/* memory bandwidth in GB/s, each the best over cudaMemcpy (copy only) and
 * the kernels at 4, 8 and 16 blocks per SM: copy (bytes read plus
 * written), streaming read, streaming write, over 1 GiB */
static void
bandwidth(int sms, double *copy, double *rd, double *wr)
{
	const size_t bytes = (size_t)1 << 30, n = bytes / sizeof(float4);
	float4 *x, *y;

	CK(cudaMalloc(&x, bytes));
	CK(cudaMalloc(&y, bytes));
	CK(cudaMemset(x, 1, bytes));
	*copy = 2.0 * bytes / (timed([&] { CK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice)); }) * 1e-3) / 1e9;
	*rd = *wr = 0;
	for (int k = 0; k < 3; k++) {
		int blocks = sms * (4 << k);
		*rd = std::max(*rd, bytes / (timed([&] { read_loop<<<blocks, 512>>>(x, n, (float *)y); }) * 1e-3) / 1e9);
		*wr = std::max(*wr, bytes / (timed([&] { write_loop<<<blocks, 512>>>(y, n); }) * 1e-3) / 1e9);
		*copy = std::max(*copy, 2.0 * bytes / (timed([&] { copy_loop<<<blocks, 512>>>(x, y, n); }) * 1e-3) / 1e9);
	}
	cudaFree(x);
	cudaFree(y);
}

/* tensor-core TFLOPS: an 8192^3 bf16 GEMM with fp32 accumulation through
 * cuBLAS (0 when cuBLAS cannot start) */
static double
tensorpeak(void)
{
	const int n = 8192;
	cublasHandle_t h;
	__nv_bfloat16 *A, *B;
	float *C, one = 1, zero = 0;
	double tflops = 0;

	CK(cudaMalloc(&A, (size_t)n * n * 2));
	CK(cudaMalloc(&B, (size_t)n * n * 2));
	CK(cudaMalloc(&C, (size_t)n * n * 4));
	CK(cudaMemset(A, 0x3c, (size_t)n * n * 2));
	CK(cudaMemset(B, 0x3c, (size_t)n * n * 2));
	if (cublasCreate(&h) == CUBLAS_STATUS_SUCCESS) {
		float ms = timed([&] {
			cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, CUDA_R_16BF, n, B, CUDA_R_16BF, n, &zero,
			             C, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
		});
		tflops = 2.0 * n * n * (double)n / (ms * 1e-3) / 1e12;
		cublasDestroy(h);
	}
	cudaFree(A);
	cudaFree(B);
	cudaFree(C);
	return tflops;
}

int
main(int argc, char **argv)
{
	int dev = argc > 1 ? atoi(argv[1]) : 0, drv = 0, rt = 0;
	cudaDeviceProp p;
	double copy, rd, wr, f32, f64, tensor;

	CK(cudaSetDevice(dev));
	CK(cudaGetDeviceProperties(&p, dev));
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rt);
	bandwidth(p.multiProcessorCount, &copy, &rd, &wr);
	f32 = fmapeak<float>(p.multiProcessorCount);
	f64 = fmapeak<double>(p.multiProcessorCount);
	tensor = tensorpeak();
	printf("{\"gpu\": \"%s\", \"compute_capability\": \"%d.%d\", \"sms\": %d, \"driver_cuda\": %d, "
	       "\"runtime\": %d, \"copy_gbs\": %.1f, \"read_gbs\": %.1f, \"write_gbs\": %.1f, \"fp32_tflops\": %.2f, "
	       "\"fp64_tflops\": %.2f, \"tensor_tflops\": %.1f}\n", p.name, p.major, p.minor, p.multiProcessorCount, drv,
	       rt, copy, rd, wr, f32, f64, tensor);
	return 0;
}
