// SPDX-License-Identifier: MIT
// overhead_holdall.cu with Store::Pair, the default before marks kept their store registers live
// (Store::PairKeep): the "instrumented_pair" variant, timed beside the default in the same run.
#define WS_PIPELINE_STORE ws::iket::detail::Store::Pair
#define WS_PIPELINE_LAUNCH launchPipelinePair
#include "overhead_holdall.cu"
