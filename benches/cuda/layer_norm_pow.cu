// CUDA C++ equivalent of tests/samples/layer_norm_pow.wgsl: row statistics with
// powf(x - mean, 2.0f), sqrtf, and the normalized row; one block of 256 per row of 256.
#define COLS 256u
#define EPS 1e-5f

__device__ float reduce_sum(float* red, unsigned int lid, float v) {
    red[lid] = v;
    __syncthreads();
    for (unsigned int s = COLS / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            red[lid] += red[lid + s];
        }
        __syncthreads();
    }
    float total = red[0];
    __syncthreads();
    return total;
}

extern "C" __global__ void layer_norm_pow(const float* x, float* stats, float* y) {
    __shared__ float red[COLS];
    unsigned int lid = threadIdx.x;
    unsigned int row = blockIdx.x;
    float v = x[row * COLS + lid];
    float mean = reduce_sum(red, lid, v) / (float)COLS;
    float variance = reduce_sum(red, lid, powf(v - mean, 2.0f)) / (float)COLS;
    float stdev = sqrtf(variance + EPS);
    if (lid == 0u) {
        stats[2 * row] = mean;
        stats[2 * row + 1] = stdev;
    }
    y[row * COLS + lid] = (v - mean) / stdev;
}
