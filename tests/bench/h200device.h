// SPDX-License-Identifier: MIT
#pragma once

#include "core/raw/rawformat.h"

#include <cstdint>

namespace ws::bench {

// The device record the recorder wrote for the lent H200 (the raw files the ingest benchmarks
// rebuild came from it); `name` is the raw string id of "NVIDIA H200".
inline raw::DeviceRecord h200Device(uint32_t name)
{
    raw::DeviceRecord d {};
    d.name = name;
    d.ccMajor = 9;
    d.smCount = 132;
    d.clockKhz = 1980000;
    d.memClockKhz = 3201000;
    d.memBusWidthBits = 6144;
    d.maxThreadsPerSm = 2048;
    d.warpSize = 32;
    return d;
}

} // namespace ws::bench
