/* matmul: dense 96x96 matrix products, in f64 and in f32 side by side (the inner loop loads
 * two doubles and two floats, multiplies and accumulates each), repeated with one element
 * changed between products. One of the held-out kernels (bench/README.md): written after the
 * JavaScript tier was tuned, to measure it on code it was not tuned for. */
#include "rt.h"
#define N 96
static double A[N*N], B[N*N], C[N*N];
static float Af[N*N], Bf[N*N], Cf[N*N];
EXPORT("run") i64 run(i32 reps) {
  u32 s = 7;
  for (int i = 0; i < N*N; i++) { A[i] = (double)(lcg32(&s) >> 8) / 65536.0; B[i] = (double)(lcg32(&s) >> 8) / 65536.0; Af[i] = (float)A[i]; Bf[i] = (float)B[i]; }
  double acc = 0; float accf = 0;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { double t = 0; float tf = 0; for (int k = 0; k < N; k++) { t += A[i*N+k] * B[k*N+j]; tf += Af[i*N+k] * Bf[k*N+j]; } C[i*N+j] = t; Cf[i*N+j] = tf; }
    acc += C[(r * 31) % (N*N)]; accf += Cf[(r * 17) % (N*N)];
    A[r % (N*N)] += 0.5;
  }
  return (i64)((u64)(i64)(acc * 1000.0) ^ ((u64)(i64)(accf * 10.0) << 32));
}
