// SPDX-License-Identifier: MIT
#pragma once

#include <QString>

namespace ws {

// Where an Open / Compare With… file dialog starts: beside the session that is open (the next
// file a user wants is usually its neighbour: the run after the change), else the folder of the
// last file opened, else the home folder. Never the process's launch directory. The embedded
// demo (":/…") and a path that no longer exists do not count as open sessions.
QString dialogDirectory(const QString& openSession, const QString& lastDirectory);

} // namespace ws
