#pragma once
// mesh: the host reference's arithmetic, in long double and independent of
// common/mesh/mesh_element.hpp (the kernels' arithmetic), for the inputs
// (mesh_reference.cpp) and each kernel's expected outputs (its row's
// reference function in mesh_checks.cpp).
namespace ompref::mesh {

using LD = long double;

// The signed volume of the tet (a, b, c, d), points of 3 coordinates.
LD ld_volume(const double* a, const double* b, const double* c, const double* d);
// The area of the triangle (a, b, c).
LD ld_area(const double* a, const double* b, const double* c);
// The distance between p and q.
LD ld_distance(const double* p, const double* q);

}  // namespace ompref::mesh
