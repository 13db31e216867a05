// CUDA C++ equivalent of tests/samples/double_unicode.wgsl: doubles every u32 in place.
extern "C" __global__ void double_u32(unsigned int* data) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] = data[i] * 2u;
}
