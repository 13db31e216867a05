//! Plain-text tables and the number formats the reports use.

use std::time::Duration;

/// A table with a header row; columns are left-aligned and padded to their widest cell.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new(header: &[&str]) -> Table {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    /// Appends a row (missing cells print empty, extra cells are kept).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// The table as text, one line per row, with a rule under the header.
    pub fn render(&self) -> String {
        let ncols = self.rows.iter().map(Vec::len).chain([self.header.len()]).max().unwrap_or(0);
        let mut widths = vec![0usize; ncols];
        for r in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in r.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: &[String]| {
            let mut s = String::new();
            for (i, w) in widths.iter().enumerate() {
                let c = cells.get(i).map(String::as_str).unwrap_or("");
                s.push_str(c);
                if i + 1 < ncols {
                    s.push_str(&" ".repeat(w - c.chars().count() + 2));
                }
            }
            s.trim_end().to_string()
        };
        let mut out = line(&self.header);
        out.push('\n');
        let total: usize = widths.iter().sum::<usize>() + 2 * ncols.saturating_sub(1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
            out.push('\n');
        }
        out
    }
}

/// A duration in milliseconds with three significant decimals (`1.234 ms`).
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

/// `ours / theirs` as `0.42x`, with at least two significant digits for small ratios
/// (`0.0043x`); `-` when either is not a positive finite number.
pub fn ratio(ours: f64, theirs: f64) -> String {
    let r = ours / theirs;
    if !(ours.is_finite() && r.is_finite() && r > 0.0) {
        return "-".to_string();
    }
    let decimals = (1 - r.log10().floor() as i32).clamp(2, 6) as usize;
    format!("{r:.decimals$}x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_aligned() {
        let mut t = Table::new(&["kernel", "time"]);
        t.row(vec!["a".into(), "1 ms".into()]);
        t.row(vec!["longer_name".into(), "22 ms".into()]);
        let text = t.render();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "kernel       time");
        assert_eq!(lines[1], "-".repeat("longer_name  22 ms".len()));
        assert_eq!(lines[2], "a            1 ms");
        assert_eq!(lines[3], "longer_name  22 ms");
    }

    #[test]
    fn unicode_cells_count_characters() {
        let mut t = Table::new(&["名", "x"]);
        t.row(vec!["数据".into(), "1".into()]);
        assert_eq!(t.render().lines().nth(2), Some("数据  1"));
    }

    #[test]
    fn short_rows_print_empty_cells() {
        let mut t = Table::new(&["a", "b", "c"]);
        t.row(vec!["x".into()]);
        assert_eq!(t.render().lines().nth(2), Some("x"));
    }

    #[test]
    fn formats() {
        assert_eq!(ms(Duration::from_micros(1500)), "1.500 ms");
        assert_eq!(ratio(1.0, 4.0), "0.25x");
        assert_eq!(ratio(3.0, 0.0), "-");
        assert_eq!(ratio(0.124, 28.705), "0.0043x");
        assert_eq!(ratio(0.669, 37.43), "0.018x");
        assert_eq!(ratio(3.0, 2.0), "1.50x");
        assert_eq!(ratio(250.0, 2.0), "125.00x");
        assert_eq!(ratio(0.0, 2.0), "-");
    }
}
