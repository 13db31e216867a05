#include <metal_stdlib>
#include <metal_simdgroup_matrix>
using namespace metal;

constant uint N = 32u;
constant uint K = 32u;

// error: MSL does not support cooperative matrices yet (planned: simdgroup_matrix tiles)
