// Cylinder of radius 0.5 and height 2 with a hole of radius 0.2 through it
// (curved inner and outer boundaries): gmsh -3 cylinder.geo -format mesh -o cylinder.mesh
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 2, 0.5};
Cylinder(2) = {-1, 0, 1, 2, 0, 0, 0.2};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
Mesh.MeshSizeMax = 0.08;
Mesh.Optimize = 1;
