// CUDA C++ equivalent of tests/samples/trig_waves.wgsl: trigonometry of time-scaled arguments
// (up to about 1e5 and 1e9), inverse and hyperbolic functions, eight results per element.
// Elements (the sample runs 4 workgroups of 64).
#define N 256u

extern "C" __global__ void trig_waves(const float* t, float* out) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= N) {
        return;
    }
    float v = t[i];
    float big = v * 98765.4f;
    float huge = v * 1.0e9f;
    unsigned int o = 8u * i;
    out[o] = sinf(big);
    out[o + 1] = cosf(big + 0.5f);
    out[o + 2] = sinf(huge) * cosf(huge);
    out[o + 3] = tanf(v * 1234.5f);
    out[o + 4] = atan2f(sinf(big), cosf(huge));
    out[o + 5] = asinf(v * 0.99f) + acosf(v * 0.5f) + atanf(v * 50.0f);
    out[o + 6] = sinhf(v * 2.0f) - coshf(v) + tanhf(v * 8.0f);
    out[o + 7] = asinhf(v * 100.0f) + atanhf(v * 0.9f) + acoshf(2.0f + v);
}
