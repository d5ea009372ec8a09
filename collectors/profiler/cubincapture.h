// SPDX-License-Identifier: MIT
#pragma once

#include "core/source/pcsamplingresult.h"

#include <cupti_callbacks.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws::profiler {

// The cubins of the modules the program loads, kept by CRC: PC sampling records name their
// cubin only by CRC, and SASS/source correlation and disassembly need the image itself. Each
// distinct image is written once into the result directory so that warpscope-cli can
// disassemble it after the run.
class CubinCapture {
public:
    void setDirectory(const std::string& dir, int64_t pid);
    // From CUPTI_CBID_RESOURCE_MODULE_LOADED. Returns the new cubin (crc 0 when it was seen
    // before or could not be read) so the caller can record it.
    CapturedCubin onModuleLoaded(const CUpti_ModuleResourceData& module, std::string& error);
    const std::vector<uint8_t>* image(uint64_t crc) const;
    // The first captured image whose symbols include `name`: for PC records whose CRC matches
    // no captured image.
    const std::vector<uint8_t>* imageWithFunction(const std::string& name) const;
    size_t count() const { return m_images.size(); }

private:
    std::string m_dir;
    int64_t m_pid = 0;
    std::map<uint64_t, std::vector<uint8_t>> m_images;
};

} // namespace ws::profiler
