//! Blocks pasted from a spreadsheet: tab-separated (what spreadsheets put on the clipboard) or,
//! failing that, comma- or semicolon-separated rows.

/// Splits pasted text into rows of trimmed cells; blank lines are dropped. Tabs win over commas
/// and semicolons, so "1,5" stays one cell (a decimal comma) in a tab-separated block.
pub fn parse_block(text: &str) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim_end_matches('\r'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let separator = if text.contains('\t') {
        '\t'
    } else if lines.iter().any(|l| l.contains(';')) {
        ';'
    } else {
        ','
    };
    lines
        .iter()
        .map(|line| {
            line.split(separator)
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// A number as people type it: "2.5", " 3 ", "1,5" (decimal comma) or "1e3".
pub fn parse_number(text: &str) -> Option<f64> {
    let t = text.trim();
    t.parse::<f64>()
        .ok()
        .or_else(|| t.replace(',', ".").parse::<f64>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_separated_blocks_from_spreadsheets() {
        let rows = parse_block("1\t2\t3\t4\r\n5\t6\t7\t8\n9\t10\t11\t12\n");
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[2], ["9", "10", "11", "12"]);
        assert_eq!(parse_block("1,5\t2")[0], ["1,5", "2"]);
    }

    #[test]
    fn comma_and_semicolon_blocks() {
        assert_eq!(
            parse_block("1, 2,3\n\n4,5,6"),
            [["1", "2", "3"], ["4", "5", "6"]]
        );
        assert_eq!(parse_block("1,5;2\n3;4"), [["1,5", "2"], ["3", "4"]]);
    }

    #[test]
    fn numbers_as_typed() {
        assert_eq!(parse_number(" 2.5 "), Some(2.5));
        assert_eq!(parse_number("1,5"), Some(1.5));
        assert_eq!(parse_number("1e3"), Some(1000.0));
        assert_eq!(parse_number("abc"), None);
        assert_eq!(parse_number(""), None);
    }
}
