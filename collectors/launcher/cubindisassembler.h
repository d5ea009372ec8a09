// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <vector>

namespace ws {

// Disassembles a captured cubin at record time with the CUDA toolkit of the recording machine,
// so the session carries SASS and the line table and the viewer needs no toolkit.
// Tries `nvdisasm -c -gi` (line table with inlining), `nvdisasm -c -g`, then `cuobjdump -sass`
// (no line table). The output is cached next to the cubin (`<cubin>.sass`, first line
// "# tool: <command>"), which is also how --from-raw reuses a disassembly made on the GPU machine.
class CubinDisassembler {
public:
    struct Result {
        bool ok = false;
        std::string tool; // the command line that produced `text`
        std::string text;
        std::string error; // why nothing worked, for a warning
    };

    // The toolkit program: $WS_<NAME> (e.g. WS_NVDISASM), PATH, $CUDA_HOME/bin, $CUDA_PATH/bin,
    // /usr/local/cuda/bin. Empty when none is executable.
    static std::string findTool(const std::string& name);

    static Result disassemble(const std::string& cubinPath);

private:
    // Runs argv with stdout into `outPath`; false (reason in `error`) on failure or timeout.
    static bool run(const std::vector<std::string>& argv, const std::string& outPath, std::string& error);
};

} // namespace ws
