// CUDA C++ equivalent of tests/samples/matmul_tiled.wgsl: C = A * B for 64x64 row-major f32
// matrices, 16x16 tiles staged in shared memory. Launch 4x4 blocks of 16x16 threads.
#define N 64u
#define TILE 16u

extern "C" __global__ void matmul_tiled(const float* a, const float* b, float* c) {
    __shared__ float tile_a[TILE][TILE];
    __shared__ float tile_b[TILE][TILE];
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (unsigned int t = 0; t < N / TILE; t++) {
        tile_a[threadIdx.y][threadIdx.x] = a[row * N + t * TILE + threadIdx.x];
        tile_b[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * N + col];
        __syncthreads();
        for (unsigned int k = 0; k < TILE; k++) {
            acc += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
        }
        __syncthreads();
    }
    c[row * N + col] = acc;
}
