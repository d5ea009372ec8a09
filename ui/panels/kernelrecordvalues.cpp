// SPDX-License-Identifier: MIT
#include "ui/panels/kernelrecordvalues.h"

#include "core/diagnosis/occupancycurves.h"
#include "core/metrics/metricnames.h"
#include "ui/panels/detailspanel.h"

#include <QObject>

#include <climits>

namespace ws {

namespace {

std::string triple(const std::array<int32_t, 3>& v)
{
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

} // namespace

KernelRecordValues KernelRecordValues::of(const PanelData* data, const ShownKernel& k)
{
    KernelRecordValues r;
    if (!k.config)
        return r;
    const LaunchConfig& c = *k.config;
    r.texts[metric::kRecordGrid] = triple(c.grid);
    r.texts[metric::kRecordBlock] = triple(c.block);
    r.texts[metric::kRecordCluster] = triple(c.cluster);
    r.numbers[metric::kGridSize] = static_cast<double>(c.gridBlocks());
    r.numbers[metric::kBlockSize] = static_cast<double>(c.blockThreads());
    r.numbers[metric::kRecordRegistersPerThread] = c.registersPerThread;
    r.numbers[metric::kSharedMemPerBlockStatic] = c.staticSmemBytes;
    r.numbers[metric::kSharedMemPerBlockDynamic] = c.dynamicSmemBytes;
    r.numbers[metric::kRecordLocalMemPerThread] = c.localMemPerThread;
    if (k.launch && k.launch->duration() > 0)
        r.numbers[metric::kDuration] = static_cast<double>(k.launch->duration());

    // The occupancy calculator, where the device is in its tables; otherwise the limiter row
    // says why there are no occupancy figures.
    std::string& why = r.texts[metric::kRecordOccupancyLimiter];
    const DeviceInfo* device = data ? data->device(c.deviceId) : nullptr;
    ArchitectureLimits limits;
    if (!device) {
        why = QObject::tr("no device record").toStdString();
        return r;
    }
    if (!ArchitectureLimits::forDevice(*device, limits)) {
        why = QObject::tr("compute capability %1.%2 is not in the occupancy tables")
                  .arg(device->ccMajor)
                  .arg(device->ccMinor)
                  .toStdString();
        return r;
    }
    if (c.blockThreads() <= 0) {
        why = QObject::tr("the record has no block size").toStdString();
        return r;
    }
    const OccupancyResult o = OccupancyCalculator(limits).compute(occupancyInput(c, limits));
    why = toString(o.limiter);
    r.numbers[metric::kRegistersPerThread] = o.allocatedRegsPerThread;
    if (device->smCount > 0)
        r.numbers[metric::kSmCount] = device->smCount;
    if (o.blocksPerSm > 0)
        r.numbers[metric::kWavesPerSm] = OccupancyCalculator::waves(c.gridBlocks(), o.blocksPerSm, device->smCount);
    auto limit = [&](const char* name, int v) {
        if (v != INT_MAX)
            r.numbers[name] = v;
    };
    limit(metric::kOccupancyLimitRegisters, o.limitRegisters);
    limit(metric::kOccupancyLimitSharedMem, o.limitSharedMem);
    limit(metric::kOccupancyLimitWarps, o.limitWarps);
    limit(metric::kOccupancyLimitBlocks, o.limitBlocks);
    r.numbers[metric::kTheoreticalOccupancy] = o.occupancyPct;
    r.numbers[metric::kTheoreticalWarpsPerSm] = o.activeWarpsPerSm;
    r.numbers[metric::kSharedMemConfigSize] = static_cast<double>(o.smemConfigBytes);
    return r;
}

} // namespace ws
