// A user kernel for `square` (out[i] = in[i]^2), built to cubins and PTX at build time for the
// compile-job tests (a cubin for sm_80 is refused for sm_90a, the sm_90a one is accepted).
extern "C" __global__ void square_kernel(const float* in, float* out, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}
