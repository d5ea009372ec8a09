// SPDX-License-Identifier: MIT
#include "cubincapture.h"

#include "cuptistatus.h"

#include <cupti_pcsampling.h>

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
    const CUptiResult st = cuptiGetCubinCrc(&p);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiGetCubinCrc (module " + std::to_string(module.moduleId) + "): " + cuptiStatus(st);
        return c;
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

} // namespace ws::profiler
