/* nbody: the five-body planetary simulation (f64, sqrt, structs of doubles in memory), with
 * the system's energy at the end. A held-out kernel (bench/README.md). */
#include "rt.h"
#define NB 5
typedef struct { double x, y, z, vx, vy, vz, m; } Body;
static Body b[NB];
static double sqrt_(double x) { return __builtin_sqrt(x); }
static void init(void) {
  double v[NB][7] = {{0,0,0,0,0,0,39.47},{4.84,-1.16,-0.10,0.60,2.81,-0.02,0.037},{8.34,4.12,-0.40,-1.01,1.82,0.008,0.011},{12.89,-15.11,-0.22,1.08,0.86,-0.01,0.0017},{15.37,-25.91,0.17,0.97,0.59,-0.03,0.002}};
  for (int i = 0; i < NB; i++) { b[i].x = v[i][0]; b[i].y = v[i][1]; b[i].z = v[i][2]; b[i].vx = v[i][3]; b[i].vy = v[i][4]; b[i].vz = v[i][5]; b[i].m = v[i][6]; }
}
static void advance(double dt) {
  for (int i = 0; i < NB; i++) for (int j = i + 1; j < NB; j++) {
    double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
    double d2 = dx*dx + dy*dy + dz*dz; double mag = dt / (d2 * sqrt_(d2));
    b[i].vx -= dx * b[j].m * mag; b[i].vy -= dy * b[j].m * mag; b[i].vz -= dz * b[j].m * mag;
    b[j].vx += dx * b[i].m * mag; b[j].vy += dy * b[i].m * mag; b[j].vz += dz * b[i].m * mag;
  }
  for (int i = 0; i < NB; i++) { b[i].x += dt * b[i].vx; b[i].y += dt * b[i].vy; b[i].z += dt * b[i].vz; }
}
static double energy(void) { double e = 0; for (int i = 0; i < NB; i++) { e += 0.5 * b[i].m * (b[i].vx*b[i].vx + b[i].vy*b[i].vy + b[i].vz*b[i].vz); for (int j = i + 1; j < NB; j++) { double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z; e -= b[i].m * b[j].m / sqrt_(dx*dx + dy*dy + dz*dz); } } return e; }
EXPORT("run") i64 run(i32 steps) { init(); for (int s = 0; s < steps; s++) advance(0.01); return (i64)(energy() * 1e9); }
