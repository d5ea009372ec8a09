// SPDX-License-Identifier: MIT
// overhead_holdall.cu with Store::HoldAllTight: the "instrumented_holdall_tight" variant.
#define WS_PIPELINE_STORE ws::iket::detail::Store::HoldAllTight
#define WS_PIPELINE_LAUNCH launchPipelineHoldAllTight
#include "overhead_holdall.cu"
