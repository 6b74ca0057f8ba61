// Unit sphere, tetrahedra: gmsh -3 sphere.geo -format mesh -o sphere.mesh
SetFactory("OpenCASCADE");
Sphere(1) = {0, 0, 0, 1};
Mesh.MeshSizeMax = 0.12;
Mesh.Optimize = 1;
