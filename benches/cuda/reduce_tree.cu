// CUDA C++ equivalent of tests/samples/reduce_tree.wgsl: tree reduction in shared memory, a
// u32 sum and an f32 max per block of 256 threads.
#define WG 256u

extern "C" __global__ void reduce_tree(const unsigned int* ints, const float* floats,
                                       unsigned int* sums, float* maxima) {
    __shared__ unsigned int s_sum[WG];
    __shared__ float s_max[WG];
    unsigned int lid = threadIdx.x;
    unsigned int gid = blockIdx.x * blockDim.x + lid;
    s_sum[lid] = ints[gid];
    s_max[lid] = floats[gid];
    __syncthreads();
    for (unsigned int s = WG / 2u; s > 0u; s >>= 1u) {
        if (lid < s) {
            s_sum[lid] += s_sum[lid + s];
            s_max[lid] = fmaxf(s_max[lid], s_max[lid + s]);
        }
        __syncthreads();
    }
    if (lid == 0u) {
        sums[blockIdx.x] = s_sum[0];
        maxima[blockIdx.x] = s_max[0];
    }
}
