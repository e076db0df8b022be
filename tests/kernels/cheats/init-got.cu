// task: gpuscale
// cheat: load-time tampering: a C++ global's constructor repoints the harness's GOT entry for cudaEventElapsedTime (every time scaled by 0.6)
// expect: screen
// runtime: bench
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
typedef cudaError_t (*elapsed_t)(float*, cudaEvent_t, cudaEvent_t);
static elapsed_t real;
static cudaError_t fake(float* ms, cudaEvent_t a, cudaEvent_t b)
{
    cudaError_t e = real(ms, a, b);
    *ms *= 0.6f;
    return e;
}
static int patch(struct dl_phdr_info* info, size_t, void*)
{
    if (info->dlpi_name && info->dlpi_name[0]) return 0; /* the main program only */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        ElfW(Dyn)* d = (ElfW(Dyn)*)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        ElfW(Rela)* rel = 0; ElfW(Sym)* sym = 0; const char* str = 0; size_t n = 0;
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_JMPREL) rel = (ElfW(Rela)*)d->d_un.d_ptr;
            if (d->d_tag == DT_PLTRELSZ) n = d->d_un.d_val / sizeof(ElfW(Rela));
            if (d->d_tag == DT_SYMTAB) sym = (ElfW(Sym)*)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB) str = (const char*)d->d_un.d_ptr;
        }
        for (size_t k = 0; rel && k < n; k++) {
            if (strcmp(str + sym[ELF64_R_SYM(rel[k].r_info)].st_name, "cudaEventElapsedTime")) continue;
            void** got = (void**)(info->dlpi_addr + rel[k].r_offset);
            mprotect((void*)((unsigned long)got & ~4095UL), 4096, PROT_READ | PROT_WRITE);
            real = (elapsed_t)*got;
            *got = (void*)fake;
        }
    }
    return 0;
}
struct Early { Early() { dl_iterate_phdr(patch, 0); } };
static Early early;
__global__ void k(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < 2048; r++) v = v * 1.0000001f;  /* long enough for the scaling to show */
        y[i] = 2.0f * x[i] + 1.0f + 0.0f * v;
    }
}
extern "C" void scale(const float* x, float* y, int n)
{
    k<<<(n + 255) / 256, 256>>>(x, y, n);
}
