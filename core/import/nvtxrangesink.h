// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <vector>

namespace ws {

// Where an importer hands NVTX ranges whose id and depth are already final while it is still
// reading the file (ImportOptions::nvtxSink), so that importIntoSession can write their rows on a
// second core during the parse instead of after it. Called on the importing thread.
class NvtxRangeSink {
public:
    virtual ~NvtxRangeSink() = default;
    // The next ranges in id order; ids continue from the previous call's last one.
    virtual void take(std::vector<NvtxRangeRecord>&& ranges) = 0;
    // Every range given so far is void (the file broke the order streaming relies on): the
    // import returns all its ranges in its SessionData after all. No take() follows.
    virtual void discard() = 0;
};

} // namespace ws
