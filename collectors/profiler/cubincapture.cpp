// SPDX-License-Identifier: MIT
#include "cubincapture.h"

#include "cuptistatus.h"

#include <cupti_pcsampling.h>

#include <algorithm>
#include <cstdio>

namespace ws::profiler {

void CubinCapture::setDirectory(const std::string& dir, int64_t pid)
{
    m_dir = dir;
    m_pid = pid;
}

CapturedCubin CubinCapture::onModuleLoaded(const CUpti_ModuleResourceData& module, std::string& error)
{
    CapturedCubin c;
    if (!module.pCubin || module.cubinSize == 0)
        return c;
    CUpti_GetCubinCrcParams p {};
    p.size = CUpti_GetCubinCrcParamsSize;
    p.cubinSize = module.cubinSize;
    p.cubin = module.pCubin;
    CUptiResult st = cuptiGetCubinCrc(&p);
    // Seen off-GPU: the first call into a CUPTI not yet initialised answered success with CRC 0.
    if (st == CUPTI_SUCCESS && p.cubinCrc == 0)
        st = cuptiGetCubinCrc(&p);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiGetCubinCrc (module " + std::to_string(module.moduleId) + "): " + cuptiStatus(st);
        return c;
    }
    if (p.cubinCrc == 0) {
        // Keep the image under a key of its own; PC records then find it by function name.
        error = "cuptiGetCubinCrc returned 0 for module " + std::to_string(module.moduleId);
        p.cubinCrc = (uint64_t(1) << 63) | module.moduleId;
    }
    if (m_images.count(p.cubinCrc))
        return c;
    const auto* bytes = reinterpret_cast<const uint8_t*>(module.pCubin);
    auto& image = m_images[p.cubinCrc];
    image.assign(bytes, bytes + module.cubinSize);

    c.crc = p.cubinCrc;
    c.bytes = module.cubinSize;
    c.moduleId = module.moduleId;
    c.file = "cubin-" + std::to_string(m_pid) + "-" + std::to_string(p.cubinCrc) + ".cubin";
    const std::string path = m_dir + "/" + c.file;
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(image.data(), 1, image.size(), f) != image.size()) {
        error = "cannot write " + path;
        c.file.clear();
    }
    if (f)
        std::fclose(f);
    return c;
}

const std::vector<uint8_t>* CubinCapture::image(uint64_t crc) const
{
    auto it = m_images.find(crc);
    return it == m_images.end() ? nullptr : &it->second;
}

const std::vector<uint8_t>* CubinCapture::imageWithFunction(const std::string& name) const
{
    // A symbol name sits NUL-terminated in the cubin's string table.
    std::string needle;
    needle += '\0';
    needle += name;
    needle += '\0';
    for (const auto& [crc, image] : m_images) {
        if (std::search(image.begin(), image.end(), needle.begin(), needle.end()) != image.end())
            return &image;
    }
    return nullptr;
}

} // namespace ws::profiler
