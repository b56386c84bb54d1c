//! [`RaidLayout::table`]: a printable map of the first rows of a layout.

use crate::config::Domain;
use crate::layout::RaidLayout;
use crate::level::RaidLevel;
use std::fmt::Write;

impl RaidLayout {
    /// A text table of the first `rows` rows, one column per member.
    ///
    /// The first line names the members (`C0 C1 …` for chips, `ch0 ch1 …` for channels), the
    /// second gives each member's group (`G0 …`), then one line per row whose cells are
    /// `d12` (host LPN 12), `p3` (parity of group 3) or `m12` (mirror of LPN 12). Columns are
    /// left-aligned to the widest cell; lines carry no trailing spaces.
    pub fn table(&self, rows: u64) -> String {
        let prefix = match self.domain() {
            Domain::Chip => "C",
            Domain::Channel => "ch",
        };
        let mut lines: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["row".to_string()];
        head.extend((0..self.members()).map(|u| format!("{prefix}{u}")));
        lines.push(head);
        let mut groups = vec!["group".to_string()];
        groups.extend((0..self.members()).map(|u| format!("G{}", self.group_of(u))));
        lines.push(groups);
        for row in 0..rows {
            let mut line = vec![row.to_string()];
            line.extend((0..self.members()).map(|u| self.cell(row, u)));
            lines.push(line);
        }
        let width = lines
            .iter()
            .flatten()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0)
            + 2;
        let mut out = String::new();
        for line in &lines {
            let mut text = String::new();
            for cell in line {
                // Writing to a String cannot fail.
                let _ = write!(text, "{cell:<width$}");
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out
    }

    /// The cell text of `member` in `row`.
    fn cell(&self, row: u64, member: u32) -> String {
        let (group, pos) = (self.group_of(member), self.pos_in_group(member));
        if let Some(lpn) = self.lpn_at(row, group, pos) {
            return format!("d{lpn}");
        }
        match self.level() {
            RaidLevel::Raid4 | RaidLevel::Raid5 => format!("p{group}"),
            _ => {
                let data_pos = pos - self.group_size() / 2;
                let lpn = self
                    .lpn_at(row, group, data_pos)
                    .expect("a RAID-1 mirror position pairs with a data position");
                format!("m{lpn}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::Layout;
    use crate::level::RaidLevel;
    use crate::testutil::layout;

    #[test]
    fn lci_table_matches_brr_fig8() {
        let t = layout(RaidLevel::Raid5, Layout::Lci, 9, 3).table(2);
        let want = "\
row    C0     C1     C2     C3     C4     C5     C6     C7     C8
group  G0     G1     G2     G0     G1     G2     G0     G1     G2
0      d0     d1     d2     d3     d4     d5     p0     p1     p2
1      d6     d7     d8     p0     p1     p2     d9     d10    d11
";
        assert_eq!(t, want);
    }

    #[test]
    fn mirror_and_empty_tables() {
        let t = layout(RaidLevel::Raid1, Layout::Adjacent, 4, 2).table(1);
        assert_eq!(
            t.lines()
                .nth(2)
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["0", "d0", "m0", "d1", "m1"]
        );
        assert_eq!(
            layout(RaidLevel::Raid0, Layout::Adjacent, 3, 1)
                .table(0)
                .lines()
                .count(),
            2
        );
    }
}
