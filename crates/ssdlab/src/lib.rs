//! ssdlab (under construction).
