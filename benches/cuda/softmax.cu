// CUDA C++ equivalent of tests/samples/softmax.wgsl: row softmax over rows of 128 f32, one
// block of 64 threads per row, max and sum reductions in shared memory.
#define COLS 128u
#define WG 64u

extern "C" __global__ void softmax(const float* x, float* y) {
    __shared__ float red[WG];
    unsigned int lid = threadIdx.x;
    unsigned int base = blockIdx.x * COLS;
    float v0 = x[base + lid];
    float v1 = x[base + lid + WG];
    red[lid] = fmaxf(v0, v1);
    __syncthreads();
    for (unsigned int s = WG / 2u; s > 0u; s /= 2u) {
        if (lid < s) {
            red[lid] = fmaxf(red[lid], red[lid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();
    float e0 = expf(v0 - row_max);
    float e1 = expf(v1 - row_max);
    red[lid] = e0 + e1;
    __syncthreads();
    for (unsigned int s = WG / 2u; s > 0u; s /= 2u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    y[base + lid] = e0 * inv;
    y[base + lid + WG] = e1 * inv;
}
