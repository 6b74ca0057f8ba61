#include "common/io/vtk.hpp"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/io/output_file.hpp"

namespace ompref::vtk {

void write_vti(const std::string& path, const Image& im) {
  const std::uint64_t cells = std::uint64_t(im.nx) * im.ny * im.nz;
  std::string xml = "<?xml version=\"1.0\"?>\n";
  xml += "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n";
  xml += fmt::format("  <ImageData WholeExtent=\"0 {} 0 {} 0 {}\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n",
                     im.nx - 1, im.ny - 1, im.nz - 1);
  xml += fmt::format("    <Piece Extent=\"0 {} 0 {} 0 {}\">\n      <PointData>\n", im.nx - 1, im.ny - 1, im.nz - 1);
  std::uint64_t offset = 0;
  for (const Field& f : im.fields) {
    if (f.data.size() != cells * std::uint64_t(f.components))
      throw std::runtime_error(fmt::format("vtk: field {} has {} values, expected {}", f.name, f.data.size(),
                                           cells * f.components));
    xml += fmt::format(
        "        <DataArray type=\"Float32\" Name=\"{}\" NumberOfComponents=\"{}\" format=\"appended\" offset=\"{}\"/>\n",
        f.name, f.components, offset);
    offset += sizeof(std::uint64_t) + f.data.size() * sizeof(float);
  }
  xml += "      </PointData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _";
  for (const Field& f : im.fields) {
    const std::uint64_t bytes = f.data.size() * sizeof(float);
    xml.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    xml.append(reinterpret_cast<const char*>(f.data.data()), bytes);
  }
  xml += "\n  </AppendedData>\n</VTKFile>\n";
  write_output(path, xml, "--out (VTK frame)");
}

void write_pvd(const std::string& path, const std::vector<std::pair<double, std::string>>& frames) {
  std::string xml = "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                    "  <Collection>\n";
  for (const auto& [time, file] : frames)
    xml += fmt::format("    <DataSet timestep=\"{}\" group=\"\" part=\"0\" file=\"{}\"/>\n", time, file);
  xml += "  </Collection>\n</VTKFile>\n";
  write_output(path, xml, "--out (VTK index)");
}

static std::string attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  auto at = tag.find(key);
  if (at == std::string::npos) throw std::runtime_error("vtk: no attribute " + name);
  at += key.size();
  return tag.substr(at, tag.find('"', at) - at);
}

Image read_vti(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("vtk: cannot read " + path);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto marker = all.find("<AppendedData encoding=\"raw\">");
  if (marker == std::string::npos) throw std::runtime_error("vtk: no raw appended data in " + path);
  const std::size_t base = all.find('_', marker) + 1;
  const std::string head = all.substr(0, marker);
  Image im;
  {
    auto p = head.find("<ImageData");
    std::istringstream ext(attribute(head.substr(p, head.find('>', p) - p), "WholeExtent"));
    int x0, x1, y0, y1, z0, z1;
    ext >> x0 >> x1 >> y0 >> y1 >> z0 >> z1;
    im.nx = x1 - x0 + 1;
    im.ny = y1 - y0 + 1;
    im.nz = z1 - z0 + 1;
  }
  for (std::size_t p = head.find("<DataArray"); p != std::string::npos; p = head.find("<DataArray", p + 1)) {
    const std::string tag = head.substr(p, head.find('>', p) - p);
    if (attribute(tag, "type") != "Float32") throw std::runtime_error("vtk: only Float32 arrays are read");
    Field f;
    f.name = attribute(tag, "Name");
    f.components = std::stoi(attribute(tag, "NumberOfComponents"));
    const std::size_t at = base + std::stoull(attribute(tag, "offset"));
    std::uint64_t bytes = 0;
    if (at + sizeof bytes > all.size()) throw std::runtime_error("vtk: truncated " + path);
    std::memcpy(&bytes, all.data() + at, sizeof bytes);
    if (at + sizeof bytes + bytes > all.size()) throw std::runtime_error("vtk: truncated " + path);
    f.data.resize(bytes / sizeof(float));
    std::memcpy(f.data.data(), all.data() + at + sizeof bytes, bytes);
    im.fields.push_back(std::move(f));
  }
  return im;
}

}  // namespace ompref::vtk
