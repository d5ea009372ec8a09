// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileresult.h"
#include "core/model/records.h"

#include <cuda.h>
#include <cupti_callbacks.h>

#include <string>
#include <vector>

namespace ws::profiler {

// What a driver launch callback tells about the launch: the function, its stream and its
// launch configuration. No activity tracing runs in a profile run, so this is the only record
// of grid, block, cluster, registers and shared memory.
struct CapturedLaunch {
    bool isKernelLaunch = false; // false for callbacks this does not understand
    CUfunction function = nullptr;
    CUstream stream = nullptr;
    ProfiledLaunch launch; // configuration fields and name filled, values empty
};

// Reads the launch parameters only: no driver call, so it is safe while a stream is being
// captured into a graph (driver calls such as loading a function can invalidate a capture).
CapturedLaunch captureLaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// The function's name: CUPTI's symbol name, else cuFuncGetName.
std::string functionName(const CapturedLaunch& c, const CUpti_CallbackData* cb);
// Registers, shared and local memory, cluster dimensions and stream id from the driver; only
// for launches that are profiled.
void completeLaunch(CapturedLaunch& c);

// Launches the kernel of a launch callback once more with the same arguments (on the same
// stream; a null stream of a _ptsz call is the per-thread stream). Our own replay passes use it.
CUresult relaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// Whether relaunch() understands the call: cuLaunchKernel, cuLaunchKernelEx and
// cuLaunchCooperativeKernel with their per-thread-stream variants.
bool canRelaunch(CUpti_CallbackId cbid);

// A device allocation a launch's arguments point into.
struct DeviceBuffer {
    CUdeviceptr base = 0;
    size_t bytes = 0;
};
// The device allocations the launch's arguments point to, in argument order, each once: every
// 8-byte-aligned word of every argument (structs included) that lies in device memory. Pointers
// stored in device memory are not followed. Empty where the driver cannot say how the arguments
// are laid out (cuFuncGetParamInfo, CUDA 12.4+). Only for launches relaunch() understands.
std::vector<DeviceBuffer> launchBuffers(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// For WS_PROFILE_TRACE: the launch call, its configuration and attributes, what the function handle is.
std::string describeLaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// True for cuGraphLaunch and its per-thread-stream variant.
bool isGraphLaunch(CUpti_CallbackId cbid);
// True for the driver calls that launch one kernel (cuLaunchKernel, cuLaunchKernelEx, ...).
bool isKernelLaunch(CUpti_CallbackId cbid);

// Whether `stream` is being captured into a graph: a captured launch runs no kernel, so it
// must neither start the profiler nor count as a range.
bool isCapturing(CUstream stream);

// Device properties for the session's device table (occupancy and roofline need them).
DeviceInfo queryDevice(CUdevice device, uint32_t id);

} // namespace ws::profiler
