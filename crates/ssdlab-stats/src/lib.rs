//! ssdlab-stats (under construction).
