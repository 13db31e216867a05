// CUDA C++ equivalent of tests/samples/gelu.wgsl: tanh GELU with powf of a possibly negative
// base, the sigmoid form and SiLU, three results per element.
#define SQRT_2_OVER_PI 0.7978845608028654f
// Elements (the sample runs 8 workgroups of 64 over 512 inputs).
#define N 512u

__device__ float gelu_tanh(float v) {
    float inner = SQRT_2_OVER_PI * (v + 0.044715f * powf(v, 3.0f));
    return 0.5f * v * (1.0f + tanhf(inner));
}

extern "C" __global__ void gelu(const float* x, float* y) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) {
        return;
    }
    float v = x[i];
    y[3 * i] = gelu_tanh(v);
    y[3 * i + 1] = v / (1.0f + expf(-1.702f * v));
    y[3 * i + 2] = v / (1.0f + expf(-v));
}
