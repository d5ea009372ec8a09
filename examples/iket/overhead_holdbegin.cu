// SPDX-License-Identifier: MIT
// overhead_holdall.cu with Store::HoldBegin, the default before push/pop pairs: the
// "instrumented_holdbegin" variant, timed beside the default (Store::PairKeep) in the same run.
#define WS_PIPELINE_STORE ws::iket::detail::Store::HoldBegin
#define WS_PIPELINE_LAUNCH launchPipelineHoldBegin
#include "overhead_holdall.cu"
