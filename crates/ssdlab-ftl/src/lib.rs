//! ssdlab-ftl (under construction).
