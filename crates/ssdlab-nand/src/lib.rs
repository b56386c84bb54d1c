//! ssdlab-nand (under construction).
