// SPDX-License-Identifier: MIT
#pragma once

#include "ui/session/eventdetails.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessionsnapshot.h"

#include <QWidget>

class QTreeWidget;

namespace ws {

// The Selection dock: what is selected, in words and units: the time range (the filter all
// panels apply) with the events it holds, and the selected event with every detail the
// session has about it, including the API call that launched it.
class SelectionPanel : public QWidget {
    Q_OBJECT
public:
    SelectionPanel(SelectionModel* selection, EventDetailsSource* details, QWidget* parent = nullptr);
    void setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot);
    QTreeWidget* tree() const { return m_tree; }

private:
    void refresh();

    SelectionModel* m_selection;
    EventDetailsSource* m_source;
    std::shared_ptr<const SessionSnapshot> m_snapshot;
    EventDetails m_details;
    QTreeWidget* m_tree;
};

} // namespace ws
