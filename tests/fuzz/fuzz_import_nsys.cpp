// SPDX-License-Identifier: MIT
// libFuzzer target: the NsysSqlite importer on arbitrary bytes (seeds: tests/fixtures/import, written
// into the corpus by scripts/fuzz.sh through WS_FUZZ_WRITE_SEED).
#include "fuzzimport.h"

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    ws::fuzz::writeSeeds(ws::ImportFormat::NsysSqlite);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    return ws::fuzz::importOnce(ws::ImportFormat::NsysSqlite, data, size);
}
