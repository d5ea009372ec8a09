# SPDX-License-Identifier: MIT
# Fallback when Debian's QCustomPlotQt6 package config is absent. Lists the Qt 6 library first:
# libQCustomPlot.so is the Qt 5 build and must never be linked with Qt 6.
find_path(QCustomPlot_INCLUDE_DIR NAMES qcustomplot.h PATH_SUFFIXES qcustomplot)
find_library(QCustomPlot_LIBRARY NAMES QCustomPlotQt6 qcustomplot-qt6 qcustomplotqt6)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(QCustomPlot REQUIRED_VARS QCustomPlot_LIBRARY QCustomPlot_INCLUDE_DIR)
if(QCustomPlot_FOUND AND NOT TARGET QCustomPlot::QCustomPlot)
  add_library(QCustomPlot::QCustomPlot UNKNOWN IMPORTED)
  set_target_properties(QCustomPlot::QCustomPlot PROPERTIES
    IMPORTED_LOCATION "${QCustomPlot_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${QCustomPlot_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS QCUSTOMPLOT_USE_LIBRARY
    INTERFACE_LINK_LIBRARIES "Qt6::Widgets;Qt6::PrintSupport")
endif()
