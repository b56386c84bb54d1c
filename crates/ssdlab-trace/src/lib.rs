//! ssdlab-trace (under construction).
