#pragma once
// mesh: what the kernel table (mesh_kernels.cpp) names per kernel tag,
// defined in mesh_checks.cpp:
//  - reference_<...>(m): its outputs' expected values and the checks'
//    tolerances that depend on the mesh alone, computed once per instance;
//  - check_<kernel>(m, repetitions, v): a variant's outputs against them;
//  - <kernel>_totals(m): the totals its observables report.
#include <nlohmann/json.hpp>

#include "common/validation.hpp"

namespace ompref::mesh {

class MeshInstance;

namespace checks {

void check_direct(const MeshInstance& m, int repetitions, Validation& v);

void check_downward(const MeshInstance& m, int repetitions, Validation& v);
nlohmann::json downward_totals(const MeshInstance& m);

void reference_spread(MeshInstance& m);
void check_transverse(const MeshInstance& m, int repetitions, Validation& v);

void reference_smooth(MeshInstance& m);
void check_upward(const MeshInstance& m, int repetitions, Validation& v);

void reference_lumped(MeshInstance& m);
void check_lumped(const MeshInstance& m, int repetitions, Validation& v);
nlohmann::json lumped_totals(const MeshInstance& m);

void reference_reductions(MeshInstance& m);
void check_reduce(const MeshInstance& m, int repetitions, Validation& v);
nlohmann::json reduce_totals(const MeshInstance& m);

}  // namespace checks
}  // namespace ompref::mesh
