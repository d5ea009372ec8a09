// SPDX-License-Identifier: MIT
#include "core/occupancy/architecture.h"

#include "core/model/records.h"

namespace ws {

namespace {

// Values from the CUDA Programming Guide's "Technical Specifications per Compute Capability"
// table and the CUDA occupancy calculator; the device's own attributes override them where a
// session carries them (see forDevice).
std::vector<ArchitectureLimits> buildTable()
{
    const std::vector<int> volta {0, 8, 16, 32, 64, 96};
    const std::vector<int> turing {32, 64};
    const std::vector<int> ga100 {0, 8, 16, 32, 64, 100, 132, 164};
    const std::vector<int> ga10x {0, 8, 16, 32, 64, 100};
    const std::vector<int> hopper {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

    auto make = [](int major, int minor, const char* family, int warps, int blocks, int64_t smemKib, int64_t optinBytes,
                    int64_t reserved, int smemUnit, std::vector<int> carveouts, int barrierSlots) {
        ArchitectureLimits a;
        a.ccMajor = major;
        a.ccMinor = minor;
        a.family = family;
        a.maxWarpsPerSm = warps;
        a.maxBlocksPerSm = blocks;
        a.smemPerSm = smemKib * 1024;
        a.smemPerBlockOptin = optinBytes;
        a.smemReservedPerBlock = reserved;
        a.smemAllocUnit = smemUnit;
        a.carveoutsKib = std::move(carveouts);
        a.barriersPerBlockSlot = barrierSlots;
        return a;
    };
    return {
        make(7, 0, "Volta", 64, 32, 96, 96 * 1024, 0, 256, volta, 2),
        make(7, 2, "Volta (Xavier)", 64, 32, 96, 96 * 1024, 0, 256, volta, 2),
        make(7, 5, "Turing", 32, 16, 64, 64 * 1024, 0, 256, turing, 2),
        make(8, 0, "Ampere (GA100)", 64, 32, 164, 163 * 1024, 1024, 128, ga100, 2),
        make(8, 6, "Ampere (GA10x)", 48, 16, 100, 99 * 1024, 1024, 128, ga10x, 1),
        make(8, 7, "Ampere (Orin)", 48, 16, 164, 163 * 1024, 1024, 128, ga100, 1),
        make(8, 9, "Ada", 48, 24, 100, 99 * 1024, 1024, 128, ga10x, 1),
        make(9, 0, "Hopper", 64, 32, 228, 227 * 1024, 1024, 128, hopper, 2),
        make(10, 0, "Blackwell (GB100)", 64, 32, 228, 227 * 1024, 1024, 128, hopper, 2),
        make(10, 3, "Blackwell (GB300)", 64, 32, 228, 227 * 1024, 1024, 128, hopper, 2),
        make(12, 0, "Blackwell (GB20x)", 48, 24, 100, 99 * 1024, 1024, 128, ga10x, 1),
    };
}

} // namespace

const std::vector<ArchitectureLimits>& ArchitectureLimits::all()
{
    static const std::vector<ArchitectureLimits> table = buildTable();
    return table;
}

const ArchitectureLimits* ArchitectureLimits::find(int ccMajor, int ccMinor)
{
    for (const auto& a : all()) {
        if (a.ccMajor == ccMajor && a.ccMinor == ccMinor)
            return &a;
    }
    return nullptr;
}

bool ArchitectureLimits::forDevice(const DeviceInfo& device, ArchitectureLimits& out)
{
    const ArchitectureLimits* base = find(device.ccMajor, device.ccMinor);
    if (!base) {
        // An unlisted minor version shares its major version's allocation rules.
        for (const auto& a : all()) {
            if (a.ccMajor == device.ccMajor && a.ccMinor <= device.ccMinor)
                base = &a;
        }
    }
    if (!base)
        return false;
    out = *base;
    if (device.warpSize > 0)
        out.warpSize = device.warpSize;
    if (device.maxThreadsPerBlock > 0)
        out.maxThreadsPerBlock = device.maxThreadsPerBlock;
    if (device.maxWarpsPerSm > 0)
        out.maxWarpsPerSm = device.maxWarpsPerSm;
    if (device.maxBlocksPerSm > 0)
        out.maxBlocksPerSm = device.maxBlocksPerSm;
    if (device.regsPerSm > 0)
        out.regsPerSm = device.regsPerSm;
    if (device.regsPerBlock > 0)
        out.maxRegsPerBlock = device.regsPerBlock;
    if (device.smemPerSm > 0)
        out.smemPerSm = device.smemPerSm;
    if (device.smemPerBlock > 0)
        out.smemPerBlockDefault = device.smemPerBlock;
    if (device.smemPerBlockOptin > 0)
        out.smemPerBlockOptin = device.smemPerBlockOptin;
    if (device.smemReservedPerBlock > 0)
        out.smemReservedPerBlock = device.smemReservedPerBlock;
    return true;
}

} // namespace ws
